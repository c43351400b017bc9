package arrowconv

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// permuteRows is the naive model of Options.Columns' order: the rows of
// a full read (header first) cut to time and names, in that order.
func permuteRows(t *testing.T, full *table, names ...string) (header []string, rows [][]string) {
	t.Helper()
	header = append([]string{TimeColumn}, names...)
	idx := make([]int, len(header))
	for i, n := range header {
		idx[i] = slices.Index(full.header, n)
		require.GreaterOrEqual(t, idx[i], 0, n)
	}
	for _, r := range full.rows {
		row := make([]string, len(idx))
		for i, j := range idx {
			row[i] = r[j]
		}
		rows = append(rows, row)
	}
	return header, rows
}

// TestColumnsOrderTable: the schema functions, the plan and the reader
// give the columns in the order asked, with the values of a full read, in
// batches cut from pages (small batches) and per device.
func TestColumnsOrderTable(t *testing.T) {
	w, _ := pushTable(t)
	f := w.open()
	full := drainQuiet(t, f, "p", nil)
	for _, cols := range [][]string{
		{"s", "station", "i64"},
		{"i64", "time", "s", "i64"}, // time anywhere, a name twice
		{"station", "region"},
		{"d", "b", "dbl", "s", "i64", "station", "region"},
	} {
		var names []string
		for _, c := range cols {
			if c != TimeColumn && !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
		header, rows := permuteRows(t, full, names...)
		o := &Options{Columns: cols}
		s, err := TableArrowSchema(f, "p", o)
		require.NoError(t, err)
		require.Equal(t, header, fieldNames(s), "%v", cols)
		p, err := PlanTable(f, "p", o)
		require.NoError(t, err)
		require.Equal(t, header, fieldNames(p.Schema), "%v", cols)
		for _, opts := range []*Options{
			{Columns: cols, Allocator: checkedMem(t)},
			{Columns: cols, Allocator: checkedMem(t), BatchSize: 7},
			{Columns: cols, Allocator: checkedMem(t), DeviceBatches: true, Workers: 1},
		} {
			got := drainQuiet(t, f, "p", opts)
			require.Equal(t, header, got.header, "%v", cols)
			require.Equal(t, rows, got.rows, "%v batch %d", cols, opts.BatchSize)
		}
	}
}

// TestColumnsOrderTree: the tree reader (a non-aligned device, merged by
// time) orders its columns so too, the device column among them.
func TestColumnsOrderTree(t *testing.T) {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	for d, dev := range []string{"root.sg.d1", "root.sg.d2"} {
		v1 := tsfile.NewValues(tsfile.Int64, 3)
		v1.Int64s = []int64{10, 20, int64(30 + d)}
		v2 := tsfile.NewValues(tsfile.Double, 2)
		v2.Float64s = []float64{0.5, 1.5}
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID(dev), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: []int64{1, 2, 3}, Values: v1},
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Double}, Times: []int64{2, 4}, Values: v2},
		}))
	}
	require.NoError(t, w.Close())
	f, err := tsfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	require.NoError(t, err)
	r, err := NewTreeReader(f, "", nil)
	require.NoError(t, err)
	full := drain(t, r)
	header, rows := permuteRows(t, full, "s2", "device", "s1")
	o := &Options{Columns: []string{"s2", "device", "s1"}}
	s, err := TreeArrowSchema(f, "", o)
	require.NoError(t, err)
	require.Equal(t, header, fieldNames(s))
	r, err = NewTreeReader(f, "", o)
	require.NoError(t, err)
	got := drain(t, r)
	require.Equal(t, header, got.header)
	require.Equal(t, rows, got.rows)
	require.Len(t, rows, 8) // the times of both series, per device
}
