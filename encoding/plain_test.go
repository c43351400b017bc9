package encoding_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

func TestPlainBoolGolden(t *testing.T) {
	v := []bool{true, false, true}
	want := []byte{0x01, 0x00, 0x01}
	got, err := encoding.AppendEncodedBool(encoding.Plain, nil, v)
	require.NoError(t, err)
	require.Equal(t, want, got)
	dst := make([]bool, len(v))
	require.NoError(t, encoding.DecodeBool(encoding.Plain, dst, want))
	require.Equal(t, v, dst)
}

// TestPlainInt32Golden covers the VarInt examples of Binary-Representation.md. PLAIN INT32 is
// a ZigZag VarInt, so 150 maps to 300 and is written as the spec's UVarInt example ac 02.
func TestPlainInt32Golden(t *testing.T) {
	tests := []struct {
		v    int32
		want []byte
	}{
		{0, []byte{0x00}},  // zigzag 0
		{-1, []byte{0x01}}, // zigzag 1
		{1, []byte{0x02}},  // zigzag 2
		{-2, []byte{0x03}}, // zigzag 3
		{63, []byte{0x7e}}, // zigzag 126, largest one-byte positive
		{-64, []byte{0x7f}},
		{64, []byte{0x80, 0x01}},   // zigzag 128 = 0b1_0000000
		{150, []byte{0xac, 0x02}},  // zigzag 300 = 0b10_0101100 -> 0x2c|0x80, 0x02
		{300, []byte{0xd8, 0x04}},  // zigzag 600 = 0b100_1011000 -> 0x58|0x80, 0x04
		{-151, []byte{0xad, 0x02}}, // zigzag 301
		{math.MaxInt32, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}}, // zigzag 0xfffffffe
		{math.MinInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}}, // zigzag 0xffffffff
	}
	for _, tt := range tests {
		got, err := encoding.AppendEncodedInt32(encoding.Plain, nil, []int32{tt.v})
		require.NoError(t, err)
		require.Equal(t, tt.want, got, "%d", tt.v)
		dst := make([]int32, 1)
		require.NoError(t, encoding.DecodeInt32(encoding.Plain, dst, tt.want))
		require.Equal(t, tt.v, dst[0])
	}
}

func TestPlainInt32AcceptsOverlongVarInt(t *testing.T) {
	// Java's reader accepts padded forms within five bytes; the format only forbids writing them.
	dst := make([]int32, 2)
	require.NoError(t, encoding.DecodeInt32(encoding.Plain, dst, []byte{0x82, 0x00, 0x80, 0x80, 0x80, 0x80, 0x00}))
	require.Equal(t, []int32{1, 0}, dst)
}

func TestPlainFixedGolden(t *testing.T) {
	i64, err := encoding.AppendEncodedInt64(encoding.Plain, nil, []int64{1, -2, math.MinInt64})
	require.NoError(t, err)
	require.Equal(t, []byte{
		0, 0, 0, 0, 0, 0, 0, 1,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0x80, 0, 0, 0, 0, 0, 0, 0,
	}, i64)

	nan32 := math.Float32frombits(0x7fc00001) // NaN with a payload Java would canonicalize
	f32, err := encoding.AppendEncodedFloat32(encoding.Plain, nil, []float32{1, float32(math.Copysign(0, -1)), nan32})
	require.NoError(t, err)
	require.Equal(t, []byte{0x3f, 0x80, 0, 0, 0x80, 0, 0, 0, 0x7f, 0xc0, 0, 0x01}, f32)

	f64, err := encoding.AppendEncodedFloat64(encoding.Plain, nil, []float64{1, -2.5})
	require.NoError(t, err)
	require.Equal(t, []byte{0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0x04, 0, 0, 0, 0, 0, 0}, f64)
}

func TestPlainBinaryGolden(t *testing.T) {
	v := [][]byte{{}, []byte("hi"), []byte("héllo")} // "héllo" is 6 UTF-8 bytes
	want := []byte{
		0x00,           // zigzag(0)
		0x04, 'h', 'i', // zigzag(2) = 4
		0x0c, 'h', 0xc3, 0xa9, 'l', 'l', 'o', // zigzag(6) = 12
	}
	got, err := encoding.AppendEncodedBinary(encoding.Plain, nil, v)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// The caller seeds offsets with the start offset of the data it already holds.
	offsets, data, err := encoding.AppendBinary(encoding.Plain, []int32{0, 3}, []byte("abc"), 3, want)
	require.NoError(t, err)
	require.Equal(t, []int32{0, 3, 3, 5, 11}, offsets)
	require.Equal(t, []byte("abchihéllo"), data)
}

func TestPlainRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 127, 128, 129, 257, 1000} {
		bools := make([]bool, n)
		i32 := make([]int32, n)
		i64 := make([]int64, n)
		f32 := make([]float32, n)
		f64 := make([]float64, n)
		bins := make([][]byte, n)
		for i := range n {
			bools[i] = r.IntN(2) == 1
			i32[i] = int32(r.Uint32() >> r.UintN(32))
			i64[i] = int64(r.Uint64())
			f32[i] = math.Float32frombits(r.Uint32())
			f64[i] = math.Float64frombits(r.Uint64())
			bins[i] = make([]byte, r.IntN(200))
			for j := range bins[i] {
				bins[i][j] = byte(r.Uint32())
			}
		}
		if n >= 8 {
			i32[0], i32[1] = math.MinInt32, math.MaxInt32
			i64[0], i64[1] = math.MinInt64, math.MaxInt64
			f32[0], f32[1], f32[2] = float32(math.NaN()), math.Float32frombits(0xffc01234), float32(math.Copysign(0, -1))
			f64[0], f64[1], f64[2] = math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Copysign(0, -1)
			f64[3], f64[4] = math.Inf(1), math.Inf(-1)
		}

		enc, err := encoding.AppendEncodedBool(encoding.Plain, nil, bools)
		require.NoError(t, err)
		gotB := make([]bool, n)
		require.NoError(t, encoding.DecodeBool(encoding.Plain, gotB, enc))
		require.Equal(t, bools, gotB)

		enc, err = encoding.AppendEncodedInt32(encoding.Plain, nil, i32)
		require.NoError(t, err)
		got32 := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(encoding.Plain, got32, enc))
		require.Equal(t, i32, got32)

		enc, err = encoding.AppendEncodedInt64(encoding.Plain, nil, i64)
		require.NoError(t, err)
		got64 := make([]int64, n)
		require.NoError(t, encoding.DecodeInt64(encoding.Plain, got64, enc))
		require.Equal(t, i64, got64)
		all, err := encoding.AppendAllInt64(encoding.Plain, []int64{42}, enc)
		require.NoError(t, err)
		require.Equal(t, append([]int64{42}, i64...), all)

		enc, err = encoding.AppendEncodedFloat32(encoding.Plain, nil, f32)
		require.NoError(t, err)
		gotF32 := make([]float32, n)
		require.NoError(t, encoding.DecodeFloat32(encoding.Plain, gotF32, enc))
		for i := range f32 {
			require.Equal(t, math.Float32bits(f32[i]), math.Float32bits(gotF32[i]), "index %d", i)
		}

		enc, err = encoding.AppendEncodedFloat64(encoding.Plain, nil, f64)
		require.NoError(t, err)
		gotF64 := make([]float64, n)
		require.NoError(t, encoding.DecodeFloat64(encoding.Plain, gotF64, enc))
		for i := range f64 {
			require.Equal(t, math.Float64bits(f64[i]), math.Float64bits(gotF64[i]), "index %d", i)
		}

		enc, err = encoding.AppendEncodedBinary(encoding.Plain, []byte{0xee}, bins)
		require.NoError(t, err)
		require.Equal(t, byte(0xee), enc[0], "AppendEncodedBinary must append")
		offsets, data, err := encoding.AppendBinary(encoding.Plain, []int32{0}, nil, n, enc[1:])
		require.NoError(t, err)
		require.Len(t, offsets, n+1)
		for i := range n {
			require.Equal(t, bins[i], data[offsets[i]:offsets[i+1]], "index %d", i)
		}
	}
}

