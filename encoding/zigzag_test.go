package encoding_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The goldens below are derived by hand from the Java IntZigzagEncoder and LongZigzagEncoder:
// one block of UVarInt byte length, UVarInt count, then each value mapped by ZigZag
// ((v << 1) ^ (v >> 63), so 0, -1, 1, -2 become 0, 1, 2, 3) and written as a UVarInt, seven
// bits per byte, low group first, with the high bit set on every byte but the last.

var zigzagGoldenInt32 = []struct {
	name string
	v    []int32
	want []byte
}{
	{name: "empty", v: nil, want: nil}, // the Java flush writes nothing for no values
	{
		name: "small and boundary values",
		v:    []int32{0, -1, 1, -64, 64, math.MinInt32},
		// ZigZag: 0, 1, 2, 127, 128, 0xffffffff. 128 = 1_0000000 needs two bytes: 80 01;
		// 0xffffffff is 4 groups of 7 ones and 0b1111: ff ff ff ff 0f. 11 bytes in all.
		want: []byte{0x0b, 0x06, 0x00, 0x01, 0x02, 0x7f, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f},
	},
	{
		name: "max",
		v:    []int32{math.MaxInt32},
		// ZigZag 0xfffffffe: low group 111_1110 = 0x7e | 0x80 = fe, then ff ff ff 0f.
		want: []byte{0x05, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f},
	},
	{
		name: "300",
		v:    []int32{300},
		// ZigZag 600 = 0x258: low 7 bits 0x58 | 0x80 = d8, then 600 >> 7 = 4.
		want: []byte{0x02, 0x01, 0xd8, 0x04},
	},
}

var zigzagGoldenInt64 = []struct {
	name string
	v    []int64
	want []byte
}{
	{name: "empty", v: nil, want: nil},
	{
		name: "extremes",
		v:    []int64{math.MaxInt64, math.MinInt64, 300},
		// ZigZag 0xffff_ffff_ffff_fffe: fe, eight ff (56 more ones), then the top bit 01;
		// 0xffff_ffff_ffff_ffff: nine ff then 01; 600: d8 04. 10 + 10 + 2 = 22 bytes.
		want: cat([]byte{0x16, 0x03},
			[]byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
			[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
			[]byte{0xd8, 0x04}),
	},
	{
		name: "small",
		v:    []int64{-3, 3},
		want: []byte{0x02, 0x02, 0x05, 0x06}, // ZigZag 5 and 6
	},
}

func TestZigZagGoldenInt32(t *testing.T) {
	for _, tt := range zigzagGoldenInt32 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedInt32(encoding.ZigZag, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, rleNilIfEmpty(got))
			dst := make([]int32, len(tt.v))
			require.NoError(t, encoding.DecodeInt32(encoding.ZigZag, dst, tt.want))
			require.Equal(t, tt.v, rleNilIfEmpty(dst))
		})
	}
}

func TestZigZagGoldenInt64(t *testing.T) {
	for _, tt := range zigzagGoldenInt64 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedInt64(encoding.ZigZag, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, rleNilIfEmpty(got))
			dst := make([]int64, len(tt.v))
			require.NoError(t, encoding.DecodeInt64(encoding.ZigZag, dst, tt.want))
			require.Equal(t, tt.v, rleNilIfEmpty(dst))
			n, err := encoding.CountInt64(encoding.ZigZag, tt.want)
			require.NoError(t, err)
			require.Equal(t, len(tt.v), n)
		})
	}
}

// TestZigZagDecodeJavaReadable covers streams the writer never produces that Java reads.
func TestZigZagDecodeJavaReadable(t *testing.T) {
	src := []byte{0x02, 0x01, 0xd8, 0x04, 0x01, 0x01, 0x02, 0x02, 0x01, 0x80, 0x00}
	want := []int64{300, 1, 0} // two blocks, then one whose value is the overlong 80 00
	d64 := make([]int64, 3)
	require.NoError(t, encoding.DecodeInt64(encoding.ZigZag, d64, src))
	require.Equal(t, want, d64)
	d32 := make([]int32, 3)
	require.NoError(t, encoding.DecodeInt32(encoding.ZigZag, d32, src))
	require.Equal(t, rleInt32s(want), d32)
	n, err := encoding.CountInt64(encoding.ZigZag, src)
	require.NoError(t, err)
	require.Equal(t, 3, n)
}

