//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfine: a confined DB (what serve gives Flight SQL clients) answers
// over its tables and refuses every way a statement could read the host's
// other files: DuckDB's own readers, glob(), tsfile() and FROM 'x.tsfile'.
// The same statements work on an unconfined DB, so each refusal is the
// confinement's and not some other error's.
func TestConfine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.tsfile")
	require.NoError(t, os.WriteFile(path, writeTable(t, 1, 10), 0o644))
	other := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.MkdirAll(other, 0o755))
	secret := filepath.Join(other, "s.csv")
	require.NoError(t, os.WriteFile(secret, []byte("a\nhidden\n"), 0o644))
	otherTs := filepath.Join(other, "o.tsfile")
	require.NoError(t, os.WriteFile(otherTs, writeTable(t, 1, 3), 0o644))

	ctx := context.Background()
	statements := []string{
		"SELECT * FROM read_csv('" + secret + "')",
		"SELECT * FROM read_text('" + secret + "')",
		"SELECT * FROM '" + secret + "'",
		"SELECT * FROM glob('" + other + "/*')",
		"SELECT * FROM tsfile('" + otherTs + "')",
		"SELECT * FROM '" + otherTs + "'",
	}
	run := func(db *DB, q string) (int64, error) {
		rd, err := db.QueryArrow(ctx, q)
		if err != nil {
			return 0, err
		}
		defer rd.Release()
		var n int64
		for rd.Next() {
			n += rd.RecordBatch().NumRows()
		}
		return n, rd.Err()
	}

	open, err := Open(ctx, []string{path}, nil)
	require.NoError(t, err)
	defer open.Close()
	for _, q := range statements {
		n, err := run(open, q)
		require.NoError(t, err, q)
		require.Positive(t, n, q)
	}

	confined, err := Open(ctx, []string{path}, &Options{Confine: true})
	require.NoError(t, err)
	defer confined.Close()
	n, err := run(confined, "SELECT * FROM t")
	require.NoError(t, err)
	require.Equal(t, int64(10), n)
	for _, q := range statements {
		_, err := run(confined, q)
		require.Error(t, err, q)
		t.Logf("%s: %v", q, err)
	}
	_, err = run(confined, "SELECT * FROM tsfile('"+otherTs+"')")
	require.ErrorContains(t, err, errConfined.Error())
}

// TestNumInput: NumInput counts parameters without running anything and
// without handing out a handle (the catalog snapshot stays in use), and
// refuses what QueryArrow refuses: a second statement, which preparing
// would run, and writes.
func TestNumInput(t *testing.T) {
	db, _ := openTable(t, 1, 10)
	ctx := context.Background()
	for q, want := range map[string]int{
		"SELECT * FROM t":                           0,
		"SELECT * FROM t WHERE v > ? AND v < ?":     2,
		"SELECT * FROM t WHERE time >= $1 LIMIT $2": 2,
	} {
		n, err := db.NumInput(ctx, q)
		require.NoError(t, err, q)
		require.Equal(t, want, n, q)
	}
	for _, q := range []string{"DROP VIEW t; SELECT 1", "DROP VIEW t", "CREATE MACRO m() AS 1"} {
		_, err := db.NumInput(ctx, q)
		require.ErrorIs(t, err, ErrReadOnly, q)
	}
	db.plan.mu.Lock()
	handed := db.plan.handed
	db.plan.mu.Unlock()
	require.False(t, handed, "NumInput handed out a handle")
	require.Equal(t, int64(10), count(t, db.SQL(), "SELECT count(*) FROM t"), "the view is still there")
}
