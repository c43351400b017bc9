//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql/driver"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestMeasurePaths times SELECT count(*), sum(x) over 10M rows (100
// devices of 100,000) through each way of handing arrowconv's output to
// DuckDB, against DuckDB over the same rows as ZSTD Parquet. It measures,
// it asserts only the answers; run with TSARROW_SQL_MEASURE=dir (the
// TsFile and Parquet are kept there between runs) and -v.
func TestMeasurePaths(t *testing.T) {
	dir := os.Getenv("TSARROW_SQL_MEASURE")
	if dir == "" {
		t.Skip("set TSARROW_SQL_MEASURE=dir to measure")
	}
	const devices, rows = 100, 100_000
	path := filepath.Join(dir, "m.tsfile")
	if _, err := os.Stat(path); err != nil {
		start := time.Now()
		require.NoError(t, os.WriteFile(path, writeTable(t, devices, rows), 0o644))
		t.Logf("wrote %s in %v", path, time.Since(start))
	}
	wantN := int64(devices * rows)
	wantX := float64(int64(devices)*int64(rows)*int64(rows-1)/2) / 2
	ctx := context.Background()
	db, err := Open(ctx, []string{path}, nil)
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	check := func(label string, q string, args ...any) {
		var n int64
		var x float64
		start := time.Now()
		require.NoError(t, conn.QueryRowContext(ctx, q, args...).Scan(&n, &x))
		el := time.Since(start)
		require.Equal(t, wantN, n, label)
		require.Equal(t, wantX, x, label)
		t.Logf("%-28s %8.1f ms  %6.1f ns/row", label, float64(el.Microseconds())/1000, float64(el.Nanoseconds())/float64(wantN))
	}
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	// Go alone: the arrowconv scan of time and x, summing in Go.
	start := time.Now()
	rd, err := arrowconv.NewTableReader(f, "t", &arrowconv.Options{Columns: []string{"x"}})
	require.NoError(t, err)
	var n int64
	var x float64
	for rd.Next() {
		rec := rd.RecordBatch()
		n += rec.NumRows()
		for _, v := range rec.Column(1).(*array.Float64).Float64Values() {
			x += v
		}
	}
	require.NoError(t, rd.Err())
	rd.Release()
	el := time.Since(start)
	require.Equal(t, wantN, n)
	t.Logf("%-28s %8.1f ms  %6.1f ns/row", "arrowconv alone (Go sum)", float64(el.Microseconds())/1000, float64(el.Nanoseconds())/float64(wantN))

	check("table UDF (query.Open)", "SELECT count(*), sum(x) FROM t")

	// count(time) makes DuckDB project both columns of the view, in order:
	// the C API's arrow scan does not apply a projection (or a filter) it
	// pushes, so any other projection reads the wrong columns.
	require.NoError(t, conn.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		require.NoError(t, err)
		rd, err := arrowconv.NewTableReader(f, "t", &arrowconv.Options{Columns: []string{"x"}})
		require.NoError(t, err)
		defer rd.Release()
		start := time.Now()
		release, err := ar.RegisterView(rd, "v")
		require.NoError(t, err)
		defer release()
		res, err := ar.QueryContext(ctx, "SELECT count(time), sum(x) FROM v")
		require.NoError(t, err)
		defer res.Release()
		require.True(t, res.Next())
		rec := res.RecordBatch()
		el := time.Since(start)
		require.Equal(t, wantN, rec.Column(0).(*array.Int64).Value(0))
		require.Equal(t, wantX, rec.Column(1).(*array.Float64).Value(0))
		t.Logf("%-28s %8.1f ms  %6.1f ns/row", "RegisterView (Arrow C stream)", float64(el.Microseconds())/1000, float64(el.Nanoseconds())/float64(wantN))
		return nil
	}))

	pq := filepath.Join(dir, "m.parquet")
	if _, err := os.Stat(pq); err != nil {
		start := time.Now()
		_, err := conn.ExecContext(ctx, "COPY (SELECT * FROM t) TO '"+pq+"' (FORMAT parquet, COMPRESSION zstd)")
		require.NoError(t, err)
		t.Logf("wrote %s in %v", pq, time.Since(start))
	}
	check("DuckDB over ZSTD Parquet", "SELECT count(*), sum(x) FROM read_parquet(?)", pq)
	check("table UDF again", "SELECT count(*), sum(x) FROM t")
	check("DuckDB over Parquet again", "SELECT count(*), sum(x) FROM read_parquet(?)", pq)
	for _, s := range []string{path, pq} {
		st, err := os.Stat(s)
		require.NoError(t, err)
		t.Logf("%s: %d bytes", s, st.Size())
	}
}
