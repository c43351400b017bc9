// Package export writes streams of Arrow record batches in the output
// formats of ts2arrow: Parquet ([WriteParquet]), the Arrow IPC file and
// stream formats ([WriteIPC]), CSV ([WriteCSV]) and JSON Lines
// ([WriteJSONL]).
//
// The writers take any arrow-go array.RecordReader, and are tuned for the
// streams of package arrowconv, whose dictionary columns grow from batch
// to batch: IPC files get those as delta dictionaries, which arrow-go's
// own file writer refuses, so WriteIPC frames the stream writer's
// messages as a file itself. Nothing here reads TsFiles.
package export
