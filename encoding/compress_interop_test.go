package encoding_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
	"github.com/tsarrow/tsarrow/tsfile"
)

// compressInteropDir holds TsFiles written by the upstream Java writer (shared/interop beside the
// repository); the tests that need it are skipped where it is absent.
const compressInteropDir = "../../shared/interop/"

// compressForEachInteropPage opens an upstream file and calls fn with every page of every chunk of
// every series, in index order.
func compressForEachInteropPage(t *testing.T, name string, fn func(c *tsfile.Chunk, i int)) {
	t.Helper()
	path := filepath.Join(compressInteropDir, name)
	if _, err := os.Stat(path); err != nil {
		need.Skipf(t, "interop file not available: %v", err)
	}
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	for _, table := range f.Tables() {
		devs, err := f.Devices(table)
		require.NoError(t, err)
		for _, dev := range devs {
			series, err := f.Series(dev)
			require.NoError(t, err)
			for _, ts := range series {
				for _, cm := range ts.Chunks {
					c, err := f.ReadChunk(cm.Offset)
					require.NoError(t, err, "%s %s %q chunk at %d", name, dev, ts.Measurement, cm.Offset)
					for i := range c.Pages {
						fn(c, i)
					}
				}
			}
		}
	}
}

// TestInteropDecompressEveryPage decompresses every page of the upstream files through the
// codec registry, as the reader does, and requires each to produce exactly its
// uncompressed_size. j02 uses LZ4 for every chunk; j10 uses SNAPPY, LZ4, GZIP, ZSTD and
// LZMA2 for different columns.
func TestInteropDecompressEveryPage(t *testing.T) {
	for _, tc := range []struct {
		file string
		want map[encoding.Compression]bool // compressions the file must exercise
	}{
		{"j02_table_multipage_default_encodings.tsfile", map[encoding.Compression]bool{encoding.LZ4: true}},
		{"j10_tree_nonaligned.tsfile", map[encoding.Compression]bool{
			encoding.Snappy: true, encoding.LZ4: true, encoding.Gzip: true, encoding.ZSTD: true, encoding.LZMA2: true,
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			pages := map[encoding.Compression]int{}
			var pd tsfile.PayloadDecoder
			compressForEachInteropPage(t, tc.file, func(c *tsfile.Chunk, i int) {
				h := c.Pages[i].Header
				out, err := pd.Payload(c, i)
				require.NoError(t, err, "%v chunk %q at %d, page %d (%d -> %d bytes)",
					c.Header.Compression, c.Header.Measurement, c.Header.Offset, i, h.CompressedSize, h.UncompressedSize)
				require.Len(t, out, h.UncompressedSize)
				pages[c.Header.Compression]++

				// The same payload through the codec directly, into a fresh buffer and into
				// one that is too small, must give the same bytes.
				codec, err := encoding.LookupCodec(c.Header.Compression)
				require.NoError(t, err)
				again, err := codec.Decompress(make([]byte, 0, 1), c.Pages[i].Stored, h.UncompressedSize)
				require.NoError(t, err)
				require.True(t, bytes.Equal(out, again))

				// A declared size one off either way is refused.
				if c.Header.Compression != encoding.Uncompressed && h.UncompressedSize > 0 {
					for _, size := range []int{h.UncompressedSize - 1, h.UncompressedSize + 1} {
						_, err := codec.Decompress(nil, c.Pages[i].Stored, size)
						require.ErrorIs(t, err, encoding.ErrCorrupt, "%v page with size %d", c.Header.Compression, size)
					}
				}
			})
			t.Logf("pages decompressed per compression: %v", pages)
			for c := range tc.want {
				require.NotZero(t, pages[c], "%s has no %v page", tc.file, c)
			}
		})
	}
}

// TestInteropLZ4MatchesJava recompresses every decompressed LZ4 page: the LZ4 codec emits
// what LZ4_compress_default emits, so it reproduces lz4-java's bytes exactly. Empty pages,
// which the Java writer stores without a payload, are the only exception.
func TestInteropLZ4MatchesJava(t *testing.T) {
	codec, err := encoding.LookupCodec(encoding.LZ4)
	require.NoError(t, err)
	for _, file := range []string{"j02_table_multipage_default_encodings.tsfile", "j10_tree_nonaligned.tsfile"} {
		same := 0
		compressForEachInteropPage(t, file, func(c *tsfile.Chunk, i int) {
			p := c.Pages[i]
			if c.Header.Compression != encoding.LZ4 || p.Header.UncompressedSize == 0 {
				return
			}
			out, err := codec.Decompress(nil, p.Stored, p.Header.UncompressedSize)
			require.NoError(t, err)
			re, err := codec.Compress(nil, out)
			require.NoError(t, err)
			require.True(t, bytes.Equal(p.Stored, re), "%s chunk %q page %d recompresses differently", file, c.Header.Measurement, i)
			same++
		})
		require.NotZero(t, same, file)
	}
}
