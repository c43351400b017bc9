package encoding_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// compressCodecs are the compressions the compress_*.go files implement.
var compressCodecs = []encoding.Compression{encoding.Snappy, encoding.Gzip, encoding.LZ4, encoding.ZSTD, encoding.LZMA2}

func compressCodec(t testing.TB, c encoding.Compression) encoding.Codec {
	t.Helper()
	codec, err := encoding.LookupCodec(c)
	require.NoError(t, err)
	return codec
}

// compressRequireSentinel requires err to wrap exactly one of ErrCorrupt and ErrUnsupported.
func compressRequireSentinel(t testing.TB, err error) {
	t.Helper()
	corrupt, unsupported := errors.Is(err, encoding.ErrCorrupt), errors.Is(err, encoding.ErrUnsupported)
	require.True(t, corrupt != unsupported, "error must wrap exactly one sentinel: %v", err)
}

// compressPage resembles a TsFile page: TS_2DIFF timestamps, then PLAIN doubles of a slow
// random walk, cut or repeated to n bytes.
func compressPage(n int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	ts := make([]int64, 4096)
	t := int64(1_700_000_000_000)
	for i := range ts {
		t += 1000 + int64(r.IntN(3))
		ts[i] = t
	}
	page, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, ts)
	if err != nil {
		panic(err)
	}
	v := 20.0
	for len(page) < n {
		v += float64(r.IntN(21)-10) / 100
		page = compressAppendFloat64(page, math.Round(v*100)/100)
	}
	return page[:n]
}

