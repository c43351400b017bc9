package tsfile_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/httpfile"
	"github.com/tsarrow/tsarrow/tsfile"
)

// sparseFile is a file of which only the written parts are kept: the
// holes tsfile.SkipForTest leaves read as zeros. It is the io.Writer a
// Writer writes to and the io.ReaderAt the file is read back from, so a
// file of many gigabytes costs the few kilobytes of its real structures.
type sparseFile struct {
	parts []sparsePart
	size  int64
}

type sparsePart struct {
	off int64
	b   []byte
}

func (s *sparseFile) Write(p []byte) (int, error) {
	if n := len(s.parts); n > 0 && s.parts[n-1].off+int64(len(s.parts[n-1].b)) == s.size {
		s.parts[n-1].b = append(s.parts[n-1].b, p...)
	} else {
		s.parts = append(s.parts, sparsePart{off: s.size, b: append([]byte(nil), p...)})
	}
	s.size += int64(len(p))
	return len(p), nil
}

func (s *sparseFile) hole(n int64) { s.size += n }

// stored is how many bytes the file really holds.
func (s *sparseFile) stored() (n int) {
	for _, p := range s.parts {
		n += len(p.b)
	}
	return n
}

func (s *sparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("sparseFile: negative offset %d", off)
	}
	if off >= s.size {
		return 0, io.EOF
	}
	n := len(p)
	if int64(n) > s.size-off {
		n = int(s.size - off)
	}
	clear(p[:n])
	end := off + int64(n)
	for _, part := range s.parts {
		lo, hi := max(off, part.off), min(end, part.off+int64(len(part.b)))
		if lo < hi {
			copy(p[lo-off:hi-off], part.b[lo-part.off:hi-part.off])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// largeDevice is one device of the large file and where it is written.
type largeDevice struct {
	id   tsfile.DeviceID
	gap  int64 // bytes skipped before its chunk group
	base int64 // its first timestamp and value
	// split writes its rows as two chunk groups, so that its series have
	// two chunks (a multi-chunk TimeseriesMetadata).
	split bool
}

// Offsets past these bounds are what a reader that keeps a file position
// in an int32 or a uint32 gets wrong.
const (
	gib         = int64(1) << 30
	past2GiB    = 2*gib + 12345
	past4GiB    = 4*gib + 6789
	past6GiB    = 6*gib + 1
	largeRows   = 90
	largePoints = 40
)

// largeDevices: one device below 2 GiB, one past 4 GiB with a null TAG,
// one past 6 GiB whose TAG is the literal string `\N` (a value, not a
// null: upstream's `\N` marks a null only in a logical series path).
func largeDevices() []largeDevice {
	return []largeDevice{
		{id: tsfile.NewDeviceID("t", "a", "x"), gap: 0, base: 0},
		{id: tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t"}, {Null: true}, {Value: "y"}}), gap: past4GiB, base: 1000, split: true},
		{id: tsfile.NewDeviceID("t", "b", `\N`), gap: past6GiB - past4GiB, base: 2000},
	}
}

// writeLarge writes a table-model file over 6 GiB long whose chunk
// groups, index nodes (fanout 2, so internal nodes too), Bloom filter and
// meta_offset lie beyond 4 GiB, into a sparseFile that holds a few KB.
func writeLarge(t *testing.T) *sparseFile {
	t.Helper()
	s := &sparseFile{}
	w, err := tsfile.NewWriter(s, &tsfile.WriteOptions{MaxDegree: 2, MaxPointsPerPage: largePoints})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "station", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
		{Name: "s", DataType: tsfile.String, Category: tsfile.Field},
	}}))
	for _, d := range largeDevices() {
		if d.gap > 0 {
			require.NoError(t, tsfile.SkipForTest(w, d.gap, s.hole))
		}
		times := make([]int64, largeRows)
		v := tsfile.NewValues(tsfile.Int64, largeRows)
		sv := tsfile.NewValues(tsfile.String, largeRows)
		for i := range times {
			times[i] = d.base + int64(i)
			v.Int64s[i] = d.base*10 + int64(i)
			sv.Binaries[i] = []byte(fmt.Sprintf("s%d", d.base+int64(i)))
		}
		cuts := []int{0, largeRows}
		if d.split {
			cuts = []int{0, largeRows / 2, largeRows}
		}
		for k := 1; k < len(cuts); k++ {
			lo, hi := cuts[k-1], cuts[k]
			require.NoError(t, w.WriteAligned(d.id, times[lo:hi], []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: v.Int64s[lo:hi]}},
				{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.String}, Values: tsfile.Values{Type: tsfile.String, Binaries: sv.Binaries[lo:hi]}},
			}))
		}
	}
	require.NoError(t, w.Close())
	require.Greater(t, s.size, past6GiB)
	require.Less(t, s.stored(), 1<<20, "the sparse file must not hold the holes")
	return s
}

