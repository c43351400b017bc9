package arrowconv

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/scan"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// hugeChunkBound is the most a read of a file whose time chunk declares a
// gigabyte of zeros may allocate: the first read of a chunk (4 MiB) and the
// reader's own buffers, far below the declared size.
const hugeChunkBound = 64 << 20

// TestHugeTimeChunk: a 1 GiB file held in a few kilobytes (zeros between
// its parts, as a sparse file on disk), whose aligned time chunk declares a
// data_size of about 1 GiB, all zeros; and a tree-model file whose
// non-aligned chunk does. The read fails at the chunk's first page header,
// with the error naming the structure and its offset, and allocates
// neither the declared size nor anything near it, on the Go heap or through
// the reader's allocator (a Flight stream's meter), at one worker or two.
func TestHugeTimeChunk(t *testing.T) {
	const size = 1<<30 - 4096
	table := testkit.HugeTimeChunk(t, testkit.AlignedTable(t, 100, nil), "t", size)
	tree := testkit.HugeChunk(t, nonAlignedFile(t, 100), "root.sg", "s", size)
	for _, tc := range []struct {
		name  string
		sf    *testkit.SparseFile
		open  func(*tsfile.File, string, *Options) (*Reader, error)
		table string
	}{
		{"table", table, NewTableReader, "t"},
		{"tree", tree, NewTreeReader, "root.sg"},
	} {
		f, err := tsfile.Open(tc.sf, tc.sf.Size, nil)
		require.NoError(t, err)
		for _, workers := range []int{1, 2} {
			meter := scan.NewMeter(checkedMem(t))
			var readErr error
			n := allocatedDuring(func() {
				r, err := tc.open(f, tc.table, &Options{Allocator: meter, Workers: workers})
				require.NoError(t, err)
				for r.Next() {
				}
				readErr = r.Err()
				r.Release()
			})
			require.Error(t, readErr)
			require.ErrorIs(t, readErr, tsfile.ErrCorrupt)
			var fe *tsfile.FormatError
			require.True(t, errors.As(readErr, &fe), "%v", readErr)
			require.Equal(t, "page header", fe.Structure, "%v", readErr)
			require.Contains(t, readErr.Error(), "empty page in a chunk that is not an aligned value chunk")
			require.Contains(t, readErr.Error(), "declares 1073737728 bytes of pages that its bytes do not bear out")
			t.Logf("%s, workers %d: %v; allocated %d bytes, metered peak %d", tc.name, workers, readErr, n, meter.Peak())
			require.Less(t, meter.Peak(), int64(hugeChunkBound))
			require.Zero(t, meter.InUse())
			if !raceEnabled {
				require.Less(t, n, uint64(hugeChunkBound), "bytes allocated by the read")
			}
		}
	}
}

// nonAlignedFile writes the tree-model device root.sg.d of one non-aligned
// INT64 series "s" of rows points, PLAIN.
func nonAlignedFile(t testing.TB, rows int) []byte {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	times, vals := make([]int64, rows), make([]int64, rows)
	for i := range times {
		times[i], vals[i] = int64(i), int64(i)*7919
	}
	require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath("root.sg.d"), []tsfile.NonAlignedSeries{
		{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Int64, Encoding: encoding.Plain}, Times: times, Values: tsfile.Values{Type: tsfile.Int64, Int64s: vals}},
	}))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// sizeLog is an allocator that records the size of every allocation.
type sizeLog struct {
	memory.Allocator
	mu    sync.Mutex
	sizes map[int]int
}

func (a *sizeLog) Allocate(n int) []byte {
	a.mu.Lock()
	a.sizes[n]++
	a.mu.Unlock()
	return a.Allocator.Allocate(n)
}

// TestChunkBuffersCharged: the time chunk's buffer and the value chunks'
// page-stream windows come from the reader's allocator (which a Flight
// server meters per stream) and go back to it, in a table read and in a
// tree-model read of the same file.
func TestChunkBuffersCharged(t *testing.T) {
	// PLAIN times, so that the time chunk is 800 KB: more than a page
	// stream window and than any of the builders' buffers.
	const rows = 100_000
	b := testkit.AlignedTable(t, rows, &tsfile.WriteOptions{ConfiguredTimeEncoding: true, TimeEncoding: tsfile.TimeEncodingOf(encoding.Plain)})
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	dev := tsfile.NewDeviceID("t", "r1")
	ts, err := f.SeriesByName(dev, "")
	require.NoError(t, err)
	h, err := f.ReadChunkHeader(ts.Chunks[0].Offset)
	require.NoError(t, err)
	require.Greater(t, h.DataSize, int64(256<<10))
	vs, err := f.SeriesByName(dev, "v")
	require.NoError(t, err)
	vh, err := f.ReadChunkHeader(vs.Chunks[0].Offset)
	require.NoError(t, err)
	// A value chunk under a window is read in one window of its size.
	require.Less(t, vh.DataSize, int64(256<<10))
	for _, workers := range []int{1, 2} {
		mem := &sizeLog{Allocator: checkedMem(t), sizes: map[int]int{}}
		r, err := NewTableReader(f, "t", &Options{Allocator: mem, Workers: workers})
		require.NoError(t, err)
		got := 0
		for r.Next() {
			got += int(r.RecordBatch().NumRows())
		}
		require.NoError(t, r.Err())
		r.Release()
		require.Equal(t, rows, got)
		require.Positive(t, mem.sizes[int(h.DataSize)], "no allocation of the time chunk's %d bytes; sizes %v", h.DataSize, mem.sizes)
		require.Positive(t, mem.sizes[int(vh.DataSize)], "no allocation of the page-stream window of the value chunk's %d bytes; sizes %v", vh.DataSize, mem.sizes)
	}

	// A non-aligned series is read chunk by chunk by its merge cursor.
	nb := nonAlignedFile(t, rows)
	f, err = tsfile.Open(bytes.NewReader(nb), int64(len(nb)), nil)
	require.NoError(t, err)
	ss, err := f.SeriesByName(tsfile.ParseTreePath("root.sg.d"), "s")
	require.NoError(t, err)
	h, err = f.ReadChunkHeader(ss.Chunks[0].Offset)
	require.NoError(t, err)
	for _, workers := range []int{1, 2} {
		mem := &sizeLog{Allocator: checkedMem(t), sizes: map[int]int{}}
		r, err := NewTreeReader(f, f.Tables()[0], &Options{Allocator: mem, Workers: workers})
		require.NoError(t, err)
		got := 0
		for r.Next() {
			got += int(r.RecordBatch().NumRows())
		}
		require.NoError(t, r.Err())
		r.Release()
		require.Equal(t, rows, got)
		require.Positive(t, mem.sizes[int(h.DataSize)], "no allocation of the chunk's %d bytes; sizes %v", h.DataSize, mem.sizes)
	}
}
