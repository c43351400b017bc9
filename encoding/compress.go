package encoding

import (
	"fmt"
	"sync"
)

// Codec compresses and decompresses one Page payload. Each Page is an independent
// compression unit, so a Codec keeps no state between calls and must be safe for concurrent use.
type Codec interface {
	// Decompress decompresses src, whose decompressed length must be exactly size bytes,
	// reusing dst's capacity when it is large enough. The result may alias src for UNCOMPRESSED.
	Decompress(dst, src []byte, size int) ([]byte, error)
	// Compress appends the compressed form of src to dst[:0].
	Compress(dst, src []byte) ([]byte, error)
}

var codecs struct {
	sync.RWMutex
	byID [256]Codec
}

// RegisterCodec makes codec the implementation of c, replacing any earlier registration.
// It is safe to call concurrently with LookupCodec, typically from an init function of the
// package providing the codec. It panics if codec is nil.
func RegisterCodec(c Compression, codec Codec) {
	if codec == nil {
		panic("encoding: RegisterCodec of nil Codec for " + c.String())
	}
	codecs.Lock()
	codecs.byID[c] = codec
	codecs.Unlock()
}

// LookupCodec returns the Codec registered for c, or an error wrapping ErrUnsupported if there
// is none. A Chunk with an unsupported compression must be skipped, never read as UNCOMPRESSED.
func LookupCodec(c Compression) (Codec, error) {
	codecs.RLock()
	codec := codecs.byID[c]
	codecs.RUnlock()
	if codec == nil {
		return nil, fmt.Errorf("encoding: compression %v is not supported: %w", c, ErrUnsupported)
	}
	return codec, nil
}

func init() {
	RegisterCodec(Uncompressed, uncompressed{})
}

// uncompressed is the UNCOMPRESSED codec: the stored payload is already the Page's bytes.
type uncompressed struct{}

// Decompress returns src itself, without copying, after checking its length against size.
func (uncompressed) Decompress(dst, src []byte, size int) ([]byte, error) {
	if len(src) != size {
		return nil, fmt.Errorf("encoding: UNCOMPRESSED page payload is %d bytes, header says %d: %w", len(src), size, ErrCorrupt)
	}
	return src, nil
}

// Compress copies src into dst[:0].
func (uncompressed) Compress(dst, src []byte) ([]byte, error) {
	return append(dst[:0], src...), nil
}
