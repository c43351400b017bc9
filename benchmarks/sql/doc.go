// Package sqlbench measures SQL over TsFiles (issue 38): the query
// package's DuckDB engine over the generated tables, against DuckDB over
// the same rows as ZSTD Parquet, against converting first and querying
// the Parquet, pushdown against a full scan, and Flight SQL over loopback
// against the same query in process.
//
// The benchmarks link DuckDB, so they build only with cgo and the
// duckdb_arrow tag; they live in a package of their own so that the other
// benchmarks' test binaries do not link it. benchmarks/run runs them:
//
//	cd benchmarks && go test -tags duckdb_arrow -run XXX -bench SQL ./sql
//
// A build without the tag has only this file, and no benchmarks.
package sqlbench
