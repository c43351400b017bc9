package encoding

import (
	"encoding/binary"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/snappy"
)

// SNAPPY pages hold one raw Snappy block (no framing format): a uvarint of the decompressed
// length followed by literal and copy elements. The Java writer produces it with xerial
// Snappy.compress and reads it with Snappy.uncompress, that is the C++ reference codec.

func init() {
	RegisterCodec(Snappy, snappyCodec{})
}

type snappyCodec struct{}

// Decompress checks the block's decoded-length header against size before decoding, then
// decodes into dst's capacity with a strict standard-Snappy decoder, so that the S2
// extensions the C++ reference rejects (a copy with offset 0) are rejected here too.
func (snappyCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	if err := compressCheckSize(Snappy, size); err != nil {
		return nil, err
	}
	if size == 0 && len(src) == 0 {
		return dst[:0], nil
	}
	n, w := binary.Uvarint(src)
	if w <= 0 || w > 5 || n > 0xffffffff {
		return nil, compressCorrupt(Snappy, "decoded-length header is missing, truncated or larger than 32 bits")
	}
	if n != uint64(size) {
		return nil, compressCorrupt(Snappy, "block header says %d decoded bytes, page header says %d", n, size)
	}
	out, err := snappy.DecodeStrict(compressOut(dst, size), src)
	if err != nil {
		return nil, compressCorrupt(Snappy, "%v", err)
	}
	return out, nil
}

// Compress appends a standard Snappy block, which xerial Snappy and every Snappy decoder
// read, to dst[:0].
func (snappyCodec) Compress(dst, src []byte) ([]byte, error) {
	n := s2.MaxEncodedLen(len(src))
	if n < 0 {
		return nil, compressUnsupported(Snappy, "%d bytes exceed the Snappy block limit", len(src))
	}
	return s2.EncodeSnappy(compressGrow(dst, n)[:n], src), nil
}
