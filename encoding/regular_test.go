package encoding_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The goldens are derived by hand from the Java RegularDataEncoder: per block of up to 128
// values a flag byte (1 when the deltas differ), then, if set, an int32 bitmap length and
// java.util.BitSet.toByteArray() of the grid points present (least significant bit first),
// then int32 packNum, minDelta and first value (big-endian, at the value's width).
var regularGolden32 = []struct {
	name string
	v    []int32
	want []byte
}{
	{
		name: "equal steps",
		v:    []int32{5, 8, 11, 14},
		want: cat(
			[]byte{0x00}, // every delta is 3: no missing points
			be32(4),      // packNum: the four values
			be32(3),      // minDelta
			be32(5),      // first
		),
	},
	{
		name: "missing points",
		v:    []int32{10, 12, 16, 18},
		want: cat(
			[]byte{0x01}, // deltas 2, 4, 2 differ
			be32(1),      // one bitmap byte
			// minDelta 2, grid (18-10)/2+1 = 5 points; 10,12,16,18 sit at 0,1,3,4:
			// bits 0,1,3,4 = 0001_1011
			[]byte{0x1b},
			be32(5), // packNum counts grid points
			be32(2),
			be32(10),
		),
	},
	{
		name: "single value",
		v:    []int32{7},
		want: cat([]byte{0x00}, be32(1), be32(math.MaxInt32), be32(7)), // no delta: minDelta keeps its seed
	},
	{
		name: "constant",
		v:    []int32{-3, -3, -3},
		want: cat([]byte{0x00}, be32(3), be32(0), be32(0xfffffffd)),
	},
	{
		name: "descending",
		v:    []int32{math.MinInt32 + 1, math.MinInt32, math.MaxInt32}, // deltas -1 and -1 (wrapping)
		want: cat([]byte{0x00}, be32(3), be32(0xffffffff), be32(0x80000001)),
	},
	{
		// Java divides by the zero minDelta of 1,1,2 and throws; the block is split into the
		// longest prefixes the layout holds exactly: [1 1] and [2].
		name: "unrepresentable block split",
		v:    []int32{1, 1, 2},
		want: cat(
			[]byte{0x00}, be32(2), be32(0), be32(1),
			[]byte{0x00}, be32(1), be32(math.MaxInt32), be32(2),
		),
	},
}

var regularGolden64 = []struct {
	name string
	v    []int64
	want []byte
}{
	{
		name: "timestamps",
		v:    []int64{1000, 2000, 3000},
		want: cat([]byte{0x00}, be32(3), be64(1000), be64(1000)),
	},
	{
		name: "missing points",
		v:    []int64{0, 3, 9},
		want: cat(
			[]byte{0x01}, be32(1),
			// minDelta 3, grid 9/3+1 = 4 points; 0,3,9 sit at 0,1,3: 0000_1011
			[]byte{0x0b},
			be32(4), be64(3), be64(0),
		),
	},
	{
		name: "two blocks",
		v:    regularSeq64(0, 1, 130),
		want: cat(
			[]byte{0x00}, be32(128), be64(1), be64(0), // the first 128 values
			[]byte{0x00}, be32(2), be64(1), be64(128), // 128 and 129
		),
	},
	{
		name: "min max",
		v:    []int64{math.MinInt64, math.MaxInt64}, // one delta, wrapping to -1
		want: cat([]byte{0x00}, be32(2), be64(math.MaxUint64), be64(1<<63)),
	},
}

func regularSeq64(start, step int64, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = start + int64(i)*step
	}
	return v
}

func TestRegularGoldenInt32(t *testing.T) {
	for _, g := range regularGolden32 {
		t.Run(g.name, func(t *testing.T) { checkGoldenInt32(t, encoding.Regular, nil, g.v, g.want) })
	}
}

func TestRegularGoldenInt64(t *testing.T) {
	for _, g := range regularGolden64 {
		t.Run(g.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedInt64(encoding.Regular, []byte{0xee}, g.v)
			require.NoError(t, err)
			require.Equal(t, append([]byte{0xee}, g.want...), got)
			dst := make([]int64, len(g.v))
			require.NoError(t, encoding.DecodeInt64(encoding.Regular, dst, g.want))
			require.Equal(t, g.v, dst)
			n, err := encoding.CountInt64(encoding.Regular, g.want)
			require.NoError(t, err)
			require.Equal(t, len(g.v), n)
			all, err := encoding.AppendAllInt64(encoding.Regular, []int64{-1}, g.want)
			require.NoError(t, err)
			require.Equal(t, append([]int64{-1}, g.v...), all)
		})
	}
}

