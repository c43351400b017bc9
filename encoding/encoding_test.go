package encoding_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

func TestEncodingString(t *testing.T) {
	tests := []struct {
		e    encoding.Encoding
		want string
	}{
		{encoding.Plain, "PLAIN"},
		{encoding.Dictionary, "DICTIONARY"},
		{encoding.RLE, "RLE"},
		{encoding.Diff, "DIFF"},
		{encoding.TS2Diff, "TS_2DIFF"},
		{encoding.Bitmap, "BITMAP"},
		{encoding.GorillaV1, "GORILLA_V1"},
		{encoding.Regular, "REGULAR"},
		{encoding.Gorilla, "GORILLA"},
		{encoding.ZigZag, "ZIGZAG"},
		{encoding.Freq, "FREQ"},
		{encoding.Chimp, "CHIMP"},
		{encoding.Sprintz, "SPRINTZ"},
		{encoding.RLBE, "RLBE"},
		{encoding.Camel, "CAMEL"},
		{encoding.DescendingBitPacking, "DESCENDING_BIT_PACKING"},
		{encoding.SeparateStorage, "SEPARATE_STORAGE"},
		{encoding.Laminar, "LAMINAR"},
		{18, "ENCODING(18)"},
		{255, "ENCODING(255)"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.e.String())
	}
	// The wire codes are fixed by the format, not by declaration order.
	require.Equal(t, encoding.Encoding(4), encoding.TS2Diff)
	require.Equal(t, encoding.Encoding(14), encoding.Camel)
	require.Equal(t, encoding.Encoding(15), encoding.DescendingBitPacking)
	require.Equal(t, encoding.Encoding(16), encoding.SeparateStorage)
	require.Equal(t, encoding.Encoding(17), encoding.Laminar)
}

func TestCompressionString(t *testing.T) {
	tests := []struct {
		c    encoding.Compression
		want string
	}{
		{encoding.Uncompressed, "UNCOMPRESSED"},
		{encoding.Snappy, "SNAPPY"},
		{encoding.Gzip, "GZIP"},
		{encoding.LZO, "LZO"},
		{4, "COMPRESSION(4)"},
		{5, "COMPRESSION(5)"},
		{6, "COMPRESSION(6)"},
		{encoding.LZ4, "LZ4"},
		{encoding.ZSTD, "ZSTD"},
		{encoding.LZMA2, "LZMA2"},
		{10, "COMPRESSION(10)"},
		{255, "COMPRESSION(255)"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.c.String())
	}
	require.Equal(t, encoding.Compression(7), encoding.LZ4)
	require.Equal(t, encoding.Compression(9), encoding.LZMA2)
}

// every call made through the public API with one encoding, for dispatch tests.
type call struct {
	name string
	typ  string
	run  func(enc encoding.Encoding) error
}

func allCalls() []call {
	src := []byte{0, 0, 0, 0, 0, 0, 0, 1}
	return []call{
		{"DecodeBool", "BOOLEAN", func(e encoding.Encoding) error { return encoding.DecodeBool(e, make([]bool, 1), src[:1]) }},
		{"DecodeInt32", "INT32", func(e encoding.Encoding) error { return encoding.DecodeInt32(e, make([]int32, 1), src[:1]) }},
		{"DecodeInt64", "INT64", func(e encoding.Encoding) error { return encoding.DecodeInt64(e, make([]int64, 1), src) }},
		{"DecodeFloat32", "FLOAT", func(e encoding.Encoding) error { return encoding.DecodeFloat32(e, make([]float32, 1), src[:4]) }},
		{"DecodeFloat64", "DOUBLE", func(e encoding.Encoding) error { return encoding.DecodeFloat64(e, make([]float64, 1), src) }},
		{"AppendBinary", "BINARY", func(e encoding.Encoding) error {
			_, _, err := encoding.AppendBinary(e, []int32{0}, nil, 1, []byte{0})
			return err
		}},
		{"AppendAllInt64", "INT64", func(e encoding.Encoding) error {
			_, err := encoding.AppendAllInt64(e, nil, src)
			return err
		}},
		{"CountInt64", "INT64", func(e encoding.Encoding) error {
			_, err := encoding.CountInt64(e, src)
			return err
		}},
		{"AppendEncodedBool", "BOOLEAN", func(e encoding.Encoding) error {
			_, err := encoding.AppendEncodedBool(e, nil, []bool{true})
			return err
		}},
		{"AppendEncodedInt32", "INT32", func(e encoding.Encoding) error {
			_, err := encoding.AppendEncodedInt32(e, nil, []int32{1})
			return err
		}},
		{"AppendEncodedInt64", "INT64", func(e encoding.Encoding) error {
			_, err := encoding.AppendEncodedInt64(e, nil, []int64{1})
			return err
		}},
		{"AppendEncodedFloat32", "FLOAT", func(e encoding.Encoding) error {
			_, err := encoding.AppendEncodedFloat32(e, nil, []float32{1})
			return err
		}},
		{"AppendEncodedFloat64", "DOUBLE", func(e encoding.Encoding) error {
			_, err := encoding.AppendEncodedFloat64(e, nil, []float64{1})
			return err
		}},
		{"AppendEncodedBinary", "BINARY", func(e encoding.Encoding) error {
			_, err := encoding.AppendEncodedBinary(e, nil, [][]byte{{1}})
			return err
		}},
	}
}

