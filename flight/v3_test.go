package flight

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// writeTreeFile writes a small tree-model file in format version v.
func writeTreeFile(t *testing.T, path string, v byte, t0 int64) {
	t.Helper()
	fh, err := os.Create(path)
	require.NoError(t, err)
	w, err := tsfile.NewWriter(fh, &tsfile.WriteOptions{Version: v})
	require.NoError(t, err)
	for i, dev := range []string{"root.sg1.d1", "root.sg1.d2"} {
		times := []int64{t0 + 1, t0 + 2, t0 + 3}
		require.NoError(t, w.WriteAligned(tsfile.ParseTreePath(dev), times, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "temperature", DataType: tsfile.Double}, Values: tsfile.Values{Type: tsfile.Double, Float64s: []float64{1.5, float64(i), 3}}},
			{SeriesSchema: tsfile.SeriesSchema{Name: "status", DataType: tsfile.Boolean}, Values: tsfile.Values{Type: tsfile.Boolean, Bools: []bool{true, false, true}, Null: []bool{false, true, false}}},
		}))
	}
	require.NoError(t, w.Close())
	require.NoError(t, fh.Close())
}

// TestV3AndV4FilesServeAsOneTable serves a directory holding a TsFile v3
// and a v4 file of one tree-model dataset: the table's flight spans both,
// skips neither, and streams what arrowconv reads from each.
func TestV3AndV4FilesServeAsOneTable(t *testing.T) {
	root := t.TempDir()
	v3, v4 := filepath.Join(root, "a-v3.tsfile"), filepath.Join(root, "b-v4.tsfile")
	writeTreeFile(t, v3, tsfile.VersionV3, 0)
	writeTreeFile(t, v4, tsfile.Version, 100)

	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("root.sg1"))
	require.NotContains(t, string(fi.AppMetadata), "skipped")
	got := readFlight(t, context.Background(), c, fi)
	want := localRows(t, nil, "root.sg1", v3, v4)
	require.Len(t, want, 12)
	require.ElementsMatch(t, want, got)
	// Each file alone.
	require.ElementsMatch(t, localRows(t, nil, "root.sg1", v3), readFlight(t, context.Background(), c, getInfo(t, c, pathDesc("a-v3.tsfile", "root.sg1"))))
}