// regularSeries generates the property inputs shared by the integer encodings here.
func regularSeries(r *rand.Rand, kind string, n int) []int64 {
	v := make([]int64, n)
	switch kind {
	case "constant":
		c := r.Int64()
		for i := range v {
			v[i] = c
		}
	case "monotonic":
		for i := range v {
			v[i] = 1_700_000_000_000 + int64(i)*1000
		}
	case "gaps":
		// Regular timestamps with some points missing: Java's bitmap case.
		t := int64(1_700_000_000_000)
		for i := range v {
			v[i] = t
			t += 1000 * int64(1+r.IntN(3)/2)
		}
	case "walk":
		x := r.Int64N(1000)
		for i := range v {
			x += r.Int64N(21) - 10
			v[i] = x
		}
	case "random":
		for i := range v {
			v[i] = int64(r.Uint64())
		}
	case "extremes":
		for i := range v {
			v[i] = [...]int64{math.MinInt64, math.MaxInt64, 0, -1, math.MinInt32, math.MaxInt32}[r.IntN(6)]
		}
	default:
		panic(kind)
	}
	return v
}

var (
	regularKinds   = []string{"constant", "monotonic", "gaps", "walk", "random", "extremes"}
	regularLengths = []int{0, 1, 2, 3, 127, 128, 129, 1023, 1024, 1025}
)

func TestRegularRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, kind := range regularKinds {
		for _, n := range regularLengths {
			v64 := regularSeries(r, kind, n)
			v32 := make([]int32, n)
			for i, x := range v64 {
				v32[i] = int32(x)
			}
			src, err := encoding.AppendEncodedInt64(encoding.Regular, nil, v64)
			require.NoError(t, err)
			got := make([]int64, n)
			require.NoError(t, encoding.DecodeInt64(encoding.Regular, got, src), "%s %d", kind, n)
			require.Equal(t, v64, got, "%s %d", kind, n)
			count, err := encoding.CountInt64(encoding.Regular, src)
			require.NoError(t, err)
			require.Equal(t, n, count)

			src, err = encoding.AppendEncodedInt32(encoding.Regular, nil, v32)
			require.NoError(t, err)
			got32 := make([]int32, n)
			require.NoError(t, encoding.DecodeInt32(encoding.Regular, got32, src), "%s %d", kind, n)
			require.Equal(t, v32, got32, "%s %d", kind, n)
		}
	}
}

// TestRegularJavaBlocks checks the block structure the Java encoder produces on its own
// inputs: regular data takes one block per 128 values, gaps become bitmaps.
func TestRegularJavaBlocks(t *testing.T) {
	v := regularSeries(rand.New(rand.NewPCG(1, 2)), "gaps", 1025)
	src, err := encoding.AppendEncodedInt64(encoding.Regular, nil, v)
	require.NoError(t, err)
	blocks := 0
	for off := 0; off < len(src); blocks++ {
		if src[off] == 1 {
			length := int(be32At(src, off+1))
			off += 5 + length
		} else {
			off++
		}
		off += 4 + 16
	}
	require.Equal(t, 9, blocks) // ceil(1025/128)
}

func be32At(b []byte, off int) uint32 {
	return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])
}

// TestRegularHugeGapSplits checks that a block whose bitmap would be enormous is written
// without one rather than with millions of bits.
func TestRegularHugeGapSplits(t *testing.T) {
	v := []int64{0, 1, 2, 3, 1 << 40, 1<<40 + 1}
	src, err := encoding.AppendEncodedInt64(encoding.Regular, nil, v)
	require.NoError(t, err)
	require.Less(t, len(src), 200)
	got := make([]int64, len(v))
	require.NoError(t, encoding.DecodeInt64(encoding.Regular, got, src))
	require.Equal(t, v, got)
}

