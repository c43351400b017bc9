// Package encoding implements the value-stream encodings and the page compression seam of
// Apache TsFile v4.
//
// A TsFile Page holds one uncompressed stream per column after decompression. The functions in
// this package translate between such streams and Go slices. Decoders fill caller-provided
// slices and never allocate per value, so a reader can decode a Page into reused Arrow buffers.
// Encoders append to a caller-provided byte slice.
//
// The encoding is always chosen by the caller from the Chunk Header; an encoding this package
// does not implement for a value type is reported with an error wrapping [ErrUnsupported] and is
// never silently decoded as another encoding. Malformed input is reported with an error
// wrapping [ErrCorrupt] that names the byte offset within the stream.
//
// Each encoding lives in a file of its own that registers, per value type, the functions that
// decode and encode it (see register in codec.go); the exported functions below look the
// pair up once per call and run a loop over slices, so no per-value dispatch remains.
// Page compression is pluggable through [RegisterCodec].
package encoding

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Encoding is the single-byte encoding_type of a Chunk Header.
// The numeric values are TsFile wire identifiers.
type Encoding uint8

// Encoding identifiers defined by TsFile v4.
const (
	Plain      Encoding = 0
	Dictionary Encoding = 1
	RLE        Encoding = 2
	Diff       Encoding = 3
	TS2Diff    Encoding = 4
	Bitmap     Encoding = 5
	GorillaV1  Encoding = 6
	Regular    Encoding = 7
	Gorilla    Encoding = 8
	ZigZag     Encoding = 9
	Freq       Encoding = 10 // deprecated; never decodable
	Chimp      Encoding = 11
	Sprintz    Encoding = 12
	RLBE       Encoding = 13
	Camel      Encoding = 14
	// DescendingBitPacking, SeparateStorage and Laminar are the integer encodings TsFile 2.3
	// added; see descbitpack.go, sepstorage.go and laminar.go.
	DescendingBitPacking Encoding = 15
	SeparateStorage      Encoding = 16
	Laminar              Encoding = 17
)

var encodingNames = [...]string{
	Plain:                "PLAIN",
	Dictionary:           "DICTIONARY",
	RLE:                  "RLE",
	Diff:                 "DIFF",
	TS2Diff:              "TS_2DIFF",
	Bitmap:               "BITMAP",
	GorillaV1:            "GORILLA_V1",
	Regular:              "REGULAR",
	Gorilla:              "GORILLA",
	ZigZag:               "ZIGZAG",
	Freq:                 "FREQ",
	Chimp:                "CHIMP",
	Sprintz:              "SPRINTZ",
	RLBE:                 "RLBE",
	Camel:                "CAMEL",
	DescendingBitPacking: "DESCENDING_BIT_PACKING",
	SeparateStorage:      "SEPARATE_STORAGE",
	Laminar:              "LAMINAR",
}

// String returns the name TsFile uses for e, such as "TS_2DIFF",
// or "ENCODING(n)" for an identifier the format does not define.
func (e Encoding) String() string {
	if int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return "ENCODING(" + strconv.Itoa(int(e)) + ")"
}

// Compression is the single-byte compression_type of a Chunk Header.
// The numeric values are TsFile wire identifiers, not the ordinals of any compressor library.
type Compression uint8

// Compression identifiers defined by TsFile v4. Values 4 through 6 are unassigned.
const (
	Uncompressed Compression = 0
	Snappy       Compression = 1
	Gzip         Compression = 2
	LZO          Compression = 3
	LZ4          Compression = 7
	ZSTD         Compression = 8
	LZMA2        Compression = 9
)

var compressionNames = [...]string{
	Uncompressed: "UNCOMPRESSED",
	Snappy:       "SNAPPY",
	Gzip:         "GZIP",
	LZO:          "LZO",
	LZ4:          "LZ4",
	ZSTD:         "ZSTD",
	LZMA2:        "LZMA2",
}

// String returns the name TsFile uses for c, such as "SNAPPY",
// or "COMPRESSION(n)" for an identifier the format does not define.
func (c Compression) String() string {
	if int(c) < len(compressionNames) && compressionNames[c] != "" {
		return compressionNames[c]
	}
	return "COMPRESSION(" + strconv.Itoa(int(c)) + ")"
}

