package encoding_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The goldens below follow the C++ TS2DIFFEncoder of early 2025 by hand (apache/tsfile
// cpp/src/encoding/ts2diff_encoder.h at efba28a5): the raw IEEE-754 bits as int32/int64,
// the Java block header (delta count, width, minDelta, first; big-endian) with the width
// taken from the wrapping signed max-min of the deltas, no max_point_number.
var ts2diffBitsGolden32 = []struct {
	name string
	v    []float32
	want []byte
}{
	{
		name: "1, 2, -0",
		v:    []float32{1, 2, float32(math.Copysign(0, -1))},
		want: cat(
			be32(2),          // two deltas
			be32(30),         // 0x00800000 and 0x40000000 (0x80000000-0x40000000 wraps): range 0x3F800000, 30 bits
			be32(0x00800000), // minDelta
			be32(0x3F800000), // first: the bits of 1.0
			// fields 0 and 0x3F800000 at 30 bits, then 4 padding bits
			[]byte{0x00, 0x00, 0x00, 0x03, 0xF8, 0x00, 0x00, 0x00},
		),
	},
	{
		name: "0, -1, 0 loses its deltas",
		v:    []float32{0, -1, 0},
		// deltas 0xBF800000 (negative) and 0x40800000: max-min wraps negative, width 0
		want: cat(be32(2), be32(0), be32(0xBF800000), be32(0)),
	},
	{
		name: "single value",
		v:    []float32{float32(math.Inf(-1))},
		want: cat(be32(0), be32(0), be32(0), be32(0xFF800000)),
	},
}

func TestTS2DiffFloatBitsGolden(t *testing.T) {
	for _, tc := range ts2diffBitsGolden32 {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, encoding.AppendTS2DiffFloat32Bits(nil, tc.v))
			require.True(t, encoding.TS2DiffFloatBits(tc.want, len(tc.v), 4))
		})
	}
	// DOUBLE 0.5, 0.25: one delta, so width 0 and minDelta the delta itself.
	want := cat(be32(1), be32(0), be64(0xFFF0000000000000), be64(0x3FE0000000000000))
	require.Equal(t, want, encoding.AppendTS2DiffFloat64Bits(nil, []float64{0.5, 0.25}))
	got := make([]float64, 2)
	require.NoError(t, encoding.DecodeTS2DiffFloat64Bits(got, want))
	require.Equal(t, []float64{0.5, 0.25}, got)

	// The C++ writer's own loss: 0, -1, 0 reads back as 0, -1, then -1's bits twice over.
	f := make([]float32, 3)
	require.NoError(t, encoding.DecodeTS2DiffFloat32Bits(f, ts2diffBitsGolden32[1].want))
	require.Equal(t, []uint32{0, 0xBF800000, 0x7F000000}, []uint32{math.Float32bits(f[0]), math.Float32bits(f[1]), math.Float32bits(f[2])})
}

// TestTS2DiffFloatBitsRoundTrip: every special value survives bit for bit, across blocks,
// where no block's deltas span more than the signed range.
func TestTS2DiffFloatBitsRoundTrip(t *testing.T) {
	// Values of one sign and near magnitudes: deltas of bits up and down by more than
	// 2^62 in one block span more than the signed range, which the C++ encoder loses (see
	// the "0, -1, 0" golden).
	groups := [][]float64{
		{math.NaN(), math.Inf(1), math.MaxFloat64, math.Float64frombits(0x7FF0000000000123)}, // the last a NaN with a payload
		{0, math.SmallestNonzeroFloat64, 1e-310, 2e-323},
		{math.Inf(-1), -math.MaxFloat64, math.Float64frombits(0xFFF8000000000001)},
		{math.Copysign(0, -1), -math.SmallestNonzeroFloat64, -1e-310},
	}
	var long []float64
	for i := range 300 { // three blocks, the last of 300-258 = 42 values
		long = append(long, groups[0][i%4])
	}
	// 259 values: a lone trailing value repeats the previous block's width and minimum.
	cases := append(groups, long, long[:258], long[:259], long[:1], nil)
	for _, v := range cases {
		n := len(v)
		b := encoding.AppendTS2DiffFloat64Bits(nil, v)
		got := make([]float64, n)
		require.NoError(t, encoding.DecodeTS2DiffFloat64Bits(got, b), "n=%d", n)
		for i := range got {
			require.Equal(t, math.Float64bits(v[i]), math.Float64bits(got[i]), "n=%d value %d", n, i)
		}
		require.Equal(t, n > 0, encoding.TS2DiffFloatBits(b, n, 8), "n=%d", n)
	}
	// FLOAT likewise.
	for _, v := range [][]float32{
		{float32(math.NaN()), float32(math.Inf(1)), math.MaxFloat32, 1.5},
		{0, math.SmallestNonzeroFloat32, 1e-40},
		{float32(math.Inf(-1)), -math.MaxFloat32, -1.5},
		{float32(math.Copysign(0, -1)), -math.SmallestNonzeroFloat32},
	} {
		b := encoding.AppendTS2DiffFloat32Bits(nil, v)
		got := make([]float32, len(v))
		require.NoError(t, encoding.DecodeTS2DiffFloat32Bits(got, b))
		for i := range got {
			require.Equal(t, math.Float32bits(v[i]), math.Float32bits(got[i]), "value %d", i)
		}
	}
}

