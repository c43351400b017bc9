package encoding

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// GZIP pages hold one gzip member (RFC 1952): the Java writer produces it with
// java.util.zip.GZIPOutputStream and reads it with GZIPInputStream, which also accepts
// further concatenated members.

func init() {
	RegisterCodec(Gzip, gzipCodec{})
}

type gzipCodec struct{}

// gzipDecoder is a reusable gzip reader with its source and a one-byte probe; pooling it
// keeps the inflater's 32 KiB window across pages.
type gzipDecoder struct {
	src   bytes.Reader
	zr    gzip.Reader
	probe [1]byte
}

var gzipDecoders = sync.Pool{New: func() any { return new(gzipDecoder) }}

// gzipMaxRatio bounds how much DEFLATE expands: at best a 258-byte match costs two bits
// (one-bit length and distance codes), and gzip's framing only adds input.
const gzipMaxRatio = 1032

// Decompress inflates at most size+1 bytes: exactly size into dst's capacity, then a probe
// that must find the end of the input, which also checks each member's CRC-32 and ISIZE.
func (gzipCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	if err := compressCheckSize(Gzip, size); err != nil {
		return nil, err
	}
	if size == 0 && len(src) == 0 {
		return dst[:0], nil
	}
	if size/gzipMaxRatio > len(src) {
		// Refused before size bytes are allocated for it.
		return nil, compressCorrupt(Gzip, "%d bytes cannot inflate to the %d bytes the page header says", len(src), size)
	}
	d := gzipDecoders.Get().(*gzipDecoder)
	defer gzipDecoders.Put(d)
	d.src.Reset(src)
	if err := d.zr.Reset(&d.src); err != nil {
		return nil, gzipError(err)
	}
	out := compressOut(dst, size)
	n, err := io.ReadFull(&d.zr, out)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, compressShort(Gzip, n, size)
		}
		return nil, gzipError(err)
	}
	for {
		m, err := d.zr.Read(d.probe[:])
		if m > 0 {
			return nil, compressLong(Gzip, size)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, gzipError(err)
		}
	}
}

func gzipError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return compressCorrupt(Gzip, "member is truncated")
	}
	return compressCorrupt(Gzip, "%v", err)
}

// gzipEncoder is a reusable gzip writer and the buffer it appends to.
type gzipEncoder struct {
	out compressAppender
	zw  *gzip.Writer
}

var gzipEncoders = sync.Pool{New: func() any {
	e := new(gzipEncoder)
	// The default level, as java.util.zip.Deflater uses; it cannot fail.
	e.zw, _ = gzip.NewWriterLevel(&e.out, gzip.DefaultCompression)
	return e
}}

// Compress appends one gzip member to dst[:0].
func (gzipCodec) Compress(dst, src []byte) ([]byte, error) {
	e := gzipEncoders.Get().(*gzipEncoder)
	e.out.b = dst[:0]
	e.zw.Reset(&e.out)
	_, err := e.zw.Write(src)
	if err == nil {
		err = e.zw.Close()
	}
	out := e.out.b
	e.out.b = nil
	gzipEncoders.Put(e)
	if err != nil {
		return nil, compressUnsupported(Gzip, "%v", err)
	}
	return out, nil
}
