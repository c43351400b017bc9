package arrowconv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// projected reads the rows of r as "time device cells..." strings per
// device, the device taken from the first constant column when projected.
func projected(t *testing.T, r *Reader, err error) [][]string {
	t.Helper()
	require.NoError(t, err)
	return drain(t, r).rows
}

// TestProjectionRowsTable: a table-model projection keeps every row of the
// device's time column, also those whose projected columns are all null.
func TestProjectionRowsTable(t *testing.T) {
	w := newFileBuilder(t, &tsfile.WriteOptions{MaxPointsPerPage: 2})
	w.table("t",
		tsfile.Column{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		tsfile.Column{Name: "a", DataType: tsfile.Int64, Category: tsfile.Field},
		tsfile.Column{Name: "b", DataType: tsfile.Double, Category: tsfile.Field})
	w.aligned(tsfile.NewDeviceID("t", "x"), []int64{1, 2, 3, 4},
		col{"a", withNulls(int64s(10, 20, 30, 40), 1, 2)},
		col{"b", withNulls(doubles(1, 2, 3, 4), 0, 2)})
	f := w.open()
	for _, cols := range [][]string{{"a"}, {"a", "b"}, {"dev"}, {"time"}} {
		r, err := NewTableReader(f, "t", &Options{Columns: cols, Allocator: checkedMem(t), BatchSize: 3})
		rows := projected(t, r, err)
		var times []string
		for _, row := range rows {
			times = append(times, row[0])
		}
		// Time 3 has a and b null, time 2 a null.
		require.Equal(t, []string{"1", "2", "3", "4"}, times, "columns %v", cols)
	}
}

// TestProjectionRowsTree: an aligned tree device keeps every row of its
// time column, as a table does; a non-aligned device, which has no time
// column, has the rows where a projected series has a point, and with no
// series projected the rows of all its series, as without a projection.
func TestProjectionRowsTree(t *testing.T) {
	f := treeMixed(t).open()
	full := map[string][]string{} // device -> times, unprojected
	r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t)})
	for _, row := range projected(t, r, err) {
		full[row[1]] = append(full[row[1]], row[0])
	}
	count := func(rows [][]string, dev int) map[string]int {
		n := map[string]int{}
		for _, row := range rows {
			n[row[dev]]++
		}
		return n
	}
	cases := []struct {
		cols []string
		want map[string]int // rows per device
	}{
		// root.m.aligned has t null at 6, 8 and in its second chunk
		// group, which lacks t; root.n.x has no t at all.
		{[]string{"device", "t"}, map[string]int{"root.m.aligned": 16, "root.n.x": 3, "root.m.nonaligned": 15}},
		// root.m.nonaligned has s at three times only.
		{[]string{"device", "s"}, map[string]int{"root.m.aligned": 16, "root.n.x": 3, "root.m.nonaligned": 3}},
		{[]string{"device", "h"}, map[string]int{"root.m.aligned": 16, "root.n.x": 3, "root.m.nonaligned": 5}},
		{[]string{"device", "s", "h"}, map[string]int{"root.m.aligned": 16, "root.n.x": 3, "root.m.nonaligned": 8}},
		// No series: every row of every device.
		{[]string{"device"}, map[string]int{"root.m.aligned": 16, "root.n.x": 3, "root.m.nonaligned": 20}},
	}
	for _, c := range cases {
		for _, bs := range []int{2, 1000} {
			r, err := NewTreeReader(f, "", &Options{Columns: c.cols, Allocator: checkedMem(t), BatchSize: bs})
			rows := projected(t, r, err)
			require.Equal(t, c.want, count(rows, 1), "columns %v", c.cols)
			if len(c.cols) == 1 {
				got := map[string][]string{}
				for _, row := range rows {
					got[row[1]] = append(got[row[1]], row[0])
				}
				require.Equal(t, full, got)
			}
		}
	}
	// Only the time column: the rows of all devices, as above.
	r, err = NewTreeReader(f, "", &Options{Columns: []string{"time"}, Allocator: checkedMem(t)})
	require.Len(t, projected(t, r, err), 16+3+20)
}