// largeWant is the rows of the devices in index order (a null segment
// sorts first), as largeRowsOf renders them.
func largeWant(devs []largeDevice) []string {
	devs = slices.Clone(devs)
	slices.SortFunc(devs, func(a, b largeDevice) int { return a.id.Compare(b.id) })
	var out []string
	for _, d := range devs {
		region, ok := d.id.Segment(1)
		if !ok {
			region = "<null>"
		}
		station, _ := d.id.Segment(2)
		for i := int64(0); i < largeRows; i++ {
			out = append(out, fmt.Sprintf("%d|%s|%s|%d|s%d", d.base+i, region, station, d.base*10+i, d.base+i))
		}
	}
	return out
}

// largeRowsOf reads table t through arrowconv, one string per row, a null
// TAG as <null>.
func largeRowsOf(t *testing.T, f *tsfile.File, opts *arrowconv.Options) []string {
	t.Helper()
	o := arrowconv.Options{PlainTags: true}
	if opts != nil {
		o = *opts
		o.PlainTags = true
	}
	r, err := arrowconv.NewTableReader(f, "t", &o)
	require.NoError(t, err)
	defer r.Release()
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		ts := rec.Column(0).(*array.Timestamp)
		region := rec.Column(1).(*array.String)
		station := rec.Column(2).(*array.String)
		v := rec.Column(3).(*array.Int64)
		s := rec.Column(4).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			reg := region.Value(i)
			if region.IsNull(i) {
				reg = "<null>"
			}
			out = append(out, fmt.Sprintf("%d|%s|%s|%d|%s", int64(ts.Value(i)), reg, station.Value(i), v.Value(i), s.Value(i)))
		}
	}
	require.NoError(t, r.Err())
	return out
}

// TestOver4GiB reads a file of more than 6 GiB whose chunks, index nodes,
// Bloom filter and meta_offset lie past 2 GiB, 4 GiB and 6 GiB: every file
// position is an int64, as the format stores them (chunk offsets,
// MetadataIndexEntry offsets, end_offset, meta_offset). Upstream's C++
// reader kept some of them in an int (apache/tsfile
// cpp/src/reader/tsfile_reader.cc, flagged in the review of PR #815); the
// Java reader reads them as long (TsFileSequenceReader). Nothing of the
// holes is ever allocated, so the test is fast.
func TestOver4GiB(t *testing.T) {
	s := writeLarge(t)
	devs := largeDevices()
	want := largeWant(devs)
	open := func(t *testing.T, r io.ReaderAt, size int64) *tsfile.File {
		f, err := tsfile.Open(r, size, nil)
		require.NoError(t, err)
		return f
	}

	t.Run("index", func(t *testing.T) {
		f := open(t, s, s.size)
		require.Greater(t, f.Metadata.MetaOffset, past6GiB, "meta_offset")
		got, err := f.Devices("t")
		require.NoError(t, err)
		require.Len(t, got, len(devs))
		// Each device's chunks lie past the holes written before it.
		var skipped int64
		for _, d := range devs {
			skipped += d.gap
			ss, err := f.Series(d.id)
			require.NoError(t, err, "device %s", d.id)
			require.NotEmpty(t, ss)
			for _, tm := range ss {
				if d.split {
					require.Len(t, tm.Chunks, 2, "device %s series %q", d.id, tm.Measurement)
				}
				for _, c := range tm.Chunks {
					require.Greater(t, c.Offset, skipped, "device %s series %q", d.id, tm.Measurement)
					require.Less(t, c.Offset, skipped+gib, "device %s series %q", d.id, tm.Measurement)
				}
			}
		}
	})

	cases := []struct {
		name string
		opts *arrowconv.Options
		want []string
	}{
		{"all", nil, want},
		// Devices goes through the Bloom filter and the index lookup.
		{"device past 4GiB", &arrowconv.Options{Devices: []tsfile.DeviceID{devs[1].id}}, want[:largeRows]},
		{"device past 6GiB", &arrowconv.Options{Devices: []tsfile.DeviceID{devs[2].id}}, want[2*largeRows:]},
		// Time statistics skip the pages before 2030.
		{"time", &arrowconv.Options{Time: &arrowconv.TimeRange{Start: 2030, End: 2049}}, want[2*largeRows+30 : 2*largeRows+50]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, largeRowsOf(t, open(t, s, s.size), tc.opts))
		})
	}

	// Over HTTP the positions travel in Range headers and the block cache
	// keys them: serve the sparse file and read it through httpfile.
	t.Run("http", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
			http.ServeContent(rw, req, "large.tsfile", time.Unix(0, 0), io.NewSectionReader(s, 0, s.size))
		}))
		t.Cleanup(srv.Close)
		hf, err := httpfile.Open(context.Background(), srv.URL+"/large.tsfile", nil)
		require.NoError(t, err)
		require.Equal(t, s.size, hf.Size())
		got := largeRowsOf(t, open(t, hf, hf.Size()), nil)
		require.Equal(t, want, got)
		require.Less(t, hf.Stats().Bytes, int64(64<<20), "a scan must fetch the structures, not the holes")
	})
}
