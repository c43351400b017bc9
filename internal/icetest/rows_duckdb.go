//go:build cgo && duckdb_arrow

package icetest

import (
	"database/sql"
	"strings"
	"testing"

	// DuckDB reads the Parquet data files: a reader that is neither
	// iceberg-go nor arrow-go's, which write them.
	_ "github.com/duckdb/duckdb-go/v2"
)

// Rows runs query in DuckDB over the rows of tbl's live data files, which
// it sees as the view t (read_parquet over their local paths, by column
// name), and returns the result rows. A table with no data file gives an
// empty t with no columns, so a query naming columns fails: check
// tbl.DataFiles first.
func Rows(t testing.TB, tbl *Table, query string) [][]any {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatalf("icetest: %v", err)
	}
	defer db.Close()
	view := "CREATE VIEW t AS SELECT * FROM (VALUES (1)) v(x) WHERE false"
	if len(tbl.DataFiles) > 0 {
		paths := make([]string, len(tbl.DataFiles))
		for i, f := range tbl.DataFiles {
			paths[i] = "'" + strings.ReplaceAll(f.LocalPath, "'", "''") + "'"
		}
		view = "CREATE VIEW t AS SELECT * FROM read_parquet([" + strings.Join(paths, ", ") + "])"
	}
	if _, err := db.Exec(view); err != nil {
		t.Fatalf("icetest: %s: %v", view, err)
	}
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("icetest: %s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("icetest: %s: %v", query, err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("icetest: %s: %v", query, err)
	}
	return out
}