var (
	// ErrCorrupt is wrapped by every error caused by a malformed stream or page payload.
	ErrCorrupt = errors.New("encoding: corrupt stream")
	// ErrUnsupported is wrapped by errors for encodings, compressions or sizes that this
	// package cannot handle. The affected Chunk can still be skipped using its data_size.
	ErrUnsupported = errors.New("encoding: unsupported")
)

// Value type names used in error messages. INT32 also covers DATE, INT64 also covers
// TIMESTAMP, and BINARY covers TEXT, STRING, BLOB and OBJECT, because they share a layout.
const (
	typeBool    = "BOOLEAN"
	typeInt32   = "INT32"
	typeInt64   = "INT64"
	typeFloat32 = "FLOAT"
	typeFloat64 = "DOUBLE"
	typeBinary  = "BINARY"
)

// unsupported reports that enc is not implemented for values of type typ.
func unsupported(enc Encoding, typ string) error {
	if enc == Freq {
		return fmt.Errorf("encoding: %v for %s is not supported (deprecated): %w", enc, typ, ErrUnsupported)
	}
	return fmt.Errorf("encoding: %v for %s is not supported: %w", enc, typ, ErrUnsupported)
}

// corrupt builds an error wrapping ErrCorrupt for a problem at byte off of a stream.
func corrupt(enc Encoding, typ string, off int, format string, args ...any) error {
	return fmt.Errorf("encoding: %v %s at byte %d: %s: %w", enc, typ, off, fmt.Sprintf(format, args...), ErrCorrupt)
}

// DecodeBool decodes exactly len(dst) BOOLEAN values from src.
// src is the complete stream and must be consumed exactly: leftover bytes (other than the
// encoding's own padding or end marker) or too few bytes are errors wrapping ErrCorrupt.
func DecodeBool(enc Encoding, dst []bool, src []byte) error {
	if f := lookup(enc).decodeBool; f != nil {
		return f(dst, src)
	}
	return unsupported(enc, typeBool)
}

// DecodeBoolBits decodes exactly n BOOLEAN values from src, consumed exactly as for
// [DecodeBool], into dst as an LSB-first bitmap: value i is bit i%8 of dst[i/8], as Arrow
// lays out booleans, and the bits past n in the last byte are cleared. dst must hold
// (n+7)/8 bytes. Only encodings for which [DecodesBoolBits] reports true support it
// (PLAIN, whose bytes pack eight at a time); the others return an error wrapping
// ErrUnsupported, and their values are decoded with DecodeBool.
func DecodeBoolBits(enc Encoding, dst []byte, n int, src []byte) error {
	if f := lookup(enc).decodeBoolBits; f != nil {
		return f(dst, n, src)
	}
	return unsupported(enc, typeBool)
}

// DecodesBoolBits reports whether [DecodeBoolBits] supports enc.
func DecodesBoolBits(enc Encoding) bool { return lookup(enc).decodeBoolBits != nil }

// DecodeInt32 decodes exactly len(dst) INT32 or DATE values from src, which must be
// consumed exactly as for [DecodeBool].
func DecodeInt32(enc Encoding, dst []int32, src []byte) error {
	if f := lookup(enc).decodeInt32; f != nil {
		return f(dst, src)
	}
	return unsupported(enc, typeInt32)
}

// DecodeInt64 decodes exactly len(dst) INT64 or TIMESTAMP values from src, which must be
// consumed exactly as for [DecodeBool].
func DecodeInt64(enc Encoding, dst []int64, src []byte) error {
	if f := lookup(enc).decodeInt64; f != nil {
		return f(dst, src)
	}
	return unsupported(enc, typeInt64)
}

// DecodeFloat32 decodes exactly len(dst) FLOAT values from src, preserving NaN payloads and
// signed zeros bit for bit where the encoding is lossless. src must be consumed exactly as
// for [DecodeBool].
func DecodeFloat32(enc Encoding, dst []float32, src []byte) error {
	if f := lookup(enc).decodeFloat32; f != nil {
		return f(dst, src)
	}
	return unsupported(enc, typeFloat32)
}

// DecodeFloat64 decodes exactly len(dst) DOUBLE values from src, preserving NaN payloads and
// signed zeros bit for bit where the encoding is lossless. src must be consumed exactly as
// for [DecodeBool].
func DecodeFloat64(enc Encoding, dst []float64, src []byte) error {
	if f := lookup(enc).decodeFloat64; f != nil {
		return f(dst, src)
	}
	return unsupported(enc, typeFloat64)
}

