// Package query runs SQL over TsFiles and IoTDB data directories through an
// embedded DuckDB (github.com/duckdb/duckdb-go/v2, cgo). It is the only
// package of the module besides cmd/ts2arrow that links DuckDB, so that
// tsfile, arrowconv, dataset, export and flight stay pure Go (issue 38).
//
// Open resolves its inputs as "ts2arrow convert" does (files, directories,
// globs, http(s) URLs, IoTDB data directories with their deletions and
// overwrites) and registers every table it finds as a DuckDB view;
// QueryArrow runs one read-only statement and streams DuckDB's result as an
// array.RecordReader. Besides the views, `FROM 'x.tsfile'` and
// `FROM tsfile('dir', "table" := 'weather')` read inputs named in the query
// (DuckDB's grammar reserves table: the argument's name must be quoted).
//
// The engine needs a cgo build with the duckdb_arrow tag
// (`go build -tags duckdb_arrow`); in other builds the same API returns
// ErrNoSQL.
//
// Column types follow `ts2arrow schema --arrow`; see duckColumn for how each
// Arrow type becomes a DuckDB type (docs/dev-notes-sql.md has the table).
package query
