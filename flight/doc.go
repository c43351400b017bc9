// Package flight serves a directory of TsFiles over Arrow Flight: each
// table across the root and each (file, table) is a flight, planned into
// one endpoint per file and device range so that distributed readers can
// fetch partitions in parallel. A [Query] command selects columns, a time
// range, devices and a limit; with Options.AllowPut, DoPut stores records
// as a new TsFile (see [PutCommand]). See [Server] and [Options]; ts2arrow
// serve is the command-line front end. On the client side, [DoGet] and
// [CallOption] read streams with one copy fewer from any Flight server.
//
// An IoTDB data directory, a directory holding sequence/ or unsequence/
// (the root itself or one under it), is served as its resolved tables
// (package dataset) rather than file by file: the rows IoTDB answers, with
// the deletions of the mods files applied and the copy of each point IoTDB
// keeps. Its flights are [table] when the root is the data directory, else
// [dir, table] with dir relative to the root; a [Query] names it alone in
// Files ("." for the root). Its flights are cut into endpoints by time, at
// time partitions, as Options.PartitionBytes of data files fill. A ticket
// of such a flight carries a digest of the path, size and modification
// time of every data, resource and mods file it was planned on; DoGet
// refuses it with FAILED_PRECONDITION once any changed (a flush, a
// compaction, a DELETE), and so does a read the directory changes under,
// so that a stream never mixes two states of the directory.
//
// Streams are admitted against one server-wide memory budget,
// Options.MemoryLimit: each reserves its share before it decodes, waits
// in arrival order while the budget or the stream slots are spent, and
// fails with RESOURCE_EXHAUSTED after Options.QueueWait. A DoGet's batches
// are sized from its share. The package changes no process-wide setting
// unless Options.GoMemoryLimit asks; it does force a garbage collection
// and return free memory to the operating system once no stream has run
// for Options.IdleRelease.
package flight
