//go:build cgo && duckdb_arrow

package query

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// TestObjectColumn: the fast scan gives an OBJECT column as STRUCT(size
// BIGINT, path VARCHAR), so SQL reads o.size and o.path, and a null cell
// is a NULL struct.
func TestObjectColumn(t *testing.T) {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
	}}))
	vals := tsfile.Values{Type: tsfile.Object, Null: []bool{false, true, false},
		Binaries: [][]byte{tsfile.AppendObjectCell(nil, 3, "1/OQ/MQ/N4/1.bin"), nil, append([]byte{0, 0, 0, 0, 0, 0, 0, 7}, "1/t/d/o/3.bin"...)}}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "d"), []int64{1, 2, 3}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "o", DataType: tsfile.Object}, Values: vals},
	}))
	require.NoError(t, w.Close())
	path := filepath.Join(t.TempDir(), "o.tsfile")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))

	ctx := context.Background()
	db, err := Open(ctx, []string{path}, nil)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.SQL().QueryContext(ctx, "SELECT o.size, o.path, o IS NULL FROM t ORDER BY time")
	require.NoError(t, err)
	defer rows.Close()
	type row struct {
		size sql.NullInt64
		path sql.NullString
		null bool
	}
	var got []row
	for rows.Next() {
		var r row
		require.NoError(t, rows.Scan(&r.size, &r.path, &r.null))
		got = append(got, r)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []row{
		{sql.NullInt64{Int64: 3, Valid: true}, sql.NullString{String: "1/OQ/MQ/N4/1.bin", Valid: true}, false},
		{null: true},
		{sql.NullInt64{Int64: 7, Valid: true}, sql.NullString{String: "1/t/d/o/3.bin", Valid: true}, false},
	}, got)
	var total int64
	require.NoError(t, db.SQL().QueryRowContext(ctx, "SELECT sum(o.size) FROM t WHERE o.path LIKE '1/t/%'").Scan(&total))
	require.EqualValues(t, 7, total)
}
