//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// allRows returns every row of a query as text, in the query's order.
func allRows(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		fmt.Fprintln(&b, vals...)
	}
	require.NoError(t, rows.Err())
	return b.String()
}

// TestObjectDataDir: the bundled IoTDB data directory in a bucket
// (versitygw) is resolved as the local one: the same DuckDB tables and,
// table by table, the same rows, deletions and overwrites applied.
func TestObjectDataDir(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "backup/iotdb", "../testdata/iotdb")
	ctx := context.Background()
	local, err := Open(ctx, []string{"../testdata/iotdb"}, nil)
	require.NoError(t, err)
	defer local.Close()
	remote, err := Open(ctx, []string{"s3://" + bucket + "/backup/iotdb/"}, nil)
	require.NoError(t, err)
	defer remote.Close()
	var names []string
	for _, tb := range remote.Tables() {
		names = append(names, tb.Schema+"."+tb.Name)
	}
	require.Equal(t, []string{"main.root.sg", "weather.weather"}, names)
	for _, q := range []string{
		`SELECT * FROM weather.weather ORDER BY ALL`,
		`SELECT * FROM "root.sg" ORDER BY ALL`,
		`SELECT region, count(*), sum(temperature) FROM weather GROUP BY ALL ORDER BY ALL`,
	} {
		want := allRows(t, local.SQL(), q)
		require.NotEmpty(t, want, q)
		require.Equal(t, want, allRows(t, remote.SQL(), q), q)
	}
	raw, err := Open(ctx, []string{"s3://" + bucket + "/backup/iotdb/"}, &Options{Raw: true})
	require.NoError(t, err)
	defer raw.Close()
	require.Greater(t, count(t, raw.SQL(), "SELECT count(*) FROM weather"), count(t, remote.SQL(), "SELECT count(*) FROM weather"))
}
