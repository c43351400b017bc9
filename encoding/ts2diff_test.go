package encoding_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// cat joins byte groups so that golden streams can be written one header field per line.
func cat(parts ...[]byte) []byte { return slices.Concat(parts...) }

func be32(v uint32) []byte {
	return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

func be64(v uint64) []byte { return cat(be32(uint32(v>>32)), be32(uint32(v))) }

// The goldens below are derived by hand from the layout of the Java DeltaBinaryEncoder:
// int32 packNum, int32 packWidth, minDelta and first at the value's width (all big-endian),
// then packNum fields of packWidth bits, most significant bit first, zero padded.
var ts2diffGolden64 = []struct {
	name string
	v    []int64
	want []byte
}{
	{
		name: "1,2,3,5",
		v:    []int64{1, 2, 3, 5},
		want: cat(
			be32(3),      // deltas 1,1,2
			be32(1),      // fields delta-min = 0,0,1; widest is 1 bit
			be64(1),      // minDelta
			be64(1),      // first value
			[]byte{0x20}, // bits 0,0,1 then five padding zeros: 0010_0000
		),
	},
	{
		name: "single value",
		v:    []int64{7},
		want: cat(
			be32(0), be32(0),
			be64(math.MaxInt64), // Java leaves minDelta at its seed when there are no deltas
			be64(7),
		),
	},
	{
		name: "negative deltas",
		v:    []int64{10, 7, 20},
		want: cat(
			be32(2),                  // deltas -3, 13
			be32(5),                  // fields 0, 16; 16 needs 5 bits
			be64(0xfffffffffffffffd), // minDelta -3
			be64(10),
			[]byte{0x04, 0x00}, // 00000 10000 + 6 padding bits: 0000_0100 00_000000
		),
	},
	{
		name: "wrapping delta",
		v:    []int64{math.MaxInt64, math.MinInt64},
		want: cat(
			be32(1), be32(0), // MinInt64-MaxInt64 wraps to 1; one field of 0 needs no bits
			be64(1),
			be64(math.MaxInt64),
		),
	},
	{
		name: "min max min",
		v:    []int64{math.MinInt64, math.MaxInt64, math.MinInt64},
		want: cat(
			be32(2), be32(2), // deltas wrap to -1 and 1; fields 0 and 2
			be64(0xffffffffffffffff), // minDelta -1
			be64(0x8000000000000000),
			[]byte{0x20}, // 00 10 + padding
		),
	},
	{
		name: "full 64-bit width",
		v:    []int64{0, math.MaxInt64, 0},
		want: cat(
			be32(2), be32(64), // deltas MaxInt64 and MinInt64+1; fields 0xff..fe and 0
			be64(0x8000000000000001),
			be64(0),
			be64(0xfffffffffffffffe), be64(0),
		),
	},
	{
		name: "130 values make two blocks",
		v:    seq64(0, 130),
		want: cat(
			be32(128), be32(0), be64(1), be64(0), // first plus 128 deltas of 1: no packed bytes
			be32(0), be32(0), be64(math.MaxInt64), be64(129), // the 130th value starts a new block
		),
	},
}

var ts2diffGolden32 = []struct {
	name string
	v    []int32
	want []byte
}{
	{
		name: "1,2,3,5",
		v:    []int32{1, 2, 3, 5},
		want: cat(be32(3), be32(1), be32(1), be32(1), []byte{0x20}), // as for INT64, 4-byte fields
	},
	{
		name: "single value",
		v:    []int32{-7},
		want: cat(be32(0), be32(0), be32(math.MaxInt32), be32(0xfffffff9)),
	},
	{
		name: "negative deltas",
		v:    []int32{10, 7, 20},
		want: cat(be32(2), be32(5), be32(0xfffffffd), be32(10), []byte{0x04, 0x00}),
	},
	{
		name: "full 32-bit width",
		v:    []int32{0, math.MaxInt32, 0},
		// Deltas MaxInt32 and MinInt32+1; the field MaxInt32-(MinInt32+1) wraps to 0xfffffffe.
		// A sign-extending implementation would compute a 64-bit width here.
		want: cat(be32(2), be32(32), be32(0x80000001), be32(0), be32(0xfffffffe), be32(0)),
	},
}

func seq64(start int64, n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = start + int64(i)
	}
	return s
}