func compressAppendFloat64(b []byte, v float64) []byte {
	u := math.Float64bits(v)
	return append(b, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
}

func compressRandom(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// compressInputs are the round-trip inputs: the edge sizes, incompressible, highly
// compressible and page-like data, and 1 MiB.
func compressInputs() []struct {
	name string
	data []byte
} {
	return []struct {
		name string
		data []byte
	}{
		{"empty", []byte{}},
		{"one byte", []byte{0x42}},
		{"short text", []byte("time series")},
		{"random 64KiB", compressRandom(64<<10, 1)},
		{"zeros 64KiB", make([]byte, 64<<10)},
		{"repeated text", bytes.Repeat([]byte("root.sg1.d1.s_int64,"), 3000)},
		{"page 64KiB", compressPage(64 << 10)},
		{"page 1MiB", compressPage(1 << 20)},
		{"random 1MiB", compressRandom(1<<20, 2)},
	}
}

func TestCompressRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range compressCodecs {
		codec := compressCodec(t, c)
		for _, in := range compressInputs() {
			t.Run(fmt.Sprintf("%v/%s", c, in.name), func(t *testing.T) {
				// Compress appends to dst[:0]: old contents go, capacity is reused.
				dst := append(make([]byte, 0, 2*len(in.data)+1024), "stale bytes"...)
				z, err := codec.Compress(dst, in.data)
				require.NoError(t, err)
				require.NotEmpty(t, z, "even empty input compresses to a valid, non-empty payload")
				require.Same(t, &dst[:1][0], &z[0], "Compress should reuse dst's capacity")
				zz, err := codec.Compress(nil, in.data)
				require.NoError(t, err)
				require.Equal(t, z, zz, "Compress is deterministic")

				// Decompress into nil, into too little and into plenty of capacity.
				for _, d := range [][]byte{nil, make([]byte, 3), make([]byte, 0, len(in.data)+64)} {
					got, err := codec.Decompress(d, z, len(in.data))
					require.NoError(t, err)
					require.True(t, bytes.Equal(in.data, got), "round trip differs")
					if cap(d) >= len(in.data) && len(in.data) > 0 {
						require.Same(t, &d[:1][0], &got[0], "Decompress should reuse dst's capacity")
					}
				}
			})
		}
	}
}

// TestCompressEmptyPage checks the TsFile empty page: no payload bytes for no data.
func TestCompressEmptyPage(t *testing.T) {
	for _, c := range compressCodecs {
		codec := compressCodec(t, c)
		got, err := codec.Decompress(nil, nil, 0)
		require.NoError(t, err, "%v", c)
		require.Empty(t, got)
		_, err = codec.Decompress(nil, nil, 1)
		require.ErrorIs(t, err, encoding.ErrCorrupt, "%v", c)
	}
}

// TestCompressWrongSize declares sizes other than the payload's.
func TestCompressWrongSize(t *testing.T) {
	data := compressPage(10_000)
	for _, c := range compressCodecs {
		codec := compressCodec(t, c)
		z, err := codec.Compress(nil, data)
		require.NoError(t, err)
		for _, size := range []int{0, 1, len(data) - 1, len(data) + 1, 2 * len(data), -1, math.MinInt} {
			got, err := codec.Decompress(nil, z, size)
			require.ErrorIs(t, err, encoding.ErrCorrupt, "%v with size %d", c, size)
			require.Nil(t, got)
			require.Contains(t, err.Error(), "encoding: "+c.String()+" page payload: ")
		}
		// An empty payload's codec stream declared non-empty, and the reverse.
		empty, err := codec.Compress(nil, nil)
		require.NoError(t, err)
		_, err = codec.Decompress(nil, empty, 1)
		require.ErrorIs(t, err, encoding.ErrCorrupt, "%v", c)
		one, err := codec.Compress(nil, []byte{1})
		require.NoError(t, err)
		_, err = codec.Decompress(nil, one, 0)
		require.ErrorIs(t, err, encoding.ErrCorrupt, "%v", c)
	}
}

// TestCompressTruncated cuts compressed payloads at every length (sampled for long ones):
// a codec must never return success unless the cut removed nothing it needs.
func TestCompressTruncated(t *testing.T) {
	for _, c := range compressCodecs {
		codec := compressCodec(t, c)
		for _, data := range [][]byte{[]byte("x"), []byte("hello, hello, hello, tsfile"), compressPage(20_000)} {
			z, err := codec.Compress(nil, data)
			require.NoError(t, err)
			step := max(1, len(z)/200)
			for n := 0; n < len(z); n += step {
				got, err := codec.Decompress(nil, z[:n], len(data))
				require.Error(t, err, "%v cut to %d of %d bytes", c, n, len(z))
				require.ErrorIs(t, err, encoding.ErrCorrupt, "%v cut to %d of %d bytes", c, n, len(z))
				require.Nil(t, got)
			}
			// Every codec also rejects the last byte missing.
			_, err = codec.Decompress(nil, z[:len(z)-1], len(data))
			require.ErrorIs(t, err, encoding.ErrCorrupt, "%v without its last byte", c)
		}
	}
}

// TestCompressCorrupted flips bytes of valid payloads. Without a checksum a flip may still
// decode to size bytes; it must never panic or return another size, and every error wraps
// one sentinel. The formats whose every byte is covered by a check (the .xz container and
// a gzip member's deflate data) must reject each flip.
func TestCompressCorrupted(t *testing.T) {
	t.Parallel()
	data := compressPage(5000)
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range compressCodecs {
		codec := compressCodec(t, c)
		z, err := codec.Compress(nil, data)
		require.NoError(t, err)
		rejected := 0
		for i := range z {
			bad := bytes.Clone(z)
			bad[i] ^= byte(1 + r.IntN(255))
			got, err := codec.Decompress(nil, bad, len(data))
			if err != nil {
				compressRequireSentinel(t, err)
				rejected++
				continue
			}
			require.Len(t, got, len(data))
			switch {
			case c == encoding.LZMA2:
				t.Fatalf("LZMA2 accepted a flip of byte %d", i)
			case c == encoding.Gzip && i >= 10:
				// Past the header (MTIME, XFL and OS are not checked) the CRC-32 covers all.
				t.Fatalf("GZIP accepted a flip of byte %d", i)
			}
		}
		t.Logf("%v: %d of %d single-byte flips rejected", c, rejected, len(z))
	}
}

// TestCompressCorruptVectors are hand-made malformed payloads, each with the reason it is
// refused.
func TestCompressCorruptVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    encoding.Compression
		src  string
		size int
		want error
	}{
		{"snappy no header", encoding.Snappy, "", 1, encoding.ErrCorrupt},
		{"snappy header says more", encoding.Snappy, "\x06\x10hello", 5, encoding.ErrCorrupt},
		{"snappy header says 4 GiB", encoding.Snappy, "\xff\xff\xff\xff\x0f\x10hello", 5, encoding.ErrCorrupt},
		{"snappy header too long", encoding.Snappy, "\x85\x80\x80\x80\x80\x00\x10hello", 5, encoding.ErrCorrupt},
		{"snappy literal past the end", encoding.Snappy, "\x05\x10hel", 5, encoding.ErrCorrupt},
		{"snappy copy before the start", encoding.Snappy, "\x09\x08abc\x09\x04", 9, encoding.ErrCorrupt},
		{"snappy S2 repeat copy (offset 0)", encoding.Snappy, "\x09\x08abc\x09\x00", 9, encoding.ErrCorrupt},
		{"lz4 literals past the end", encoding.LZ4, "\x50hel", 5, encoding.ErrCorrupt},
		{"lz4 offset 0", encoding.LZ4, "\x44abcd\x00\x00\x80efghijkl", 20, encoding.ErrCorrupt},
		{"lz4 offset before the start", encoding.LZ4, "\x44abcd\x05\x00\x80efghijkl", 20, encoding.ErrCorrupt},
		{"lz4 truncated offset", encoding.LZ4, "\x44abcd\x04", 20, encoding.ErrCorrupt},
		{"lz4 match past size", encoding.LZ4, "\x4fabcd\x04\x00\xff\xff\x10", 20, encoding.ErrCorrupt},
		{"gzip bad magic", encoding.Gzip, "\x1f\x8c\x08\x00\x00\x00\x00\x00\x00\xff\x01\x05\x00\xfa\xffhello\x86\xa6\x10\x36\x05\x00\x00\x00", 5, encoding.ErrCorrupt},
		{"gzip bad CRC", encoding.Gzip, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x01\x05\x00\xfa\xffhello\x86\xa6\x10\x37\x05\x00\x00\x00", 5, encoding.ErrCorrupt},
		{"gzip bad ISIZE", encoding.Gzip, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x01\x05\x00\xfa\xffhello\x86\xa6\x10\x36\x06\x00\x00\x00", 5, encoding.ErrCorrupt},
		{"gzip bad NLEN", encoding.Gzip, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x01\x05\x00\xfa\xfehello\x86\xa6\x10\x36\x05\x00\x00\x00", 5, encoding.ErrCorrupt},
		{"gzip trailing garbage", encoding.Gzip, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x01\x05\x00\xfa\xffhello\x86\xa6\x10\x36\x05\x00\x00\x00junk", 5, encoding.ErrCorrupt},
		{"zstd bad magic", encoding.ZSTD, "\x28\xb5\x2f\xfe\x20\x05\x29\x00\x00hello", 5, encoding.ErrCorrupt},
		{"zstd content size differs", encoding.ZSTD, "\x28\xb5\x2f\xfd\x20\x06\x29\x00\x00hello", 6, encoding.ErrCorrupt},
		{"zstd block past the end", encoding.ZSTD, "\x28\xb5\x2f\xfd\x20\x05\x29\x00\x00hel", 5, encoding.ErrCorrupt},
		{"zstd content size 2^40", encoding.ZSTD, "\x28\xb5\x2f\xfd\xe0\x00\x00\x00\x00\x00\x01\x00\x00\x29\x00\x00hello", 5, encoding.ErrCorrupt},
		{"xz bad magic", encoding.LZMA2, "\xfd7zXZ\x01\x00\x01\x69\x22\xde\x36", 0, encoding.ErrCorrupt},
		{"xz truncated header", encoding.LZMA2, "\xfd7zXZ\x00\x00\x01", 0, encoding.ErrCorrupt},
		{"xz unknown check", encoding.LZMA2, "\xfd7zXZ\x00\x00\x02\xd3\x73\xd7\xaf", 0, encoding.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := compressCodec(t, tc.c).Decompress(nil, []byte(tc.src), tc.size)
			require.ErrorIs(t, err, tc.want)
			compressRequireSentinel(t, err)
			require.Nil(t, got)
		})
	}
}

// TestCompressConcurrent runs every codec from several goroutines at once; with -race it
// checks that the pooled state is not shared.
func TestCompressConcurrent(t *testing.T) {
	inputs := [][]byte{compressPage(30_000), compressRandom(20_000, 9), []byte("tiny"), nil}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var dst, z []byte
			for i := range 12 {
				c := compressCodecs[(g+i)%len(compressCodecs)]
				codec, err := encoding.LookupCodec(c)
				if !assert.NoError(t, err) {
					return
				}
				in := inputs[(g+i)%len(inputs)]
				z, err = codec.Compress(z, in)
				if !assert.NoError(t, err) {
					return
				}
				dst, err = codec.Decompress(dst, z, len(in))
				if !assert.NoError(t, err, "%v", c) || !assert.True(t, bytes.Equal(in, dst), "%v", c) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// compressZeroAllocs lists the codecs whose Decompress allocates nothing once warm.
var compressZeroAllocs = map[encoding.Compression]bool{
	encoding.Snappy: true, encoding.Gzip: true, encoding.LZ4: true, encoding.ZSTD: true, encoding.LZMA2: true,
}

func TestCompressDecompressAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if testing.Short() {
		t.Skip("allocation counts")
	}
	data := compressPage(64 << 10)
	dst := make([]byte, len(data))
	for _, c := range compressCodecs {
		codec := compressCodec(t, c)
		z, err := codec.Compress(nil, data)
		require.NoError(t, err)
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := codec.Decompress(dst, z, len(data)); err != nil {
				panic(err)
			}
		})
		t.Logf("%v: %.1f allocations per Decompress", c, allocs)
		if compressZeroAllocs[c] {
			require.Zero(t, allocs, "%v", c)
		}
	}

	// A ZSTD frame without a content size, as streaming compressors write, decodes into
	// the exact buffer without allocating too.
	z := zstdStreamBomb(t, data)
	codec := compressCodec(t, encoding.ZSTD)
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := codec.Decompress(dst, z, len(data)); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs, "ZSTD frame without content size")
}

