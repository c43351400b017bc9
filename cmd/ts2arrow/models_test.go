package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

func writeFile(t *testing.T, path string, fn func(w *tsfile.Writer)) {
	t.Helper()
	fh, err := os.Create(path)
	require.NoError(t, err)
	w, err := tsfile.NewWriter(fh, nil)
	require.NoError(t, err)
	fn(w)
	require.NoError(t, w.Close())
	require.NoError(t, fh.Close())
}

func i64(v ...int64) tsfile.Values { return tsfile.Values{Type: tsfile.Int64, Int64s: v} }

func TestSeveralTablesNeedTable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "two.tsfile")
	writeFile(t, path, func(w *tsfile.Writer) {
		for _, name := range []string{"alpha", "beta"} {
			require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: name, Columns: []tsfile.Column{
				{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
				{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
			}}))
			require.NoError(t, w.WriteAligned(tsfile.NewDeviceID(name, "x"), []int64{1, 2}, []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64}, Values: i64(10, 20)},
			}))
		}
	})
	code, _, stderr := runCLI("convert", "--time-format", "epoch", path, "-o", filepath.Join(dir, "o.csv"))
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "several tables")
	require.Contains(t, stderr, "alpha, beta")
	_, err := os.Stat(filepath.Join(dir, "o.csv"))
	require.True(t, os.IsNotExist(err))

	code, out, stderr := runCLI("convert", path, "--table", "beta", "-o", "-", "--format", "csv", "--time-format", "epoch")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "time,id,v\n1,x,10\n2,x,20\n", out)
}

func TestTreeModelConvert(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tree.tsfile")
	writeFile(t, path, func(w *tsfile.Writer) {
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg1", "d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Times: []int64{1, 3}, Values: i64(7, 8)},
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Text}, Times: []int64{2, 3}, Values: tsfile.Values{Type: tsfile.Text, Binaries: [][]byte{[]byte("a"), []byte("b")}}},
		}))
		// An aligned device in the same tree-model file.
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("root.sg2", "d9"), []int64{5}, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Values: i64(9)},
		}))
	})
	code, out, stderr := runCLI("convert", path, "-o", "-", "--format", "csv", "--time-format", "epoch")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, "time,device,s2,s1", lines[0], "measurements in the order their chunks were written")
	require.Equal(t, []string{"1,root.sg1.d1,7,", "2,root.sg1.d1,,a", "3,root.sg1.d1,8,b", "5,root.sg2.d9,9,"}, lines[1:])

	code, out, _ = runCLI("inspect", path)
	require.Equal(t, 0, code)
	require.Contains(t, out, "table root.sg1 (tree model, 1 devices)")
	require.Contains(t, out, "device root.sg2.d9 (aligned, 1 rows)")
}