// AppendBinary decodes exactly n TEXT, STRING, BLOB or OBJECT values from src, which must be
// consumed exactly. It appends each value's bytes to data and, after each value, the new
// len(data) as an int32 end offset to offsets, so that offsets and data form Arrow-style
// variable-length buffers; the caller seeds offsets with the start offset.
//
// On error offsets and data are returned as passed in; only their spare capacity may have
// been written. Growing data beyond math.MaxInt32 bytes is an error wrapping
// ErrUnsupported, because int32 offsets cannot address it; the caller can start a new batch.
func AppendBinary(enc Encoding, offsets []int32, data []byte, n int, src []byte) ([]int32, []byte, error) {
	if f := lookup(enc).decodeBinary; f != nil {
		return f(offsets, data, n, src)
	}
	return offsets, data, unsupported(enc, typeBinary)
}

// AppendAllInt64 decodes a complete INT64 or TIMESTAMP stream whose element count is
// determined by the stream itself (aligned Time Pages and non-aligned time streams) and
// appends every value to dst. On error dst is returned as passed in.
//
// A short stream can describe very many values (a TS_2DIFF block of equal deltas costs no
// packed bytes), so callers decoding untrusted input should bound [CountInt64] first.
func AppendAllInt64(enc Encoding, dst []int64, src []byte) ([]int64, error) {
	n, err := CountInt64(enc, src)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	out := slices.Grow(dst, n)[:start+n]
	if err := DecodeInt64(enc, out[start:], src); err != nil {
		return dst, err
	}
	return out, nil
}

// CountInt64 returns how many values [AppendAllInt64] would produce for src, validating the
// stream's framing without storing the values, so that callers can size buffers first.
func CountInt64(enc Encoding, src []byte) (int, error) {
	if f := lookup(enc).countInt64; f != nil {
		return f(src)
	}
	return 0, unsupported(enc, typeInt64)
}

// AppendEncodedBool appends the encoding of v to dst.
func AppendEncodedBool(enc Encoding, dst []byte, v []bool) ([]byte, error) {
	if f := lookup(enc).encodeBool; f != nil {
		return f(dst, v)
	}
	return dst, unsupported(enc, typeBool)
}

// AppendEncodedInt32 appends the encoding of v to dst, byte for byte what a newly created
// reference (Java) encoder writes for the same values.
func AppendEncodedInt32(enc Encoding, dst []byte, v []int32) ([]byte, error) {
	if f := lookup(enc).encodeInt32; f != nil {
		return f(dst, v)
	}
	return dst, unsupported(enc, typeInt32)
}

// AppendEncodedInt64 appends the encoding of v to dst, as [AppendEncodedInt32] does.
func AppendEncodedInt64(enc Encoding, dst []byte, v []int64) ([]byte, error) {
	if f := lookup(enc).encodeInt64; f != nil {
		return f(dst, v)
	}
	return dst, unsupported(enc, typeInt64)
}

// AppendEncodedFloat32 appends the encoding of v to dst. Lossless encodings preserve NaN
// payloads and signed zeros bit for bit (the Java writer canonicalizes NaNs, so its bytes
// differ only for NaNs with other payloads); RLE and TS_2DIFF store round(v * 10^2) as the
// reference does.
func AppendEncodedFloat32(enc Encoding, dst []byte, v []float32) ([]byte, error) {
	if f := lookup(enc).encodeFloat32; f != nil {
		return f(dst, v)
	}
	return dst, unsupported(enc, typeFloat32)
}

// AppendEncodedFloat64 appends the encoding of v to dst, as [AppendEncodedFloat32] does.
func AppendEncodedFloat64(enc Encoding, dst []byte, v []float64) ([]byte, error) {
	if f := lookup(enc).encodeFloat64; f != nil {
		return f(dst, v)
	}
	return dst, unsupported(enc, typeFloat64)
}

// AppendEncodedBinary appends the encoding of the TEXT, STRING, BLOB or OBJECT values v to dst.
// A value longer than math.MaxInt32 bytes cannot be framed and is an error wrapping
// ErrUnsupported; dst is then returned unchanged.
func AppendEncodedBinary(enc Encoding, dst []byte, v [][]byte) ([]byte, error) {
	if f := lookup(enc).encodeBinary; f != nil {
		return f(dst, v)
	}
	return dst, unsupported(enc, typeBinary)
}
