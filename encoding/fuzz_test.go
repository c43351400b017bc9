package encoding_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The fuzz targets check that no input makes a decoder panic, that every failure wraps
// exactly one of the sentinels, and that the different entry points agree on valid input.

// maxFuzzValues bounds the counts the targets use, as a real reader bounds them by Page
// metadata; TS_2DIFF can describe billions of values in a few bytes.
const maxFuzzValues = 1 << 16

func requireSentinel(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	corrupt, unsupported := errors.Is(err, encoding.ErrCorrupt), errors.Is(err, encoding.ErrUnsupported)
	require.True(t, corrupt != unsupported, "error must wrap exactly one sentinel: %v", err)
}

func addInt64Seeds(f *testing.F) {
	for _, g := range ts2diffGolden64 {
		f.Add(uint8(encoding.TS2Diff), uint16(len(g.v)), g.want)
	}
	plain, _ := encoding.AppendEncodedInt64(encoding.Plain, nil, []int64{1, math.MinInt64, -1})
	f.Add(uint8(encoding.Plain), uint16(3), plain)
	f.Add(uint8(encoding.TS2Diff), uint16(2), cat(be32(math.MaxInt32), be32(0), be64(0), be64(0)))
	f.Add(uint8(encoding.TS2Diff), uint16(1), cat(be32(0), be32(65), be64(0), be64(0)))
	f.Add(uint8(encoding.RLE), uint16(1), plain[:8])
	f.Add(uint8(encoding.TS2Diff), uint16(0), []byte{})
}

func FuzzDecodeInt64(f *testing.F) {
	addInt64Seeds(f)
	f.Fuzz(func(t *testing.T, enc uint8, n uint16, src []byte) {
		e := encoding.Encoding(enc)
		dst := make([]int64, n)
		err := encoding.DecodeInt64(e, dst, src)
		requireSentinel(t, err)
		if err != nil {
			return
		}
		// A stream that decodes to n values is exactly n values to the counting decoders too,
		// except in GORILLA, whose end marker is also an ordinary value: a stream whose
		// last values repeat the marker decodes to more values than it counts. Counting
		// gives the fewest values that decode, and the extra ones are all the marker.
		count, err := encoding.CountInt64(e, src)
		require.NoError(t, err)
		if e == encoding.Gorilla && count < int(n) {
			for _, v := range dst[count:] {
				require.Equal(t, int64(math.MinInt64), v)
			}
			dst = dst[:count]
			n = uint16(count)
		}
		require.Equal(t, int(n), count)
		all, err := encoding.AppendAllInt64(e, []int64{7}, src)
		require.NoError(t, err)
		require.Equal(t, append([]int64{7}, dst...), all)
		// Re-encoding may choose other block boundaries, but must give back the same values.
		re, err := encoding.AppendEncodedInt64(e, nil, dst)
		require.NoError(t, err)
		again := make([]int64, n)
		require.NoError(t, encoding.DecodeInt64(e, again, re))
		require.Equal(t, dst, again)
	})
}

func FuzzDecodeInt32(f *testing.F) {
	for _, g := range ts2diffGolden32 {
		f.Add(uint8(encoding.TS2Diff), uint16(len(g.v)), g.want)
	}
	f.Add(uint8(encoding.Plain), uint16(4), []byte{0x00, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01})
	f.Add(uint8(encoding.Plain), uint16(1), []byte{0xff, 0xff, 0xff, 0xff, 0x1f})
	f.Add(uint8(encoding.TS2Diff), uint16(1), cat(be32(0), be32(33), be32(0), be32(0)))
	f.Fuzz(func(t *testing.T, enc uint8, n uint16, src []byte) {
		e := encoding.Encoding(enc)
		dst := make([]int32, n)
		err := encoding.DecodeInt32(e, dst, src)
		requireSentinel(t, err)
		if err != nil {
			return
		}
		re, err := encoding.AppendEncodedInt32(e, nil, dst)
		require.NoError(t, err)
		again := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(e, again, re))
		require.Equal(t, dst, again)
		if e == encoding.Plain {
			// PLAIN VarInts are canonical on output; overlong input forms are only shorter.
			require.LessOrEqual(t, len(re), len(src))
		}
	})
}

func FuzzAppendAllInt64(f *testing.F) {
	addInt64Seeds(f)
	f.Fuzz(func(t *testing.T, enc uint8, _ uint16, src []byte) {
		e := encoding.Encoding(enc)
		count, err := encoding.CountInt64(e, src)
		requireSentinel(t, err)
		if err != nil {
			_, err2 := encoding.AppendAllInt64(e, []int64{7}, src)
			require.Error(t, err2, "CountInt64 rejected the stream, AppendAllInt64 must too")
			return
		}
		if count > maxFuzzValues {
			return
		}
		all, err := encoding.AppendAllInt64(e, []int64{7}, src)
		require.NoError(t, err)
		require.Len(t, all, count+1)
		require.Equal(t, int64(7), all[0])
		dst := make([]int64, count)
		require.NoError(t, encoding.DecodeInt64(e, dst, src))
		require.Equal(t, dst, all[1:])
	})
}

