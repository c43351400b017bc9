//go:build cgo && duckdb_arrow

package query

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// pushdown: what WHERE/LIMIT let one scan skip (sqlpush owns pushdown.go). The zero value skips nothing.
type pushdown struct {
	Start, End       int64 // inclusive, in the table's unit; valid when HasStart / HasEnd
	HasStart, HasEnd bool
	Empty            bool                // the conjuncts cannot all hold (e.g. time > 5 AND time < 3)
	Tags             map[string][]string // TAG column -> allowed values (= or IN); absent = any
	Limit            int64               // >0: rows enough for the statement (only when safe)
}

// scanTable is one table tsfile_scan can read (sqlcore builds these; sqlfill scans them).
type scanTable struct {
	ID     string
	Schema *arrow.Schema // full, as schema --arrow
	// Units returns independent pieces of the scan for the projected columns (indexes into Schema,
	// ascending) with the pushdown applied; DuckDB threads take them in any order.
	Units func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error)
}

type scanUnit func(ctx context.Context) (array.RecordReader, error)
