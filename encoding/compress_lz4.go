package encoding

import (
	"sync"

	"github.com/pierrec/lz4/v4"
)

// LZ4 pages hold one raw LZ4 block: no frame, no size prefix. The Java writer produces it
// with lz4-java's fast compressor (LZ4_compress_default) and reads it with the safe
// decompressor into a buffer of exactly uncompressed_size bytes.

func init() {
	RegisterCodec(LZ4, lz4Codec{})
}

type lz4Codec struct{}

// lz4MaxRatio bounds how much an LZ4 block expands: literals are copied, and a match's
// token and offset (three bytes) give at most 19 bytes, each length byte after them 255.
const lz4MaxRatio = 255

// Decompress decodes into exactly size bytes of dst's capacity; the decoder refuses any
// sequence that would write past them, so a block can never make it allocate.
func (lz4Codec) Decompress(dst, src []byte, size int) ([]byte, error) {
	if err := compressCheckSize(LZ4, size); err != nil {
		return nil, err
	}
	if size == 0 && len(src) == 0 {
		return dst[:0], nil
	}
	if len(src) == 0 {
		// A block holds at least one token; lz4-java rejects an empty one too.
		return nil, compressCorrupt(LZ4, "empty block")
	}
	if size == 0 {
		// Only a lone token without literals decodes to nothing. Handling it here also
		// keeps a nil dst from the decoder: pierrec/lz4 v4.1.33's amd64 assembly computes
		// its fast-path bound as dst end - 32 and writes through a nil dst.
		if len(src) == 1 && src[0] == 0 {
			return dst[:0], nil
		}
		return nil, compressLong(LZ4, size)
	}
	if size/lz4MaxRatio > len(src) {
		// Refused before size bytes are allocated for it.
		return nil, compressCorrupt(LZ4, "a block of %d bytes cannot decode to the %d bytes the page header says", len(src), size)
	}
	out := compressOut(dst, size)
	n, err := lz4.UncompressBlock(src, out)
	if err != nil {
		return nil, compressCorrupt(LZ4, "block is malformed or decodes to more than %d bytes", size)
	}
	if n != size {
		return nil, compressShort(LZ4, n, size)
	}
	return out, nil
}

// lz4Compressors pools the hash tables of the block compressor, which is not safe for
// concurrent use. CompressorCCompat emits the same bytes as the C library's
// LZ4_compress_default, which lz4-java's fast compressor wraps.
var lz4Compressors = sync.Pool{New: func() any { return new(lz4.CompressorCCompat) }}

// Compress appends a raw LZ4 block to dst[:0].
func (lz4Codec) Compress(dst, src []byte) ([]byte, error) {
	bound := lz4.CompressBlockBound(len(src))
	out := compressGrow(dst, bound)[:bound]
	c := lz4Compressors.Get().(*lz4.CompressorCCompat)
	n, err := c.CompressBlock(src, out)
	lz4Compressors.Put(c)
	if err != nil {
		return nil, compressUnsupported(LZ4, "%v", err)
	}
	if n == 0 {
		// The compressor declines input it cannot shrink (and empty input); store it
		// as a block of literals only.
		return appendLZ4Literals(out[:0], src), nil
	}
	return out[:n], nil
}

// appendLZ4Literals appends a block that holds src as one run of literals: a token whose
// high nibble is the literal count (15 meaning more follows as bytes of 255 and a final
// byte below 255), then the literals. The last sequence of a block has no match part.
func appendLZ4Literals(dst, src []byte) []byte {
	n := len(src)
	if n < 15 {
		dst = append(dst, byte(n<<4))
	} else {
		dst = append(dst, 0xf0)
		for n -= 15; n >= 255; n -= 255 {
			dst = append(dst, 255)
		}
		dst = append(dst, byte(n))
	}
	return append(dst, src...)
}
