package encoding_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// FLOAT and DOUBLE under RLE and TS_2DIFF, as the Java FloatEncoder writes them: the UVarInt
// max_point_number p = 2, then the INT32 (FLOAT) or INT64 (DOUBLE) stream of
// k = Math.round(v * 100). A reader returns float32(float64(k) / 100) or float64(k) / 100.

// scaledRef32 and scaledRef64 are what the reference returns after writing v.
func scaledRef32(v float32) float32 {
	return float32(float64(int32(encoding.ScaledRound(float64(v)*100))) / 100)
}

func scaledRef64(v float64) float64 { return float64(encoding.ScaledRound(v*100)) / 100 }

func TestScaledJavaRounding(t *testing.T) {
	tests := []struct {
		in   float64
		want int64
	}{
		{0, 0},
		{math.Copysign(0, -1), 0},
		{0.5, 1},  // ties go toward +Inf
		{-0.5, 0}, // floor(-0.5 + 0.5)
		{1.5, 2},
		{-1.5, -1},
		{2.5, 3},
		{0.75, 1},
		{-0.75, -1},
		{0.49999999999999994, 0}, // the largest double below 0.5; a naive floor(a+0.5) gives 1
		{-0.49999999999999994, 0},
		{0x1p-12, 0},
		{-0x1p-12, 0},
		{1e-300, 0},
		{4503599627370495.5, 4503599627370496}, // 2^52 - 0.5
		{4503599627370497, 4503599627370497},   // 2^52 + 1: already an integer
		{0x1p62, 1 << 62},
		{0x1p63, math.MaxInt64}, // saturates
		{-0x1p63, math.MinInt64},
		{-0x1p64, math.MinInt64},
		{math.Inf(1), math.MaxInt64},
		{math.Inf(-1), math.MinInt64},
		{math.NaN(), 0},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, encoding.ScaledRound(tt.in), "%v", tt.in)
	}
}

var scaledGoldenFloat32 = []struct {
	name string
	enc  encoding.Encoding
	v    []float32
	want []byte
}{
	// Java writes the max_point_number header with the first value, so no values leave only
	// the inner encoder's flush: RLE's empty package, TS_2DIFF's nothing.
	{name: "RLE empty", enc: encoding.RLE, v: nil, want: []byte{0x00}},
	{
		name: "RLE bit-packed",
		enc:  encoding.RLE,
		v:    []float32{0.5, 1.25, 3},
		// k = 50, 125, 300; their OR is 0b1_0111_1111, so width 9. One group of 3 real values:
		// 000110010 001111101 100101100 then five zero fields (72 bits = 9 bytes):
		// 0001_1001 0001_1111 0110_0101 1000_0000 00... = 19 1f 65 80 00 00 00 00 00.
		want: []byte{
			0x02,             // max_point_number
			0x0c,             // package length 12
			0x09, 0x03, 0x03, // width, one group, 3 real values
			0x19, 0x1f, 0x65, 0x80, // the group
			0x00, 0x00, 0x00, 0x00, 0x00,
		},
	},
	{
		name: "RLE run",
		enc:  encoding.RLE,
		v:    []float32{1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5},
		// k = 150 (8 bits): a run of 8, header 0x10, value 0x96.
		want: []byte{0x02, 0x03, 0x08, 0x10, 0x96},
	},
	{
		name: "RLE negative",
		enc:  encoding.RLE,
		v:    []float32{-0.01},
		// float32(-0.01) widened is -0.009999999776482582; times 100 is -0.9999999776482582,
		// which rounds to k = -1: 32 bits wide, one group of 0xffffffff and seven zero fields.
		want: cat([]byte{0x02, 0x23, 0x20, 0x03, 0x01, 0xff, 0xff, 0xff, 0xff}, rleZeros(28)),
	},
	{name: "TS_2DIFF empty", enc: encoding.TS2Diff, v: nil, want: nil},
	{
		name: "TS_2DIFF",
		enc:  encoding.TS2Diff,
		v:    []float32{0.5, 1.25, 3},
		// k = 50, 125, 300: deltas 75, 175, so minDelta 75 and fields 0, 100 (7 bits):
		// 0000000 1100100 + 2 padding bits = 0000_0001 1001_0000.
		want: cat([]byte{0x02}, be32(2), be32(7), be32(75), be32(50), []byte{0x01, 0x90}),
	},
}

