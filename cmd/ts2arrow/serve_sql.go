//go:build cgo && duckdb_arrow

package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/flight"
	"github.com/tsarrow/tsarrow/query"
	"github.com/tsarrow/tsarrow/tsfile"
)

// openSQLEngine opens the engine serve's Flight SQL runs on: DuckDB with
// the root's tables, resolved as the sql command resolves its inputs.
// DuckDB's own memory (its memory_limit) is bounded by the server's
// budget, apart from the streams' reservations.
func openSQLEngine(ctx context.Context, root string, ropts *tsfile.ReadOptions, dso dataset.Options, raw bool, memoryLimit int64, log *slog.Logger) (flight.SQLEngine, io.Closer, error) {
	o := &query.Options{Dataset: dso, Raw: raw, MemoryLimit: memoryLimit,
		Warn: func(msg string) { log.Warn(msg) }}
	if ropts != nil {
		o.Read = *ropts
	}
	db, err := query.Open(ctx, []string{root}, o)
	if err != nil {
		return nil, nil, err
	}
	return db, db, nil
}
