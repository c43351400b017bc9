//go:build !(cgo && duckdb_arrow)

package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/flight"
	"github.com/tsarrow/tsarrow/tsfile"
)

// openSQLEngine: this build has no SQL engine, so serve runs without
// Flight SQL (nil engine) and says so.
func openSQLEngine(context.Context, string, *tsfile.ReadOptions, dataset.Options, bool, int64, *slog.Logger) (flight.SQLEngine, io.Closer, error) {
	return nil, nil, nil
}
