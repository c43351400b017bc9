//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMeasureScan times the fast path (registered tables, tsfile(path))
// against DuckDB over the same rows as ZSTD Parquet, on the 10M-row
// file of TestMeasurePaths (100 devices of 100,000 rows; written here if
// absent): SELECT count(*), sum(x), and a GROUP BY over the TAG. It
// measures, it asserts only the answers; run with TSARROW_SQL_MEASURE=dir
// and -v. Figures of one run compare; the box's spread is ±30%.
func TestMeasureScan(t *testing.T) {
	dir := os.Getenv("TSARROW_SQL_MEASURE")
	if dir == "" {
		t.Skip("set TSARROW_SQL_MEASURE=dir to measure")
	}
	const devices, rows = 100, 100_000
	path := filepath.Join(dir, "m.tsfile")
	if _, err := os.Stat(path); err != nil {
		require.NoError(t, os.WriteFile(path, writeTable(t, devices, rows), 0o644))
	}
	reg := newTestRegistry()
	reg.addFile(t, "m", path, fileOptions{})
	reg.addFile(t, "w1", path, fileOptions{workers: 1})
	_, conn := openScanDB(t, reg)
	ctx := context.Background()
	// The real path: query.Open's tables (sqlcore's units) on the fast path.
	qdb, err := Open(ctx, []string{path}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { qdb.Close() })
	qconn, err := qdb.Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { qconn.Close() })
	for _, id := range []string{"m.t"} {
		st, _ := reg.lookup(id)
		registerTable(st)
		t.Cleanup(func() { unregisterTables([]string{id}) })
	}
	pq := filepath.Join(dir, "m.parquet")
	if _, err := os.Stat(pq); err != nil {
		_, err := conn.ExecContext(ctx, "COPY (SELECT * FROM tsfile_scan('m.t')) TO '"+pq+"' (FORMAT parquet, COMPRESSION zstd)")
		require.NoError(t, err)
	}
	wantN := int64(devices * rows)
	wantX := float64(int64(devices)*int64(rows)*int64(rows-1)/2) / 2
	// TSARROW_SQL_PATHS=substring runs only the paths whose label holds it
	// (for a profile of one path).
	only := os.Getenv("TSARROW_SQL_PATHS")
	sum := func(label, from string) {
		if !strings.Contains(label, only) {
			return
		}
		var n int64
		var x float64
		cpu0 := cpuTime()
		start := time.Now()
		c := conn
		if strings.HasPrefix(label, "query.Open") || strings.HasPrefix(label, "tsfile(") {
			c = qconn
		}
		require.NoError(t, c.QueryRowContext(ctx, "SELECT count(*), sum(x) FROM "+from).Scan(&n, &x))
		el, cpu := time.Since(start), cpuTime()-cpu0
		require.Equal(t, wantN, n, label)
		require.Equal(t, wantX, x, label)
		t.Logf("%-44s %8.1f ms  %6.1f ns/row  cpu %6.1f ns/row", label+" count,sum", float64(el.Microseconds())/1000, float64(el.Nanoseconds())/float64(wantN), float64(cpu)/float64(wantN))
	}
	group := func(label, from string) {
		if !strings.Contains(label, only) {
			return
		}
		cpu0 := cpuTime()
		start := time.Now()
		c := conn
		if strings.HasPrefix(label, "query.Open") || strings.HasPrefix(label, "tsfile(") {
			c = qconn
		}
		rs, err := c.QueryContext(ctx, "SELECT region, count(*), avg(x), max(v) FROM "+from+" GROUP BY ALL")
		require.NoError(t, err)
		var groups, n int64
		for rs.Next() {
			var region string
			var c, mv int64
			var ax float64
			require.NoError(t, rs.Scan(&region, &c, &ax, &mv))
			require.Equal(t, int64(rows-1), mv)
			groups++
			n += c
		}
		require.NoError(t, rs.Err())
		rs.Close()
		el, cpu := time.Since(start), cpuTime()-cpu0
		require.Equal(t, int64(devices), groups, label)
		require.Equal(t, wantN, n, label)
		t.Logf("%-44s %8.1f ms  %6.1f ns/row  cpu %6.1f ns/row", label+" group by", float64(el.Microseconds())/1000, float64(el.Nanoseconds())/float64(wantN), float64(cpu)/float64(wantN))
	}
	pqFrom := "read_parquet('" + pq + "')"
	for range 3 {
		sum("tsfile_scan (fast path)", "tsfile_scan('m.t')")
		sum("tsfile_scan (fast path, 1 worker)", "tsfile_scan('w1.t')")
		sum("query.Open (fast path, sqlcore's units)", "t")
		sum("read_parquet ZSTD", pqFrom)
		sum("tsfile(path) (ad hoc, fast path)", "tsfile('"+path+"')")
		group("tsfile_scan (fast path)", "tsfile_scan('m.t')")
		group("tsfile_scan (fast path, 1 worker)", "tsfile_scan('w1.t')")
		group("query.Open (fast path, sqlcore's units)", "t")
		group("read_parquet ZSTD", pqFrom)
		group("tsfile(path) (ad hoc, fast path)", "tsfile('"+path+"')")
	}
}

// cpuTime is the user+system CPU time of the process so far: on a shared
// box it moves less than wall time with the other processes' load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
