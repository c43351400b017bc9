package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// writeTreeDataset writes the same tree-model rows as TsFile format
// version (3 or 4): a non-aligned device, an aligned one with nulls, and
// a device whose path has five nodes.
func writeTreeDataset(t *testing.T, path string, version byte) {
	t.Helper()
	fh, err := os.Create(path)
	require.NoError(t, err)
	w, err := tsfile.NewWriter(fh, &tsfile.WriteOptions{Version: version, MaxPointsPerPage: 2})
	require.NoError(t, err)
	require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath("root.sg1.d1"), []tsfile.NonAlignedSeries{
		{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Times: []int64{1, 3, 4}, Values: i64(7, 8, 9)},
		{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Text}, Times: []int64{2, 3}, Values: tsfile.Values{Type: tsfile.Text, Binaries: [][]byte{[]byte("a"), []byte("b")}}},
	}))
	require.NoError(t, w.WriteAligned(tsfile.ParseTreePath("root.sg2.d9"), []int64{5, 6, 7}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: []int64{9, 0, 11}, Null: []bool{false, true, false}}},
		{SeriesSchema: tsfile.SeriesSchema{Name: "s3", DataType: tsfile.Double}, Values: tsfile.Values{Type: tsfile.Double, Float64s: []float64{0.5, 1.5, 2.5}}},
	}))
	require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath("root.sg1.area.d2.x"), []tsfile.NonAlignedSeries{
		{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Times: []int64{8}, Values: i64(12)},
	}))
	require.NoError(t, w.Close())
	require.NoError(t, fh.Close())
}

func TestV3ConvertAndInspect(t *testing.T) {
	dir := t.TempDir()
	v3, v4 := filepath.Join(dir, "v3.tsfile"), filepath.Join(dir, "v4.tsfile")
	writeTreeDataset(t, v3, tsfile.VersionV3)
	writeTreeDataset(t, v4, tsfile.Version)
	b, err := os.ReadFile(v3)
	require.NoError(t, err)
	require.Equal(t, byte(3), b[6])

	rows3 := convertCSV(t, v3)
	require.Equal(t, convertCSV(t, v4), rows3)
	require.Equal(t, []string{"time,device,s2,s1,s3",
		"1,root.sg1.d1,7,,", "2,root.sg1.d1,,a,", "3,root.sg1.d1,8,b,", "4,root.sg1.d1,9,,",
		"8,root.sg1.area.d2.x,12,,",
		"5,root.sg2.d9,9,,0.5", "6,root.sg2.d9,,,1.5", "7,root.sg2.d9,11,,2.5"}, rows3)
	// A query: one device by its path, a column and a time range.
	require.Equal(t, []string{"time,device,s2", "3,root.sg1.d1,8", "4,root.sg1.d1,9"},
		convertCSV(t, v3, "--device", "root.sg1.d1", "--columns", "device,s2", "--start", "3"))
	require.Equal(t, []string{"time,device,s3", "6,root.sg2.d9,1.5"},
		convertCSV(t, v3, "--where", "device=root.sg2.d9", "--columns", "device,s3", "--start", "6", "--end", "6"))

	code, out, errOut := runCLI("inspect", v3)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "version:     3\n")
	require.Contains(t, out, "table root.sg1 (tree model, 1 devices)")
	require.Contains(t, out, "table root.sg1.area (tree model, 1 devices)")
	require.Contains(t, out, "device root.sg2.d9 (aligned, 3 rows)")
	code, out, errOut = runCLI("inspect", "--json", "--pages", v3)
	require.Equal(t, 0, code, errOut)
	var info struct {
		Version int `json:"version"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	require.Equal(t, 3, info.Version)

	_, s3, _ := runCLI("schema", v3, "--arrow")
	_, s4, _ := runCLI("schema", v4, "--arrow")
	require.Equal(t, s4, s3)
	code, out, errOut = runCLI("head", "-n", "2", v3)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "root.sg1.d1")

	// Recovery keeps the version: a v3 file cut in its index recovers
	// into a v3 file with every row.
	cut := filepath.Join(dir, "cut.tsfile")
	require.NoError(t, os.WriteFile(cut, b[:len(b)-40], 0o644))
	fixed := filepath.Join(dir, "fixed.tsfile")
	code, _, errOut = runCLI("recover", cut, "-o", fixed)
	require.Equal(t, 0, code, errOut)
	fb, err := os.ReadFile(fixed)
	require.NoError(t, err)
	require.Equal(t, byte(3), fb[6])
	require.Equal(t, rows3, convertCSV(t, fixed))
}

func TestV3MixedDirectory(t *testing.T) {
	dir := t.TempDir()
	writeTreeDataset(t, filepath.Join(dir, "a.tsfile"), tsfile.VersionV3)
	writeTreeDataset(t, filepath.Join(dir, "b.tsfile"), tsfile.Version)
	one := convertCSV(t, filepath.Join(dir, "a.tsfile"))
	all := convertCSV(t, dir)
	require.Equal(t, append(append([]string{}, one...), one[1:]...), all, "a v3 and a v4 file of one dataset convert as one")
	out := filepath.Join(dir, "all.parquet")
	code, _, errOut := runCLI("convert", dir, "-o", out)
	require.Equal(t, 0, code, errOut)
	// Partitioned by device, each input a part of the same partitions.
	parts := filepath.Join(t.TempDir(), "parts")
	code, _, errOut = runCLI("convert", dir, "-o", parts, "--partition-by", "device", "--format", "csv")
	require.Equal(t, 0, code, errOut)
	got, err := filepath.Glob(filepath.Join(parts, "*", "*", "*.csv"))
	require.NoError(t, err)
	require.Len(t, got, 6, strings.Join(got, "\n"))
}
