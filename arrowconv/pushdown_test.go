package arrowconv

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// pushTable is a table of six devices, each written in two chunk groups of
// multi-page chunks (32 rows a page), with nulls, an absent column in some
// chunk groups and irregular timestamps, so that statistics can skip
// chunk groups and pages and partly covered pages need trimming.
func pushTable(t testing.TB) (*fileBuilder, []tsfile.DeviceID) {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 32, MaxDegree: 3})
	c := func(name string, dt tsfile.DataType, cat tsfile.ColumnCategory) tsfile.Column {
		return tsfile.Column{Name: name, DataType: dt, Category: cat}
	}
	w.table("p",
		c("region", tsfile.String, tsfile.Tag), c("station", tsfile.String, tsfile.Tag),
		c("i64", tsfile.Int64, tsfile.Field), c("dbl", tsfile.Double, tsfile.Field),
		c("s", tsfile.String, tsfile.Field), c("b", tsfile.Boolean, tsfile.Field),
		c("d", tsfile.Date, tsfile.Field))
	rng := rand.New(rand.NewPCG(1, 2))
	var devs []tsfile.DeviceID
	for d := range 6 {
		id := tsfile.NewDeviceID("p", fmt.Sprintf("r%d", d%3), fmt.Sprintf("st%d", d))
		devs = append(devs, id)
		ts := int64(d * 7)
		for g := range 2 {
			n := 150 + 40*d + 13*g
			times := make([]int64, n)
			i64 := make([]int64, n)
			dbl := make([]float64, n)
			s := make([]string, n)
			b := make([]bool, n)
			dt := make([]int32, n)
			var nulls []int
			for i := range n {
				ts += 1 + rng.Int64N(9)
				times[i] = ts
				i64[i] = rng.Int64()
				dbl[i] = rng.NormFloat64()
				s[i] = strconv.Itoa(int(rng.Int32N(50)))
				b[i] = rng.IntN(2) == 0
				dt[i] = int32(20200101 + rng.IntN(28))
				if rng.IntN(5) == 0 {
					nulls = append(nulls, i)
				}
			}
			cols := []col{
				{"i64", withNulls(int64s(i64...), nulls...)},
				{"dbl", doubles(dbl...)},
				{"b", withNulls(bools(b...), nulls...)},
				{"d", dates(dt...)},
			}
			if g == 1 || d%2 == 0 {
				cols = append(cols, col{"s", withNulls(texts(tsfile.String, s...), nulls...)})
			}
			w.aligned(id, times, cols...)
		}
	}
	slices.SortFunc(devs, tsfile.DeviceID.Compare)
	return w, devs
}

func pushWant(w *fileBuilder, devs []tsfile.DeviceID, header []string) [][]string {
	return w.rows(header, devs, func(id tsfile.DeviceID) []string {
		r, _ := id.Segment(1)
		s, _ := id.Segment(2)
		return []string{r, s}
	})
}

// countingReader records the byte ranges read through it.
type countingReader struct {
	r      *bytes.Reader
	mu     sync.Mutex
	ranges []span
	bytes  int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.mu.Lock()
	c.ranges = append(c.ranges, span{int(off), int(off) + n})
	c.bytes += n
	c.mu.Unlock()
	return n, err
}

func openCounting(t testing.TB, b []byte) (*tsfile.File, *countingReader) {
	cr := &countingReader{r: bytes.NewReader(b)}
	f, err := tsfile.Open(cr, int64(len(b)), nil)
	require.NoError(t, err)
	cr.ranges, cr.bytes = nil, 0 // count only what the reader reads
	return f, cr
}

func timeOf(t testing.TB, row []string) int64 {
	v, err := strconv.ParseInt(row[0], 10, 64)
	require.NoError(t, err)
	return v
}

