package icesync

import (
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// keptZstd is the ZSTD codec of the Parquet writer (the data files of a
// sync are ZSTD, see withWriteProps) with its encoders kept between uses.
//
// arrow-go v18.9.0's own ZSTD codec (parquet/compress/zstd.go) keeps its
// encoders in a sync.Pool, which every second garbage collection empties,
// and a new encoder allocates and clears a history buffer of twice its
// 8 MiB window on its first page. A sync writes one data file per day
// and the Parquet writer compresses a file's pages when it closes it;
// between two closes the reads of the next day's rows run several
// collections, so the sync made a new encoder for almost every data file:
// 528 MB allocated and cleared for the 31 files of 2M rows, 15% of the
// sync's CPU time (pprof), about 20% with the page faults (measured with
// and without this codec: 3.0 s against 3.9 s of CPU time, the same bytes
// written).
//
// Here idle encoders wait in a free list that collections leave alone,
// at most keptZstdIdle of them (about 17 MB each), so what a process holds
// is bounded. Only the encoding side changes; decoding is arrow-go's.
type keptZstd struct {
	compress.Codec // arrow-go's: decoding, streaming writers, CompressBound

	mu   sync.Mutex
	idle []idleEncoder
}

// idleEncoder is a kept encoder and its level.
type idleEncoder struct {
	enc *zstd.Encoder
	lvl zstd.EncoderLevel
}

// keptZstdIdle bounds the encoders kept idle: as many as Parquet writers
// a sync runs at once (one; iceberg-go's clustered write), with one to
// spare for another writer in the process.
const keptZstdIdle = 2

func init() {
	if c, err := compress.GetCodec(compress.Codecs.Zstd); err == nil {
		compress.RegisterCodec(compress.Codecs.Zstd, &keptZstd{Codec: c})
	}
}

// Encode compresses src at the default level.
func (k *keptZstd) Encode(dst, src []byte) []byte {
	return k.EncodeLevel(dst, src, compress.DefaultCompressionLevel)
}

// EncodeLevel compresses src as one ZSTD frame at the level (arrow-go's
// mapping: the default level is zstd.SpeedDefault), into dst's storage
// when it is large enough.
func (k *keptZstd) EncodeLevel(dst, src []byte, level int) []byte {
	lvl := zstd.EncoderLevelFromZstd(level)
	if level == compress.DefaultCompressionLevel {
		lvl = zstd.SpeedDefault
	}
	enc := k.get(lvl)
	if enc == nil {
		// The options of arrow-go's pooled encoders, so that the bytes
		// are the ones it would write.
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(lvl),
			zstd.WithEncoderConcurrency(1), zstd.WithAllLitEntropyCompression(true))
		if err != nil {
			return k.Codec.EncodeLevel(dst, src, level)
		}
	}
	out := enc.EncodeAll(src, dst[:0])
	k.put(enc, lvl)
	return out
}

// get takes an idle encoder of the level, or returns nil.
func (k *keptZstd) get(lvl zstd.EncoderLevel) *zstd.Encoder {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := len(k.idle) - 1; i >= 0; i-- {
		if e := k.idle[i]; e.lvl == lvl {
			k.idle = append(k.idle[:i], k.idle[i+1:]...)
			return e.enc
		}
	}
	return nil
}

// put keeps an encoder idle, dropping the oldest one past keptZstdIdle.
func (k *keptZstd) put(e *zstd.Encoder, lvl zstd.EncoderLevel) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.idle) == keptZstdIdle {
		k.idle = append(k.idle[:0], k.idle[1:]...)
	}
	k.idle = append(k.idle, idleEncoder{e, lvl})
}