func TestZigZagRoundTrip(t *testing.T) {
	prefix := []byte("prefix")
	for _, s := range rleShapes() {
		t.Run(s.name, func(t *testing.T) {
			n := len(s.v)
			src, err := encoding.AppendEncodedInt64(encoding.ZigZag, slices.Clone(prefix), s.v)
			require.NoError(t, err)
			require.Equal(t, prefix, src[:len(prefix)])
			src = src[len(prefix):]
			d64 := slices.Repeat([]int64{-99}, n)
			require.NoError(t, encoding.DecodeInt64(encoding.ZigZag, d64, src))
			require.Equal(t, s.v, d64)
			count, err := encoding.CountInt64(encoding.ZigZag, src)
			require.NoError(t, err)
			require.Equal(t, n, count)
			all, err := encoding.AppendAllInt64(encoding.ZigZag, []int64{1}, src)
			require.NoError(t, err)
			require.Equal(t, append([]int64{1}, s.v...), all)

			v32 := rleInt32s(s.v)
			src, err = encoding.AppendEncodedInt32(encoding.ZigZag, slices.Clone(prefix), v32)
			require.NoError(t, err)
			require.Equal(t, prefix, src[:len(prefix)])
			src = src[len(prefix):]
			d32 := slices.Repeat([]int32{-99}, n)
			require.NoError(t, encoding.DecodeInt32(encoding.ZigZag, d32, src))
			require.Equal(t, v32, d32)
		})
	}
}

func TestZigZagStreamErrors(t *testing.T) {
	d32 := func(n int, src []byte) error { return encoding.DecodeInt32(encoding.ZigZag, make([]int32, n), src) }
	d64 := func(n int, src []byte) error { return encoding.DecodeInt64(encoding.ZigZag, make([]int64, n), src) }
	for _, g := range zigzagGoldenInt32 {
		rleRequireStreamErrors(t, len(g.v), g.want, d32)
	}
	for _, g := range zigzagGoldenInt64 {
		rleRequireStreamErrors(t, len(g.v), g.want, d64)
	}
	for _, s := range rleShapes()[:60] {
		src, err := encoding.AppendEncodedInt64(encoding.ZigZag, nil, s.v)
		require.NoError(t, err)
		rleRequireStreamErrors(t, len(s.v), src, d64)
	}
}

func TestZigZagCorruptStreams(t *testing.T) {
	tests := []struct {
		name string
		n    int
		src  []byte
		msg  string
	}{
		{"truncated length", 1, []byte{0x80}, "at byte 0: truncated block length"},
		{"truncated count", 1, []byte{0x01}, "at byte 1: truncated value count"},
		{"length overflows", 1, []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, "block length VarInt overflows 32 bits"},
		{"length beyond int32", 1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x00}, "block length 4294967295 exceeds the int32 range"},
		{"count beyond int32", 1, []byte{0x01, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00}, "value count 2147483648 exceeds the int32 range"},
		{"no values", 1, []byte{0x01, 0x00, 0x00}, "at byte 1: block of no values"},
		{"block overruns", 1, []byte{0x05, 0x01, 0x00}, "block of 5 bytes overruns the 1 bytes left"},
		{"more values than bytes", 2, []byte{0x01, 0x02, 0x00}, "2 values cannot fit in 1 bytes"},
		{"value runs past its block", 2, []byte{0x02, 0x02, 0x00, 0x80, 0x00}, "at byte 3: value VarInt runs past the end of its block"},
		{"bytes left in the block", 1, []byte{0x03, 0x01, 0x00, 0x00, 0x00}, "at byte 3: 2 bytes left in the block after its 1 values"},
		{"huge count", 5, []byte{0xfe, 0xff, 0xff, 0xff, 0x07, 0xfe, 0xff, 0xff, 0xff, 0x07}, "overruns"},
		{"block beyond the count", 1, []byte{0x02, 0x02, 0x00, 0x00}, "block holds 2 values, but only 1 of 1 remain"},
		{"stream too short", 2, []byte{0x01, 0x01, 0x00}, "at byte 3: stream ends after 1 of 2 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := encoding.DecodeInt32(encoding.ZigZag, make([]int32, tt.n), tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, tt.msg)
			require.ErrorContains(t, err, "encoding: ZIGZAG INT32 at byte")
			require.ErrorIs(t, encoding.DecodeInt64(encoding.ZigZag, make([]int64, tt.n), tt.src), encoding.ErrCorrupt)
			if tt.name != "block beyond the count" && tt.name != "stream too short" {
				_, err := encoding.CountInt64(encoding.ZigZag, tt.src)
				require.ErrorIs(t, err, encoding.ErrCorrupt)
			}
		})
	}
	// A value wider than its type.
	err := encoding.DecodeInt32(encoding.ZigZag, make([]int32, 1), []byte{0x05, 0x01, 0xff, 0xff, 0xff, 0xff, 0x1f})
	require.ErrorContains(t, err, "at byte 2: value VarInt overflows the value type")
	src := cat([]byte{0x0b, 0x01}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	err = encoding.DecodeInt64(encoding.ZigZag, make([]int64, 1), src)
	require.ErrorContains(t, err, "value VarInt overflows the value type")
	_, err = encoding.CountInt64(encoding.ZigZag, src)
	require.ErrorIs(t, err, encoding.ErrCorrupt)
}