func TestPushdownTimeRange(t *testing.T) {
	w, devs := pushTable(t)
	f := w.open()
	s, err := TableArrowSchema(f, "p", nil)
	require.NoError(t, err)
	want := pushWant(w, devs, fieldNames(s))
	lo, hi := timeOf(t, want[0]), timeOf(t, want[0])
	for _, row := range want {
		lo, hi = min(lo, timeOf(t, row)), max(hi, timeOf(t, row))
	}
	mem := checkedMem(t)
	rng := rand.New(rand.NewPCG(3, 4))
	ranges := []TimeRange{{lo, hi}, {lo - 100, lo - 1}, {hi + 1, hi + 100}, {lo, lo}, {hi, hi}, {-1 << 63, 1<<63 - 1}}
	for range 40 {
		a, b := lo+rng.Int64N(hi-lo+1), lo+rng.Int64N(hi-lo+1)
		ranges = append(ranges, TimeRange{min(a, b), max(a, b)})
	}
	for i, tr := range ranges {
		var exp [][]string
		for _, row := range want {
			if ts := timeOf(t, row); ts >= tr.Start && ts <= tr.End {
				exp = append(exp, row)
			}
		}
		for _, workers := range []int{1, 3} {
			r, err := NewTableReader(f, "p", &Options{Allocator: mem, BatchSize: 1 + i*17, Time: &tr, Workers: workers})
			require.NoError(t, err)
			got := drain(t, r)
			require.Equal(t, exp, got.rows, "range %v workers %d", tr, workers)
		}
	}

	// A narrow range reads a fraction of what a full scan reads: the
	// chunks' page headers and the pages that can match.
	big := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 1000})
	big.table("p", tsfile.Column{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field}, tsfile.Column{Name: "x", DataType: tsfile.Double, Category: tsfile.Field})
	times, vs, xs := make([]int64, 20000), make([]int64, 20000), make([]float64, 20000)
	for i := range times {
		times[i], vs[i], xs[i] = int64(i), rng.Int64(), rng.Float64()
	}
	big.aligned(tsfile.NewDeviceID("p"), times, col{"v", int64s(vs...)}, col{"x", doubles(xs...)})
	full, cr := openCounting(t, big.bytes())
	require.Len(t, drainQuiet(t, full, "p", nil).rows, 20000)
	all := cr.bytes
	narrow, cr := openCounting(t, big.bytes())
	got := drainQuiet(t, narrow, "p", &Options{Time: &TimeRange{10500, 10600}})
	require.Len(t, got.rows, 101)
	require.Equal(t, "10500", got.rows[0][0])
	require.Less(t, cr.bytes*5, all, "narrow range read %d bytes, full scan %d", cr.bytes, all)
}

func drainQuiet(t testing.TB, f *tsfile.File, table string, o *Options) *table {
	r, err := NewTableReader(f, table, o)
	require.NoError(t, err)
	return drain(t, r)
}

func TestPushdownColumns(t *testing.T) {
	w, devs := pushTable(t)
	f := w.open()
	s, err := TableArrowSchema(f, "p", nil)
	require.NoError(t, err)
	header := fieldNames(s)
	want := pushWant(w, devs, header)
	mem := checkedMem(t)

	o := &Options{Allocator: mem, Columns: []string{"s", "station", "i64", "time"}}
	ps, err := TableArrowSchema(f, "p", o)
	require.NoError(t, err)
	// Time first, then the order asked for: a field before a TAG.
	require.Equal(t, []string{"time", "s", "station", "i64"}, fieldNames(ps))
	pick := []int{0, slices.Index(header, "s"), slices.Index(header, "station"), slices.Index(header, "i64")}
	var exp [][]string
	for _, row := range want {
		var p []string
		for _, c := range pick {
			p = append(p, row[c])
		}
		exp = append(exp, p)
	}

	pf, cr := openCounting(t, w.bytes())
	got := drainQuiet(t, pf, "p", o)
	require.Equal(t, exp, got.rows)
	// No byte of an unprojected column's chunks was read.
	for _, dev := range devs {
		for _, m := range []string{"dbl", "b", "d"} {
			sr, err := f.SeriesByName(dev, m)
			require.NoError(t, err)
			for _, cm := range sr.Chunks {
				h, err := f.ReadChunkHeader(cm.Offset)
				require.NoError(t, err)
				for _, rg := range cr.ranges {
					require.False(t, rg.lo < int(h.End()) && int(cm.Offset) < rg.hi,
						"read [%d,%d) overlaps the %s chunk of %s at [%d,%d)", rg.lo, rg.hi, m, dev, cm.Offset, h.End())
				}
			}
		}
	}

	// Only time: every row, no value column read at all.
	got = drainQuiet(t, f, "p", &Options{Allocator: mem, Columns: []string{}})
	require.Equal(t, []string{"time"}, got.header)
	require.Len(t, got.rows, len(want))

	_, err = NewTableReader(f, "p", &Options{Columns: []string{"i64", "nope"}})
	require.ErrorContains(t, err, `no column "nope" (columns: time, region, station, i64, dbl, s, b, d)`)
}

