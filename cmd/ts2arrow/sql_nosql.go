//go:build !(cgo && duckdb_arrow)

package main

import "context"

// sqlEngineBuilt: this build has no SQL engine (DuckDB needs cgo and the
// duckdb_arrow tag); ts2arrow sql says so and exits 2.
const sqlEngineBuilt = false

func runSQLJob(context.Context, *sqlJob) error { return errNoSQLEngine }

func runSQLPrompt(*sqlJob) error { return errNoSQLEngine }