func TestZigZagDoesNotAllocate(t *testing.T) {
	v := rleBenchSeries("walk")
	v32 := rleInt32s(v)
	src64, err := encoding.AppendEncodedInt64(encoding.ZigZag, nil, v)
	require.NoError(t, err)
	src32, err := encoding.AppendEncodedInt32(encoding.ZigZag, nil, v32)
	require.NoError(t, err)
	d64, d32 := make([]int64, len(v)), make([]int32, len(v))
	buf := make([]byte, 0, 2*len(src64))
	for name, f := range map[string]func() error{
		"DecodeInt64": func() error { return encoding.DecodeInt64(encoding.ZigZag, d64, src64) },
		"DecodeInt32": func() error { return encoding.DecodeInt32(encoding.ZigZag, d32, src32) },
		"CountInt64": func() error {
			_, err := encoding.CountInt64(encoding.ZigZag, src64)
			return err
		},
		"AppendEncodedInt64": func() error {
			_, err := encoding.AppendEncodedInt64(encoding.ZigZag, buf, v)
			return err
		},
	} {
		require.Zero(t, testing.AllocsPerRun(20, func() {
			if err := f(); err != nil {
				panic(err)
			}
		}), name)
	}
}

func zigzagAddSeeds(f *testing.F) {
	for _, g := range zigzagGoldenInt32 {
		f.Add(uint16(len(g.v)), g.want)
	}
	for _, g := range zigzagGoldenInt64 {
		f.Add(uint16(len(g.v)), g.want)
	}
	f.Add(uint16(3), []byte{0x02, 0x01, 0xd8, 0x04, 0x01, 0x01, 0x02, 0x02, 0x01, 0x80, 0x00})
}

func FuzzZigZagInt32(f *testing.F) {
	zigzagAddSeeds(f)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) {
		dst := make([]int32, n)
		err := encoding.DecodeInt32(encoding.ZigZag, dst, src)
		requireSentinel(t, err)
		if err != nil {
			return
		}
		require.ErrorIs(t, encoding.DecodeInt32(encoding.ZigZag, make([]int32, n+1), src), encoding.ErrCorrupt)
		if n > 0 {
			require.ErrorIs(t, encoding.DecodeInt32(encoding.ZigZag, make([]int32, n-1), src), encoding.ErrCorrupt)
		}
		// One block of minimal varints is the canonical form: never longer than the input.
		re, err := encoding.AppendEncodedInt32(encoding.ZigZag, nil, dst)
		require.NoError(t, err)
		require.LessOrEqual(t, len(re), len(src))
		again := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(encoding.ZigZag, again, re))
		require.True(t, slices.Equal(dst, again), "values changed by re-encoding")
	})
}

func FuzzZigZagInt64(f *testing.F) {
	zigzagAddSeeds(f)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) {
		dst := make([]int64, n)
		err := encoding.DecodeInt64(encoding.ZigZag, dst, src)
		requireSentinel(t, err)
		rleFuzzLengths(t, src, func(s []byte) (int, error) { return encoding.CountInt64(encoding.ZigZag, s) },
			func(d []int64, s []byte) error { return encoding.DecodeInt64(encoding.ZigZag, d, s) })
		if err != nil {
			return
		}
		re, err := encoding.AppendEncodedInt64(encoding.ZigZag, nil, dst)
		require.NoError(t, err)
		require.LessOrEqual(t, len(re), len(src))
		again := make([]int64, n)
		require.NoError(t, encoding.DecodeInt64(encoding.ZigZag, again, re))
		require.True(t, slices.Equal(dst, again), "values changed by re-encoding")
	})
}
