package arrowconv

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/internal/civil"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

func tableColumns() []tsfile.Column {
	c := func(name string, t tsfile.DataType, cat tsfile.ColumnCategory) tsfile.Column {
		return tsfile.Column{Name: name, DataType: t, Category: cat}
	}
	return []tsfile.Column{
		c("region", tsfile.String, tsfile.Tag),
		c("i64", tsfile.Int64, tsfile.Field),
		c("station", tsfile.String, tsfile.Tag),
		c("attr", tsfile.String, tsfile.Attribute),
		c("d", tsfile.Date, tsfile.Field),
		c("s", tsfile.String, tsfile.Field),
		c("b", tsfile.Boolean, tsfile.Field),
		c("f", tsfile.Float, tsfile.Field),
		c("blob", tsfile.Blob, tsfile.Field),
	}
}

var (
	devA = tsfile.NewDeviceID("t", "a", "x")
	devB = tsfile.NewDeviceID("t", "b") // station null: a trailing null tag is not stored
	devC = tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t"}, {Null: true}, {Value: "y"}})
)

// syntheticTable writes a table whose devices cover multi-page chunks, an
// empty value page, value chunks without pages, FIELDs absent from a chunk
// group, two chunk groups of one device, and null TAGs. Pages hold five rows
// and index nodes two entries, so the three devices need an internal node.
func syntheticTable(t testing.TB) *fileBuilder {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 5, MaxDegree: 2})
	w.table("t", tableColumns()...)
	nan := math.Float32frombits(0x7fc00001)
	// Device C first in the file, though it sorts first in the index too.
	w.aligned(devC, []int64{100, 200},
		col{"i64", int64s(math.MinInt64, math.MaxInt64)},
		col{"s", texts(tsfile.String, "", "c,\"q\"")},
	)
	w.aligned(devA, []int64{1, 2, 3, 4, 5, 6, 7, 8}, // two pages; i64's second is empty
		col{"i64", withNulls(int64s(10, 0, 12, 13, 14, 0, 0, 0), 1, 5, 6, 7)},
		col{"d", dates(19700101, 20000229, 10000101, 99991231, 20240101, 19691231, 20240229, 20250101)},
		col{"b", withNulls(bools(false, true, false, true, true, false, false, true), 0)},
		col{"f", withNulls(floats(float32(math.Copysign(0, -1)), nan, 1.5, 0, math.MaxFloat32, -1, 2, float32(math.Inf(-1))), 3)},
		col{"blob", withNulls(texts(tsfile.Blob, "", "\x00\xff", "", "ab", "", "", "z", "q"), 2, 4, 5)},
	)
	w.aligned(devB, []int64{1, 2, 3},
		col{"i64", int64s(7, 8, 9)},
		col{"s", withNulls(texts(tsfile.String, "温度", "", "café"), 1)},
		col{"f", withNulls(floats(0, 0, 0), 0, 1, 2)}, // a chunk without pages
	)
	w.aligned(devA, []int64{9, 10, 11, 12},
		col{"i64", int64s(90, 100, 110, 120)},
		col{"s", texts(tsfile.String, "p", "q", "r", "s")},
	)
	return w
}

func tableWant(w *fileBuilder, header []string) [][]string {
	return w.rows(header, []tsfile.DeviceID{devC, devA, devB}, func(id tsfile.DeviceID) []string {
		var out []string
		for i := 1; i <= 2; i++ {
			v, ok := id.Segment(i)
			if !ok {
				v = nullCell
			}
			out = append(out, v)
		}
		return append(out, nullCell) // attr
	})
}

func TestSyntheticTable(t *testing.T) {
	w := syntheticTable(t)
	f := w.open()
	s, err := TableArrowSchema(f, "t", nil)
	require.NoError(t, err)
	header := fieldNames(s)
	require.Equal(t, []string{"time", "region", "station", "attr", "i64", "d", "s", "b", "f", "blob"}, header)
	want := tableWant(w, header)
	require.Len(t, want, 2+12+3)

	// The structures the file is meant to have.
	require.Equal(t, tsfile.InternalDevice, f.Metadata.TableIndexes["t"].Type)
	times := chunks(t, f, devA, "")
	require.Len(t, times, 2) // two chunk groups
	require.Len(t, times[0].Pages, 2)
	i64 := chunks(t, f, devA, "i64")[0]
	require.Len(t, i64.Pages, 2)
	require.True(t, i64.Pages[1].Header.Empty())
	require.Empty(t, chunks(t, f, devB, "f")[0].Pages)
	sc := chunks(t, f, devA, "s") // absent from the first group: an empty chunk there
	require.Len(t, sc, 2)
	require.Zero(t, sc[0].Header.DataSize)
	require.Empty(t, sc[0].Pages)

	requireBatches(t, want, []int{1, 2, 3, 4, 5, 7, 8, 16, 17, 100}, func(o *Options) (*Reader, error) {
		return NewTableReader(f, "t", o)
	})
}

