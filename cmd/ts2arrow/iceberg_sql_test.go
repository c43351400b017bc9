//go:build cgo && duckdb_arrow && iceberg

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIcebergSQL: sql's view iot.weather over the Iceberg input answers
// what weather.weather answers over the data directory it was synced
// from, WHERE on time and on a TAG included.
func TestIcebergSQL(t *testing.T) {
	in := icebergWork(t)
	for _, q := range []string{
		"SELECT * FROM %s ORDER BY region, time",
		"SELECT region, count(*) AS n, round(avg(temperature), 6) AS t FROM %s WHERE time >= '2026-01-02' GROUP BY region ORDER BY region",
		"SELECT time, temperature, status FROM %s WHERE plant = 'p2' AND time BETWEEN '2026-01-01T02:00:00Z' AND '2026-01-01T20:00:00Z' ORDER BY time",
		"SELECT count(*) AS n FROM %s WHERE region IN ('north', 'none') AND humidity > 65",
	} {
		code, got, stderr := runCLI("sql", in, "--format", "csv", "-c", strings.ReplaceAll(q, "%s", "iot.weather"))
		require.Equal(t, 0, code, stderr)
		code, want, stderr := runCLI("sql", "iotdb", "--format", "csv", "-c", strings.ReplaceAll(q, "%s", "weather.weather"))
		require.Equal(t, 0, code, stderr)
		require.Equal(t, want, got, q)
		require.Greater(t, strings.Count(got, "\n"), 1, q)
	}
}
