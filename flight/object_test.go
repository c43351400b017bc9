package flight

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestObjectFlight: a table with an OBJECT column streams its references
// as arrowconv.ObjectType, null cells as null structs.
func TestObjectFlight(t *testing.T) {
	root := t.TempDir()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
	}}))
	vals := tsfile.Values{Type: tsfile.Object, Null: []bool{false, true},
		Binaries: [][]byte{tsfile.AppendObjectCell(nil, 3, "1/OQ/MQ/N4/1.bin"), nil}}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "d"), []int64{1, 2}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "o", DataType: tsfile.Object}, Values: vals},
	}))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(filepath.Join(root, "o.tsfile"), buf.Bytes(), 0o644))

	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("t"))
	require.Len(t, fi.Endpoint, 1)
	rows, sc := doGet(t, context.Background(), c, fi.Endpoint[0])
	o := sc.Field(sc.FieldIndices("o")[0])
	require.True(t, arrow.TypeEqual(arrowconv.ObjectType, o.Type), "%s", o.Type)
	require.Len(t, rows, 2)
	require.Contains(t, rows[0], `"path":"1/OQ/MQ/N4/1.bin"`)
	require.Contains(t, rows[0], `"size":3`)
	require.Contains(t, rows[1], "∅")
}