func TestTS2DiffGoldenInt64(t *testing.T) {
	for _, tt := range ts2diffGolden64 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)

			dst := make([]int64, len(tt.v))
			require.NoError(t, encoding.DecodeInt64(encoding.TS2Diff, dst, tt.want))
			require.Equal(t, tt.v, dst)

			n, err := encoding.CountInt64(encoding.TS2Diff, tt.want)
			require.NoError(t, err)
			require.Equal(t, len(tt.v), n)
		})
	}
}

func TestTS2DiffGoldenInt32(t *testing.T) {
	for _, tt := range ts2diffGolden32 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedInt32(encoding.TS2Diff, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)

			dst := make([]int32, len(tt.v))
			require.NoError(t, encoding.DecodeInt32(encoding.TS2Diff, dst, tt.want))
			require.Equal(t, tt.v, dst)
		})
	}
}

// TestTS2DiffJavaStalePadding pins a quirk of the Java encoder that the writer reproduces.
// Java packs every block into one reused 1024-byte buffer but clears only its first 128 bytes
// between blocks, so a block whose packed bytes extend past byte 128 inherits, in the padding
// bits of its last byte, whatever an earlier block left there.
func TestTS2DiffJavaStalePadding(t *testing.T) {
	// Block 1: first 0, deltas 0 then 127 times 0xffff. minDelta 0, width 16, packed bytes
	// 00 00 followed by 254 bytes of ff: the buffer holds ff at bytes 2..255.
	v := []int64{0, 0}
	for range 127 {
		v = append(v, v[len(v)-1]+0xffff)
	}
	// Block 2: first 5, deltas 0 then 120 times 511. width 9, 121*9 = 1089 bits = 136 bytes
	// plus 1 bit, so byte 136 holds one field bit (1) and 7 padding bits taken from the
	// buffer's byte 136, which block 1 set to ff: the last byte is ff, not 80.
	v = append(v, 5, 5)
	for range 120 {
		v = append(v, v[len(v)-1]+511)
	}
	got, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, v)
	require.NoError(t, err)
	block1 := 24 + 256
	require.Equal(t, cat(be32(120+1), be32(9), be64(0), be64(5)), got[block1:block1+24])
	packed2 := got[block1+24:]
	require.Len(t, packed2, 137)
	require.Equal(t, byte(0xff), packed2[136])

	// Readers ignore padding bits.
	dst := make([]int64, len(v))
	require.NoError(t, encoding.DecodeInt64(encoding.TS2Diff, dst, got))
	require.Equal(t, v, dst)
}

func TestTS2DiffDecodeIgnoresPaddingBits(t *testing.T) {
	src := cat(be32(3), be32(1), be64(1), be64(1), []byte{0x20 | 0x1f})
	dst := make([]int64, 4)
	require.NoError(t, encoding.DecodeInt64(encoding.TS2Diff, dst, src))
	require.Equal(t, []int64{1, 2, 3, 5}, dst)
}

func TestTS2DiffDecodeAnyBlockSize(t *testing.T) {
	// Other writers may use blocks larger than TS2DiffBlockSize; the format does not fix it.
	src := cat(be32(300), be32(0), be64(3), be64(math.MaxUint64), // first value -1, then +3 each
		be32(2), be32(8), be64(10), be64(0), []byte{1, 2})
	got, err := encoding.AppendAllInt64(encoding.TS2Diff, nil, src)
	require.NoError(t, err)
	require.Len(t, got, 304)
	require.Equal(t, int64(-1), got[0])
	require.Equal(t, int64(-1+300*3), got[300])
	require.Equal(t, []int64{0, 11, 23}, got[301:])
}

