// Package query runs SQL over TsFiles through an embedded DuckDB
// (github.com/duckdb/duckdb-go/v2, cgo). It is the only package of the
// module besides cmd/ts2arrow that links DuckDB, so that tsfile, arrowconv,
// dataset, export and flight stay pure Go (issue 38).
//
// This is a spike: the package holds only tests that prove DuckDB builds
// and runs here and that an arrowconv reader can be exposed to it as a
// table; see docs/dev-notes-sql.md.
package query
