// Package dataset reads an IoTDB data directory as the server answers it.
//
// An IoTDB data directory holds many TsFiles that together make one
// dataset: data/{sequence,unsequence}/{database}/{region}/{partition}/
// {time}-{version}-{inner}-{cross}.tsfile, each beside a .resource file
// (per-device time ranges) and perhaps a .mods or .mods2 file of
// deletions. Reading each file alone, as package arrowconv does, brings
// back deleted points and shows overwritten points twice. A Dataset
// resolves that: Open snapshots the directory (Discover, every resource
// and mods file), and Dataset.NewReader streams one logical table as an
// array.RecordReader whose rows are those IoTDB's SELECT * returns:
//
//   - each file's mods delete from that file only, v2 (.mods2) entries from
//     the whole file, v1 (.mods) entries as the server that wrote the
//     directory applies them: IoTDB 1.x only to chunks written before
//     them, 2.x to the whole file (Options.ModsV1, ModsV1Rule);
//   - a table name in two databases is two tables (Table.Database,
//     Table.Ref): IoTDB never merges databases;
//   - a complete data file without its .resource is read by its own index,
//     as IoTDB rebuilds the resource; an unfinished one is left out;
//   - of the copies of a row in several files (or in several flushes of one
//     file) the one of highest Priority wins, and its null cells take the
//     value of the highest copy that has one (IoTDB's aligned priority
//     merge);
//   - a column whose type changed between files (ALTER COLUMN) reads as the
//     newest file's type, the others cast as IoTDB casts them, and a cast
//     IoTDB cannot make is an error naming both files;
//   - a tree-model row whose value cells are all null is dropped, a table
//     row stays while its time column is not deleted.
//
// docs/iotdb-rules.md gives every rule with the IoTDB source it follows
// and the points the source left open.
//
// The cost follows the overlap. Resources prune files and devices before a
// footer is read; a file whose devices overlap no other file's in time
// and carry no deletion streams through arrowconv untouched; only the
// devices of overlapping files are merged, one source per file, with
// memory of about one batch per overlapping source. Long runs of one
// source go out as slices of its batches, sparse rewrites are patched into
// the rewritten batch, and deletions that cover either end of a device's
// range narrow the range arrowconv reads, so covered chunks and pages are
// skipped unread.
//
// A Dataset is a snapshot: a data file that changed, grew or vanished
// since Open (a compaction or a flush of a live directory) fails the read
// with ErrChanged rather than mixing two states.
//
// Table and column renames recorded in a filesets/*.sevo log (IoTDB's
// ALTER TABLE ... RENAME, an unmerged upstream pull request) are not
// applied: Open refuses such a directory with ErrRenames (renames.go).
//
// The parts are usable alone: ParseName, Discover, ParseResource and
// ReadResourceFile (with Resource.AppendBinary to write one), Priority,
// and the mods parsers and writers (ParseModsV1/V2, AppendModsV1/V2).
// Every parser checks sizes before it allocates and refuses what it
// cannot read with an error that wraps tsfile.ErrCorrupt or
// tsfile.ErrUnsupported.
package dataset