// TestTS2DiffFloatBitsDetection: the Java layout (what tsarrow and Java write) is never taken
// for raw bits, whatever the values; the raw layout always is.
func TestTS2DiffFloatBitsDetection(t *testing.T) {
	values := [][]float64{{1.5}, {0, 0, 0}, {1, 2, 3, 4}, {math.NaN(), -1e300}}
	for _, v := range values {
		java, err := encoding.AppendEncodedFloat64(encoding.TS2Diff, nil, v)
		require.NoError(t, err)
		require.False(t, encoding.TS2DiffFloatBits(java, len(v), 8), "%v", v)
		f32 := make([]float32, len(v))
		for i := range v {
			f32[i] = float32(v[i])
		}
		java, err = encoding.AppendEncodedFloat32(encoding.TS2Diff, nil, f32)
		require.NoError(t, err)
		require.False(t, encoding.TS2DiffFloatBits(java, len(v), 4), "%v", v)
		require.True(t, encoding.TS2DiffFloatBits(encoding.AppendTS2DiffFloat64Bits(nil, v), len(v), 8), "%v", v)
	}
	// A Java stream written with precision 0 starts with 0x00 too: its blocks frame from
	// byte 1, not byte 0.
	ints, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, []int64{1, 2, 3})
	require.NoError(t, err)
	java0 := append([]byte{0}, ints...)
	require.False(t, encoding.TS2DiffFloatBits(java0, 3, 8))
	got := make([]float64, 3)
	require.NoError(t, encoding.DecodeFloat64(encoding.TS2Diff, got, java0))
	require.Equal(t, []float64{1, 2, 3}, got)
	// Wrong counts and sizes are not raw bits either.
	raw := encoding.AppendTS2DiffFloat64Bits(nil, []float64{1, 2, 3})
	require.False(t, encoding.TS2DiffFloatBits(raw, 2, 8))
	require.False(t, encoding.TS2DiffFloatBits(raw, 3, 4))
	require.False(t, encoding.TS2DiffFloatBits(raw[:len(raw)-1], 3, 8))
}

