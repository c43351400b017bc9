//go:build !(cgo && duckdb_arrow)

package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/flight"
	"github.com/tsarrow/tsarrow/tsfile"
)

// openSQLEngine: this build has no SQL engine, so serve runs without
// Flight SQL (nil engine) and says so.
func openSQLEngine(context.Context, string, *tsfile.ReadOptions, dataset.Options, bool, arrowconv.TimeUnit, int64, time.Duration, *slog.Logger) (flight.SQLEngine, io.Closer, error) {
	return nil, nil, nil
}

// startSQLEngine has nothing to start in this build.
func startSQLEngine(flight.SQLEngine, func() []string) {}