var scaledGoldenFloat64 = []struct {
	name string
	enc  encoding.Encoding
	v    []float64
	want []byte
}{
	{name: "RLE empty", enc: encoding.RLE, v: nil, want: []byte{0x00}},
	{
		name: "RLE ties",
		enc:  encoding.RLE,
		v:    []float64{0.125, -0.125},
		// 0.125 * 100 = 12.5 and -12.5 exactly; Math.round takes ties toward +Inf: 13, -12.
		// -12 is negative, so the width is 64: one group of two real 8-byte fields.
		want: cat([]byte{0x02, 0x43, 0x40, 0x03, 0x02}, be64(13), be64(0xfffffffffffffff4), rleZeros(48)),
	},
	{
		name: "RLE run",
		enc:  encoding.RLE,
		v:    []float64{1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5},
		want: []byte{0x02, 0x03, 0x08, 0x10, 0x96}, // as for FLOAT: the 1-byte value reads the same
	},
	{name: "TS_2DIFF empty", enc: encoding.TS2Diff, v: nil, want: nil},
	{
		name: "TS_2DIFF ties",
		enc:  encoding.TS2Diff,
		v:    []float64{0.125, -0.125},
		// k = 13, -12: one delta of -25, which is the minimum, so its field is 0 and width 0.
		want: cat([]byte{0x02}, be32(1), be32(0), be64(0xffffffffffffffe7), be64(13)),
	},
	{
		name: "TS_2DIFF single",
		enc:  encoding.TS2Diff,
		v:    []float64{2.5},
		// k = 250; a block without deltas keeps Java's MaxInt64 seed as its minDelta.
		want: cat([]byte{0x02}, be32(0), be32(0), be64(math.MaxInt64), be64(250)),
	},
}

func TestScaledGoldenFloat32(t *testing.T) {
	for _, tt := range scaledGoldenFloat32 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedFloat32(tt.enc, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, rleNilIfEmpty(got))
			dst := make([]float32, len(tt.v))
			require.NoError(t, encoding.DecodeFloat32(tt.enc, dst, tt.want))
			require.Equal(t, tt.v, rleNilIfEmpty(dst)) // these values survive exactly
		})
	}
}

func TestScaledGoldenFloat64(t *testing.T) {
	for _, tt := range scaledGoldenFloat64 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedFloat64(tt.enc, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, rleNilIfEmpty(got))
			dst := make([]float64, len(tt.v))
			require.NoError(t, encoding.DecodeFloat64(tt.enc, dst, tt.want))
			want := make([]float64, len(tt.v))
			for i, x := range tt.v {
				want[i] = scaledRef64(x)
			}
			require.Equal(t, want, dst)
		})
	}
	// The ties read back as what was stored.
	dst := make([]float64, 2)
	require.NoError(t, encoding.DecodeFloat64(encoding.RLE, dst, scaledGoldenFloat64[1].want))
	require.Equal(t, []float64{0.13, -0.12}, dst)
}

// TestScaledSpecialValues documents what the reference stores for values a scaled integer
// cannot hold.
func TestScaledSpecialValues(t *testing.T) {
	negZero32, negZero64 := float32(math.Copysign(0, -1)), math.Copysign(0, -1)
	tests32 := []struct {
		in, want float32
	}{
		{float32(math.NaN()), 0},      // Math.round(NaN) = 0
		{float32(math.Inf(1)), -0.01}, // MaxInt64, whose low 32 bits are -1
		{float32(math.Inf(-1)), 0},    // MinInt64, whose low 32 bits are 0
		{math.MaxFloat32, -0.01},      // saturates like +Inf
		{negZero32, 0},                // -0.0 * 100 rounds to the integer 0
		{3e7, -12949672.96},           // k = 3e9 wraps to 3e9 - 2^32 = -1294967296
		{2.2e7, -20949672.96},         // k = 2.2e9 wraps to -2094967296
		{1.005, 1},                    // float32(1.005) is 1.00499999523..., so k = 100
	}
	for _, enc := range []encoding.Encoding{encoding.RLE, encoding.TS2Diff} {
		for _, tt := range tests32 {
			src, err := encoding.AppendEncodedFloat32(enc, nil, []float32{tt.in})
			require.NoError(t, err)
			got := make([]float32, 1)
			require.NoError(t, encoding.DecodeFloat32(enc, got, src))
			require.Equal(t, math.Float32bits(scaledRef32(tt.in)), math.Float32bits(got[0]), "%v %v", enc, tt.in)
			require.Equal(t, math.Float32bits(tt.want), math.Float32bits(got[0]), "%v %v", enc, tt.in)
		}
	}
	tests64 := []struct {
		in, want float64
	}{
		{math.NaN(), 0},
		{math.Inf(1), 9.223372036854776e16},
		{math.Inf(-1), -9.223372036854776e16},
		{1e300, 9.223372036854776e16},
		{negZero64, 0},
		{0.005, 0.01}, // 0.005 * 100 = 0.5 after rounding the product, and ties go up
		{-0.005, 0},
	}
	for _, enc := range []encoding.Encoding{encoding.RLE, encoding.TS2Diff} {
		for _, tt := range tests64 {
			src, err := encoding.AppendEncodedFloat64(enc, nil, []float64{tt.in})
			require.NoError(t, err)
			got := make([]float64, 1)
			require.NoError(t, encoding.DecodeFloat64(enc, got, src))
			require.Equal(t, math.Float64bits(tt.want), math.Float64bits(got[0]), "%v %v", enc, tt.in)
		}
	}
}