func TestPlainErrors(t *testing.T) {
	tests := []struct {
		name    string
		run     func() error
		wantMsg string
	}{
		{"bool short", func() error { return encoding.DecodeBool(encoding.Plain, make([]bool, 3), []byte{1, 0}) },
			"PLAIN BOOLEAN at byte 2: stream ends after 2 of 3 values"},
		{"bool trailing", func() error { return encoding.DecodeBool(encoding.Plain, make([]bool, 1), []byte{1, 0}) },
			"PLAIN BOOLEAN at byte 1: 1 trailing bytes after 1 values"},
		{"bool bad byte", func() error { return encoding.DecodeBool(encoding.Plain, make([]bool, 3), []byte{1, 2, 0}) },
			"PLAIN BOOLEAN at byte 1: invalid value 0x02"},
		{"bool 0xff", func() error { return encoding.DecodeBool(encoding.Plain, make([]bool, 1), []byte{0xff}) },
			"at byte 0: invalid value 0xff"},
		{"int32 empty", func() error { return encoding.DecodeInt32(encoding.Plain, make([]int32, 1), nil) },
			"PLAIN INT32 at byte 0: stream ends after 0 of 1 values"},
		{"int32 missing", func() error { return encoding.DecodeInt32(encoding.Plain, make([]int32, 3), []byte{2, 4}) },
			"PLAIN INT32 at byte 2: stream ends after 2 of 3 values"},
		{"int32 truncated varint", func() error { return encoding.DecodeInt32(encoding.Plain, make([]int32, 2), []byte{2, 0x80, 0x80}) },
			"PLAIN INT32 at byte 1: truncated VarInt"},
		{"int32 fifth byte overflow", func() error {
			return encoding.DecodeInt32(encoding.Plain, make([]int32, 1), []byte{0xff, 0xff, 0xff, 0xff, 0x1f})
		}, "PLAIN INT32 at byte 0: VarInt overflows 32 bits"},
		{"int32 six bytes", func() error {
			return encoding.DecodeInt32(encoding.Plain, make([]int32, 1), []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00})
		}, "PLAIN INT32 at byte 0: VarInt overflows 32 bits"},
		{"int32 trailing", func() error { return encoding.DecodeInt32(encoding.Plain, make([]int32, 1), []byte{2, 4}) },
			"PLAIN INT32 at byte 1: 1 trailing bytes after 1 values"},
		{"int64 short", func() error { return encoding.DecodeInt64(encoding.Plain, make([]int64, 1), make([]byte, 7)) },
			"PLAIN INT64 at byte 7: stream ends after 0 of 1 values"},
		{"int64 trailing", func() error { return encoding.DecodeInt64(encoding.Plain, make([]int64, 1), make([]byte, 9)) },
			"PLAIN INT64 at byte 8: 1 trailing bytes after 1 values"},
		{"int64 empty dst", func() error { return encoding.DecodeInt64(encoding.Plain, nil, make([]byte, 8)) },
			"PLAIN INT64 at byte 0: 8 trailing bytes after 0 values"},
		{"count int64 ragged", func() error { _, err := encoding.CountInt64(encoding.Plain, make([]byte, 19)); return err },
			"PLAIN INT64 at byte 16: 3 trailing bytes do not form a value"},
		{"append all int64 ragged", func() error { _, err := encoding.AppendAllInt64(encoding.Plain, nil, make([]byte, 5)); return err },
			"PLAIN INT64 at byte 0: 5 trailing bytes"},
		{"float short", func() error { return encoding.DecodeFloat32(encoding.Plain, make([]float32, 2), make([]byte, 5)) },
			"PLAIN FLOAT at byte 5: stream ends after 1 of 2 values"},
		{"float trailing", func() error { return encoding.DecodeFloat32(encoding.Plain, make([]float32, 1), make([]byte, 5)) },
			"PLAIN FLOAT at byte 4: 1 trailing bytes"},
		{"double short", func() error { return encoding.DecodeFloat64(encoding.Plain, make([]float64, 1), make([]byte, 4)) },
			"PLAIN DOUBLE at byte 4: stream ends after 0 of 1 values"},
		{"double trailing", func() error { return encoding.DecodeFloat64(encoding.Plain, make([]float64, 1), make([]byte, 16)) },
			"PLAIN DOUBLE at byte 8: 8 trailing bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, tt.wantMsg)
		})
	}
}

func TestPlainBinaryErrors(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		src     []byte
		wantMsg string
	}{
		{"negative length", 1, []byte{0x01}, "PLAIN BINARY at byte 0: negative length -1"},
		{"negative length later", 2, []byte{0x02, 'a', 0x03}, "PLAIN BINARY at byte 2: negative length -2"},
		{"overrun", 1, []byte{0x06, 'a', 'b'}, "PLAIN BINARY at byte 0: value of 3 bytes overruns the 2 bytes left"},
		{"truncated varint", 2, []byte{0x00, 0x80}, "PLAIN BINARY at byte 1: truncated length VarInt"},
		{"varint overflow", 1, []byte{0xff, 0xff, 0xff, 0xff, 0x7f, 0}, "PLAIN BINARY at byte 0: length VarInt overflows 32 bits"},
		{"stream ends", 2, []byte{0x02, 'a'}, "PLAIN BINARY at byte 2: stream ends before 2 values"},
		{"trailing", 1, []byte{0x02, 'a', 'b'}, "PLAIN BINARY at byte 2: 1 trailing bytes after 1 values"},
		{"trailing after none", 0, []byte{0x00}, "PLAIN BINARY at byte 0: 1 trailing bytes after 0 values"},
		{"count too large", 3, []byte{0x00, 0x00}, "PLAIN BINARY at byte 0: 2 bytes cannot hold 3 values"},
		{"huge count", math.MaxInt, []byte{0x00}, "cannot hold"},
		{"negative count", -1, nil, "cannot hold -1 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offsets, data := []int32{0, 1}, []byte{'x'}
			gotOff, gotData, err := encoding.AppendBinary(encoding.Plain, offsets, data, tt.n, tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, tt.wantMsg)
			require.Equal(t, []int32{0, 1}, gotOff, "offsets must be unchanged on error")
			require.Equal(t, []byte{'x'}, gotData, "data must be unchanged on error")
		})
	}
}

func TestAppendBinaryDataLimit(t *testing.T) {
	restore := encoding.SetMaxBinaryData(10)
	defer restore()
	src := []byte{0x08, 'a', 'b', 'c', 'd', 0x08, 'e', 'f', 'g', 'h'}
	offsets, data, err := encoding.AppendBinary(encoding.Plain, []int32{0, 2}, []byte("xy"), 2, src)
	require.NoError(t, err, "exactly at the limit is allowed")
	require.Equal(t, []int32{0, 2, 6, 10}, offsets)
	require.Len(t, data, 10)

	_, _, err = encoding.AppendBinary(encoding.Plain, []int32{0, 3}, []byte("xyz"), 2, src)
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	require.ErrorContains(t, err, "int32 offsets")
}