func TestRegularDecodeAnyBlockSize(t *testing.T) {
	// Readers accept blocks longer than the writer's 128 values.
	src := cat([]byte{0}, be32(300), be32(2), be32(0))
	got := make([]int32, 300)
	require.NoError(t, encoding.DecodeInt32(encoding.Regular, got, src))
	for i, x := range got {
		require.Equal(t, int32(2*i), x)
	}
}

func TestRegularErrors(t *testing.T) {
	valid := regularGolden64[1].want // has a bitmap
	tests := []struct {
		name string
		n    int
		src  []byte
	}{
		{"empty stream", 1, nil},
		{"bad flag", 1, cat([]byte{2}, be32(1), be64(0), be64(0))},
		{"negative packNum", 1, cat([]byte{0}, be32(0xffffffff), be64(0), be64(0))},
		{"zero packNum", 1, cat([]byte{0}, be32(0), be64(0), be64(0))},
		{"huge packNum", 3, cat([]byte{0}, be32(math.MaxInt32), be64(1), be64(0))},
		{"too many values", 2, cat([]byte{0}, be32(3), be64(1), be64(0))},
		{"trailing garbage", 3, append(append([]byte{}, valid...), 0)},
		{"trailing block", 3, cat(valid, valid)},
		{"negative bitmap length", 3, cat([]byte{1}, be32(0xffffffff), be32(4), be64(3), be64(0))},
		{"huge bitmap length", 3, cat([]byte{1}, be32(math.MaxInt32), []byte{0x0b}, be32(4), be64(3), be64(0))},
		{"bitmap too long", 3, cat([]byte{1}, be32(2), []byte{0x0b, 0}, be32(4), be64(3), be64(0))},
		{"bitmap too short", 3, cat([]byte{1}, be32(1), []byte{0x0b}, be32(9), be64(3), be64(0))},
		{"no grid point 0", 2, cat([]byte{1}, be32(1), []byte{0x0a}, be32(4), be64(3), be64(0))},
		{"no last grid point", 3, cat([]byte{1}, be32(1), []byte{0x07}, be32(4), be64(3), be64(0))},
		{"bits past last point", 3, cat([]byte{1}, be32(1), []byte{0x1b}, be32(4), be64(3), be64(0))},
		{"missing points with packNum 2", 2, cat([]byte{1}, be32(1), []byte{0x03}, be32(2), be64(3), be64(0))},
		{"bitmap overcounts", 2, valid},
		{"block too short for bitmap", 3, valid[:4]},
	}
	for i := range len(valid) {
		tests = append(tests, struct {
			name string
			n    int
			src  []byte
		}{"truncated", 3, valid[:i]})
	}
	for _, tt := range tests {
		dst := make([]int64, tt.n)
		err := encoding.DecodeInt64(encoding.Regular, dst, tt.src)
		require.ErrorIs(t, err, encoding.ErrCorrupt, "%s: %x", tt.name, tt.src)
		require.NotErrorIs(t, err, encoding.ErrUnsupported, tt.name)
		require.Contains(t, err.Error(), "REGULAR INT64 block at byte ", tt.name)
		if tt.n > 0 && len(tt.src) > 0 && tt.name != "trailing garbage" && tt.name != "trailing block" &&
			tt.name != "too many values" && tt.name != "bitmap overcounts" && tt.name != "huge packNum" {
			_, err := encoding.CountInt64(encoding.Regular, tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt, tt.name)
			_, err = encoding.AppendAllInt64(encoding.Regular, nil, tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt, tt.name)
		}
	}
	// The INT32 form checks the same way.
	err := encoding.DecodeInt32(encoding.Regular, make([]int32, 2), cat([]byte{0}, be32(2), be32(1)))
	require.ErrorIs(t, err, encoding.ErrCorrupt)
	err = encoding.DecodeInt32(encoding.Regular, make([]int32, 1), nil)
	require.ErrorIs(t, err, encoding.ErrCorrupt)
	require.NoError(t, encoding.DecodeInt32(encoding.Regular, nil, nil))
}

func TestRegularUnsupportedTypes(t *testing.T) {
	_, err := encoding.AppendEncodedFloat64(encoding.Regular, nil, []float64{1})
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	require.ErrorIs(t, encoding.DecodeBool(encoding.Regular, make([]bool, 1), []byte{0}), encoding.ErrUnsupported)
}