// TestScaledMaxPointNumber reads streams written with other max_point_numbers.
func TestScaledMaxPointNumber(t *testing.T) {
	run := func(p ...byte) []byte { return cat(p, []byte{0x03, 0x08, 0x10, 0x96}) } // eight 150s
	tests := []struct {
		name  string
		src   []byte
		scale float64
	}{
		{"0", run(0x00), 1},
		{"1", run(0x01), 10},
		{"3", run(0x03), 1000},
		{"22", run(0x16), 1e22},
		{"308", run(0xb4, 0x02), 1e308},
		{"309 overflows to +Inf", run(0xb5, 0x02), math.Inf(1)},
		{"negative as a Java int", run(0x80, 0x80, 0x80, 0x80, 0x08), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d32 := make([]float32, 8)
			require.NoError(t, encoding.DecodeFloat32(encoding.RLE, d32, tt.src))
			require.Equal(t, float32(150/tt.scale), d32[0])
			d64 := make([]float64, 8)
			require.NoError(t, encoding.DecodeFloat64(encoding.RLE, d64, tt.src))
			require.Equal(t, 150/tt.scale, d64[7])
		})
	}
}

// scaledInputs returns float64 series for the property tests: the integer shapes as
// hundredths, values with more decimals, the special values, and random magnitudes.
func scaledInputs() []struct {
	name string
	v    []float64
} {
	type series = struct {
		name string
		v    []float64
	}
	var out []series
	for _, s := range rleShapes() {
		v := make([]float64, len(s.v))
		for i, x := range s.v {
			v[i] = float64(x) / 100
		}
		out = append(out, series{"hundredths-" + s.name, v})
	}
	r := rand.New(rand.NewPCG(41, 42))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0,
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32, 0.005, -0.005, 0.125, -0.125}
	for _, n := range []int{0, 1, 2, 127, 128, 129, 1023, 1024, 1025} {
		sp := make([]float64, n)
		rnd := make([]float64, n)
		walk := make([]float64, n)
		cur := 20.0
		for i := range sp {
			sp[i] = specials[r.IntN(len(specials))]
			rnd[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(24)-6))
			cur += r.NormFloat64() * 0.37
			walk[i] = cur
		}
		out = append(out, series{"specials/" + strconv.Itoa(n), sp}, series{"random/" + strconv.Itoa(n), rnd}, series{"walk/" + strconv.Itoa(n), walk})
	}
	return out
}