func randomSeries(r *rand.Rand, n int, mode int) []int64 {
	v := make([]int64, n)
	cur := int64(r.Uint64())
	shift := uint(r.IntN(64))
	for i := range v {
		switch mode {
		case 0: // arbitrary values: wrapping deltas and 64-bit widths
			v[i] = int64(r.Uint64())
		case 1: // timestamps with jitter
			cur += 1000 + int64(r.IntN(5))
			v[i] = cur
		case 2: // regular timestamps: width 0
			cur += 10
			v[i] = cur
		case 3: // alternating extremes
			v[i] = []int64{math.MinInt64, math.MaxInt64}[i%2]
		case 4: // random walk whose step size changes every so often
			if r.IntN(100) == 0 {
				shift = uint(r.IntN(64))
			}
			cur += int64(r.Uint64()) >> shift
			v[i] = cur
		default: // small signed values
			v[i] = int64(r.IntN(100)) - 50
		}
	}
	return v
}

func TestTS2DiffRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sizes := []int{0, 1, 2, 3, 127, 128, 129, 130, 257, 258, 259, 1000}
	for mode := range 6 {
		for _, n := range sizes {
			v64 := randomSeries(r, n, mode)
			enc64, err := encoding.AppendEncodedInt64(encoding.TS2Diff, []byte("prefix"), v64)
			require.NoError(t, err)
			require.Equal(t, []byte("prefix"), enc64[:6])
			enc64 = enc64[6:]
			if n == 0 {
				require.Empty(t, enc64)
			}
			got64 := make([]int64, n)
			require.NoError(t, encoding.DecodeInt64(encoding.TS2Diff, got64, enc64), "mode %d n %d", mode, n)
			require.Equal(t, v64, got64, "mode %d n %d", mode, n)

			count, err := encoding.CountInt64(encoding.TS2Diff, enc64)
			require.NoError(t, err)
			require.Equal(t, n, count)
			all, err := encoding.AppendAllInt64(encoding.TS2Diff, []int64{-9}, enc64)
			require.NoError(t, err)
			require.Equal(t, append([]int64{-9}, v64...), all)

			v32 := make([]int32, n)
			for i, x := range v64 {
				v32[i] = int32(x)
			}
			enc32, err := encoding.AppendEncodedInt32(encoding.TS2Diff, nil, v32)
			require.NoError(t, err)
			got32 := make([]int32, n)
			require.NoError(t, encoding.DecodeInt32(encoding.TS2Diff, got32, enc32), "mode %d n %d", mode, n)
			require.Equal(t, v32, got32, "mode %d n %d", mode, n)
		}
	}
}

func TestTS2DiffBlockBoundaries(t *testing.T) {
	// A block holds its first value plus up to TS2DiffBlockSize deltas.
	require.Equal(t, 128, encoding.TS2DiffBlockSize)
	for _, tt := range []struct{ n, blocks int }{{1, 1}, {128, 1}, {129, 1}, {130, 2}, {257, 2}, {258, 2}, {259, 3}} {
		enc, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, seq64(100, tt.n))
		require.NoError(t, err)
		// Consecutive values have equal deltas, so every block is a bare 24-byte header.
		require.Len(t, enc, 24*tt.blocks, "n=%d", tt.n)
	}
}

