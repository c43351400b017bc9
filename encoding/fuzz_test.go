package encoding_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The fuzz targets check that no input makes a decoder panic, that every failure wraps
// exactly one of the sentinels, and that the different entry points agree on valid input.

// The seeds of the targets in this file are committed under
// testdata/fuzz/<target>/ so that go test replays them without -fuzz;
// regenerate them with
//
//	go test ./encoding -run '^Fuzz' -args -write-fuzz-corpus
//
// The corpora of the other targets were written by hand or kept from
// fuzzing runs and are not regenerated.

var writeFuzzCorpus = flag.Bool("write-fuzz-corpus", false, "write the named seeds of the targets that use addSeed to testdata/fuzz/<target>/")

// addSeed adds a seed to f and, with -write-fuzz-corpus, writes it to the
// target's corpus directory in the fuzzer's file format, so that the
// committed corpus and the f.Add seeds cannot drift apart.
func addSeed(f *testing.F, name string, args ...any) {
	f.Helper()
	f.Add(args...)
	if !*writeFuzzCorpus {
		return
	}
	b := []byte("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			b = fmt.Appendf(b, "[]byte(%q)\n", v)
		case byte:
			b = fmt.Appendf(b, "byte(%q)\n", v)
		case uint16, uint32, int64, bool:
			b = fmt.Appendf(b, "%T(%v)\n", v, v)
		default:
			f.Fatalf("addSeed: unsupported type %T", a)
		}
	}
	if len(b) > 64<<10 {
		f.Fatalf("seed %s of %s is %d bytes; the committed corpus runs in every go test", name, f.Name(), len(b))
	}
	dir := filepath.Join("testdata", "fuzz", f.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		f.Fatal(err)
	}
}

// seedName makes a golden's name usable as a file name.
func seedName(prefix, name string) string {
	return prefix + "-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, name)
}

// fuzzSeries is a short series with runs, steps and both extremes, the
// shapes that take different paths through the integer encoders.
var fuzzSeries = []int64{0, 0, 0, 1, 2, 4, 8, 8, 8, -5, 1000, math.MaxInt32, math.MinInt32, 7, 7, 6}

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

// int64Encodings are the encodings with an INT64 encoder.
var int64Encodings = []encoding.Encoding{encoding.Plain, encoding.RLE, encoding.TS2Diff, encoding.Gorilla, encoding.ZigZag, encoding.Chimp, encoding.Sprintz, encoding.RLBE, encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar}

