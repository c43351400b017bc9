package tsfile

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// gigChunkFile is a file of about 1 GiB, held in a few hundred bytes,
// whose one chunk (of handDevice's series "s") declares dataSize bytes of
// data after its header: body, then zeros.
func gigChunkFile(marker byte, dataSize int64, body []byte) (io.ReaderAt, int64, int64) {
	head, offs := handData(h(appendChunkHeader(nil, &ChunkHeader{Marker: marker, Measurement: "s", DataSize: dataSize, DataType: Int32}), body))
	head = head[:len(head)-1] // the separator goes after the chunk's data
	sepAt := int64(len(head)-len(body)) + dataSize
	tail, root := handIndexAt([]byte{MarkerSeparator}, sepAt, "s", int32Series(offs[0]))
	tail = handFooter(tail, handMeta(root, sepAt))
	f := &sparseFile{size: sepAt + int64(len(tail)), parts: []sparsePart{{0, head}, {sepAt, tail}}}
	return f, f.size, offs[0]
}

// TestChunkBoundedByItsPages: a chunk whose data_size is within the file
// and the limits (about 1 GiB of a 1 GiB file) but whose bytes are zeros,
// or whose one page declares a stored size no page within MaxPageSize can
// have, fails at its first page header through every way of reading a
// chunk (whole, page stream, selected pages, the index-led reads), having
// allocated a few MiB at most, never the declared size. Reading it whole
// once allocated the gigabyte first and parsed it after.
func TestChunkBoundedByItsPages(t *testing.T) {
	const size = 1<<30 - 4096
	bound := uint64(2*chunkFirstRead + 1<<20)
	stored := maxStoredPage(64<<20) + 1
	for _, tc := range []struct {
		name   string
		marker byte
		body   []byte
		want   []string
	}{
		{"zeros", MarkerChunkHeader, nil, []string{"page header", "empty page in a chunk that is not an aligned value chunk"}},
		{"one page of 80 MiB", MarkerOnlyOnePageChunkHeader, h(appendUVarint(nil, 8), appendUVarint(nil, uint32(stored))),
			[]string{"page header", "compressed_size 83890177 exceeds the limit of 83890176"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, n, off := gigChunkFile(tc.marker, size, tc.body)
			f, err := Open(r, n, nil)
			require.NoError(t, err)
			for _, read := range []struct {
				name string
				fn   func() error
			}{
				{"ReadChunk", func() error { _, err := f.ReadChunk(off); return err }},
				{"ReadChunkInto", func() error { _, err := f.ReadChunkInto(off, &ChunkBuffer{}); return err }},
				{"ReadChunkPages", func() error {
					_, err := f.ReadChunkPages(off, func(int, *PageHeader) bool { return true })
					return err
				}},
				{"PageStream", func() error {
					s, err := f.OpenPageStream(off, nil, 0)
					if err == nil {
						_, err = s.Page(0)
					}
					return err
				}},
				{"everything", func() error { return readEverything(r, n, nil) }},
			} {
				var err error
				got := allocated(func() { err = read.fn() })
				require.Error(t, err, read.name)
				require.ErrorIs(t, err, ErrCorrupt, read.name)
				for _, w := range tc.want {
					require.ErrorContains(t, err, w, read.name)
				}
				allocBelow(t, got, bound, "%s allocated %d bytes: %v", read.name, got, err)
				t.Logf("%s: %d bytes allocated: %v", read.name, got, err)
			}
		})
	}
}