// TestCompressHostileAllocation feeds payloads that declare or expand to far more than
// the page's size and requires each to fail after allocating about the page size at most.
// The bound allows for the ZSTD decoder, which appends a block of up to 128 KiB before it
// notices that a frame without a content size has overrun the buffer (Go then grows the
// buffer by up to 2x for small slices, 1.25x for large ones).
func TestCompressHostileAllocation(t *testing.T) {
	const size = 1000
	big := make([]byte, 16<<20)
	hostile := map[encoding.Compression][][]byte{}
	for _, c := range compressCodecs {
		z, err := compressCodec(t, c).Compress(nil, big)
		require.NoError(t, err)
		hostile[c] = append(hostile[c], z) // a 64 MiB bomb
	}
	hostile[encoding.Snappy] = append(hostile[encoding.Snappy], []byte("\xff\xff\xff\xff\x0f\x00"))
	hostile[encoding.ZSTD] = append(hostile[encoding.ZSTD],
		[]byte("\x28\xb5\x2f\xfd\xe0\x00\x00\x00\x00\x00\x01\x00\x00\x29\x00\x00hello"), // content size 2^40
		zstdStreamBomb(t, big)) // no content size
	hostile[encoding.LZMA2] = append(hostile[encoding.LZMA2], xzHugeDict(t))
	for c, payloads := range hostile {
		codec := compressCodec(t, c)
		for i, src := range payloads {
			dst := make([]byte, 0, size)
			_, err := codec.Decompress(dst, src, size) // warm up pools
			require.ErrorIs(t, err, encoding.ErrCorrupt, "%v payload %d", c, i)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = codec.Decompress(dst, src, size)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%v payload %d (%d bytes): %d bytes allocated", c, i, len(src), allocated)
			require.Less(t, allocated, uint64(size+size/4+320<<10), "%v payload %d", c, i)
		}
	}
}