func addInt64Seeds(f *testing.F) {
	for _, g := range ts2diffGolden64[:min(4, len(ts2diffGolden64))] {
		addSeed(f, seedName("ts2diff", g.name), uint8(encoding.TS2Diff), uint16(len(g.v)), g.want)
	}
	for _, e := range int64Encodings {
		b, err := encoding.AppendEncodedInt64(e, nil, fuzzSeries)
		if err != nil {
			f.Fatal(err)
		}
		addSeed(f, seedName("series", e.String()), uint8(e), uint16(len(fuzzSeries)), b)
	}
	plain, _ := encoding.AppendEncodedInt64(encoding.Plain, nil, []int64{1, math.MinInt64, -1})
	addSeed(f, "plain-extremes", uint8(encoding.Plain), uint16(3), plain)
	addSeed(f, "ts2diff-huge-count", uint8(encoding.TS2Diff), uint16(2), cat(be32(math.MaxInt32), be32(0), be64(0), be64(0)))
	addSeed(f, "ts2diff-width-65", uint8(encoding.TS2Diff), uint16(1), cat(be32(0), be32(65), be64(0), be64(0)))
	addSeed(f, "rle-truncated", uint8(encoding.RLE), uint16(1), plain[:8])
	addSeed(f, "ts2diff-empty", uint8(encoding.TS2Diff), uint16(0), []byte{})
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
	for _, g := range ts2diffGolden32[:min(4, len(ts2diffGolden32))] {
		addSeed(f, seedName("ts2diff", g.name), uint8(encoding.TS2Diff), uint16(len(g.v)), g.want)
	}
	v32 := make([]int32, len(fuzzSeries))
	for i, v := range fuzzSeries {
		v32[i] = int32(v)
	}
	for _, e := range int64Encodings {
		b, err := encoding.AppendEncodedInt32(e, nil, v32)
		if err != nil {
			f.Fatal(err)
		}
		addSeed(f, seedName("series", e.String()), uint8(e), uint16(len(v32)), b)
	}
	addSeed(f, "plain-varints", uint8(encoding.Plain), uint16(4), []byte{0x00, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01})
	addSeed(f, "plain-overflow", uint8(encoding.Plain), uint16(1), []byte{0xff, 0xff, 0xff, 0xff, 0x1f})
	addSeed(f, "ts2diff-width-33", uint8(encoding.TS2Diff), uint16(1), cat(be32(0), be32(33), be32(0), be32(0)))
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
	addSeed(f, "plain-three", uint8(encoding.Plain), uint16(3), []byte{0x00, 0x04, 'h', 'i', 0x0c, 'h', 0xc3, 0xa9, 'l', 'l', 'o'})
	addSeed(f, "plain-negative-length", uint8(encoding.Plain), uint16(1), []byte{0x01})
	addSeed(f, "plain-huge-length", uint8(encoding.Plain), uint16(1), []byte{0xfe, 0xff, 0xff, 0xff, 0x0f})
	addSeed(f, "dictionary-empty", uint8(encoding.Dictionary), uint16(1), []byte{0x00})
	words := [][]byte{[]byte("calm"), []byte("windy"), []byte("calm"), {}, []byte("h\xc3\xa9"), []byte("calm"), []byte("windy")}
	for _, e := range []encoding.Encoding{encoding.Plain, encoding.Dictionary} {
		b, err := encoding.AppendEncodedBinary(e, nil, words)
		if err != nil {
			f.Fatal(err)
		}
		addSeed(f, seedName("words", e.String()), uint8(e), uint16(len(words)), b)
	}
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
	addSeed(f, "plain-mixed", uint8(encoding.Plain), uint16(2), []byte{0, 1, 0x3f, 0x80, 0, 0, 0, 0, 0, 0})
	addSeed(f, "plain-bad-bool", uint8(encoding.Plain), uint16(1), []byte{2})
	floats := []float64{0, 0.5, 0.5, -1.25, math.Inf(1), 1e-300, 3, 3, 3, math.NaN()}
	for _, e := range []encoding.Encoding{encoding.Plain, encoding.Gorilla, encoding.GorillaV1, encoding.Chimp, encoding.Sprintz, encoding.RLBE, encoding.Camel} {
		b, err := encoding.AppendEncodedFloat64(e, nil, floats)
		if err != nil {
			f.Fatal(err)
		}
		addSeed(f, seedName("doubles", e.String()), uint8(e), uint16(len(floats)), b)
	}
	f32 := make([]float32, len(floats))
	for i, v := range floats {
		f32[i] = float32(v)
	}
	b, err := encoding.AppendEncodedFloat32(encoding.Gorilla, nil, f32)
	if err != nil {
		f.Fatal(err)
	}
	addSeed(f, "floats-GORILLA", uint8(encoding.Gorilla), uint16(len(f32)), b)
	b, err = encoding.AppendEncodedBool(encoding.RLE, nil, []bool{true, true, true, false, true, false, false, false, false, true})
	if err != nil {
		f.Fatal(err)
	}
	addSeed(f, "bools-RLE", uint8(encoding.RLE), uint16(10), b)
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
	addSeed(f, "empty", []byte{})
	addSeed(f, "max", be64(math.MaxInt64))
	addSeed(f, "extreme-deltas", cat(be64(0), be64(math.MaxInt64), be64(0), be64(1<<63)))
	var raw []byte
	for _, v := range fuzzSeries {
		raw = append(raw, be64(uint64(v))...)
	}
	addSeed(f, "series", raw)
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
