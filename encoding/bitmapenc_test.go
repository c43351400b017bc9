package encoding_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The goldens are derived by hand from the Java BitmapEncoder: UVarInt length of the entries,
// UVarInt count, then per distinct value (in java.util.HashSet iteration order: by bucket
// (h ^ h>>>16) & (capacity-1), capacity 16 for up to 11 values) its UVarInt bits and
// ceil(count/8) bytes marking its positions, most significant bit first.
var bitmapGolden = []struct {
	name string
	v    []int32
	want []byte
}{
	{
		name: "two values",
		v:    []int32{3, 5, 3},
		want: []byte{
			0x04,       // entries: 2 × (1-byte value + 1-byte bitmap)
			0x03,       // three values
			0x03, 0xa0, // 3 in bucket 3 at positions 0 and 2: 1010_0000
			0x05, 0x40, // 5 in bucket 5 at position 1: 0100_0000
		},
	},
	{
		name: "bucket order, not input order",
		v:    []int32{20, 3},
		want: []byte{0x04, 0x02, 0x03, 0x40, 0x14, 0x80}, // bucket 3 before bucket 4
	},
	{
		name: "high half folded into the hash",
		v:    []int32{2, 65536},
		// hash(65536) = 65536 ^ 1 lands in bucket 1, before 2 in bucket 2; 65536 is the
		// UVarInt 80 80 04.
		want: []byte{0x06, 0x02, 0x80, 0x80, 0x04, 0x40, 0x02, 0x80},
	},
	{
		name: "same bucket keeps insertion order",
		v:    []int32{17, 1, 17},
		want: []byte{0x04, 0x03, 0x11, 0xa0, 0x01, 0x40}, // 17 and 1 share bucket 1
	},
	{
		name: "negative value",
		v:    []int32{-1},
		// -1 is 0xffffffff: UVarInt ff ff ff ff 0f, then the position byte 1000_0000
		want: []byte{0x06, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x80},
	},
	{
		name: "nine positions",
		v:    []int32{0, 0, 0, 0, 0, 0, 0, 0, 7},
		want: []byte{0x06, 0x09, 0x00, 0xff, 0x00, 0x07, 0x00, 0x80},
	},
	{
		name: "empty",
		v:    []int32{},
		want: []byte{}, // Java writes nothing for no values
	},
}

func TestBitmapGolden(t *testing.T) {
	for _, g := range bitmapGolden {
		t.Run(g.name, func(t *testing.T) { checkGoldenInt32(t, encoding.Bitmap, []byte{}, g.v, g.want) })
	}
}

// TestBitmapHashSetOrder pins an order that exercises the emulated HashMap's resize and tree
// bins, derived by hand from the HashMap algorithm. Twelve values give capacity 32
// ((int)(12/.75f)+1 = 17, rounded up); 0, 64, ..., 576 all fall into bucket 0. Appending the
// ninth (512) would make a tree, but the table is below 64 slots, so it doubles instead and the
// multiples of 64 stay in bucket 0. Appending the tenth (576) then turns the bin into a
// red-black tree; inserting the ten ascending hashes makes 192 the root (rotations at 128,
// 256, 384, 448 and 512, recolorings elsewhere), and the root moves to the front of the
// bin's list. 1 and 2 sit alone in buckets 1 and 2.
func TestBitmapHashSetOrder(t *testing.T) {
	v := []int32{0, 64, 128, 192, 256, 320, 384, 448, 512, 576, 1, 2}
	src, err := encoding.AppendEncodedInt32(encoding.Bitmap, nil, v)
	require.NoError(t, err)
	got := make([]int32, len(v))
	require.NoError(t, encoding.DecodeInt32(encoding.Bitmap, got, src))
	require.Equal(t, v, got)
	require.Equal(t, []int32{192, 0, 64, 128, 256, 320, 384, 448, 512, 576, 1, 2}, bitmapEntryOrder(src))
}