func TestRegularDoesNotAllocate(t *testing.T) {
	v := regularSeries(rand.New(rand.NewPCG(3, 4)), "gaps", 4096)
	src, err := encoding.AppendEncodedInt64(encoding.Regular, nil, v)
	require.NoError(t, err)
	dst := make([]int64, len(v))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if err := encoding.DecodeInt64(encoding.Regular, dst, src); err != nil {
			panic(err)
		}
	}))
	buf := make([]byte, 0, 2*len(src))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if _, err := encoding.AppendEncodedInt64(encoding.Regular, buf, v); err != nil {
			panic(err)
		}
	}))
}

func FuzzDecodeInt64Regular(f *testing.F) {
	for _, g := range regularGolden64 {
		f.Add(g.want)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		n, err := encoding.CountInt64(encoding.Regular, src)
		requireSentinel(t, err)
		if err != nil {
			_, err := encoding.AppendAllInt64(encoding.Regular, nil, src)
			require.Error(t, err)
			return
		}
		if n > maxFuzzValues {
			return
		}
		dst := make([]int64, n)
		require.NoError(t, encoding.DecodeInt64(encoding.Regular, dst, src))
		requireSentinel(t, encoding.DecodeInt64(encoding.Regular, make([]int64, n+1), src))
		if n > 0 {
			requireSentinel(t, encoding.DecodeInt64(encoding.Regular, make([]int64, n-1), src))
		}
		re, err := encoding.AppendEncodedInt64(encoding.Regular, nil, dst)
		require.NoError(t, err)
		again := make([]int64, n)
		require.NoError(t, encoding.DecodeInt64(encoding.Regular, again, re))
		require.Equal(t, dst, again)
	})
}

// FuzzDecodeInt32Regular takes the value count from the input's first byte.
func FuzzDecodeInt32Regular(f *testing.F) {
	for _, g := range regularGolden32 {
		f.Add(append([]byte{byte(len(g.v))}, g.want...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		n, src := int(in[0]), in[1:]
		dst := make([]int32, n)
		err := encoding.DecodeInt32(encoding.Regular, dst, src)
		requireSentinel(t, err)
		if err != nil {
			return
		}
		re, err := encoding.AppendEncodedInt32(encoding.Regular, nil, dst)
		require.NoError(t, err)
		again := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(encoding.Regular, again, re))
		require.Equal(t, dst, again)
	})
}

func BenchmarkDecodeInt64Regular(b *testing.B) {
	for _, kind := range []string{"monotonic", "gaps"} {
		b.Run(kind, func(b *testing.B) {
			v := regularSeries(rand.New(rand.NewPCG(5, 6)), kind, benchValues)
			src, err := encoding.AppendEncodedInt64(encoding.Regular, nil, v)
			require.NoError(b, err)
			dst := make([]int64, len(v))
			b.SetBytes(int64(8 * len(v)))
			b.ReportAllocs()
			for b.Loop() {
				if err := encoding.DecodeInt64(encoding.Regular, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeInt32Regular(b *testing.B) {
	for _, kind := range []string{"monotonic", "gaps"} {
		b.Run(kind, func(b *testing.B) {
			v64 := regularSeries(rand.New(rand.NewPCG(7, 8)), kind, benchValues)
			v := make([]int32, len(v64))
			for i, x := range v64 {
				v[i] = int32(x / 1000)
			}
			src, err := encoding.AppendEncodedInt32(encoding.Regular, nil, v)
			require.NoError(b, err)
			dst := make([]int32, len(v))
			b.SetBytes(int64(4 * len(v)))
			b.ReportAllocs()
			for b.Loop() {
				if err := encoding.DecodeInt32(encoding.Regular, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMemcpyRegularBaseline copies as many bytes as the REGULAR benchmarks decode.
func BenchmarkMemcpyRegularBaseline(b *testing.B) {
	for _, size := range []int{4 * benchValues, 8 * benchValues} {
		b.Run(map[int]string{4 * benchValues: "int32", 8 * benchValues: "int64"}[size], func(b *testing.B) {
			src, dst := make([]byte, size), make([]byte, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}
