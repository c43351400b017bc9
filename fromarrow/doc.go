// Package fromarrow writes Arrow record batches to a new TsFile v4 holding
// one table-model table ([WriteTsFile]): the reverse of package arrowconv.
//
// It first plans the table from the Arrow schema and the [Options]
// (which column is the time, which are TAGs, ATTRIBUTEs and FIELDs, and
// the TsFile type of each), checking everything it can before a row is
// read, then buffers rows per device and writes each device's rows,
// sorted by time, as aligned chunk groups. Errors that an option settles
// are [*OptionError]s, so a program can name its own flag instead.
//
// Columns are encoded as IoTDB 2.x encodes them unless [Options] say
// otherwise ([DefaultEncoding]: RLE, TS_2DIFF, GORILLA or PLAIN by type,
// the time column TS_2DIFF) and compressed with LZ4
// ([DefaultCompression]), so a file is about as compact as one IoTDB
// writes.
package fromarrow
