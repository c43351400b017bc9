package tsfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// Tests that tiny inputs declaring huge sizes are refused before anything
// is allocated for them, and that each ReadOptions limit refuses a valid
// file that exceeds it. TestHugeDeclaredCounts (bad_test.go) has the
// TS_2DIFF timestamp count and the page and footer limits on a small file.

// allocBound is how much a refused call may allocate in total.
const allocBound = 1 << 20

// allocBelow asserts that n bytes allocated are fewer than bound, except
// under the race detector (see raceEnabled).
func allocBelow(t *testing.T, n, bound uint64, msgAndArgs ...any) {
	t.Helper()
	if raceEnabled {
		t.Logf("allocation bound not checked under the race detector: %d bytes, bound %d", n, bound)
		return
	}
	require.Less(t, n, bound, msgAndArgs...)
}

// allocated returns the bytes allocated while fn runs.
func allocated(fn func()) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	fn()
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc - before
}

// sparseFile is an io.ReaderAt over a file of size bytes that are zero
// except for parts placed at given offsets: a tiny input for a huge file.
type sparseFile struct {
	size  int64
	parts []sparsePart
}

type sparsePart struct {
	at int64
	b  []byte
}

func (s *sparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > s.size {
		return 0, io.EOF
	}
	n := len(p)
	if int64(n) > s.size-off {
		n = int(s.size - off)
	}
	clear(p[:n])
	for _, pt := range s.parts {
		lo, hi := max(off, pt.at), min(off+int64(n), pt.at+int64(len(pt.b)))
		if lo < hi {
			copy(p[lo-off:hi-off], pt.b[lo-pt.at:hi-pt.at])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// handDevice is the device of the hand-built files.
var handDevice = NewDeviceID("root.h", "d")

// handData returns the prefix, one chunk group of handDevice holding the
// given chunks (each a chunk header and its pages), and the separator,
// with the offset of each chunk. The separator is the last byte.
func handData(chunks ...[]byte) ([]byte, []int64) {
	out := append([]byte(Magic), Version)
	out = appendDeviceID(append(out, MarkerChunkGroupHeader), handDevice)
	var offs []int64
	for _, c := range chunks {
		offs = append(offs, int64(len(out)))
		out = append(out, c...)
	}
	return append(out, MarkerSeparator), offs
}

// handIndex appends the serialized series (each a TimeseriesMetadata) and
// a LEAF_MEASUREMENT node over them to data, and returns the table root:
// a LEAF_DEVICE node with handDevice's entry.
func handIndex(data []byte, firstName string, series ...[]byte) ([]byte, *IndexNode) {
	return handIndexAt(data, 0, firstName, series...)
}

// handIndexAt is handIndex for data that starts at file offset base.
func handIndexAt(data []byte, base int64, firstName string, series ...[]byte) ([]byte, *IndexNode) {
	at := base + int64(len(data))
	for _, s := range series {
		data = append(data, s...)
	}
	leaf := IndexNode{Type: LeafMeasurement, Entries: []IndexEntry{{Measurement: firstName, Offset: at}}, EndOffset: base + int64(len(data))}
	leafAt := base + int64(len(data))
	data = appendIndexNode(data, &leaf)
	return data, &IndexNode{Type: LeafDevice, Entries: []IndexEntry{{Device: handDevice, Offset: leafAt}}, EndOffset: base + int64(len(data))}
}

// handMeta is TsFileMetadata with the one table root, no schema, no Bloom
// filter and no properties.
func handMeta(root *IndexNode, metaOffset int64) []byte {
	return appendFileMetadata(nil, &FileMetadata{TableNames: []string{handDevice.Table()}, TableIndexes: map[string]*IndexNode{handDevice.Table(): root}, MetaOffset: metaOffset})
}

// handFooter appends TsFileMetadata, its length and the tail magic.
func handFooter(data, meta []byte) []byte {
	data = append(data, meta...)
	return append(appendInt32(data, int32(len(meta))), Magic...)
}

// handFile is a complete file of handDevice with the given chunks and
// series metadata; series get the chunk offsets to point at.
func handFile(chunks [][]byte, firstName string, series func(offs []int64) [][]byte) []byte {
	data, offs := handData(chunks...)
	metaOffset := int64(len(data) - 1)
	data, root := handIndex(data, firstName, series(offs)...)
	return handFooter(data, handMeta(root, metaOffset))
}

// int32Series is the TimeseriesMetadata of a non-aligned INT32 series "s"
// of one chunk at off, whose statistics are validChunk's point.
func int32Series(off int64) []byte {
	st := Statistics{Type: Int32, Count: 1, StartTime: 5, EndTime: 5, MinInt: 7, MaxInt: 7, FirstInt: 7, LastInt: 7, SumInt: 7}
	return appendTimeseriesMetadata(nil, &TimeseriesMetadata{Measurement: "s", DataType: Int32,
		Statistics: st, Chunks: []ChunkMetadata{{Offset: off}}})
}

// footerWith returns a file whose data section is one valid chunk group
// (handFile's) and whose TsFileMetadata is meta, built given the
// separator's offset and the LEAF_DEVICE root of the valid index.
func footerWith(meta func(metaOffset int64, root *IndexNode) []byte) []byte {
	data, offs := handData(validChunk())
	metaOffset := int64(len(data) - 1)
	data, root := handIndex(data, "s", int32Series(offs[0]))
	return handFooter(data, meta(metaOffset, root))
}

// validChunk is a single-page non-aligned INT32 chunk "s" of one point.
func validChunk() []byte {
	ts, _ := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, []int64{5})
	vs, _ := encoding.AppendEncodedInt32(encoding.Plain, nil, []int32{7})
	payload := append(appendUVarint(nil, uint32(len(ts))), ts...)
	payload = append(payload, vs...)
	return chunkBytes(MarkerOnlyOnePageChunkHeader, "s", Int32, appendPageHeader(nil, &PageHeader{UncompressedSize: len(payload), CompressedSize: len(payload)}), payload)
}

// chunkBytes is a chunk header over the given page bytes, PLAIN and
// UNCOMPRESSED.
func chunkBytes(marker byte, name string, t DataType, pages ...[]byte) []byte {
	var body []byte
	for _, p := range pages {
		body = append(body, p...)
	}
	h := ChunkHeader{Marker: marker, Measurement: name, DataSize: int64(len(body)), DataType: t}
	return append(appendChunkHeader(nil, &h), body...)
}

// metaPrefix is the start of TsFileMetadata up to and including
// meta_offset: the one table root, then the table schemas given as bytes
// with their count (none when nil).
func metaPrefix(root *IndexNode, schemas []byte, metaOffset int64) []byte {
	b := appendUVarint(nil, 1)
	b = appendVarString(b, handDevice.Table())
	b = appendIndexNode(b, root)
	if schemas == nil {
		schemas = appendUVarint(nil, 0)
	}
	b = append(b, schemas...)
	return appendInt64(b, metaOffset)
}

// readEverything opens r and reads every series of every device, and scans
// the data section unless r is a sparseFile (whose zeros the scanner reads
// as an endless run of empty chunk groups of the device "").
func readEverything(r io.ReaderAt, size int64, opts *ReadOptions) error {
	var err error
	if _, sparse := r.(*sparseFile); !sparse {
		var s *Scanner
		if s, err = NewScanner(r, size, opts); err == nil {
			for s.Next() {
			}
			err = s.Err()
		}
	}
	f, oerr := Open(r, size, opts)
	if oerr != nil {
		return errors.Join(oerr, err)
	}
	for _, tb := range f.Tables() {
		devs, derr := f.Devices(tb)
		if derr != nil {
			return errors.Join(derr, err)
		}
		for _, d := range devs {
			series, serr := f.Series(d)
			if serr != nil {
				return errors.Join(serr, err)
			}
			if _, serr := f.SeriesByName(d, "s"); serr != nil {
				return errors.Join(serr, err)
			}
			for i := range series {
				if _, _, rerr := f.ReadNonAligned(&series[i]); rerr != nil {
					return errors.Join(rerr, err)
				}
			}
		}
	}
	return err
}

func TestHandFileReads(t *testing.T) {
	b := handFile([][]byte{validChunk()}, "s", func(offs []int64) [][]byte { return [][]byte{int32Series(offs[0])} })
	require.NoError(t, readEverything(bytes.NewReader(b), int64(len(b)), nil))
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	ss, err := f.Series(handDevice)
	require.NoError(t, err)
	times, vals, err := f.ReadNonAligned(&ss[0])
	require.NoError(t, err)
	require.Equal(t, []int64{5}, times)
	require.Equal(t, []int32{7}, vals.Int32s)
	b = footerWith(func(metaOffset int64, root *IndexNode) []byte { return handMeta(root, metaOffset) })
	require.NoError(t, readEverything(bytes.NewReader(b), int64(len(b)), nil))
}

// deviceChain returns an index region of depth INTERNAL_DEVICE nodes, each
// with one entry keyed handDevice pointing at the next, then a
// LEAF_DEVICE node whose entry points at the valid measurement leaf, and
// the root entry (for the footer) pointing at the first node. loop makes
// the first internal node point at itself instead.
func deviceChain(data []byte, measurementLeaf IndexEntry, depth int, loop bool) ([]byte, *IndexNode) {
	nodeLen := len(appendIndexNode(nil, &IndexNode{Type: InternalDevice, Entries: []IndexEntry{{Device: handDevice}}}))
	start := int64(len(data))
	for i := 0; i < depth; i++ {
		next := start + int64(i+1)*int64(nodeLen)
		if loop {
			next = start
		}
		n := IndexNode{Type: InternalDevice, Entries: []IndexEntry{{Device: handDevice, Offset: next}}, EndOffset: next + int64(nodeLen)}
		data = appendIndexNode(data, &n)
	}
	leaf := IndexNode{Type: LeafDevice, Entries: []IndexEntry{{Device: handDevice, Offset: measurementLeaf.Offset}}, EndOffset: measurementLeaf.End}
	data = appendIndexNode(data, &leaf)
	return data, &IndexNode{Type: InternalDevice, Entries: []IndexEntry{{Device: handDevice, Offset: start}}, EndOffset: start + int64(nodeLen)}
}

// measurementChain is deviceChain for the measurement index of handDevice:
// INTERNAL_MEASUREMENT nodes keyed "s" over the valid LEAF_MEASUREMENT.
func measurementChain(data []byte, leaf IndexEntry, depth int, loop bool) ([]byte, *IndexNode) {
	nodeLen := len(appendIndexNode(nil, &IndexNode{Type: InternalMeasurement, Entries: []IndexEntry{{Measurement: "s"}}}))
	start := int64(len(data))
	for i := 0; i < depth; i++ {
		next := start + int64(i+1)*int64(nodeLen)
		end := next + int64(nodeLen)
		if loop {
			next, end = start, start+int64(nodeLen)
		} else if i == depth-1 {
			next, end = leaf.Offset, leaf.End
		}
		n := IndexNode{Type: InternalMeasurement, Entries: []IndexEntry{{Measurement: "s", Offset: next}}, EndOffset: end}
		data = appendIndexNode(data, &n)
	}
	root := IndexNode{Type: LeafDevice, Entries: []IndexEntry{{Device: handDevice, Offset: start}}, EndOffset: start + int64(nodeLen)}
	return data, &root
}

// chainFile builds a file whose index is made by chain over the valid
// measurement leaf.
func chainFile(chain func(data []byte, leaf IndexEntry) ([]byte, *IndexNode)) []byte {
	data, offs := handData(validChunk())
	metaOffset := int64(len(data) - 1)
	data, valid := handIndex(data, "s", int32Series(offs[0]))
	leaf := valid.Entries[0]
	leaf.End = valid.EndOffset
	data, root := chain(data, leaf)
	return handFooter(data, handMeta(root, metaOffset))
}

// TestHugeDeclaredSizes: for each structure, a tiny file (or a tiny input
// standing for a huge file) declaring an enormous size. Reading it fails
// with an error wrapping ErrCorrupt that names the structure, and the
// read allocates less than allocBound.
func TestHugeDeclaredSizes(t *testing.T) {
	type input struct {
		r    io.ReaderAt
		size int64
	}
	small := func(b []byte) input { return input{bytes.NewReader(b), int64(len(b))} }
	stats := Statistics{Type: Int32, Count: 1}
	statBytes := stats.AppendTo(nil)
	for _, tc := range []struct {
		name string
		in   input
		opts *ReadOptions
		want []string // substrings of the error
	}{
		{"TsFileMetadata length 2 GiB in a tiny file", small(h(append([]byte(Magic), Version), make([]byte, 20), be32(0x7fffffff), []byte(Magic))), nil,
			[]string{"file tail", "TsFileMetadata length 2147483647 does not fit"}},
		{"TsFileMetadata length 2 GiB in a 3 GiB file", input{&sparseFile{size: 3 << 30, parts: []sparsePart{
			{0, append([]byte(Magic), Version)}, {3<<30 - 10, h(be32(0x7fffffff), []byte(Magic))}}}, 3 << 30}, nil,
			[]string{"file tail", "TsFileMetadata length 2147483647 exceeds the limit of 268435456"}},
		{"table index name of 1 GiB", small(footerWith(func(int64, *IndexNode) []byte {
			return h(appendUVarint(nil, 1), appendVarint(nil, 1<<30), []byte("root.h"))
		})), nil, []string{"TsFileMetadata", "table index name", "1073741824"}},
		{"table schema name of 1 GiB", small(footerWith(func(mo int64, root *IndexNode) []byte {
			return h(appendUVarint(nil, 0), appendUVarint(nil, 1), appendVarint(nil, 1<<30), []byte("t"))
		})), nil, []string{"TsFileMetadata", "table schema name", "1073741824"}},
		{"column name of 1 GiB", small(footerWith(func(mo int64, root *IndexNode) []byte {
			return h(appendUVarint(nil, 0), appendUVarint(nil, 1), appendVarString(nil, "t"), appendUVarint(nil, 1), be32(1<<30), []byte("c"), make([]byte, 20))
		})), nil, []string{"TsFileMetadata", "column_name", "1073741824"}},
		{"measurement name of 1 GiB", small(handFile([][]byte{validChunk()}, "s", func(offs []int64) [][]byte {
			return [][]byte{h([]byte{0}, appendVarint(nil, 1<<30), []byte("s"), []byte{byte(Int32)}, appendUVarint(nil, 8), statBytes, be64(offs[0]))}
		})), nil, []string{"timeseries metadata", "timeseries measurement_id", "1073741824"}},
		{"chunk measurement_id of 1 GiB", small(handFile([][]byte{h([]byte{MarkerOnlyOnePageChunkHeader}, appendVarint(nil, 1<<30), []byte("s"), make([]byte, 30))}, "s",
			func(offs []int64) [][]byte { return [][]byte{int32Series(offs[0])} })), nil, []string{"chunk header", "chunk measurement_id", "1073741824"}},
		{"DeviceID segment of 1 GiB", small(footerWith(func(mo int64, _ *IndexNode) []byte {
			root := h(appendUVarint(nil, 1), appendUVarint(nil, 2), appendVarString(nil, "root.h"), appendVarint(nil, 1<<30), []byte("d"), be64(mo+1), be64(mo+2), []byte{byte(LeafDevice)})
			return h(appendUVarint(nil, 1), appendVarString(nil, "root.h"), root, appendUVarint(nil, 0), be64(mo), []byte{0, 0})
		})), nil, []string{"TsFileMetadata", "DeviceID segment", "1073741824"}},
		{"chunk measurement_id of 1 GiB in a 64 MiB file", sparseChunkFile(h([]byte{MarkerOnlyOnePageChunkHeader}, appendVarint(nil, 1<<30), []byte("s"), make([]byte, 30))), nil,
			[]string{"chunk header", "chunk measurement_id", "1073741824"}},
		{"invalid chunk measurement_id in a 64 MiB file", sparseChunkFile(h([]byte{MarkerOnlyOnePageChunkHeader}, appendVarString(nil, "\xff"), make([]byte, 30))), nil,
			[]string{"chunk header", "chunk measurement_id: invalid UTF-8"}},
		{"chunk group DeviceID segment of 1 GiB", small(h(append([]byte(Magic), Version), []byte{MarkerChunkGroupHeader}, appendUVarint(nil, 2), appendVarString(nil, "root.h"), appendVarint(nil, 1<<30), []byte("d"), make([]byte, 40))), nil,
			[]string{"chunk group header", "DeviceID segment", "1073741824"}},
		{"DeviceID of 2^31 segments", small(footerWith(func(mo int64, _ *IndexNode) []byte {
			root := h(appendUVarint(nil, 1), appendUVarint(nil, 1<<31), appendVarString(nil, "root.h"), be64(mo+1), be64(mo+2), []byte{byte(LeafDevice)})
			return h(appendUVarint(nil, 1), appendVarString(nil, "root.h"), root, appendUVarint(nil, 0), be64(mo), []byte{0, 0})
		})), nil, []string{"TsFileMetadata", "DeviceID segment_count 2147483648"}},
		{"DeviceID of 5000 segments", small(footerWith(func(mo int64, _ *IndexNode) []byte {
			root := h(appendUVarint(nil, 1), appendUVarint(nil, 5000), make([]byte, 5000), be64(mo+1), be64(mo+2), []byte{byte(LeafDevice)})
			return h(appendUVarint(nil, 1), appendVarString(nil, "root.h"), root, appendUVarint(nil, 0), be64(mo), []byte{0, 0})
		})), nil, []string{"TsFileMetadata", "DeviceID has 5000 segments, more than the limit of 4096"}},
		{"index node child_count 2^32-1", small(footerWith(func(int64, *IndexNode) []byte {
			return h(appendUVarint(nil, 1), appendVarString(nil, "root.h"), appendUVarint(nil, 0xffffffff), make([]byte, 30))
		})), nil, []string{"TsFileMetadata", "index node child_count 4294967295"}},
		{"table_index_count 2^32-1", small(footerWith(func(int64, *IndexNode) []byte {
			return h(appendUVarint(nil, 0xffffffff), make([]byte, 30))
		})), nil, []string{"TsFileMetadata", "table_index_count 4294967295"}},
		{"table column_count 2^31", small(footerWith(func(mo int64, root *IndexNode) []byte {
			return h(metaPrefix(root, h(appendUVarint(nil, 1), appendVarString(nil, "t"), appendUVarint(nil, 1<<31), make([]byte, 20)), mo))
		})), nil, []string{"TsFileMetadata", "table column_count 2147483648"}},
		{"column property_count 2^31-1", small(footerWith(func(mo int64, root *IndexNode) []byte {
			col := h(be32(1), []byte("c"), []byte{byte(Int32), 0, 0}, be32(0x7fffffff), make([]byte, 20))
			return h(metaPrefix(root, h(appendUVarint(nil, 1), appendVarString(nil, "t"), appendUVarint(nil, 1), col), mo))
		})), nil, []string{"TsFileMetadata", "property_count 2147483647 is invalid"}},
		{"Bloom filter of 2 GiB", small(footerWith(func(mo int64, root *IndexNode) []byte {
			return h(metaPrefix(root, nil, mo), appendUVarint(nil, 1<<31), make([]byte, 20))
		})), nil, []string{"TsFileMetadata", "bloom filter byte_length 2147483648"}},
		{"property_count 2^30", small(footerWith(func(mo int64, root *IndexNode) []byte {
			return h(metaPrefix(root, nil, mo), []byte{0}, appendVarint(nil, 1<<30), make([]byte, 20))
		})), nil, []string{"TsFileMetadata", "property_count 1073741824 is invalid"}},
		{"property value of 1 GiB", small(footerWith(func(mo int64, root *IndexNode) []byte {
			return h(metaPrefix(root, nil, mo), []byte{0}, appendVarint(nil, 1), appendVarString(nil, "k"), appendVarint(nil, 1<<30), []byte("v"))
		})), nil, []string{"TsFileMetadata", "property value", "1073741824"}},
		{"chunk_metadata_list_size 2^32-1", small(handFile([][]byte{validChunk()}, "s", func(offs []int64) [][]byte {
			return [][]byte{h([]byte{0}, appendVarString(nil, "s"), []byte{byte(Int32)}, appendUVarint(nil, 0xffffffff), statBytes, be64(offs[0]))}
		})), nil, []string{"timeseries metadata", "chunk metadata list needs 4294967295 bytes"}},
		{"statistics string of 2 GiB", small(handFile([][]byte{validChunk()}, "s", func(offs []int64) [][]byte {
			return [][]byte{h([]byte{0}, appendVarString(nil, "s"), []byte{byte(String)}, appendUVarint(nil, 8), appendUVarint(nil, 1), be64(0), be64(0), be32(0x7fffffff), make([]byte, 20))}
		})), nil, []string{"timeseries metadata", "statistics first needs 2147483647 bytes"}},
		{"chunk data_size 4 GiB in a tiny file", small(handFile([][]byte{h(appendChunkHeader(nil, &ChunkHeader{Marker: MarkerOnlyOnePageChunkHeader, Measurement: "s", DataSize: 0xffffffff, DataType: Int32}), make([]byte, 10))}, "s",
			func(offs []int64) [][]byte { return [][]byte{int32Series(offs[0])} })), nil, []string{"chunk header", "data_size 4294967295 runs past the data section end"}},
		{"chunk data_size 4 GiB in a 4 GiB file", hugeChunkFile(), nil, []string{"chunk header", "data_size 4294967295 exceeds the limit of 1073741824"}},
		{"page uncompressed_size 2^31-1", small(handFile([][]byte{chunkBytes(MarkerOnlyOnePageChunkHeader, "s", Int32, appendUVarint(appendUVarint(nil, 0x7fffffff), 4), make([]byte, 4))}, "s",
			func(offs []int64) [][]byte { return [][]byte{int32Series(offs[0])} })), nil, []string{"page header", "uncompressed_size 2147483647 exceeds the limit of 67108864"}},
		{"page compressed_size 2^32-1", small(handFile([][]byte{chunkBytes(MarkerOnlyOnePageChunkHeader, "s", Int32, appendUVarint(appendUVarint(nil, 4), 0xffffffff), make([]byte, 4))}, "s",
			func(offs []int64) [][]byte { return [][]byte{int32Series(offs[0])} })), nil, []string{"page header", "payload of 4294967295 bytes runs past the chunk end"}},
		{"time_stream_size 2^32-1", small(handFile([][]byte{chunkBytes(MarkerOnlyOnePageChunkHeader, "s", Int32, appendUVarint(appendUVarint(nil, 6), 6), appendUVarint(nil, 0xffffffff), []byte{0})}, "s",
			func(offs []int64) [][]byte { return [][]byte{int32Series(offs[0])} })), nil, []string{"non-aligned page", "time_stream_size 4294967295 exceeds"}},
		{"device index node referencing itself", small(chainFile(func(data []byte, leaf IndexEntry) ([]byte, *IndexNode) { return deviceChain(data, leaf, 1, true) })), nil,
			[]string{"index node", "referenced twice"}},
		{"device index 100 levels deep", small(chainFile(func(data []byte, leaf IndexEntry) ([]byte, *IndexNode) { return deviceChain(data, leaf, 100, false) })), nil,
			[]string{"index node", "device index deeper than 64 levels"}},
		{"measurement index node referencing itself", small(chainFile(func(data []byte, leaf IndexEntry) ([]byte, *IndexNode) {
			return measurementChain(data, leaf, 1, true)
		})), nil, []string{"index node", "referenced twice"}},
		{"measurement index 100 levels deep", small(chainFile(func(data []byte, leaf IndexEntry) ([]byte, *IndexNode) {
			return measurementChain(data, leaf, 100, false)
		})), nil, []string{"index node", "measurement index deeper than 64 levels"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			n := allocated(func() { err = readEverything(tc.in.r, tc.in.size, tc.opts) })
			require.Error(t, err)
			require.ErrorIs(t, err, ErrCorrupt)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
			allocBelow(t, n, uint64(allocBound), "allocated %d bytes: %v", n, err)
			t.Logf("%d bytes allocated: %v", n, err)
		})
	}
}

// hugeChunkFile is a 4 GiB file, held in a few hundred bytes, whose one
// chunk declares data_size 2^32-1: as large as the format allows, inside
// the file, and over MaxChunkSize.
func hugeChunkFile() (in struct {
	r    io.ReaderAt
	size int64
}) {
	head, offs := handData(appendChunkHeader(nil, &ChunkHeader{Marker: MarkerOnlyOnePageChunkHeader, Measurement: "s", DataSize: 0xffffffff, DataType: Int32}))
	head = head[:len(head)-1] // the separator goes after the chunk's data
	sepAt := int64(len(head)) + 0xffffffff
	tail, root := handIndexAt([]byte{MarkerSeparator}, sepAt, "s", int32Series(offs[0]))
	tail = handFooter(tail, handMeta(root, sepAt))
	f := &sparseFile{size: sepAt + int64(len(tail)), parts: []sparsePart{{0, head}, {sepAt, tail}}}
	in.r, in.size = f, f.size
	return in
}

// sparseChunkFile is a 64 MiB file, held in a few hundred bytes, of one
// chunk group holding the given chunk bytes, then zeros to a separator
// and an index whose one series points at the chunk.
func sparseChunkFile(chunk []byte) (in struct {
	r    io.ReaderAt
	size int64
}) {
	head, offs := handData(chunk)
	head = head[:len(head)-1]
	const sepAt = 64 << 20
	tail, root := handIndexAt([]byte{MarkerSeparator}, sepAt, "s", int32Series(offs[0]))
	tail = handFooter(tail, handMeta(root, sepAt))
	f := &sparseFile{size: sepAt + int64(len(tail)), parts: []sparsePart{{0, head}, {sepAt, tail}}}
	in.r, in.size = f, f.size
	return in
}

// TestIndexChainsWithinTheLimit: the chains TestHugeDeclaredSizes refuses
// read when MaxIndexDepth allows their depth, so it is the depth that is
// refused.
func TestIndexChainsWithinTheLimit(t *testing.T) {
	for _, chain := range []func([]byte, IndexEntry) ([]byte, *IndexNode){
		func(data []byte, leaf IndexEntry) ([]byte, *IndexNode) { return deviceChain(data, leaf, 100, false) },
		func(data []byte, leaf IndexEntry) ([]byte, *IndexNode) {
			return measurementChain(data, leaf, 100, false)
		},
	} {
		b := chainFile(chain)
		require.NoError(t, readEverything(bytes.NewReader(b), int64(len(b)), &ReadOptions{MaxIndexDepth: 102}))
	}
}

// TestLimitsRefuseValidFiles sets each ReadOptions limit just below what a
// valid file needs: reading fails with an error wrapping ErrCorrupt that
// names the structure and the limit, and at the limit it reads.
func TestLimitsRefuseValidFiles(t *testing.T) {
	layouts := map[string][]byte{}
	for _, f := range sweepLayouts(t) {
		layouts[f.name] = f.data
	}
	deep := layouts["deep-index"]
	multi := layouts["table-multipage-nulls"]
	f, err := Open(bytes.NewReader(multi), int64(len(multi)), nil)
	require.NoError(t, err)
	metaLen := int64(len(multi)) - 10 - f.metaPos
	// The largest page, chunk, page point count and name of the file.
	maxPage, maxChunk, maxPoints, maxString := 0, int64(0), 0, 0
	for _, tb := range f.Tables() {
		maxString = max(maxString, len(tb))
		devs, err := f.Devices(tb)
		require.NoError(t, err)
		for _, d := range devs {
			for i := 0; i < d.Len(); i++ {
				v, _ := d.Segment(i)
				maxString = max(maxString, len(v))
			}
			series, err := f.Series(d)
			require.NoError(t, err)
			for _, s := range series {
				maxString = max(maxString, len(s.Measurement))
				for _, cm := range s.Chunks {
					c, err := f.ReadChunk(cm.Offset)
					require.NoError(t, err)
					maxChunk = max(maxChunk, c.Header.DataSize)
					for _, p := range c.Pages {
						maxPage = max(maxPage, p.Header.UncompressedSize)
					}
				}
				if s.IsTimeColumn() {
					for _, cm := range s.Chunks {
						c, err := f.ReadChunk(cm.Offset)
						require.NoError(t, err)
						for _, p := range c.Pages {
							require.NotNil(t, p.Header.Statistics, "the time chunks have several pages")
							maxPoints = max(maxPoints, int(p.Header.Statistics.Count))
						}
					}
				}
			}
		}
	}
	for _, s := range f.Metadata.TableSchemas {
		for _, c := range s.Columns {
			maxString = max(maxString, len(c.Name))
		}
	}
	for _, p := range f.Metadata.Properties {
		maxString = max(maxString, len(p.Key))
	}
	require.Positive(t, maxPoints)
	const (
		scanOK   = iota // the Scanner does not read what the limit bounds
		scanFail        // it does, and fails too
		scanAny         // it may: the limit's largest case may be in the footer
	)
	for _, tc := range []struct {
		name      string
		file      []byte
		at, below ReadOptions
		scan      int
		want      []string
	}{
		{"MaxMetadataSize", multi, ReadOptions{MaxMetadataSize: metaLen}, ReadOptions{MaxMetadataSize: metaLen - 1}, scanOK,
			[]string{"file tail", fmt.Sprintf("TsFileMetadata length %d exceeds the limit of %d", metaLen, metaLen-1)}},
		{"MaxPageSize", multi, ReadOptions{MaxPageSize: maxPage}, ReadOptions{MaxPageSize: maxPage - 1}, scanFail,
			[]string{"page header", fmt.Sprintf("uncompressed_size %d exceeds the limit of %d", maxPage, maxPage-1)}},
		{"MaxPagePoints", multi, ReadOptions{MaxPagePoints: maxPoints}, ReadOptions{MaxPagePoints: maxPoints - 1}, scanOK,
			[]string{"time stream", fmt.Sprintf("declares %d timestamps, more than the limit of %d per page", maxPoints, maxPoints-1)}},
		{"MaxChunkSize", multi, ReadOptions{MaxChunkSize: maxChunk}, ReadOptions{MaxChunkSize: maxChunk - 1}, scanFail,
			[]string{"chunk header", fmt.Sprintf("exceeds the limit of %d", maxChunk-1)}},
		// deep-index has a device index of 4 levels (9 devices, 2 a node)
		// and a measurement index of 3 levels (8 series).
		{"MaxIndexDepth", deep, ReadOptions{MaxIndexDepth: 4}, ReadOptions{MaxIndexDepth: 3}, scanOK,
			[]string{"index node", "index deeper than 3 levels"}},
		{"MaxStringLength", multi, ReadOptions{MaxStringLength: maxString}, ReadOptions{MaxStringLength: maxString - 1}, scanAny,
			[]string{fmt.Sprintf("length %d exceeds the limit of %d", maxString, maxString-1)}},
		{"MaxDeviceSegments", multi, ReadOptions{MaxDeviceSegments: 3}, ReadOptions{MaxDeviceSegments: 2}, scanFail,
			[]string{"DeviceID has 3 segments, more than the limit of 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, fullScan(tc.file, &tc.at), "at the limit")
			err := fullScan(tc.file, &tc.below)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrCorrupt)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
			// The Scanner obeys the same limits, except those of the
			// footer and index it does not read.
			s, err := NewScanner(bytes.NewReader(tc.file), int64(len(tc.file)), &tc.below)
			require.NoError(t, err)
			for s.Next() {
			}
			switch tc.scan {
			case scanOK:
				require.NoError(t, s.Err())
			case scanFail:
				require.ErrorIs(t, s.Err(), ErrCorrupt)
			default:
				if s.Err() != nil {
					require.ErrorIs(t, s.Err(), ErrCorrupt)
				}
			}
		})
	}
}

// TestDefaultPagePointsCost documents what a MaxPagePoints of 16 Mi (the
// old default; it is 1 Mi since) lets a tiny page cost: a 24-byte TS_2DIFF
// time stream of regular timestamps claiming just under 16 Mi of them
// decodes, 128 MiB, before the value stream shows the page is damaged. The value stream's own allocation is
// bounded by its bytes where the encoding allows (PLAIN, binary values).
func TestDefaultPagePointsCost(t *testing.T) {
	const n = 16<<20 - 1
	ts := h(be32(n), be32(0), be64(1), be64(1)) // width 0: every delta is min_delta 1
	for _, tc := range []struct {
		dt    DataType
		enc   Encoding
		bound uint64
	}{
		{Text, encoding.Plain, 8*n + allocBound}, // the timestamps, not 28 bytes a value
	} {
		payload := h(appendUVarint(nil, uint32(len(ts))), ts, []byte{1, 2, 3, 4})
		hd := ChunkHeader{Marker: MarkerOnlyOnePageChunkHeader, Measurement: "s", DataType: tc.dt, Encoding: tc.enc}
		var err error
		got := allocated(func() { _, _, err = decodeNonAlignedPage(&hd, encoding.TS2Diff, payload, 100, 16<<20) })
		require.ErrorIs(t, err, ErrCorrupt, "%s %s", tc.dt, tc.enc)
		allocBelow(t, got, tc.bound, "%s %s", tc.dt, tc.enc)
		t.Logf("%s %s page of %d bytes declaring %d points: %d MiB allocated before failing", tc.dt, tc.enc, len(payload), n, got>>20)
	}
}

// TestScannerChunkGroupWindow: the Scanner reads a chunk group header
// through a window of the file, grown while the DeviceID does not parse.
// A damaged DeviceID (here an invalid UTF-8 segment) must not make it read
// the rest of a large file, and a run of tiny chunk groups (two zero bytes
// each: the DeviceID of one empty segment) must not cost a 64 KiB window
// apiece.
// Both exceeded their bounds while Scanner.Next grew the window 16x up to
// the end of the file on any DeviceID error, from 64 KiB.
func TestScannerChunkGroupWindow(t *testing.T) {
	head := h(append([]byte(Magic), Version), []byte{MarkerChunkGroupHeader}, appendUVarint(nil, 2), appendVarString(nil, "root.h"), appendVarString(nil, "\xff"))
	big := &sparseFile{size: 64 << 20, parts: []sparsePart{{0, head}}}
	zeros := make([]byte, 16<<10)
	copy(zeros, append([]byte(Magic), Version))
	var known []string
	for _, tc := range []struct {
		name  string
		r     io.ReaderAt
		size  int64
		want  string
		bound uint64
	}{
		{"invalid DeviceID in a 64 MiB file", big, big.size, "DeviceID segment: invalid UTF-8", allocBound},
		{"16 KiB of empty chunk groups", bytes.NewReader(zeros), int64(len(zeros)), "chunk group header", 256 * uint64(len(zeros))},
	} {
		var err error
		n := allocated(func() {
			s, serr := NewScanner(tc.r, tc.size, nil)
			require.NoError(t, serr)
			for s.Next() {
			}
			err = s.Err()
		})
		require.ErrorIs(t, err, ErrCorrupt, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
		if n >= tc.bound && !raceEnabled {
			known = append(known, fmt.Sprintf("%s: %d bytes allocated, bound %d", tc.name, n, tc.bound))
		}
	}
	if len(known) > 0 {
		t.Errorf("Scanner.Next's chunk group header window: %v", known)
	}
}

// TestCompressedPageDeclaringTooMuch: a page of a few compressed bytes
// whose header claims 60 MiB uncompressed (under MaxPageSize) fails with
// ErrCorrupt. GZIP and LZ4 refuse it before allocating, since DEFLATE
// expands at most 1032 times and an LZ4 block 255 times, and SNAPPY
// checks its own length header first. ZSTD and LZMA2 have no useful
// bound (their best ratios are in the thousands) and decode into a buffer
// of the declared size, so MaxPageSize alone bounds them.
func TestCompressedPageDeclaringTooMuch(t *testing.T) {
	const declared = 60 << 20
	for _, c := range allCompressions {
		codec, err := encoding.LookupCodec(c)
		require.NoError(t, err)
		src, err := codec.Compress(nil, []byte("a short page payload, a short page payload"))
		require.NoError(t, err)
		ch := &Chunk{Header: ChunkHeader{Compression: c}, Pages: []Page{{Header: PageHeader{Offset: 100, UncompressedSize: declared, CompressedSize: len(src)}, Stored: src}}}
		var pd PayloadDecoder
		n := allocated(func() { _, err = pd.Payload(ch, 0) })
		require.ErrorIs(t, err, ErrCorrupt, c.String())
		bound := uint64(allocBound)
		if c == encoding.ZSTD || c == encoding.LZMA2 {
			bound = declared + allocBound
		}
		allocBelow(t, n, bound, "%s: %d bytes allocated: %v", c, n, err)
		t.Logf("%s: %d-byte payload declaring %d bytes: %d bytes allocated: %v", c, len(src), declared, n, err)
	}
}
