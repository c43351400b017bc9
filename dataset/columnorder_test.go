package dataset

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestColumnsOrder: Dataset.Schema and the reader give the columns in the
// order Options.Columns names them, time first, across a sequence and an
// unsequence file (the merge), with the values a full read gives.
func TestColumnsOrder(t *testing.T) {
	root := t.TempDir()
	ints := func(v ...int64) tsfile.Values { return tsfile.Values{Type: tsfile.Int64, Int64s: v} }
	writeTyped(t, root,
		typedFile{space: Sequence, time: 1, version: 1, vType: tsfile.Int64, times: []int64{1, 2, 3}, vals: ints(10, 20, 30)},
		typedFile{space: Unsequence, time: 2, version: 2, vType: tsfile.Int64, times: []int64{2}, vals: ints(21)})
	ds, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	read := func(cols []string) (*arrow.Schema, []string) {
		t.Helper()
		o := &arrowconv.Options{Columns: cols}
		s, err := ds.Schema("t", o)
		require.NoError(t, err)
		rd, err := ds.NewReader("t", o)
		require.NoError(t, err)
		defer rd.Release()
		require.True(t, s.Equal(rd.Schema()), "Schema %v, reader %v", s, rd.Schema())
		var rows []string
		for rd.Next() {
			rec := rd.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				var cells []string
				for _, c := range rec.Columns() {
					cells = append(cells, c.ValueStr(i))
				}
				rows = append(rows, strings.Join(cells, ","))
			}
		}
		require.NoError(t, rd.Err())
		return s, rows
	}
	names := func(s *arrow.Schema) []string {
		var out []string
		for _, f := range s.Fields() {
			out = append(out, f.Name)
		}
		return out
	}
	s, rows := read(nil)
	require.Equal(t, []string{"time", "tag", "v"}, names(s))
	require.Equal(t, []string{"1970-01-01T00:00:00.001Z,a,10", "1970-01-01T00:00:00.002Z,a,21", "1970-01-01T00:00:00.003Z,a,30"}, rows)
	for _, cols := range [][]string{{"v", "tag"}, {"v", "time", "tag", "v"}} {
		s, rows = read(cols)
		require.Equal(t, []string{"time", "v", "tag"}, names(s), "%v", cols)
		require.Equal(t, []string{"1970-01-01T00:00:00.001Z,10,a", "1970-01-01T00:00:00.002Z,21,a", "1970-01-01T00:00:00.003Z,30,a"}, rows, "%v", cols)
	}
}