// TestScaledOverflowSection reads the overflow section of newer Java writers (and of C++
// writers after apache/tsfile PR #901), built by hand from FloatEncoder.flush.
func TestScaledOverflowSection(t *testing.T) {
	nan32 := math.Float32bits(float32(math.NaN()))
	big32 := math.Float32bits(3e10) // beyond the int range: stored as its bits
	// FLOAT 1.25 (scaled 125), NaN (raw), 3e10 (raw), 2.5e7 (2.5e9 overflows int32 when
	// scaled, so stored as round(v) = 25000000, marked in neither bitmap).
	ints, err := encoding.AppendEncodedInt32(encoding.TS2Diff, nil, []int32{125, int32(nan32), int32(big32), 25000000})
	require.NoError(t, err)
	src := cat(
		[]byte{0xFE, 0xFF, 0xFF, 0xFF, 0x07}, // UVarInt 2^31-2: raw bits present
		[]byte{4},                            // four values
		[]byte{0x01},                         // scaled: value 0 (4/8+1 = 1 byte)
		[]byte{0x06},                         // raw: values 1 and 2
		[]byte{2},                            // max_point_number
		ints,
	)
	got := make([]float32, 4)
	require.NoError(t, encoding.DecodeFloat32(encoding.TS2Diff, got, src))
	require.Equal(t, float32(1.25), got[0])
	require.Equal(t, nan32, math.Float32bits(got[1]))
	require.Equal(t, float32(3e10), got[2])
	require.Equal(t, float32(2.5e7), got[3])

	// DOUBLE under RLE, marker 2^31-1 (no raw bitmap): 1e17 * 100 overflows int64, so
	// round(v) unscaled; 0.07 scaled.
	longs, err := encoding.AppendEncodedInt64(encoding.RLE, nil, []int64{7, 100000000000000000})
	require.NoError(t, err)
	src = cat([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0x07}, []byte{2}, []byte{0x01}, []byte{2}, longs)
	got64 := make([]float64, 2)
	require.NoError(t, encoding.DecodeFloat64(encoding.RLE, got64, src))
	require.Equal(t, []float64{0.07, 1e17}, got64)

	// The per-block layout of C++ writers between apache/tsfile PRs #796 and #901, with
	// max_point_number before each block, is refused as upstream refuses it: never read as
	// other values.
	v := make([]int64, 200)
	for i := range v {
		v[i] = int64(i)
	}
	first, err := encoding.AppendEncodedInt64(encoding.TS2Diff, []byte{2}, v[:129])
	require.NoError(t, err)
	second, err := encoding.AppendEncodedInt64(encoding.TS2Diff, []byte{2}, v[129:])
	require.NoError(t, err)
	require.ErrorIs(t, encoding.DecodeFloat64(encoding.TS2Diff, make([]float64, 200), cat(first, second)), encoding.ErrCorrupt)
	got129 := make([]float64, 129)
	require.NoError(t, encoding.DecodeFloat64(encoding.TS2Diff, got129, first)) // one block: the layouts agree
	require.Equal(t, 1.28, got129[128])

	// A section that disagrees with the page's count, or is cut short, is corrupt.
	require.ErrorIs(t, encoding.DecodeFloat64(encoding.RLE, make([]float64, 3), src), encoding.ErrCorrupt)
	require.ErrorIs(t, encoding.DecodeFloat64(encoding.RLE, got64, src[:7]), encoding.ErrCorrupt)
}

// FuzzTS2DiffFloatBits: the raw-bits decoders and the detection never panic, fail only with
// ErrCorrupt, and whatever the encoder writes decodes back bit for bit.
func FuzzTS2DiffFloatBits(f *testing.F) {
	for _, tc := range ts2diffBitsGolden32 {
		addSeed(f, "golden-"+tc.name, uint16(len(tc.v)), tc.want)
	}
	addSeed(f, "doubles", uint16(3), encoding.AppendTS2DiffFloat64Bits(nil, []float64{1, math.NaN(), -2}))
	f.Fuzz(func(t *testing.T, n uint16, src []byte) {
		requireSentinel(t, encoding.DecodeTS2DiffFloat32Bits(make([]float32, n), src))
		requireSentinel(t, encoding.DecodeTS2DiffFloat64Bits(make([]float64, n), src))
		for _, size := range []int{4, 8} {
			if encoding.TS2DiffFloatBits(src, int(n), size) {
				if size == 4 {
					require.NoError(t, encoding.DecodeTS2DiffFloat32Bits(make([]float32, n), src))
				} else {
					require.NoError(t, encoding.DecodeTS2DiffFloat64Bits(make([]float64, n), src))
				}
			}
		}
		// Values from the input bytes, encoded as the C++ writer does.
		v := make([]float64, len(src)/8)
		for i := range v {
			v[i] = math.Float64frombits(binary.BigEndian.Uint64(src[8*i:]))
		}
		b := encoding.AppendTS2DiffFloat64Bits(nil, v)
		got := make([]float64, len(v))
		require.NoError(t, encoding.DecodeTS2DiffFloat64Bits(got, b))
		require.Equal(t, len(v) > 0, encoding.TS2DiffFloatBits(b, len(v), 8))
	})
}
