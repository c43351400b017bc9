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

// TestIndexRangeBoundedByParse: index entries whose byte ranges run over a
// hole of 1 GiB (a file of 1 GiB held in a few hundred bytes). A device
// entry's range that holds its node and then zeros reads as the node it
// holds; a measurement entry's range of one series and then zeros fails at
// the zeros. Neither reads the range whole: each allocates less than
// allocBound. Reading the declared range first allocated the gigabyte.
func TestIndexRangeBoundedByParse(t *testing.T) {
	const hole = 1 << 30
	data, offs := handData(validChunk())
	metaOffset := int64(len(data) - 1)
	seriesAt := int64(len(data))
	series := int32Series(offs[0])
	seriesEnd := seriesAt + int64(len(series))

	// The device entry's range: the measurement leaf, then the hole.
	a := append(append([]byte(nil), data...), series...)
	leaf := IndexNode{Type: LeafMeasurement, Entries: []IndexEntry{{Measurement: "s", Offset: seriesAt}}, EndOffset: seriesEnd}
	a = appendIndexNode(a, &leaf)
	metaPos := seriesEnd + hole
	root := &IndexNode{Type: LeafDevice, Entries: []IndexEntry{{Device: handDevice, Offset: seriesEnd}}, EndOffset: metaPos}
	tail := handFooter(nil, handMeta(root, metaOffset))
	nodeFile := &sparseFile{size: metaPos + int64(len(tail)), parts: []sparsePart{{0, a}, {metaPos, tail}}}

	// The measurement entry's range: the series, then the hole.
	b := append(append([]byte(nil), data...), series...)
	leafAt := seriesEnd + hole
	leaf = IndexNode{Type: LeafMeasurement, Entries: []IndexEntry{{Measurement: "s", Offset: seriesAt}}, EndOffset: leafAt}
	leafBytes := appendIndexNode(nil, &leaf)
	root = &IndexNode{Type: LeafDevice, Entries: []IndexEntry{{Device: handDevice, Offset: leafAt}}, EndOffset: leafAt + int64(len(leafBytes))}
	tail = handFooter(leafBytes, handMeta(root, metaOffset))
	rangeFile := &sparseFile{size: leafAt + int64(len(tail)), parts: []sparsePart{{0, b}, {leafAt, tail}}}

	var err error
	n := allocated(func() { err = readEverything(nodeFile, nodeFile.size, nil) })
	require.NoError(t, err)
	allocBelow(t, n, allocBound, "a device entry over a hole: allocated %d bytes", n)
	t.Logf("device entry over a hole: %d bytes allocated", n)

	n = allocated(func() { err = readEverything(rangeFile, rangeFile.size, nil) })
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "chunk metadata list at offset 139: chunk offset needs 8 bytes")
	allocBelow(t, n, allocBound, "a measurement entry over a hole: allocated %d bytes: %v", n, err)
	t.Logf("measurement entry over a hole: %d bytes allocated: %v", n, err)
}
