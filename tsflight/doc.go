// Package tsflight serves a directory of TsFiles over Arrow Flight: each
// table across the root and each (file, table) is a flight, planned into
// one endpoint per file and device range so that distributed readers can
// fetch partitions in parallel. A [Query] command selects columns, a time
// range, devices and a limit; with Options.AllowPut, DoPut stores records
// as a new TsFile (see [PutCommand]). See [Server] and [Options]; ts2arrow
// serve is the command-line front end. On the client side, [DoGet] and
// [CallOption] read streams with one copy fewer from any Flight server.
package tsflight