func TestTS2DiffErrors(t *testing.T) {
	good := ts2diffGolden64[0].want // [1,2,3,5], 25 bytes
	good32 := ts2diffGolden32[0].want
	tests := []struct {
		name    string
		n       int
		src     []byte
		wantMsg string
	}{
		{"empty stream", 1, nil, "TS_2DIFF INT64 block at byte 0: stream ends after 0 of 1 values"},
		{"truncated header", 4, good[:23], "TS_2DIFF INT64 block at byte 0: header needs 24 bytes, 23 left"},
		{"truncated second header", 8, cat(good, good[:5]), "TS_2DIFF INT64 block at byte 25: header needs 24 bytes, 5 left"},
		{"packed bytes past end", 4, good[:24], "TS_2DIFF INT64 block at byte 0: 3 deltas of 1 bits need 1 packed bytes, 0 left"},
		{"negative pack count", 1, cat(be32(0xffffffff), be32(1), be64(0), be64(0)), "at byte 0: negative delta count -1"},
		{"width too large", 1, cat(be32(0), be32(65), be64(0), be64(0)), "at byte 0: bit width 65 outside 0..64"},
		{"negative width", 1, cat(be32(0), be32(0x80000000), be64(0), be64(0)), "bit width -2147483648 outside 0..64"},
		{"huge pack count", 2, cat(be32(math.MaxInt32), be32(64), be64(0), be64(0), make([]byte, 16)),
			"2147483647 deltas of 64 bits need 17179869176 packed bytes, 16 left"},
		{"block larger than remaining count", 3, good, "at byte 0: block holds 4 values, but only 3 of 3 remain to be decoded"},
		{"forged huge block", 2, cat(be32(math.MaxInt32), be32(0), be64(0), be64(0)), "block holds 2147483648 values"},
		{"too few values", 5, good, "TS_2DIFF INT64 block at byte 25: stream ends after 4 of 5 values"},
		{"trailing bytes", 4, cat(good, []byte{0}), "TS_2DIFF INT64 block at byte 25: 1 trailing bytes after 4 values"},
		{"nothing expected", 0, good, "at byte 0: 25 trailing bytes after 0 values"},
		{"int32 stream read as int64", 4, good32, "TS_2DIFF INT64 block at byte 0: header needs 24 bytes, 17 left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := encoding.DecodeInt64(encoding.TS2Diff, make([]int64, tt.n), tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, tt.wantMsg)
		})
	}
}

func TestTS2DiffErrorsInt32(t *testing.T) {
	good := ts2diffGolden32[0].want // [1,2,3,5], 17 bytes
	tests := []struct {
		name    string
		n       int
		src     []byte
		wantMsg string
	}{
		{"truncated header", 4, good[:15], "TS_2DIFF INT32 block at byte 0: header needs 16 bytes, 15 left"},
		{"width too large", 1, cat(be32(0), be32(33), be32(0), be32(0)), "TS_2DIFF INT32 block at byte 0: bit width 33 outside 0..32"},
		{"packed past end", 4, good[:16], "1 packed bytes, 0 left"},
		{"trailing", 4, cat(good, good), "TS_2DIFF INT32 block at byte 17: 17 trailing bytes after 4 values"},
		{"too few", 9, cat(good, good), "TS_2DIFF INT32 block at byte 34: stream ends after 8 of 9 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := encoding.DecodeInt32(encoding.TS2Diff, make([]int32, tt.n), tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, tt.wantMsg)
		})
	}
}

func TestTS2DiffCountAndAppendAllErrors(t *testing.T) {
	good := ts2diffGolden64[0].want
	for _, src := range [][]byte{good[:10], good[:24], cat(good, []byte{0}), cat(be32(1), be32(99), be64(0), be64(0))} {
		_, err := encoding.CountInt64(encoding.TS2Diff, src)
		require.ErrorIs(t, err, encoding.ErrCorrupt)
		dst := []int64{1, 2}
		got, err := encoding.AppendAllInt64(encoding.TS2Diff, dst, src)
		require.ErrorIs(t, err, encoding.ErrCorrupt)
		require.Equal(t, []int64{1, 2}, got, "dst must be unchanged on error")
	}

	n, err := encoding.CountInt64(encoding.TS2Diff, nil)
	require.NoError(t, err)
	require.Zero(t, n)

	// A width-0 block describes many values in 24 bytes; counting must not allocate for them.
	n, err = encoding.CountInt64(encoding.TS2Diff, cat(be32(math.MaxInt32), be32(0), be64(0), be64(0)))
	require.NoError(t, err)
	require.Equal(t, math.MaxInt32+1, n)
}