func TestPushdownDevicesAndTags(t *testing.T) {
	w, devs := pushTable(t)
	f := w.open()
	s, err := TableArrowSchema(f, "p", nil)
	require.NoError(t, err)
	header := fieldNames(s)
	mem := checkedMem(t)

	missing := tsfile.NewDeviceID("p", "r9", "st9")
	got := drainQuiet(t, f, "p", &Options{Allocator: mem, Devices: []tsfile.DeviceID{devs[4], missing, devs[1], devs[4]}})
	require.Equal(t, pushWant(w, []tsfile.DeviceID{devs[1], devs[4]}, header), got.rows)

	var r1 []tsfile.DeviceID
	for _, d := range devs {
		if v, _ := d.Segment(1); v == "r1" {
			r1 = append(r1, d)
		}
	}
	require.Len(t, r1, 2)
	got = drainQuiet(t, f, "p", &Options{Allocator: mem, Where: map[string]string{"region": "r1"}})
	require.Equal(t, pushWant(w, r1, header), got.rows)
	got = drainQuiet(t, f, "p", &Options{Allocator: mem, Where: map[string]string{"region": "r1", "station": "st4"}})
	require.Equal(t, pushWant(w, []tsfile.DeviceID{tsfile.NewDeviceID("p", "r1", "st4")}, header), got.rows)
	got = drainQuiet(t, f, "p", &Options{Allocator: mem, Where: map[string]string{"region": "none"}})
	require.Empty(t, got.rows)

	// The error says which columns can be filtered on.
	for where, msg := range map[string]string{
		"nope": `no column "nope" to filter on (TAG columns: region, station)`,
		"i64":  `only TAG and device columns can be filtered on (TAG columns: region, station)`,
	} {
		_, err := NewTableReader(f, "p", &Options{Where: map[string]string{where: "x"}})
		require.ErrorContains(t, err, msg)
	}

	// A requested device costs index reads, not a scan of the others.
	df, cr := openCounting(t, w.bytes())
	drainQuiet(t, df, "p", &Options{Devices: devs[2:3]})
	one := cr.bytes
	af, cr := openCounting(t, w.bytes())
	drainQuiet(t, af, "p", nil)
	require.Less(t, one*3, cr.bytes)
}

func TestLimit(t *testing.T) {
	w, devs := pushTable(t)
	f := w.open()
	s, err := TableArrowSchema(f, "p", nil)
	require.NoError(t, err)
	want := pushWant(w, devs, fieldNames(s))
	mem := checkedMem(t)
	for _, limit := range []int64{1, 7, 64, 333, int64(len(want)), int64(len(want)) + 5} {
		for _, size := range []int{1, 10, 1000} {
			got := drainQuiet(t, f, "p", &Options{Allocator: mem, Limit: limit, BatchSize: size})
			n := min(int(limit), len(want))
			require.Equal(t, want[:n], got.rows, "limit %d batch %d", limit, size)
			for _, k := range got.sizes[:max(len(got.sizes)-1, 0)] {
				require.Equal(t, size, k)
			}
		}
	}
	// With a time range too: the first rows that match.
	tr := &TimeRange{timeOf(t, want[100]), 1 << 62}
	got := drainQuiet(t, f, "p", &Options{Allocator: mem, Limit: 50, Time: tr})
	var exp [][]string
	for _, row := range want {
		if timeOf(t, row) >= tr.Start && len(exp) < 50 {
			exp = append(exp, row)
		}
	}
	require.Equal(t, exp, got.rows)
	_, err = NewTableReader(f, "p", &Options{Limit: -1})
	require.Error(t, err)
}

func TestWorkersAgree(t *testing.T) {
	w, devs := pushTable(t)
	f := w.open()
	s, err := TableArrowSchema(f, "p", nil)
	require.NoError(t, err)
	want := pushWant(w, devs, fieldNames(s))
	mem := checkedMem(t)
	for _, workers := range []int{1, 2, 4, 16} {
		for _, size := range []int{5, 100, 4096} {
			got := drainQuiet(t, f, "p", &Options{Allocator: mem, Workers: workers, BatchSize: size})
			require.Equal(t, want, got.rows, "workers %d batch %d", workers, size)
		}
	}

	// Damage two columns' first pages: every worker count reports the
	// same one, the first column in schema order.
	b := bytes.Clone(w.bytes())
	for _, m := range []string{"s", "dbl"} {
		off := pageBody(t, b, m)
		b[off], b[off+1], b[off+2], b[off+3] = 0x7f, 0xff, 0xff, 0xff // position_count
	}
	bad := openBytes(t, b)
	var first string
	for _, workers := range []int{1, 2, 8} {
		r, err := NewTableReader(bad, "p", &Options{Allocator: mem, Workers: workers})
		require.NoError(t, err)
		for r.Next() {
		}
		require.Error(t, r.Err())
		require.True(t, errors.Is(r.Err(), tsfile.ErrCorrupt), "%v", r.Err())
		if first == "" {
			first = r.Err().Error()
		}
		require.Equal(t, first, r.Err().Error(), "workers %d", workers)
		r.Release()
	}
	require.Contains(t, first, `"dbl"`)
}

