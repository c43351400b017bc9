//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"
)

// TestPlanPushdownCached plans every statement of TestPlanPushdown twice,
// reading the catalog per statement and from one snapshot of it, in each
// statement's time zone (which the snapshot does not hold): the maps must
// be equal, and as TestPlanPushdown wants them. Then a macro made after the
// snapshot shows that the snapshot is what the second path reads.
func TestPlanPushdownCached(t *testing.T) {
	conn := pdOpen(t)
	ctx := context.Background()
	cat, err := loadCatalog(ctx, conn, pdTables)
	require.NoError(t, err)
	snap := func() (*pdCatalog, error) { return cat, nil }
	cases := planCases()
	require.Len(t, cases, 73)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setZone(t, conn, tc.tz)
			live, err := planPushdown(ctx, conn, tc.q, pdTables)
			require.NoError(t, err)
			cached, miss, err := planPushdownWith(ctx, conn, tc.q, pdTables, snap)
			require.False(t, miss, "every function these statements call is listed")
			require.NoError(t, err)
			require.Equal(t, live, cached)
			require.Equal(t, tc.want, cached)
		})
	}
	setZone(t, conn, "")
	q := `SELECT * FROM t WHERE time >= epoch_ms(1704067200000)`
	_, err = conn.ExecContext(ctx, `CREATE MACRO epoch_ms(x) AS now()`)
	require.NoError(t, err)
	live, err := planPushdown(ctx, conn, q, pdTables)
	require.NoError(t, err)
	require.Empty(t, live)
	stale, _, err := planPushdownWith(ctx, conn, q, pdTables, snap)
	require.NoError(t, err)
	// The stale snapshot still takes epoch_ms for the built-in and
	// evaluates the macro (now()) as a constant: a wrong Start, which is
	// why a DB must not use a snapshot once the catalog may change.
	require.Contains(t, stale, "t", "the snapshot, taken before the macro, is what is read")
	require.True(t, stale["t"].HasStart && stale["t"].Start > ms20240101, "%+v", stale)
}

// TestPlanCatalogBypass checks when a DB stops trusting its catalog
// snapshot: once SQL or Conn was handed out (the user may then create a
// macro shadowing a built-in), around an EXPLAIN ANALYZE QueryArrow ran
// (it runs the statement it explains), and always for Register's DB.
// Each DB first plans with its snapshot, then gets a macro epoch_ms that
// shadows the built-in, and must then push nothing.
func TestPlanCatalogBypass(t *testing.T) {
	const q = `SELECT * FROM t WHERE time >= epoch_ms(10) AND region = 'r0001'`
	const macro = `CREATE MACRO epoch_ms(x) AS now()`
	ctx := context.Background()
	want := map[string]pushdown{}
	plan := func(t *testing.T, db *DB, conn *sql.Conn) map[string]pushdown {
		t.Helper()
		if conn == nil {
			c, err := db.db.Conn(ctx) // not db.Conn, which hands the catalog out
			require.NoError(t, err)
			defer c.Close()
			conn = c
		}
		pd, end, err := db.planFor(ctx, conn, q, duckdb.STATEMENT_TYPE_SELECT)
		require.NoError(t, err)
		end()
		return pd
	}
	open := func(t *testing.T) *DB {
		db, _ := openTable(t, 2, 100)
		require.Len(t, db.metas, 1)
		want = map[string]pushdown{db.metas[0].ID: {Start: 10, HasStart: true, Tags: map[string][]string{"region": {"r0001"}}}}
		require.Equal(t, want, plan(t, db, nil))
		require.NotNil(t, db.plan.cat, "the snapshot is taken")
		require.Contains(t, db.plan.plans, q, "the plan is kept")
		require.Equal(t, want, plan(t, db, nil), "the plan kept")
		return db
	}
	t.Run("SQL", func(t *testing.T) {
		db := open(t)
		_, err := db.SQL().ExecContext(ctx, macro)
		require.NoError(t, err)
		require.Empty(t, plan(t, db, nil))
	})
	t.Run("Conn", func(t *testing.T) {
		db := open(t)
		conn, err := db.Conn(ctx)
		require.NoError(t, err)
		defer conn.Close()
		_, err = conn.ExecContext(ctx, macro)
		require.NoError(t, err)
		require.Empty(t, plan(t, db, conn))
		require.Empty(t, plan(t, db, nil))
	})
	t.Run("EXPLAIN ANALYZE", func(t *testing.T) {
		db := open(t)
		// A kept statement skips the read-only check: one that is not
		// read-only is never kept.
		_, err := db.QueryArrow(ctx, macro)
		require.ErrorIs(t, err, ErrReadOnly)
		_, err = db.QueryArrow(ctx, macro)
		require.ErrorIs(t, err, ErrReadOnly)
		rr, err := db.QueryArrow(ctx, q)
		require.NoError(t, err)
		n := 0
		for rr.Next() {
			n += int(rr.RecordBatch().NumRows())
		}
		rr.Release()
		require.Equal(t, 90, n, "rows 10..99 of device r0001, from the kept plan")
		// EXPLAIN ANALYZE would run the CREATE MACRO: refused
		// (checkExplain), so the macro never exists and the snapshot
		// still plans.
		_, err = db.QueryArrow(ctx, "EXPLAIN ANALYZE "+macro)
		require.ErrorIs(t, err, ErrReadOnly)
		require.NotEmpty(t, plan(t, db, nil))
		rr, err = db.QueryArrow(ctx, "EXPLAIN ANALYZE "+q)
		require.NoError(t, err)
		for rr.Next() {
		}
		require.NoError(t, rr.Err())
		rr.Release()
		require.NotEmpty(t, plan(t, db, nil))
	})
	t.Run("unlisted function", func(t *testing.T) {
		// A call of a function DuckDB does not list may autoload an
		// extension: the snapshot is dropped, to be read again.
		db := open(t)
		conn, err := db.db.Conn(ctx)
		require.NoError(t, err)
		defer conn.Close()
		pd, end, err := db.planFor(ctx, conn, `SELECT * FROM t WHERE time >= no_such_function(1)`, duckdb.STATEMENT_TYPE_SELECT)
		require.NoError(t, err)
		end()
		require.Empty(t, pd)
		require.True(t, db.plan.cat == nil, "the snapshot is dropped")
		require.Equal(t, want, plan(t, db, nil))
	})
	t.Run("Register", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "t.tsfile")
		require.NoError(t, os.WriteFile(path, writeTable(t, 2, 100), 0o644))
		_, conn := openDB(t)
		db, err := Register(ctx, conn, []string{path}, nil)
		require.NoError(t, err)
		defer db.Close()
		want := map[string]pushdown{db.metas[0].ID: {Start: 10, HasStart: true, Tags: map[string][]string{"region": {"r0001"}}}}
		require.Equal(t, want, plan(t, db, conn))
		_, err = conn.ExecContext(ctx, macro)
		require.NoError(t, err)
		require.Empty(t, plan(t, db, conn))
		require.True(t, db.plan.cat == nil, "Register's DB takes no snapshot")
	})
}
