package tsfile

// Page-level access: the payload decoding that a reader decoding pages
// itself (arrowconv) needs beyond ReadChunkPages, ReadChunkBuffer and
// OpenPageStream. See "Page-level access" in the package doc.

import (
	"encoding/binary"

	"github.com/tsarrow/tsarrow/bitmap"
	"github.com/tsarrow/tsarrow/encoding"
)

// PayloadDecoder turns stored page payloads into uncompressed ones. It
// holds the scratch buffer that is reused across pages, so use one per
// goroutine.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
type PayloadDecoder struct {
	scratch []byte
	plain   []byte // decrypted pages of encrypted files
}

// Payload returns the uncompressed payload of page i of chunk c, decrypted
// first when the file is encrypted. The result is valid until the next
// call.
func (pd *PayloadDecoder) Payload(c *Chunk, i int) ([]byte, error) {
	p := &c.Pages[i]
	stored := p.Stored
	if p.Header.UncompressedSize == 0 {
		// Empty pages have no body and are never sealed.
		return stored[:0], nil
	}
	if c.crypt != nil {
		var err error
		if pd.plain, err = c.crypt.decryptPage(pd.plain[:0], c, i); err != nil {
			return nil, err
		}
		stored = pd.plain
	}
	if c.Header.Compression == encoding.Uncompressed && len(stored) != p.Header.UncompressedSize {
		what := "compressed_size"
		if c.crypt != nil {
			what = "decrypted size"
		}
		return nil, corruptf(p.Header.Offset, "page header", "uncompressed page has %s %d != uncompressed_size %d", what, len(stored), p.Header.UncompressedSize)
	}
	codec, err := encoding.LookupCodec(c.Header.Compression)
	if err != nil {
		return nil, CodecError(c.Header.Offset, "chunk header", err)
	}
	out, err := codec.Decompress(pd.scratch[:0], stored, p.Header.UncompressedSize)
	if err != nil {
		return nil, CodecError(p.Header.BodyOffset(), "page payload", err)
	}
	if len(out) != p.Header.UncompressedSize {
		return nil, corruptf(p.Header.BodyOffset(), "page payload", "decompressed to %d bytes, header says %d", len(out), p.Header.UncompressedSize)
	}
	if cap(out) > cap(pd.scratch) && !aliases(out, stored) {
		pd.scratch = out[:0]
	}
	return out, nil
}

func aliases(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// SplitValuePage splits the payload of a non-empty aligned value page into
// its position count, MSB-first present bitmap and encoded non-null values.
// off is the payload's absolute offset, for errors.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func SplitValuePage(payload []byte, off int64) (positions int, present []byte, values []byte, err error) {
	if len(payload) < 4 {
		return 0, nil, nil, corruptf(off, "aligned value page", "payload of %d bytes has no position_count", len(payload))
	}
	n := int32(binary.BigEndian.Uint32(payload))
	if n < 0 {
		return 0, nil, nil, corruptf(off, "aligned value page", "negative position_count %d", n)
	}
	nb := bitmap.Bytes(int(n))
	if nb > len(payload)-4 {
		return 0, nil, nil, corruptf(off, "aligned value page", "bitmap of %d positions needs %d bytes, %d remain", n, nb, len(payload)-4)
	}
	return int(n), payload[4 : 4+nb], payload[4+nb:], nil
}

// SplitNonAlignedPage splits a non-aligned page payload into its time and
// value streams.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func SplitNonAlignedPage(payload []byte, off int64) (times, values []byte, err error) {
	n, w, ok := uvarint32(payload)
	if !ok {
		return nil, nil, corruptf(off, "non-aligned page", "bad time_stream_size")
	}
	if int64(n) > int64(len(payload)-w) {
		return nil, nil, corruptf(off, "non-aligned page", "time_stream_size %d exceeds the %d remaining payload bytes", n, len(payload)-w)
	}
	return payload[w : w+int(n)], payload[w+int(n):], nil
}

// CountTimes returns how many timestamps a time stream at offset off
// declares, from its framing alone, refusing more than maxPoints (use
// ReadOptions.MaxPagePoints). Callers size buffers with it before decoding.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func CountTimes(enc Encoding, stream []byte, off int64, maxPoints int) (int, error) {
	n, err := encoding.CountInt64(enc, stream)
	if err != nil {
		return 0, CodecError(off, "time stream", err)
	}
	if n > maxPoints {
		return 0, corruptf(off, "time stream", "declares %d timestamps, more than the limit of %d per page", n, maxPoints)
	}
	return n, nil
}
