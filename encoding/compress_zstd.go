package encoding

import (
	"errors"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ZSTD pages hold a Zstandard frame (RFC 8878). The Java writer produces it with zstd-jni's
// Zstd.compress at the maximum level, which records the content size and no checksum, and
// reads it with Zstd.decompressByteArray (ZSTD_decompress), which also accepts further
// concatenated and skippable frames.

func init() {
	RegisterCodec(ZSTD, zstdCodec{})
}

type zstdCodec struct{}

// zstdDecoder is shared: DecodeAll may be called concurrently, and the decoder keeps a
// pool of GOMAXPROCS block decoders inside, so none is rebuilt after a garbage collection.
// With WithDecodeAllCapLimit it never grows the buffer it is given: a frame whose content
// size exceeds it is refused before decoding, and one without a content size stops after
// the block (at most 128 KiB) that overflows it.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderLowmem(true))
	if err != nil {
		panic("encoding: zstd decoder options: " + err.Error())
	}
	return d
})

// Decompress decodes into exactly size bytes of dst's capacity.
func (zstdCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	if err := compressCheckSize(ZSTD, size); err != nil {
		return nil, err
	}
	if size == 0 && len(src) == 0 {
		return dst[:0], nil
	}
	out := compressOut(dst, size)[:0:size]
	got, err := zstdDecoder().DecodeAll(src, out)
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return nil, compressLong(ZSTD, size)
	case err != nil:
		return nil, compressCorrupt(ZSTD, "%v", err)
	case len(got) != size:
		return nil, compressShort(ZSTD, len(got), size)
	}
	return got, nil
}

// zstdEncoder is shared likewise: EncodeAll may be called concurrently and keeps
// GOMAXPROCS encoders, whose 1.6 MiB of match tables are too costly to rebuild whenever a
// sync.Pool is emptied. Empty input still gets a full frame, as zstd-jni writes one.
var zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(0),
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithZeroFrames(true))
	if err != nil {
		panic("encoding: zstd encoder options: " + err.Error())
	}
	return e
})

// Compress appends one Zstandard frame, with its content size and a checksum, to dst[:0].
func (zstdCodec) Compress(dst, src []byte) ([]byte, error) {
	return zstdEncoder().EncodeAll(src, dst[:0]), nil
}