func TestSyntheticTableCSV(t *testing.T) {
	w := syntheticTable(t)
	f := w.open()
	r, err := NewTableReader(f, "t", &Options{BatchSize: 4})
	require.NoError(t, err)
	var buf []byte
	out := &sliceWriter{&buf}
	n, err := export.WriteCSVWith(out, r, &export.TextOptions{Time: export.TimeEpoch})
	r.Release()
	require.NoError(t, err)
	require.EqualValues(t, 17, n)
	want := "time,region,station,attr,i64,d,s,b,f,blob\n" +
		`100,,y,,-9223372036854775808,,"",,,` + "\n" +
		`200,,y,,9223372036854775807,,"c,""q""",,,` + "\n" +
		"1,a,x,,10,1970-01-01,,,-0,0x\n" +
		"2,a,x,,,2000-02-29,,true,NaN,0x00ff\n" +
		"3,a,x,,12,1000-01-01,,false,1.5,\n" +
		"4,a,x,,13,9999-12-31,,true,,0x6162\n" +
		"5,a,x,,14,2024-01-01,,true,3.4028235e+38,\n"
	require.Equal(t, want, string(buf[:len(want)]))
	require.Contains(t, string(buf), "\n8,a,x,,,2025-01-01,,true,-Infinity,0x71\n")
	require.Contains(t, string(buf), "\n2,b,,,8,,,,,\n")
}

type sliceWriter struct{ b *[]byte }

func (s *sliceWriter) Write(p []byte) (int, error) { *s.b = append(*s.b, p...); return len(p), nil }

func TestInvalidDate(t *testing.T) {
	for _, bad := range []int32{20230230, 20231301, 20230000, 20230100, -20230101, 20230431} {
		t.Run(strconv.Itoa(int(bad)), func(t *testing.T) {
			w := newFileBuilder(t, nil)
			w.table("t", tableColumns()...)
			w.aligned(devA, []int64{1, 2}, col{"d", dates(20230101, bad)})
			r, err := NewTableReader(w.open(), "t", &Options{Allocator: checkedMem(t)})
			require.NoError(t, err)
			defer r.Release()
			require.False(t, r.Next())
			err = r.Err()
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.ErrorContains(t, err, strconv.Itoa(int(bad)))
			var fe *tsfile.FormatError
			require.True(t, errors.As(err, &fe))
			require.Contains(t, fe.Structure, "chunk at offset")
		})
	}
}

func TestDateConversion(t *testing.T) {
	for _, c := range []struct {
		ymd  int32
		days int32
	}{
		{19700101, 0}, {19691231, -1}, {20000301, 11017}, {10000101, -354285}, {99991231, 2932896},
		{101, -719528}, {20240229, 19782},
	} {
		d, ok := dateToDays(c.ymd)
		require.True(t, ok, c.ymd)
		require.Equal(t, c.days, d, c.ymd)
		y, m, dd := civil.FromDays(int64(d))
		require.Equal(t, int64(c.ymd), y*10000+m*100+dd)
	}
	for _, bad := range []int32{0, 20230229, 19000229, 20231232, 2023011, -1} {
		_, ok := dateToDays(bad)
		require.False(t, ok, bad)
	}
	_, ok := dateToDays(20000229)
	require.True(t, ok)
}

// TestMismatchedPositions: a value page must cover exactly its time page.
func TestMismatchedPositions(t *testing.T) {
	w := newFileBuilder(t, nil)
	w.table("t", tableColumns()...)
	w.aligned(devA, []int64{1, 2, 3}, col{"i64", int64s(1, 2, 3)})
	b := w.bytes()
	// The value page starts with its position_count, 3: make it 2.
	off := pageBody(t, b, "i64")
	require.Equal(t, []byte{0, 0, 0, 3}, b[off:off+4])
	b[off+3] = 2
	f := openBytes(t, b)
	r, err := NewTableReader(f, "t", nil)
	require.NoError(t, err)
	defer r.Release()
	require.False(t, r.Next())
	require.ErrorIs(t, r.Err(), tsfile.ErrCorrupt)
}

