package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// pickColumns is the naive model of --columns: the rows of a whole CSV
// (header first) cut to the named columns, in the order named, time first.
func pickColumns(t *testing.T, whole string, names ...string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(whole)).ReadAll()
	require.NoError(t, err)
	order := []string{"time"}
	for _, n := range names {
		if !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	idx := make([]int, len(order))
	for i, n := range order {
		idx[i] = slices.Index(recs[0], n)
		require.GreaterOrEqual(t, idx[i], 0, "no column %q in %v", n, recs[0])
	}
	var out [][]string
	for _, r := range recs {
		row := make([]string, len(idx))
		for i, j := range idx {
			row[i] = r[j]
		}
		out = append(out, row)
	}
	return out
}

func readCSVRecords(t *testing.T, s string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	require.NoError(t, err)
	return recs
}

// treeFile writes a non-aligned tree-model file: root.sg.d1 with s1 and
// s2 at times 1, 2, 3.
func treeFile(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	v1 := tsfile.NewValues(tsfile.Int64, 3)
	v1.Int64s = []int64{10, 20, 30}
	v2 := tsfile.NewValues(tsfile.Int64, 3)
	v2.Int64s = []int64{-1, -2, -3}
	require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg.d1"), []tsfile.NonAlignedSeries{
		{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: []int64{1, 2, 3}, Values: v1},
		{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Times: []int64{1, 2, 3}, Values: v2},
	}))
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), "tree.tsfile")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// TestColumnsOrder: convert (CSV and Parquet, one file, a partitioned
// directory, IoTDB data, a tree-model file), head and schema give the
// columns in the order --columns names them, time first, with the values
// of the whole conversion's columns of those names.
func TestColumnsOrder(t *testing.T) {
	ds := iotdbDir(t)
	tree := treeFile(t)
	for _, c := range []struct {
		name    string
		in      []string // the input and its read flags
		columns string
		names   []string // the order expected after time
	}{
		{"fields and tags", []string{sample}, "seen,count,region,note", []string{"seen", "count", "region", "note"}},
		{"time named last, a name twice", []string{sample}, "pressure,station,time,pressure", []string{"pressure", "station"}},
		{"one column", []string{sample}, "label", []string{"label"}},
		{"IoTDB data", []string{ds}, "s1,tag", []string{"s1", "tag"}},
		{"tree model", []string{tree}, "s2,device,s1", []string{"s2", "device", "s1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole := convertCSVString(t, c.in...)
			want := pickColumns(t, whole, c.names...)
			args := append(slices.Clone(c.in), "--columns", c.columns)

			// convert to CSV.
			got := readCSVRecords(t, convertCSVString(t, args...))
			require.Equal(t, want, got)

			// convert to Parquet, read back.
			out := filepath.Join(t.TempDir(), "x.parquet")
			code, _, stderr := runCLI(append([]string{"convert", "-o", out}, args...)...)
			require.Equal(t, 0, code, stderr)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			pq, _, _ := parquetAsCSV(t, data)
			require.Equal(t, want, readCSVRecords(t, pq))

			// head: the header, and the first row's time.
			code, hout, stderr := runCLI(append([]string{"head", "-n", "2", "--width", "0", "--time-format", "epoch"}, args...)...)
			require.Equal(t, 0, code, stderr)
			header, rows := parseHead(t, hout)
			require.Equal(t, want[0], header)
			require.Equal(t, want[1][0], rows[0][0])

			// schema, as text and as JSON.
			code, sout, stderr := runCLI(append([]string{"schema", "--json"}, args...)...)
			require.Equal(t, 0, code, stderr)
			var sj schemaJSON
			require.NoError(t, json.Unmarshal([]byte(sout), &sj))
			var names []string
			for _, f := range sj.Fields {
				names = append(names, f.Name)
			}
			require.Equal(t, want[0], names)
			code, sout, stderr = runCLI(append([]string{"schema"}, args...)...)
			require.Equal(t, 0, code, stderr)
			var textNames []string
			for _, l := range strings.Split(sout, "\n")[1:] {
				if l == "" {
					break
				}
				textNames = append(textNames, strings.Fields(l)[0])
			}
			require.Equal(t, want[0], textNames)
		})
	}

	// A partitioned directory: every part in the order asked.
	out := filepath.Join(t.TempDir(), "parts")
	code, _, stderr := runCLI("convert", sample, "-o", out, "--partition-by", "device", "--format", "csv", "--columns", "ok,temperature,station")
	require.Equal(t, 0, code, stderr)
	parts, err := filepath.Glob(filepath.Join(out, "*", "*", "*.csv"))
	require.NoError(t, err)
	require.NotEmpty(t, parts)
	for _, p := range parts {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(b), "time,ok,temperature,station\n"), "%s: %.60q", p, b)
	}
}

// convertCSVString is convertCSV as one string, times as epoch integers.
func convertCSVString(t *testing.T, args ...string) string {
	t.Helper()
	return strings.Join(convertCSV(t, args...), "\n") + "\n"
}
