//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSQLTimeColumn: in a table whose schema records its time column as a
// TIME column "id" (testdata/timecolumn.tsfile), SQL sees the time column
// as "id", and a filter on id is pushed down to the scan as a time range
// (on the FIELD named "time" it is not: that column is no time); the rows
// agree with and without the pushdown.
func TestSQLTimeColumn(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "timecolumn.tsfile"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "plant.tsfile")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	ctx := context.Background()
	db, err := Open(ctx, []string{path}, nil)
	require.NoError(t, err)
	defer db.Close()

	var plant *tableMeta
	for i := range db.metas {
		if db.metas[i].Name == "plant" {
			plant = &db.metas[i]
		}
	}
	require.NotNil(t, plant)
	require.Equal(t, "id", plant.Time)
	for _, tb := range db.Tables() {
		want := map[string]string{"plant": "id", "py": "time"}[tb.Name]
		require.Equal(t, want, tb.Time, tb.Name)
		require.Equal(t, want, tb.Arrow.Field(0).Name, tb.Name)
	}

	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	run := func(t *testing.T, q string, push bool) ([]string, pushdown) {
		qctx := ctx
		var pd pushdown
		if push {
			m, err := planPushdown(ctx, conn, q, db.metas)
			require.NoError(t, err)
			pd = m[plant.ID]
			qctx = withPushdown(ctx, m)
		}
		rs, err := conn.QueryContext(qctx, q)
		require.NoError(t, err)
		defer rs.Close()
		cols, err := rs.Columns()
		require.NoError(t, err)
		var out []string
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rs.Scan(ptrs...))
			out = append(out, strings.TrimSpace(fmt.Sprintln(vals...)))
		}
		require.NoError(t, rs.Err())
		return out, pd
	}
	const t3 = 1_700_000_003_000 // the fourth row of each device
	for _, tc := range []struct {
		name      string
		q         string
		start     int64 // the pushed-down start; 0: none
		stationS2 bool  // a TAG pushed down
		rows      []string
	}{
		{"id", `SELECT epoch_ms(id), region, station, temp, "time" FROM plant WHERE id >= TIMESTAMPTZ '2023-11-14 22:13:23+00' ORDER BY ALL`, t3, false,
			[]string{"1700000003000 north s1 3 3", "1700000003000 north s2 13 103", "1700000003000 south s1 23 203",
				"1700000004000 north s1 4 4", "1700000004000 north s2 14 104", "1700000004000 south s1 24 204"}},
		{"id and the second tag", `SELECT epoch_ms(id), "time" FROM plant WHERE id >= TIMESTAMPTZ '2023-11-14 22:13:23+00' AND station = 's2' ORDER BY ALL`, t3, true,
			[]string{"1700000003000 103", "1700000004000 104"}},
		{"the FIELD time", `SELECT station, "time" FROM plant WHERE "time" >= 203 ORDER BY ALL`, 0, false,
			[]string{"s1 203", "s1 204"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, _ := run(t, tc.q, false)
			on, pd := run(t, tc.q, true)
			require.Equal(t, tc.rows, off)
			require.Equal(t, off, on)
			require.Equal(t, tc.start != 0, pd.HasStart, "pushdown %+v", pd)
			if tc.start != 0 {
				require.Equal(t, tc.start, pd.Start)
			}
			require.False(t, pd.HasEnd)
			require.Equal(t, tc.stationS2, len(pd.Tags["station"]) == 1, "pushdown %+v", pd)
		})
	}

	// QueryArrow, which plans the pushdown itself, names the column id.
	rr, err := db.QueryArrow(ctx, `SELECT id, "time" FROM plant WHERE id > TIMESTAMPTZ '2023-11-14 22:13:23+00' AND region = 'south'`)
	require.NoError(t, err)
	defer rr.Release()
	require.Equal(t, "id", rr.Schema().Field(0).Name)
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	require.NoError(t, rr.Err())
	require.Equal(t, 1, n)
}