// bitmapEntryOrder lists the values of a single-section stream in stream order.
func bitmapEntryOrder(src []byte) []int32 {
	uv := func(off int) (uint32, int) {
		var v uint32
		for s := 0; ; s += 7 {
			c := src[off]
			off++
			v |= uint32(c&0x7f) << s
			if c < 0x80 {
				return v, off
			}
		}
	}
	_, off := uv(0)
	n, off := uv(off)
	width := (int(n) + 7) / 8
	var out []int32
	for off < len(src) {
		var v uint32
		v, off = uv(off)
		out = append(out, int32(v))
		off += width
	}
	return out
}

func TestBitmapRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	kinds := []string{"constant", "monotonic", "walk", "random", "extremes", "few", "colliding"}
	for _, kind := range kinds {
		for _, n := range regularLengths {
			v := make([]int32, n)
			switch kind {
			case "few":
				for i := range v {
					v[i] = int32(r.IntN(5)) - 2
				}
			case "colliding":
				// Many values per bucket, so that bins turn into trees and back.
				for i := range v {
					v[i] = int32(r.IntN(40)) << 12
				}
			default:
				for i, x := range regularSeries(r, kind, n) {
					v[i] = int32(x)
				}
			}
			src, err := encoding.AppendEncodedInt32(encoding.Bitmap, nil, v)
			require.NoError(t, err)
			got := make([]int32, n)
			require.NoError(t, encoding.DecodeInt32(encoding.Bitmap, got, src), "%s %d", kind, n)
			require.Equal(t, v, got, "%s %d", kind, n)
		}
	}
}

// TestBitmapSections checks that a stream of several sections (one per Java flush) decodes.
func TestBitmapSections(t *testing.T) {
	a, err := encoding.AppendEncodedInt32(encoding.Bitmap, nil, []int32{1, 2, 1})
	require.NoError(t, err)
	b, err := encoding.AppendEncodedInt32(encoding.Bitmap, a, []int32{math.MinInt32})
	require.NoError(t, err)
	got := make([]int32, 4)
	require.NoError(t, encoding.DecodeInt32(encoding.Bitmap, got, b))
	require.Equal(t, []int32{1, 2, 1, math.MinInt32}, got)
	require.ErrorIs(t, encoding.DecodeInt32(encoding.Bitmap, make([]int32, 2), b), encoding.ErrCorrupt)
}

func TestBitmapErrors(t *testing.T) {
	valid := bitmapGolden[0].want // 04 03 | 03 a0 | 05 40
	tests := []struct {
		name string
		n    int
		src  []byte
	}{
		{"empty stream", 1, nil},
		{"trailing garbage", 3, append(append([]byte{}, valid...), 0)},
		{"too many values", 2, valid},
		{"too few values", 4, valid},
		{"zero count", 1, []byte{0x02, 0x00, 0x01, 0x80}},
		{"huge count", 3, []byte{0x04, 0xff, 0xff, 0xff, 0xff, 0x07, 0x03, 0xa0, 0x05, 0x40}},
		{"count overflows int32", 3, []byte{0x04, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x03, 0xa0, 0x05, 0x40}},
		{"count overflows 32 bits", 3, []byte{0x04, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x03, 0xa0, 0x05, 0x40}},
		{"huge length", 3, []byte{0xff, 0xff, 0xff, 0xff, 0x07, 0x03, 0x03, 0xa0, 0x05, 0x40}},
		{"length overflows int32", 3, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x03, 0x03, 0xa0, 0x05, 0x40}},
		{"length past the end", 3, []byte{0x05, 0x03, 0x03, 0xa0, 0x05, 0x40}},
		{"length cuts an entry", 3, []byte{0x03, 0x03, 0x03, 0xa0, 0x05, 0x40}},
		{"length too short for a bitmap", 9, []byte{0x02, 0x09, 0x00, 0xff}},
		{"position marked twice", 3, []byte{0x04, 0x03, 0x03, 0xa0, 0x05, 0x60}},
		{"position unmarked", 3, []byte{0x04, 0x03, 0x03, 0x80, 0x05, 0x40}},
		{"repeated value", 3, []byte{0x04, 0x03, 0x03, 0xa0, 0x03, 0x40}},
		{"padding bit", 3, []byte{0x04, 0x03, 0x03, 0xa1, 0x05, 0x40}},
		{"empty entry", 3, []byte{0x06, 0x03, 0x03, 0xa0, 0x05, 0x40, 0x07, 0x00}},
		{"value overflows 32 bits", 1, []byte{0x06, 0x01, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x80}},
		{"truncated value", 1, []byte{0x02, 0x01, 0xff, 0x80}},
	}
	for i := range len(valid) {
		tests = append(tests, struct {
			name string
			n    int
			src  []byte
		}{"truncated", 3, valid[:i]})
	}
	for _, tt := range tests {
		err := encoding.DecodeInt32(encoding.Bitmap, make([]int32, tt.n), tt.src)
		require.ErrorIs(t, err, encoding.ErrCorrupt, "%s: %x", tt.name, tt.src)
		require.NotErrorIs(t, err, encoding.ErrUnsupported, tt.name)
		require.Contains(t, err.Error(), "BITMAP INT32 at byte ", tt.name)
	}
	require.NoError(t, encoding.DecodeInt32(encoding.Bitmap, nil, nil))
}

