package icesync

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// TestKeptZstd: the ZSTD codec the Parquet writer gets is keptZstd; its
// frames are the bytes a fresh encoder with arrow-go's options writes
// and decode (with arrow-go's decoder) to the input, at several levels,
// sizes and dst capacities, from goroutines at once; and it keeps at most
// keptZstdIdle encoders.
func TestKeptZstd(t *testing.T) {
	c, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := c.(*keptZstd)
	if !ok {
		t.Fatalf("the registered ZSTD codec is %T, want *keptZstd", c)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for _, n := range []int{1, 100, 4096, 1 << 20} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(16)) // compressible, not trivially
		}
		inputs = append(inputs, b)
	}
	levels := []int{compress.DefaultCompressionLevel, 1, 7}
	want := map[[2]int][]byte{}
	for li, level := range levels {
		lvl := zstd.EncoderLevelFromZstd(level)
		if level == compress.DefaultCompressionLevel {
			lvl = zstd.SpeedDefault
		}
		enc, err := zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(lvl),
			zstd.WithEncoderConcurrency(1), zstd.WithAllLitEntropyCompression(true))
		if err != nil {
			t.Fatal(err)
		}
		for ii, in := range inputs {
			want[[2]int{li, ii}] = enc.EncodeAll(in, nil)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 2 {
				for li, level := range levels {
					for ii, in := range inputs {
						var dst []byte
						if (g+round)%2 == 1 {
							dst = make([]byte, 0, c.CompressBound(int64(len(in))))
						}
						got := c.EncodeLevel(dst, in, level)
						if !bytes.Equal(got, want[[2]int{li, ii}]) {
							errs <- fmt.Sprintf("level %d, %d bytes: frame differs from a fresh encoder's", level, len(in))
							return
						}
						back := c.Decode(nil, got)
						if !bytes.Equal(back, in) {
							errs <- "round trip failed"
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got := c.Encode(nil, inputs[2]); !bytes.Equal(got, want[[2]int{0, 2}]) {
		t.Error("Encode differs from EncodeLevel at the default level")
	}
	k.mu.Lock()
	n := len(k.idle)
	k.mu.Unlock()
	if n < 1 || n > keptZstdIdle {
		t.Errorf("%d idle encoders kept, want 1 to %d", n, keptZstdIdle)
	}
}
