// Package icesync keeps an Apache Iceberg table in step with the tables of an
// IoTDB data directory (or of any list of TsFiles): the rows package dataset
// resolves, as the IoTDB server answers them, written as Parquet data files
// through github.com/apache/iceberg-go and committed as one snapshot per sync.
//
// Everything Iceberg is iceberg-go's: the SQL catalog (on the pure-Go SQLite
// driver modernc.org/sqlite for a "sqlite:PATH" catalog), the Parquet writer
// (field IDs and column statistics), the manifests, the manifest list, the
// table metadata and the commit. This package only decides what to write:
// the table's schema and partition spec on the first sync, the rows, and
// which source files a snapshot reflects (recorded in its summary), so that a
// sync over unchanged inputs commits nothing.
//
// icesync sits after dataset in the dependency order; nothing below it
// imports it, so the core library does not carry iceberg-go.
package icesync
