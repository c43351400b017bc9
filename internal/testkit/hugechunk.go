package testkit

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// SparseFile is a file of Size bytes held as a few parts at their offsets,
// zeros everywhere else: a file of a gigabyte in a few kilobytes, as a
// sparse file on disk is.
type SparseFile struct {
	Size  int64
	Parts []SparsePart
}

// SparsePart is bytes B at offset At of a SparseFile.
type SparsePart struct {
	At int64
	B  []byte
}

// ReadAt implements io.ReaderAt, serving zeros between the parts.
func (s *SparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > s.Size {
		return 0, io.EOF
	}
	n := len(p)
	if int64(n) > s.Size-off {
		n = int(s.Size - off)
	}
	clear(p[:n])
	for _, pt := range s.Parts {
		lo, hi := max(off, pt.At), min(off+int64(n), pt.At+int64(len(pt.B)))
		if lo < hi {
			copy(p[lo-off:hi-off], pt.B[lo-pt.At:hi-pt.At])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteFile writes s to path as a sparse file: its parts, and a size set by
// truncation, so that the zeros between them take no disk space.
func (s *SparseFile) WriteFile(t testing.TB, path string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	require.NoError(t, f.Truncate(s.Size))
	for _, pt := range s.Parts {
		_, err := f.WriteAt(pt.B, pt.At)
		require.NoError(t, err)
	}
}

// HugeTimeChunk turns valid, a TsFile whose first device of table is
// aligned, into a file whose time chunk of that device declares a data_size
// of dataSize bytes, all of them zeros that the file does hold: the valid
// bytes up to TsFileMetadata, then the crafted time chunk header, then
// dataSize zero bytes (a hole) whose last bytes are a copy of the device's
// value chunks, then the valid TsFileMetadata and tail. The index is the
// valid one, with the offsets of the device's chunks changed to point at
// the crafted header and the copies. A reader that believes the declared
// size before the bytes parse reads and holds dataSize bytes of zeros; one
// that reads as the pages parse fails at the first page header.
func HugeTimeChunk(t testing.TB, valid []byte, table string, dataSize int64) *SparseFile {
	t.Helper()
	return HugeChunk(t, valid, table, "", dataSize)
}

// HugeChunk is HugeTimeChunk for the chunk of series name of the first
// device of table: "" is the time chunk of an aligned device (its value
// chunks move behind it), another name a non-aligned series of one chunk,
// which moves alone.
func HugeChunk(t testing.TB, valid []byte, table, name string, dataSize int64) *SparseFile {
	t.Helper()
	f := OpenBytes(t, valid)
	devs, err := f.Devices(table)
	require.NoError(t, err)
	require.NotEmpty(t, devs)
	series, err := f.Series(devs[0])
	require.NoError(t, err)
	var at0 int64 = -1 // the chunk that declares dataSize
	var values []int64 // offsets of the value chunks that move with it
	lo, hi := int64(len(valid)), int64(0)
	for _, s := range series {
		require.Len(t, s.Chunks, 1, "series %q of %s: one chunk each", s.Measurement, devs[0])
		off := s.Chunks[0].Offset
		switch {
		case s.Measurement == name:
			at0 = off
		case name == "":
			h, err := f.ReadChunkHeader(off)
			require.NoError(t, err)
			values = append(values, off)
			lo, hi = min(lo, off), max(hi, h.End())
		}
	}
	require.GreaterOrEqual(t, at0, int64(0), "device %s has no series %q", devs[0], name)
	h, err := f.ReadChunkHeader(at0)
	require.NoError(t, err)
	require.Empty(t, h.Auth, "a Page AEAD file's chunk header cannot be rewritten without its key")

	tail := len(valid) - 10
	metaPos := int64(tail) - int64(int32(binary.BigEndian.Uint32(valid[tail:])))
	header := []byte{h.Marker}
	header = binary.AppendUvarint(header, uint64(len(name))<<1) // a VarString's ZigZag length
	header = append(header, name...)
	header = binary.AppendUvarint(header, uint64(dataSize))
	header = append(header, byte(h.DataType), byte(h.Compression), byte(h.Encoding))
	at := metaPos
	end := at + int64(len(header)) + dataSize

	head := bytes.Clone(valid[:metaPos])
	moved := func(old, fresh int64) {
		head = movedChunk(t, head, valid[metaPos:], devs[0], old, fresh)
	}
	moved(at0, at)
	var copies []SparsePart
	if len(values) > 0 {
		copyAt := end - (hi - lo) // the value chunks end where the time chunk does
		for _, v := range values {
			moved(v, copyAt+v-lo)
		}
		copies = append(copies, SparsePart{copyAt, valid[lo:hi]})
	}
	parts := append([]SparsePart{{0, head}, {at, header}}, copies...)
	return &SparseFile{
		Size:  end + int64(len(valid)) - metaPos,
		Parts: append(parts, SparsePart{end, valid[metaPos:]}),
	}
}

// movedChunk returns head (a file's bytes up to TsFileMetadata, meta its
// TsFileMetadata and tail) with the chunk offset old of dev's index changed
// to fresh: of the places where old occurs as the 8-byte big-endian
// integer, the one that moves dev's chunk at old to fresh.
func movedChunk(t testing.TB, head, meta []byte, dev tsfile.DeviceID, old, fresh int64) []byte {
	t.Helper()
	o := binary.BigEndian.AppendUint64(nil, uint64(old))
	for i := 0; ; i++ {
		j := bytes.Index(head[i:], o)
		require.GreaterOrEqual(t, j, 0, "the chunk offset %d was not found in the index", old)
		i += j
		try := bytes.Clone(head)
		binary.BigEndian.PutUint64(try[i:], uint64(fresh))
		b := append(bytes.Clone(try), meta...)
		g, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			continue
		}
		series, err := g.Series(dev)
		if err != nil {
			continue
		}
		for _, s := range series {
			if s.Chunks[0].Offset == fresh {
				return try
			}
		}
	}
}

// AlignedTable writes a table "t" of one device (TAG region "r1") holding
// rows rows: time i and an INT64 field v of i, TS_2DIFF (a few bytes a
// page), with the write options o.
func AlignedTable(t testing.TB, rows int, o *tsfile.WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, o)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
	}}))
	times, vals := make([]int64, rows), make([]int64, rows)
	for i := range times {
		times[i], vals[i] = int64(i), int64(i)
	}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "r1"), times, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64, Encoding: encoding.TS2Diff}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: vals}},
	}))
	require.NoError(t, w.Close())
	return buf.Bytes()
}