func FuzzAppendBinary(f *testing.F) {
	f.Add(uint8(encoding.Plain), uint16(3), []byte{0x00, 0x04, 'h', 'i', 0x0c, 'h', 0xc3, 0xa9, 'l', 'l', 'o'})
	f.Add(uint8(encoding.Plain), uint16(1), []byte{0x01})
	f.Add(uint8(encoding.Plain), uint16(1), []byte{0xfe, 0xff, 0xff, 0xff, 0x0f})
	f.Add(uint8(encoding.Dictionary), uint16(1), []byte{0x00})
	f.Fuzz(func(t *testing.T, enc uint8, n uint16, src []byte) {
		e := encoding.Encoding(enc)
		offsets, data, err := encoding.AppendBinary(e, []int32{1}, []byte{'x'}, int(n), src)
		requireSentinel(t, err)
		if err != nil {
			require.Equal(t, []int32{1}, offsets)
			require.Equal(t, []byte{'x'}, data)
			return
		}
		require.Len(t, offsets, int(n)+1)
		vals := make([][]byte, n)
		for i := range vals {
			require.LessOrEqual(t, offsets[i], offsets[i+1])
			vals[i] = data[offsets[i]:offsets[i+1]]
		}
		require.Equal(t, int32(len(data)), offsets[n])
		re, err := encoding.AppendEncodedBinary(e, nil, vals)
		require.NoError(t, err)
		if e == encoding.Plain {
			// PLAIN's canonical form is no longer than any stream that
			// decodes to the same values; DICTIONARY's index runs are
			// chosen as the reference chooses them, not minimally.
			require.LessOrEqual(t, len(re), len(src))
		}
		gotOffs, gotData, err := encoding.AppendBinary(e, []int32{0}, nil, int(n), re)
		require.NoError(t, err)
		for i := range vals {
			require.Equal(t, string(vals[i]), string(gotData[gotOffs[i]:gotOffs[i+1]]), "value %d after re-encoding", i)
		}
	})
}

func FuzzDecodeFixed(f *testing.F) {
	f.Add(uint8(encoding.Plain), uint16(2), []byte{0, 1, 0x3f, 0x80, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(encoding.Plain), uint16(1), []byte{2})
	f.Fuzz(func(t *testing.T, enc uint8, n uint16, src []byte) {
		e := encoding.Encoding(enc)
		requireSentinel(t, encoding.DecodeBool(e, make([]bool, n), src))
		requireSentinel(t, encoding.DecodeFloat32(e, make([]float32, n), src))
		requireSentinel(t, encoding.DecodeFloat64(e, make([]float64, n), src))
		f64 := make([]float64, n)
		// PLAIN has one form per value sequence; other encodings accept
		// streams their encoders would not write, so only PLAIN must
		// re-encode to the same bytes.
		if e == encoding.Plain && encoding.DecodeFloat64(e, f64, src) == nil {
			re, err := encoding.AppendEncodedFloat64(e, []byte{0xaa}, f64)
			require.NoError(t, err)
			require.Equal(t, append([]byte{0xaa}, src...), re, "PLAIN DOUBLE must round-trip bit for bit")
		}
	})
}

// FuzzEncodeTS2Diff drives the encoder with arbitrary values, interpreting the input as
// big-endian int64s, and checks that the decoders give them back.
func FuzzEncodeTS2Diff(f *testing.F) {
	f.Add([]byte{})
	f.Add(be64(math.MaxInt64))
	f.Add(cat(be64(0), be64(math.MaxInt64), be64(0), be64(1<<63)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v64 := make([]int64, len(raw)/8)
		v32 := make([]int32, len(raw)/8)
		for i := range v64 {
			v64[i] = int64(binary.BigEndian.Uint64(raw[8*i:]))
			v32[i] = int32(v64[i])
		}
		enc, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, v64)
		require.NoError(t, err)
		got := make([]int64, len(v64))
		require.NoError(t, encoding.DecodeInt64(encoding.TS2Diff, got, enc))
		require.Equal(t, v64, got)

		enc, err = encoding.AppendEncodedInt32(encoding.TS2Diff, nil, v32)
		require.NoError(t, err)
		got32 := make([]int32, len(v32))
		require.NoError(t, encoding.DecodeInt32(encoding.TS2Diff, got32, enc))
		require.Equal(t, v32, got32)
	})
}
