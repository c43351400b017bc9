//go:build cgo && duckdb_arrow

package query

// This file stands in for sqlpush's pushdown.go until it is merged; delete
// it then (the declarations below are the contract's, word for word).

import (
	"context"
	"database/sql"

	"github.com/apache/arrow-go/v18/arrow"
)

// pushdown is what WHERE/LIMIT let one scan skip. The zero value skips
// nothing.
type pushdown struct {
	Start, End       int64 // inclusive, in the table's unit; valid when HasStart / HasEnd
	HasStart, HasEnd bool
	Empty            bool                // the conjuncts cannot all hold
	Tags             map[string][]string // TAG column -> allowed values (= or IN); absent = any
	Limit            int64               // >0: rows enough for the statement (only when safe)
}

// tableMeta is what planPushdown needs of one view.
type tableMeta struct {
	ID, Schema, Name, Time string
	Unit                   arrow.TimeUnit
	Tags                   []string
}

// planPushdown plans nothing until sqlpush's version replaces it.
func planPushdown(ctx context.Context, conn *sql.Conn, query string, tables []tableMeta) (map[string]pushdown, error) {
	return nil, nil
}