// TestTimePageCountDisagrees: a time page whose statistics count more
// timestamps than it holds is an error, also where more than one worker
// hands the batch over in the column jobs (fuseFlush), which cut it at the
// row count the statistics promised before any page was decoded: the
// error must win over the batch, and nothing of the dropped batch may
// leak.
func TestTimePageCountDisagrees(t *testing.T) {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 2})
	w.table("t", tableColumns()...)
	w.aligned(devA, []int64{1, 2, 3}, col{"i64", int64s(1, 2, 3)}, col{"s", texts(tsfile.String, "a", "bb", "ccc")})
	b := w.bytes()
	f := openBytes(t, b)
	ss, err := f.Series(devA)
	require.NoError(t, err)
	require.True(t, ss[0].IsTimeColumn())
	tc, err := f.ReadChunk(ss[0].Chunks[0].Offset)
	require.NoError(t, err)
	require.Len(t, tc.Pages, 2)
	// The second page's header: two one-byte sizes, then the count.
	at := tc.Pages[1].Header.Offset + 2
	require.Equal(t, byte(1), b[at])
	b[at] = 2
	for _, workers := range []int{1, 2} {
		for _, size := range []int{0, 3, 4} {
			r, err := NewTableReader(openBytes(t, b), "t", &Options{Allocator: checkedMem(t), Workers: workers, BatchSize: size})
			require.NoError(t, err)
			require.False(t, r.Next())
			require.ErrorIs(t, r.Err(), tsfile.ErrCorrupt)
			require.ErrorContains(t, r.Err(), "time page statistics count 2, but the page holds 1 timestamps", "workers %d batch %d", workers, size)
			r.Release()
		}
	}
}

// syntheticTree writes a tree-model file: an aligned multi-page device, a
// non-aligned device spread over two chunk groups (with an out-of-order
// and a repeated timestamp), and a device of a second table. Pages hold two
// points and index nodes two entries.
func syntheticTree(t testing.TB) (*fileBuilder, []tsfile.DeviceID) {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 2, MaxDegree: 2})
	d1 := tsfile.NewDeviceID("root.sg1", "d1")
	d2 := tsfile.NewDeviceID("root.sg1", "d2")
	d3 := tsfile.NewDeviceID("root.sg2", "d3")
	w.aligned(d2, []int64{10, 11, 12},
		col{"a", withNulls(int64s(1, 0, 3), 1)},
		col{"x", int32s(-1, 0, 1)},
	)
	w.nonAligned(d1, map[string][]int64{"a": {1, 2, 3, 5}, "b": {0, 3}, "c": {1, 5}},
		col{"a", int64s(10, 20, 30, 50)},
		col{"b", doubles(0.0, 0.3)},
		col{"c", texts(tsfile.Text, "one", "five")},
	)
	w.nonAligned(d3, map[string][]int64{"dd": {7}, "flag": {7, 8}},
		col{"dd", dates(20240101)},
		col{"flag", bools(true, false)},
	)
	// b's second chunk goes back to 2, and 3 repeats: the later point wins.
	w.nonAligned(d1, map[string][]int64{"a": {6, 7}, "b": {2, 3, 4}},
		col{"a", int64s(60, 70)},
		col{"b", doubles(0.2, 3.3, 0.4)},
	)
	return w, []tsfile.DeviceID{d1, d2, d3}
}

