//go:build cgo && duckdb_arrow

package main

import (
	"context"
	"fmt"

	"github.com/tsarrow/tsarrow/query"
)

// openSQLInputs opens the job's inputs with package query: DuckDB with
// every table of the inputs registered, resolved as convert resolves them.
func openSQLInputs(ctx context.Context, j *sqlJob) (sqlEngine, error) {
	opts := &query.Options{
		Read:        *j.ropts,
		Dataset:     *j.dsOpts,
		Raw:         j.raw,
		Objects:     j.objects,
		TimeUnit:    j.timeUnit,
		Threads:     j.threads,
		MemoryLimit: j.memLimit,
		Warn: func(msg string) {
			fmt.Fprintf(j.stderr, "ts2arrow: warning: %s\n", oneLine(msg))
		},
	}
	db, err := query.Open(ctx, j.inputs, opts)
	if err != nil {
		return nil, err
	}
	return db, nil
}
