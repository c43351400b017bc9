// Package icescan reads an Apache Iceberg table back as Arrow record
// batches, in the shape the TsFile readers give a table: the time column
// first as a UTC timestamp in the unit asked for, then the TAG and FIELD
// columns with their tsfile.category and tsfile.type metadata (taken from
// the column docs icesync writes). ts2arrow's convert, head, schema and sql
// read an input spelled iceberg:CATALOG#NAMESPACE.TABLE through it.
//
// Everything Iceberg is github.com/apache/iceberg-go's: the catalog (opened
// by icesync.OpenCatalog), the scan planning and the Parquet reading. A
// Query's time range, TAG values and columns go into the scan
// (table.WithRowFilter, table.WithSelectedFields), so that manifests, day
// partitions and data files whose statistics exclude them are never read,
// and iceberg-go filters the rows of the files it does read.
//
// Rows come file by file in the order of the files' lowest time (their
// lower bound statistics; then their paths), each file's rows in the order
// they were written; an Iceberg table has no other row order. A table
// icesync wrote holds one day a file, each day's rows device by device and
// in time order within a device.
//
// icescan sits after icesync in the dependency order.
package icescan