func TestSyntheticTree(t *testing.T) {
	w, devs := syntheticTree(t)
	f := w.open()
	s, err := TreeArrowSchema(f, "", nil)
	require.NoError(t, err)
	header := fieldNames(s)
	require.Equal(t, []string{"time", "device", "a", "x", "b", "c", "dd", "flag"}, header)
	_, hasTable := s.Metadata().GetValue(MetaTable)
	require.False(t, hasTable)
	prefix := func(id tsfile.DeviceID) []string { return []string{id.String()} }
	want := w.rows(header, devs, prefix)
	require.Len(t, want, 8+3+2)

	// The structures the file is meant to have, with the writer's skew
	// undone in the times and in the Statistics.
	require.Len(t, chunks(t, f, devs[1], "")[0].Pages, 2)
	b, err := f.SeriesByName(devs[0], "b")
	require.NoError(t, err)
	times, _, err := f.ReadNonAligned(b)
	require.NoError(t, err)
	require.Equal(t, []int64{0, 3, 2, 3, 4}, times)
	require.Equal(t, [2]int64{0, 4}, [2]int64{b.Statistics.StartTime, b.Statistics.EndTime})
	require.Equal(t, [2]int64{2, 4}, [2]int64{b.Chunks[1].Statistics.StartTime, b.Chunks[1].Statistics.EndTime})
	require.Equal(t, []string{"3", "root.sg1.d1", "30", nullCell, "f64:400a666666666666", nullCell, nullCell, nullCell}, want[3])

	requireBatches(t, want, []int{1, 2, 3, 5, 11, 12, 100}, func(o *Options) (*Reader, error) {
		return NewTreeReader(f, "", o)
	})

	r, err := NewTreeReader(f, "root.sg2", &Options{Allocator: checkedMem(t)})
	require.NoError(t, err)
	got := drain(t, r)
	require.Equal(t, []string{"time", "device", "dd", "flag"}, got.header)
	require.Equal(t, w.rows(got.header, devs[2:], prefix), got.rows)

	_, err = NewTreeReader(f, "root.sg3", nil)
	require.ErrorContains(t, err, "no table")
}

func TestTreeTypeConflict(t *testing.T) {
	w := newFileBuilder(t, nil)
	w.nonAligned(tsfile.NewDeviceID("root.sg", "d1"), map[string][]int64{"a": {1}}, col{"a", int64s(1)})
	w.nonAligned(tsfile.NewDeviceID("root.sg", "d2"), map[string][]int64{"a": {1}}, col{"a", doubles(1)})
	f := w.open()
	_, err := TreeArrowSchema(f, "", nil)
	require.ErrorContains(t, err, `"a"`)
	require.ErrorContains(t, err, "INT64")
	require.ErrorContains(t, err, "DOUBLE")
}

var (
	openBytes = testkit.OpenBytes
	chunks    = testkit.Chunks
)

// pageBody returns the offset of the first page body of the first chunk
// named measurement in file b.
func pageBody(t testing.TB, b []byte, measurement string) int64 {
	t.Helper()
	sc, err := tsfile.NewScanner(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	for sc.Next() {
		if r := sc.Record(); r.Kind == tsfile.ChunkRecord && r.Chunk.Header.Measurement == measurement {
			return r.Chunk.Pages[0].Header.BodyOffset()
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("no chunk named %q", measurement)
	return 0
}

// TestChunkCountDisagrees: a single-page time chunk whose index statistics
// count other than its page's timestamps is corrupt; a lenient read
// converts it with a warning.
func TestChunkCountDisagrees(t *testing.T) {
	w := newFileBuilder(t, nil)
	w.table("t", tableColumns()...)
	w.aligned(devA, []int64{1, 2, 3}, col{"i64", int64s(1, 2, 3)})
	b := w.bytes()
	f := openBytes(t, b)
	ss, err := f.Series(devA)
	require.NoError(t, err)
	require.True(t, ss[0].IsTimeColumn())
	require.Len(t, ss[0].Chunks, 1)
	// The time column's statistics count follows its type byte, the empty
	// measurement name, the VECTOR data type and a one-byte list size.
	at := ss[0].Offset + 4
	require.Equal(t, byte(3), b[at])
	b[at] = 4
	r, err := NewTableReader(openBytes(t, b), "t", nil)
	require.NoError(t, err)
	require.False(t, r.Next())
	require.ErrorIs(t, r.Err(), tsfile.ErrCorrupt)
	require.ErrorContains(t, r.Err(), "statistics count 4, but its page holds 3")
	r.Release()

	lf, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: true})
	require.NoError(t, err)
	r, err = NewTableReader(lf, "t", nil)
	require.NoError(t, err)
	defer r.Release()
	rows := int64(0)
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	require.NoError(t, r.Err())
	require.EqualValues(t, 3, rows)
	require.Len(t, lf.Warnings(), 1)
	require.Contains(t, lf.Warnings()[0].String(), "statistics count 4")
}