func TestBitmapUnsupportedTypes(t *testing.T) {
	require.ErrorIs(t, encoding.DecodeInt64(encoding.Bitmap, make([]int64, 1), []byte{1}), encoding.ErrUnsupported)
	_, err := encoding.AppendEncodedInt64(encoding.Bitmap, nil, []int64{1})
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	_, err = encoding.CountInt64(encoding.Bitmap, nil)
	require.ErrorIs(t, err, encoding.ErrUnsupported)
}

func bitmapBenchValues() []int32 {
	r := rand.New(rand.NewPCG(33, 34))
	v := make([]int32, benchValues)
	for i := range v {
		v[i] = int32(r.IntN(8)) // an enum: BITMAP's intended data
	}
	return v
}

func TestBitmapDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	v := bitmapBenchValues()
	src, err := encoding.AppendEncodedInt32(encoding.Bitmap, nil, v)
	require.NoError(t, err)
	dst := make([]int32, len(v))
	// Warm the scratch pool, then expect no allocations.
	require.NoError(t, encoding.DecodeInt32(encoding.Bitmap, dst, src))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if err := encoding.DecodeInt32(encoding.Bitmap, dst, src); err != nil {
			panic(err)
		}
	}))
	buf := make([]byte, 0, 2*len(src))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if _, err := encoding.AppendEncodedInt32(encoding.Bitmap, buf, v); err != nil {
			panic(err)
		}
	}))
}

// FuzzDecodeInt32Bitmap takes the value count from the input's first two bytes.
func FuzzDecodeInt32Bitmap(f *testing.F) {
	for _, g := range bitmapGolden {
		f.Add(append([]byte{0, byte(len(g.v))}, g.want...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		n, src := int(in[0])<<8|int(in[1]), in[2:]
		dst := make([]int32, n)
		err := encoding.DecodeInt32(encoding.Bitmap, dst, src)
		requireSentinel(t, err)
		if err != nil {
			return
		}
		re, err := encoding.AppendEncodedInt32(encoding.Bitmap, nil, dst)
		require.NoError(t, err)
		again := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(encoding.Bitmap, again, re))
		require.Equal(t, dst, again)
		if n > 0 {
			// One section in, one section out, and the same entries: only their order and
			// the UVarInt forms may differ.
			require.LessOrEqual(t, len(re), len(src))
		}
	})
}

func BenchmarkDecodeInt32Bitmap(b *testing.B) {
	v := bitmapBenchValues()
	src, err := encoding.AppendEncodedInt32(encoding.Bitmap, nil, v)
	require.NoError(b, err)
	dst := make([]int32, len(v))
	b.SetBytes(int64(4 * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := encoding.DecodeInt32(encoding.Bitmap, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemcpyBitmapBaseline copies as many bytes as BenchmarkDecodeInt32Bitmap decodes.
func BenchmarkMemcpyBitmapBaseline(b *testing.B) {
	src, dst := make([]byte, 4*benchValues), make([]byte, 4*benchValues)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, src)
	}
}
