//go:build cgo && duckdb_arrow

package query

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// openDB opens an in-memory DuckDB and one connection on it (table
// functions are registered per connection).
func openDB(t testing.TB) (*sql.DB, *sql.Conn) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return db, conn
}

func TestSelect42(t *testing.T) {
	_, conn := openDB(t)
	var n int
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT 42").Scan(&n))
	require.Equal(t, 42, n)
	var v string
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT version()").Scan(&v))
	t.Logf("DuckDB %s", v)
}

// TestJSONSerializeSQL checks that DuckDB's own parser is reachable as
// json_serialize_sql, the sound way to read a query's WHERE conjuncts for
// pushdown (issue 38 point 3).
func TestJSONSerializeSQL(t *testing.T) {
	_, conn := openDB(t)
	var js string
	require.NoError(t, conn.QueryRowContext(context.Background(),
		`SELECT json_serialize_sql('SELECT * FROM t WHERE time >= 10 AND region IN (''a'', ''b'')')::VARCHAR`).Scan(&js))
	require.Contains(t, js, `"error":false`)
	require.Contains(t, js, "COMPARE_GREATERTHANOREQUALTO")
	require.Contains(t, js, "COMPARE_IN")
}

// writeTable writes a table "t" (TAG region, FIELD v INT64, FIELD x
// DOUBLE) of devices devices with rows rows each: time i, v = i, x = i/2.
func writeTable(t testing.TB, devices, rows int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
		{Name: "x", DataType: tsfile.Double, Category: tsfile.Field},
	}}))
	times, vs, xs := make([]int64, rows), make([]int64, rows), make([]float64, rows)
	for i := range times {
		times[i], vs[i], xs[i] = int64(i), int64(i), float64(i)/2
	}
	for d := range devices {
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", fmt.Sprintf("r%04d", d)), times, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64, Encoding: encoding.TS2Diff}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: vs}},
			{SeriesSchema: tsfile.SeriesSchema{Name: "x", DataType: tsfile.Double, Encoding: encoding.Gorilla}, Values: tsfile.Values{Type: tsfile.Double, Float64s: xs}},
		}))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// openTable writes writeTable's file and opens a DB over it.
func openTable(t testing.TB, devices, rows int) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.tsfile")
	require.NoError(t, os.WriteFile(path, writeTable(t, devices, rows), 0o644))
	db, err := Open(context.Background(), []string{path}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db, path
}

// watchUnits records the projection each scan of the DB's table asks for.
func watchUnits(t testing.TB, db *DB) *[][]int {
	t.Helper()
	var seen [][]int
	st, err := lookupTable(db.ids[0])
	require.NoError(t, err)
	units := st.Units
	st.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		seen = append(seen, append([]int(nil), cols...))
		return units(ctx, cols, pd)
	}
	return &seen
}

// TestTableUDFCount checks count and sums through the view against the
// rows written, and that DuckDB's projection reached the scan.
func TestTableUDFCount(t *testing.T) {
	const devices, rows = 3, 5000
	db, _ := openTable(t, devices, rows)
	seen := watchUnits(t, db)
	ctx := context.Background()
	var n, sumV int64
	var sumX float64
	require.NoError(t, db.SQL().QueryRowContext(ctx, "SELECT count(*), sum(v), sum(x) FROM t").Scan(&n, &sumV, &sumX))
	wantV := int64(devices) * int64(rows) * int64(rows-1) / 2
	require.Equal(t, int64(devices*rows), n)
	require.Equal(t, wantV, sumV)
	require.Equal(t, float64(wantV)/2, sumX)
	require.Equal(t, []int{2, 3}, (*seen)[len(*seen)-1], "DuckDB should project v and x only")
	// One file of three devices: a unit per device, for DuckDB's threads.
	require.Equal(t, min(int64(devices), int64(unitsPerScan())), db.Stats().Units)

	var regions int64
	require.NoError(t, db.SQL().QueryRowContext(ctx,
		"SELECT count(DISTINCT region) FROM t WHERE time >= epoch_ms(10) AND time < epoch_ms(20)").Scan(&regions))
	require.Equal(t, int64(devices), regions)
	require.Equal(t, []int{0, 1}, (*seen)[len(*seen)-1], "DuckDB should project time and region")
	require.Equal(t, int64(devices*rows)*2, db.Stats().RowsScanned)
}

// TestReplacementScan makes FROM 'x.tsfile' read through tsfile(), as
// DuckDB does for 'x.parquet', on every connection of the database.
func TestReplacementScan(t *testing.T) {
	db, path := openTable(t, 2, 100)
	ctx := context.Background()
	for range 2 {
		conn, err := db.Conn(ctx)
		require.NoError(t, err)
		var n int64
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT count(*) FROM '"+path+"'").Scan(&n))
		require.Equal(t, int64(200), n)
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT count(*) FROM tsfile(?, \"table\" := 't')", path).Scan(&n))
		require.Equal(t, int64(200), n)
		conn.Close()
	}
}
