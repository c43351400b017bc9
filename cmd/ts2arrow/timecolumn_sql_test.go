//go:build cgo && duckdb_arrow

package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSQLCLITimeColumn: ts2arrow sql sees the time column of a table whose
// schema records a TIME column "id" as id (a filter on it is the scan's
// time range: package query's TestSQLTimeColumn checks the pushdown), and
// the FIELD named "time" beside it as a column of its own values (SQL
// results are in DuckDB's microseconds).
func TestSQLCLITimeColumn(t *testing.T) {
	code, out, stderr := runCLI("sql", timeColumnFile, "--format", "csv", "--time-format", "epoch", "-c",
		`SELECT id, station, "time" FROM plant WHERE id >= TIMESTAMPTZ '2023-11-14 22:13:24+00' ORDER BY ALL`)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "id,station,time\n1700000004000000,s1,4\n1700000004000000,s1,204\n1700000004000000,s2,104\n", out)

	code, out, stderr = runCLI("sql", timeColumnFile, "--format", "csv", "-c",
		`SELECT column_name FROM (DESCRIBE plant)`)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "column_name\nid\nregion\nstation\ntemp\ntime\n", out)
}