func TestScaledRoundTrip(t *testing.T) {
	prefix := []byte("prefix")
	for _, enc := range []encoding.Encoding{encoding.RLE, encoding.TS2Diff} {
		for _, s := range scaledInputs() {
			t.Run(enc.String()+"/"+s.name, func(t *testing.T) {
				n := len(s.v)
				src, err := encoding.AppendEncodedFloat64(enc, slices.Clone(prefix), s.v)
				require.NoError(t, err)
				require.Equal(t, prefix, src[:len(prefix)])
				src = src[len(prefix):]
				d64 := slices.Repeat([]float64{-99}, n)
				require.NoError(t, encoding.DecodeFloat64(enc, d64, src))
				for i, x := range s.v {
					require.Equal(t, math.Float64bits(scaledRef64(x)), math.Float64bits(d64[i]), "value %d: %v", i, x)
				}

				v32 := make([]float32, n)
				for i, x := range s.v {
					v32[i] = float32(x)
				}
				src, err = encoding.AppendEncodedFloat32(enc, slices.Clone(prefix), v32)
				require.NoError(t, err)
				require.Equal(t, prefix, src[:len(prefix)])
				src = src[len(prefix):]
				d32 := slices.Repeat([]float32{-99}, n)
				require.NoError(t, encoding.DecodeFloat32(enc, d32, src))
				for i, x := range v32 {
					require.Equal(t, math.Float32bits(scaledRef32(x)), math.Float32bits(d32[i]), "value %d: %v", i, x)
				}
			})
		}
	}
}

func TestScaledStreamErrors(t *testing.T) {
	for _, enc := range []encoding.Encoding{encoding.RLE, encoding.TS2Diff} {
		d32 := func(n int, src []byte) error { return encoding.DecodeFloat32(enc, make([]float32, n), src) }
		d64 := func(n int, src []byte) error { return encoding.DecodeFloat64(enc, make([]float64, n), src) }
		for _, g := range scaledGoldenFloat32 {
			if g.enc == enc {
				rleRequireStreamErrors(t, len(g.v), g.want, d32)
			}
		}
		for _, g := range scaledGoldenFloat64 {
			if g.enc == enc {
				rleRequireStreamErrors(t, len(g.v), g.want, d64)
			}
		}
		for _, s := range scaledInputs()[:40] {
			src, err := encoding.AppendEncodedFloat64(enc, nil, s.v)
			require.NoError(t, err)
			rleRequireStreamErrors(t, len(s.v), src, d64)
		}
	}
}

func TestScaledCorruptStreams(t *testing.T) {
	tests := []struct {
		name string
		enc  encoding.Encoding
		n    int
		src  []byte
		msg  string
	}{
		{"RLE header truncated", encoding.RLE, 1, []byte{0x80}, "RLE FLOAT at byte 0: truncated max_point_number"},
		{"RLE header overflows", encoding.RLE, 1, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "max_point_number VarInt overflows"},
		{"RLE header only", encoding.RLE, 1, []byte{0x02}, "RLE FLOAT at byte 1: stream ends after 0 of 1 values"},
		{"RLE offsets count from the stream start", encoding.RLE, 1, []byte{0x02, 0x03, 0x21, 0x02, 0x00}, "RLE FLOAT at byte 2: bit width 33"},
		{"RLE empty stream", encoding.RLE, 1, nil, "empty stream cannot hold 1 values"},
		{"RLE bytes for no values", encoding.RLE, 0, []byte{0x02, 0x00}, "2 bytes for no values"},
		{"TS_2DIFF header only", encoding.TS2Diff, 1, []byte{0x02}, "starting at byte 1"},
		{"TS_2DIFF empty stream", encoding.TS2Diff, 1, nil, "empty stream cannot hold 1 values"},
		{"TS_2DIFF bytes for no values", encoding.TS2Diff, 0, []byte{0x00}, "1 bytes for no values"},
		{"TS_2DIFF huge count", encoding.TS2Diff, 3, cat([]byte{0x02}, be32(math.MaxInt32), be32(0), be32(0), be32(0)), "block holds 2147483648 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := encoding.DecodeFloat32(tt.enc, make([]float32, tt.n), tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, tt.msg)
			require.ErrorIs(t, encoding.DecodeFloat64(tt.enc, make([]float64, tt.n), tt.src), encoding.ErrCorrupt)
		})
	}
}

