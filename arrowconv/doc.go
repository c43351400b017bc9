// Package arrowconv reads the rows of Apache TsFile v4 files as Apache
// Arrow record batches.
//
// A table-model table becomes one stream with a time column (named
// "time", or after the table schema's column of category TIME, which the
// C++ and Python writers record: [TimeFieldName], [TimeField]), its TAG and
// ATTRIBUTE columns and its FIELD columns ([NewTableReader]); the devices
// of a tree-model table (an index root such as "root.sg1", or every one of
// the file) become one stream with "time", "device" and the union of their
// measurements ([NewTreeReader]). [TableArrowSchema] and [TreeArrowSchema]
// give the schema of such a stream, and [PlanTable] and [PlanTree] its
// size from the statistics, without decoding. [Options] select columns,
// a time range, devices, a row limit and the [TimeUnit] of the
// timestamps, which TsFile does not record. Page values are decoded straight
// into Arrow buffers: the compacted non-null values of a page land at the
// tail of the column buffer and are spread in place to their positions,
// and TsFile's MSB-first present bitmaps become Arrow's LSB-first validity
// bitmaps without an intermediate []bool.
//
// Decoding errors wrap [tsfile.ErrCorrupt] or [tsfile.ErrUnsupported], so
// callers can tell a damaged file from one that needs a codec this module
// lacks.
//
// A scan plans which chunks and pages a query needs from the file's index
// and statistics (projection, time range, TAG filter, limit), then decodes
// windows of aligned pages, one job per column, on the reader's workers.
// Writing the batches out is package export's job (Parquet, Arrow IPC,
// CSV, JSON Lines); writing Arrow back to a TsFile is package fromarrow's.
package arrowconv