// TestIndexErrorBeforeAnyRow damages the index entries of the second
// device: the reader fails before it returns a row of the first device
// (tsfile.File.CheckTable), with the same error for every worker count.
func TestIndexErrorBeforeAnyRow(t *testing.T) {
	w, _ := pushTable(t)
	f := w.open()
	devs, err := f.Devices("p")
	require.NoError(t, err)
	series, err := f.Series(devs[1])
	require.NoError(t, err)
	b := bytes.Clone(w.bytes())
	b[series[0].Offset] = 0x7f // no timeseries metadata type
	for _, workers := range []int{1, 2, 8} {
		bad := openBytes(t, b)
		_, err := NewTableReader(bad, "p", &Options{Workers: workers, BatchSize: 7})
		require.ErrorIs(t, err, tsfile.ErrCorrupt, "workers %d", workers)
		require.Contains(t, err.Error(), fmt.Sprint(series[0].Offset))
	}
}

func TestRepresentations(t *testing.T) {
	w, devs := pushTable(t)
	f := w.open()
	s, err := TableArrowSchema(f, "p", nil)
	require.NoError(t, err)
	want := pushWant(w, devs, fieldNames(s))
	mem := checkedMem(t)

	o := &Options{Allocator: mem, StringView: true, PlainTags: true, BatchSize: 77}
	vs, err := TableArrowSchema(f, "p", o)
	require.NoError(t, err)
	require.Equal(t, arrow.BinaryTypes.String, vs.Field(1).Type)
	require.Equal(t, arrow.BinaryTypes.StringView, vs.Field(vs.FieldIndices("s")[0]).Type)
	got := drainQuiet(t, f, "p", o)
	require.Equal(t, want, got.rows)

	// Dictionaries grow across the stream: each batch's extends the last.
	r, err := NewTableReader(f, "p", &Options{Allocator: mem, BatchSize: 100})
	require.NoError(t, err)
	defer r.Release()
	prev := []string{}
	for r.Next() {
		d := r.RecordBatch().Column(1).(*array.Dictionary)
		dict := d.Dictionary().(*array.String)
		var cur []string
		for i := range dict.Len() {
			cur = append(cur, dict.Value(i))
		}
		require.GreaterOrEqual(t, len(cur), len(prev))
		require.Equal(t, prev, cur[:len(prev):len(prev)])
		prev = cur
	}
	require.NoError(t, r.Err())
	require.Equal(t, []string{"r0", "r1", "r2"}, prev)
}

// TestColumnValues: the values a filter on a constant column could match,
// over every device whatever the reader selects, from the index alone.
func TestColumnValues(t *testing.T) {
	w, _ := pushTable(t)
	f := w.open()
	r, err := NewTableReader(f, "p", &Options{Where: map[string]string{"region": "none"}, Columns: []string{}})
	require.NoError(t, err)
	defer r.Release()
	for name, want := range map[string][]string{
		"region":  {"r0", "r1", "r2"},
		"station": {"st0", "st1", "st2", "st3", "st4", "st5"},
	} {
		got, err := r.ColumnValues(name)
		require.NoError(t, err)
		require.Equal(t, want, got, name)
	}
	_, err = r.ColumnValues("i64")
	require.ErrorContains(t, err, `no column "i64" to filter on (TAG columns: region, station)`)
	require.False(t, r.Next(), "nothing matches region=none")

	tf := openInterop(t, "j10_tree_nonaligned")
	tr, err := NewTreeReader(tf, "", &Options{Devices: []tsfile.DeviceID{}})
	require.NoError(t, err)
	defer tr.Release()
	got, err := tr.ColumnValues(DeviceColumn)
	require.NoError(t, err)
	require.Equal(t, []string{"root.sg1.d1", "root.sg1.d2", "root.sg2.d3"}, got)
}
