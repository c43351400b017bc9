package encoding

import "fmt"

// Helpers shared by the page compression codecs in the compress_*.go files: SNAPPY, GZIP,
// LZ4, ZSTD and LZMA2, each matching what the Java reference writes and reads, and LZO,
// which only the C++ writer writes (raw LZO1X blocks) and the Java reference cannot read
// (its codec factories throw CompressionTypeNotSupportedException). LZO is decode-only:
// compress_lzo.go is a bounded LZO1X decoder of our own, and its Compress refuses, so
// writers report LZO as unsupported instead of writing it.

// compressCorrupt builds an error wrapping ErrCorrupt for a malformed page payload of
// compression c.
func compressCorrupt(c Compression, format string, args ...any) error {
	return fmt.Errorf("encoding: %v page payload: %s: %w", c, fmt.Sprintf(format, args...), ErrCorrupt)
}

// compressUnsupported builds an error wrapping ErrUnsupported for a well-formed payload of
// compression c that uses a feature this package does not implement.
func compressUnsupported(c Compression, format string, args ...any) error {
	return fmt.Errorf("encoding: %v page payload: %s: %w", c, fmt.Sprintf(format, args...), ErrUnsupported)
}

// compressCheckSize rejects a negative declared size before anything is allocated.
//
// Every Decompress also returns an empty result for an empty payload declared empty,
// whatever the codec: that is how TsFile stores an empty page (uncompressed_size and
// compressed_size both 0, as in an aligned value page whose positions are all null), and
// the Java reader recognises such a page by its header without calling a codec.
func compressCheckSize(c Compression, size int) error {
	if size < 0 {
		return compressCorrupt(c, "negative uncompressed size %d", size)
	}
	return nil
}

// compressOut returns a slice of exactly size bytes, reusing dst's capacity when it is large
// enough. The caller has checked that size is not negative.
func compressOut(dst []byte, size int) []byte {
	if cap(dst) >= size {
		return dst[:size]
	}
	return make([]byte, size)
}

// compressGrow returns dst[:0] with room for at least n bytes.
func compressGrow(dst []byte, n int) []byte {
	if cap(dst) >= n {
		return dst[:0]
	}
	return make([]byte, 0, n)
}

// compressShort reports a payload that decoded to fewer bytes than the Page Header declares.
func compressShort(c Compression, got, size int) error {
	return compressCorrupt(c, "decodes to %d bytes, page header says %d", got, size)
}

// compressLong reports a payload that would decode to more bytes than the Page Header declares.
func compressLong(c Compression, size int) error {
	return compressCorrupt(c, "decodes to more than the %d bytes the page header says", size)
}

// compressAppender is an io.Writer that appends to a byte slice; encoders write into it.
type compressAppender struct{ b []byte }

func (a *compressAppender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