func TestScaledDoesNotAllocate(t *testing.T) {
	v64 := scaledBenchFloat64()
	v32 := make([]float32, len(v64))
	for i, x := range v64 {
		v32[i] = float32(x)
	}
	buf := make([]byte, 0, 16*len(v64))
	d32, d64 := make([]float32, len(v32)), make([]float64, len(v64))
	for _, enc := range []encoding.Encoding{encoding.RLE, encoding.TS2Diff} {
		src32, err := encoding.AppendEncodedFloat32(enc, nil, v32)
		require.NoError(t, err)
		src64, err := encoding.AppendEncodedFloat64(enc, nil, v64)
		require.NoError(t, err)
		for name, f := range map[string]func() error{
			"DecodeFloat32": func() error { return encoding.DecodeFloat32(enc, d32, src32) },
			"DecodeFloat64": func() error { return encoding.DecodeFloat64(enc, d64, src64) },
			"AppendEncodedFloat32": func() error {
				_, err := encoding.AppendEncodedFloat32(enc, buf, v32)
				return err
			},
			"AppendEncodedFloat64": func() error {
				_, err := encoding.AppendEncodedFloat64(enc, buf, v64)
				return err
			},
		} {
			require.Zero(t, testing.AllocsPerRun(20, func() {
				if err := f(); err != nil {
					panic(err)
				}
			}), "%v %s", enc, name)
		}
	}
}

func scaledAddSeeds32(f *testing.F, enc encoding.Encoding) {
	for _, g := range scaledGoldenFloat32 {
		if g.enc == enc {
			f.Add(uint16(len(g.v)), g.want)
		}
	}
}

func scaledAddSeeds64(f *testing.F, enc encoding.Encoding) {
	for _, g := range scaledGoldenFloat64 {
		if g.enc == enc {
			f.Add(uint16(len(g.v)), g.want)
		}
	}
}

// scaledFuzz32 decodes src, checks the neighbouring lengths fail, and that writing the
// decoded values gives back what the reference would store for them.
func scaledFuzz32(t *testing.T, enc encoding.Encoding, n uint16, src []byte) {
	dst := make([]float32, n)
	err := encoding.DecodeFloat32(enc, dst, src)
	requireSentinel(t, err)
	if err != nil {
		return
	}
	buf := make([]float32, n+1)
	require.ErrorIs(t, encoding.DecodeFloat32(enc, buf, src), encoding.ErrCorrupt)
	if n > 0 {
		require.ErrorIs(t, encoding.DecodeFloat32(enc, buf[:n-1], src), encoding.ErrCorrupt)
	}
	re, err := encoding.AppendEncodedFloat32(enc, nil, dst)
	require.NoError(t, err)
	again := make([]float32, n)
	require.NoError(t, encoding.DecodeFloat32(enc, again, re))
	for i, x := range dst {
		if want := scaledRef32(x); math.Float32bits(want) != math.Float32bits(again[i]) {
			t.Fatalf("value %d: %v re-encoded reads %v, want %v", i, x, again[i], want)
		}
	}
}

func scaledFuzz64(t *testing.T, enc encoding.Encoding, n uint16, src []byte) {
	dst := make([]float64, n)
	err := encoding.DecodeFloat64(enc, dst, src)
	requireSentinel(t, err)
	if err != nil {
		return
	}
	buf := make([]float64, n+1)
	require.ErrorIs(t, encoding.DecodeFloat64(enc, buf, src), encoding.ErrCorrupt)
	if n > 0 {
		require.ErrorIs(t, encoding.DecodeFloat64(enc, buf[:n-1], src), encoding.ErrCorrupt)
	}
	re, err := encoding.AppendEncodedFloat64(enc, nil, dst)
	require.NoError(t, err)
	again := make([]float64, n)
	require.NoError(t, encoding.DecodeFloat64(enc, again, re))
	for i, x := range dst {
		if want := scaledRef64(x); math.Float64bits(want) != math.Float64bits(again[i]) {
			t.Fatalf("value %d: %v re-encoded reads %v, want %v", i, x, again[i], want)
		}
	}
}

func FuzzRLEFloat32(f *testing.F) {
	scaledAddSeeds32(f, encoding.RLE)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { scaledFuzz32(t, encoding.RLE, n, src) })
}

func FuzzRLEFloat64(f *testing.F) {
	scaledAddSeeds64(f, encoding.RLE)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { scaledFuzz64(t, encoding.RLE, n, src) })
}

func FuzzTS2DiffFloat32(f *testing.F) {
	scaledAddSeeds32(f, encoding.TS2Diff)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { scaledFuzz32(t, encoding.TS2Diff, n, src) })
}

func FuzzTS2DiffFloat64(f *testing.F) {
	scaledAddSeeds64(f, encoding.TS2Diff)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { scaledFuzz64(t, encoding.TS2Diff, n, src) })
}
