package tsfile

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// cppLZOPages scans a file of ../testdata/cpp-lzo (see its README) from the front and
// returns its chunks' page payloads in file order, and the error that ended the scan.
func cppLZOPages(t *testing.T, name string) (pages [][]byte, chunks []*Chunk, scanErr error) {
	t.Helper()
	b, err := os.ReadFile("../testdata/cpp-lzo/" + name)
	require.NoError(t, err)
	s, err := NewScanner(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	var pd PayloadDecoder
	for s.Next() {
		r := s.Record()
		if r.Kind != ChunkRecord {
			continue
		}
		chunks = append(chunks, r.Chunk)
		for i := range r.Chunk.Pages {
			p, err := pd.Payload(r.Chunk, i)
			require.NoError(t, err, "%s: chunk %q page %d", name, r.Chunk.Header.Measurement, i)
			pages = append(pages, bytes.Clone(p))
		}
	}
	return pages, chunks, s.Err()
}

// TestCppWriterLZOPages decodes LZO pages written by the C++ TsFile writer itself: each
// decodes to the payload of the same page written UNCOMPRESSED.
func TestCppWriterLZOPages(t *testing.T) {
	plain, plainChunks, err := cppLZOPages(t, "plain.tsfile")
	require.NoError(t, err)
	require.Len(t, plainChunks, 2)
	lzo, lzoChunks, err := cppLZOPages(t, "lzo-truncated.tsfile")
	require.ErrorIs(t, err, ErrCorrupt, "the writer aborted before the footer")
	require.ErrorContains(t, err, "incomplete")

	require.Len(t, lzoChunks, 1)
	c := lzoChunks[0]
	require.Equal(t, encoding.LZO, c.Header.Compression)
	require.Equal(t, "f64", c.Header.Measurement)
	require.Len(t, c.Pages, 60)
	for i, p := range c.Pages {
		// A raw LZO1X block: no length prefix, the end marker last.
		require.True(t, bytes.HasSuffix(p.Stored, []byte{0x11, 0, 0}), "page %d", i)
		require.Less(t, len(p.Stored), p.Header.UncompressedSize, "page %d", i)
	}
	require.Len(t, lzo, 60)
	for i := range lzo {
		require.Equal(t, plain[i], lzo[i], "page %d", i)
	}
}
