//go:build cgo && duckdb_arrow && iceberg

package query

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/icesync"
)

// TestIcebergTable: an Iceberg table synced from testdata/iotdb is the
// view iot.weather, whose statements answer what the data directory's
// weather.weather answers; its time and TAG conditions reach iceberg-go's
// scan: a one-day WHERE opens one file's unit of two, and a TAG WHERE
// hands DuckDB only that TAG's rows.
func TestIcebergTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cat := "sqlite:" + filepath.Join(dir, "cat.db")
	_, err := icesync.Sync(ctx, []string{"../testdata/iotdb"}, icesync.Options{
		Table: "weather", To: "iot.weather", Catalog: cat, Warehouse: filepath.Join(dir, "lake"),
	})
	require.NoError(t, err)
	ice, err := Open(ctx, []string{"iceberg:" + cat + "#iot.weather"}, nil)
	require.NoError(t, err)
	defer ice.Close()
	data, err := Open(ctx, []string{"../testdata/iotdb"}, nil)
	require.NoError(t, err)
	defer data.Close()

	rows := func(db *DB, q string) []string {
		rd, err := db.QueryArrow(ctx, q)
		require.NoError(t, err, q)
		defer rd.Release()
		var out []string
		for rd.Next() {
			rec := rd.RecordBatch()
			for i := range int(rec.NumRows()) {
				var cells []string
				for _, c := range rec.Columns() {
					cells = append(cells, c.ValueStr(i))
				}
				out = append(out, strings.Join(cells, ","))
			}
		}
		require.NoError(t, rd.Err())
		return out
	}
	for _, tc := range []struct {
		where       string
		units, rows int64
	}{
		{"", 2, 92},
		{"WHERE time >= '2026-01-02' AND time < '2026-01-03'", 1, 48},
		{"WHERE time BETWEEN '2026-01-01T03:00:00Z' AND '2026-01-01T05:00:00Z'", 1, 6},
		{"WHERE region = 'north'", 2, 48},
		{"WHERE plant IN ('p2', 'nope') AND time < '2026-01-02'", 1, 20},
		{"WHERE region = 'zzz'", 0, 0},
		{"WHERE temperature < 0", 2, 92},
	} {
		for _, sel := range []string{
			"SELECT * FROM %s %s ORDER BY region, time",
			"SELECT region, count(*), round(avg(temperature), 6), max(status) FROM %s %s GROUP BY region ORDER BY region",
			"SELECT time, humidity FROM %s %s ORDER BY time, humidity LIMIT 5",
		} {
			before := ice.Stats()
			got := rows(ice, fmt.Sprintf(sel, "iot.weather", tc.where))
			after := ice.Stats()
			want := rows(data, fmt.Sprintf(sel, "weather.weather", tc.where))
			require.Equal(t, want, got, "%s | %s", sel, tc.where)
			if !strings.Contains(sel, "LIMIT") {
				require.Equal(t, tc.units, after.Units-before.Units, "units of %q", tc.where)
				require.Equal(t, tc.rows, after.RowsScanned-before.RowsScanned, "rows handed to DuckDB for %q", tc.where)
			}
		}
	}
}
