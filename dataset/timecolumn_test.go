package dataset

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// writePlantFile writes a sequence file of table plant, device (north,
// s1), with a FIELD temp = 10*time; with timeCol, its schema records a
// TIME column "id" between the TAGs and has a FIELD named "time" (= -time),
// as testdata/timecolumn.tsfile.
func writePlantFile(t *testing.T, dir string, version int64, timeCol bool, times []int64) {
	t.Helper()
	cols := []tsfile.Column{{Name: "region", DataType: tsfile.String, Category: tsfile.Tag}}
	if timeCol {
		cols = append(cols, tsfile.Column{Name: "id", DataType: tsfile.Timestamp, Category: tsfile.TimeCol})
	}
	cols = append(cols, tsfile.Column{Name: "station", DataType: tsfile.String, Category: tsfile.Tag},
		tsfile.Column{Name: "temp", DataType: tsfile.Int64, Category: tsfile.Field})
	if timeCol {
		cols = append(cols, tsfile.Column{Name: "time", DataType: tsfile.Int64, Category: tsfile.Field})
	}
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "plant", Columns: cols}))
	temp, neg := make([]int64, len(times)), make([]int64, len(times))
	for i, x := range times {
		temp[i], neg[i] = 10*x, -x
	}
	vals := []tsfile.AlignedColumn{{SeriesSchema: tsfile.SeriesSchema{Name: "temp", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: temp}}}
	if timeCol {
		vals = append(vals, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: "time", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: neg}})
	}
	id := tsfile.NewDeviceID("plant", "north", "s1")
	require.NoError(t, w.WriteAligned(id, times, vals))
	require.NoError(t, w.Close())
	putDataFile(t, dir, version, buf.Bytes(), DeviceTimes{Device: id, Start: times[0], End: times[len(times)-1]})
}

// TestDatasetTimeColumn: a table whose newest file records its time
// column as a TIME column "id" reads with the time column so named; an
// older file of the table without one (time "time") gives its rows to the
// same time column, and null for the newer FIELD "time", never its
// timestamps; a projection and a time range name the column as the
// newest file does.
func TestDatasetTimeColumn(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sequence", "db", "1", "0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	writePlantFile(t, dir, 1, false, []int64{1, 2, 3})
	writePlantFile(t, dir, 2, true, []int64{4, 5, 6})
	ds, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer ds.Close()

	read := func(t *testing.T, o *arrowconv.Options) ([]string, []string) {
		t.Helper()
		rd, err := ds.NewReader("plant", o)
		require.NoError(t, err)
		defer rd.Release()
		var header, rows []string
		for _, f := range rd.Schema().Fields() {
			header = append(header, f.Name)
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			times := timesOf(rec)
			for i := range times {
				row := fmt.Sprint(times[i])
				for c := 1; c < int(rec.NumCols()); c++ {
					row += "|" + rec.Column(c).ValueStr(i)
				}
				rows = append(rows, row)
			}
		}
		require.NoError(t, rd.Err())
		return header, rows
	}
	for _, c := range []struct {
		name   string
		opts   arrowconv.Options
		header []string
		rows   []string
	}{
		{"all", arrowconv.Options{PlainTags: true}, []string{"id", "region", "station", "temp", "time"},
			[]string{"1|north|s1|10|(null)", "2|north|s1|20|(null)", "3|north|s1|30|(null)", "4|north|s1|40|-4", "5|north|s1|50|-5", "6|north|s1|60|-6"}},
		{"the FIELD time", arrowconv.Options{Columns: []string{"time"}}, []string{"id", "time"},
			[]string{"1|(null)", "2|(null)", "3|(null)", "4|-4", "5|-5", "6|-6"}},
		{"the time column named", arrowconv.Options{Columns: []string{"temp", "id"}}, []string{"id", "temp"},
			[]string{"1|10", "2|20", "3|30", "4|40", "5|50", "6|60"}},
		{"time range", arrowconv.Options{Columns: []string{"station"}, PlainTags: true, Time: &arrowconv.TimeRange{Start: 3, End: 4}}, []string{"id", "station"},
			[]string{"3|s1", "4|s1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.opts
			header, rows := read(t, &o)
			require.Equal(t, c.header, header)
			require.Equal(t, c.rows, rows)
		})
	}
	sc, err := ds.Schema("plant", nil)
	require.NoError(t, err)
	i, ok := arrowconv.TimeField(sc)
	require.True(t, ok)
	require.Equal(t, 0, i)
	require.Equal(t, "id", sc.Field(0).Name)
}

// putDataFile writes data as the data file of the given version in dir,
// with a .resource listing devs.
func putDataFile(t *testing.T, dir string, version int64, data []byte, devs ...DeviceTimes) {
	t.Helper()
	path := filepath.Join(dir, Name{Time: version, Version: version}.String())
	require.NoError(t, os.WriteFile(path, data, 0o644))
	res := &Resource{IndexType: IndexArray, Devices: devs}
	b, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+ResourceSuffix, b, 0o644))
}
