package dataset

import (
	"fmt"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// devCols lists, per device, the columns its points were written to: the
// columns formatRow prints for it, as the reference does.
func devCols(dir *builtDir) map[string][]string {
	set := map[string]map[string]bool{}
	for _, bf := range dir.Files {
		for _, p := range bf.Points {
			dev := p.Device.String()
			if set[dev] == nil {
				set[dev] = map[string]bool{}
			}
			set[dev][p.Column] = true
		}
	}
	out := map[string][]string{}
	for dev, cs := range set {
		for c := range cs {
			out[dev] = append(out[dev], c)
		}
		sort.Strings(out[dev])
	}
	return out
}

// cellString returns the string of a constant (TAG or device) cell.
func cellString(a arrow.Array, i int) (string, bool) {
	if a.IsNull(i) {
		return "", false
	}
	switch c := a.(type) {
	case *array.Dictionary:
		return c.Dictionary().(*array.String).Value(c.GetValueIndex(i)), true
	case *array.String:
		return c.Value(i), true
	}
	return a.ValueStr(i), true
}

// readDataset reads every table of the directory through Dataset and
// formats the rows as the reference does.
func readDataset(t *testing.T, dir *builtDir, o *arrowconv.Options) refRows {
	t.Helper()
	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	cols := devCols(dir)
	tables, err := ds.Tables()
	require.NoError(t, err)
	got := refRows{}
	for _, tb := range tables {
		rd, err := ds.NewReader(tb.Name, o)
		require.NoError(t, err, tb.Name)
		s := rd.Schema()
		var tags []int
		for i, f := range s.Fields() {
			if c, _ := f.Metadata.GetValue(arrowconv.MetaCategory); c == "TAG" || c == "DEVICE" {
				tags = append(tags, i)
			}
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			times := timesOf(rec)
			for row := range times {
				var dev string
				if tb.Tree {
					p, _ := cellString(rec.Column(tags[0]), row)
					dev = tsfile.ParseTreePath(p).String()
				} else {
					segs := []string{tb.Name}
					for _, k := range tags {
						v, _ := cellString(rec.Column(k), row)
						segs = append(segs, v)
					}
					dev = tsfile.NewDeviceID(segs...).String()
				}
				cells := map[string]*int64{}
				for _, c := range cols[dev] {
					idx := s.FieldIndices(c)
					if len(idx) == 0 {
						continue
					}
					a := rec.Column(idx[0]).(*array.Int64)
					if a.IsValid(row) {
						x := a.Value(row)
						cells[c] = &x
					}
				}
				got[dev] = append(got[dev], formatRow(times[row], cols[dev], cells))
			}
		}
		require.NoError(t, rd.Err(), tb.Name)
		rd.Release()
	}
	// Files that overlap nothing stream one after another, so a device's
	// rows come in time order within each group of files, not across.
	for dev, rows := range got {
		sort.SliceStable(rows, func(i, j int) bool { return rowTime(rows[i]) < rowTime(rows[j]) })
		got[dev] = rows
	}
	return got
}

// rowTime reads the time back from a formatRow string.
func rowTime(row string) int64 {
	var tm int64
	fmt.Sscanf(row, "t=%d", &tm)
	return tm
}
