// Package tsflight serves a directory of TsFiles over Arrow Flight: each
// table across the root and each (file, table) is a flight, planned into
// one endpoint per file and device range so that distributed readers can
// fetch partitions in parallel. See Server and Options; ts2arrow serve is
// the command-line front end.
package tsflight