// The support matrix: Encodings.md's type table, plus REGULAR and BITMAP,
// which the reference implements for integers although the table lists
// them for no type. It is written out here, not derived from the package,
// so that a registration slip in either direction fails a test.
var (
	boolEncs = []encoding.Encoding{encoding.Plain, encoding.RLE}
	intEncs  = []encoding.Encoding{encoding.Plain, encoding.RLE, encoding.TS2Diff, encoding.Gorilla, encoding.ZigZag, encoding.Chimp, encoding.Sprintz, encoding.RLBE, encoding.Regular,
		encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar}
	int32Encs  = append(append([]encoding.Encoding(nil), intEncs...), encoding.Bitmap)
	floatEncs  = []encoding.Encoding{encoding.Plain, encoding.RLE, encoding.TS2Diff, encoding.GorillaV1, encoding.Gorilla, encoding.Chimp, encoding.Sprintz, encoding.RLBE}
	doubleEncs = append(append([]encoding.Encoding(nil), floatEncs...), encoding.Camel)
	binaryEncs = []encoding.Encoding{encoding.Plain, encoding.Dictionary}
)

// implemented lists, per call, the encodings this package handles.
var implemented = map[string][]encoding.Encoding{
	"DecodeBool":           boolEncs,
	"AppendEncodedBool":    boolEncs,
	"DecodeInt32":          int32Encs,
	"AppendEncodedInt32":   int32Encs,
	"DecodeInt64":          intEncs,
	"AppendAllInt64":       intEncs,
	"CountInt64":           intEncs,
	"AppendEncodedInt64":   intEncs,
	"DecodeFloat32":        floatEncs,
	"AppendEncodedFloat32": floatEncs,
	"DecodeFloat64":        doubleEncs,
	"AppendEncodedFloat64": doubleEncs,
	"AppendBinary":         binaryEncs,
	"AppendEncodedBinary":  binaryEncs,
}

func isImplemented(name string, e encoding.Encoding) bool {
	encs, ok := implemented[name]
	if !ok {
		encs = []encoding.Encoding{encoding.Plain}
	}
	for _, x := range encs {
		if x == e {
			return true
		}
	}
	return false
}

// TestUnsupportedEncodings checks that every encoding not implemented for a value type is
// refused with ErrUnsupported, naming the encoding and the type, and is never read as PLAIN
// (the inputs above are valid PLAIN streams).
func TestUnsupportedEncodings(t *testing.T) {
	for _, c := range allCalls() {
		for code := 0; code < 256; code++ {
			e := encoding.Encoding(code)
			err := c.run(e)
			if isImplemented(c.name, e) {
				// The input is a PLAIN stream, so other encodings may
				// call it corrupt, but must not call the pair unsupported.
				require.NotErrorIs(t, err, encoding.ErrUnsupported, "%s %v", c.name, e)
				continue
			}
			require.ErrorIs(t, err, encoding.ErrUnsupported, "%s %v", c.name, e)
			require.NotErrorIs(t, err, encoding.ErrCorrupt, "%s %v", c.name, e)
			want := "encoding: " + e.String() + " for " + c.typ + " is not supported"
			if e == encoding.Freq {
				want += " (deprecated)"
			}
			require.Contains(t, err.Error(), want, "%s %v", c.name, e)
		}
	}
}

func TestUnsupportedMessage(t *testing.T) {
	err := encoding.DecodeInt64(encoding.Dictionary, make([]int64, 1), nil)
	require.EqualError(t, err, "encoding: DICTIONARY for INT64 is not supported: encoding: unsupported")
	err = encoding.DecodeInt32(encoding.Freq, make([]int32, 1), nil)
	require.EqualError(t, err, "encoding: FREQ for INT32 is not supported (deprecated): encoding: unsupported")
}

// TestImplementedCallsSucceed guards the dispatch table in the other direction.
func TestImplementedCallsSucceed(t *testing.T) {
	for _, c := range allCalls() {
		if !isImplemented(c.name, encoding.Plain) {
			continue
		}
		require.NoError(t, c.run(encoding.Plain), c.name)
	}
}

func TestSentinelsDistinct(t *testing.T) {
	require.False(t, errors.Is(encoding.ErrCorrupt, encoding.ErrUnsupported))
	require.False(t, errors.Is(encoding.ErrUnsupported, encoding.ErrCorrupt))
}
