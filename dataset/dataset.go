package dataset

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// ErrChanged reports that a data file or one of its companions changed,
// appeared or vanished while a Dataset was being read (a compaction or a
// flush of a live directory). Open the directory again for a new snapshot.
var ErrChanged = errors.New("dataset: data directory changed during the read")

// Options configure Open. The zero value (or nil) selects the defaults.
type Options struct {
	// Read is passed to tsfile.Open for every data file (keys of Page AEAD
	// files, tolerance of damaged ones).
	Read *tsfile.ReadOptions
	// Mods limits the mods files read (DefaultMaxModsSize).
	Mods *ModsOptions
}

// Table is a logical table of a Dataset: a table-model table (all its
// devices in every file), or a tree-model database, an index root such as
// "root.sg1" whose devices make one stream with a "device" column.
type Table struct {
	Name string
	// Tree is true for a tree-model root.
	Tree bool
	// Files is the number of data files holding devices of the table.
	Files int
}

// FileVersion identifies the content of one file a Dataset read: a data
// file or a companion. A ticket or a cache bound to a Dataset compares
// these to tell whether the directory changed.
type FileVersion struct {
	Path    string
	Size    int64
	ModTime int64 // Unix nanoseconds
}

// Dataset is a snapshot of the data files of an IoTDB data directory (or of
// any list of TsFiles) with their resources and mods, read as logical
// tables whose rows are those the IoTDB server would return: the deletions
// of each file's mods applied to it, and of the copies of a point in several
// files the one of highest Priority kept (cell by cell for aligned rows).
//
// Open reads every .resource and mods file; a data file's footer is read
// only when a query needs the file. A Dataset is safe for concurrent use by
// readers; each Reader is not.
type Dataset struct {
	layout   *Layout
	opts     Options
	warnings []string
}

// Open discovers the data files under roots (see Discover) and reads their
// resources and mods.
func Open(roots []string, opts *Options) (*Dataset, error) {
	l, err := Discover(roots...)
	if err != nil {
		return nil, err
	}
	return OpenLayout(l, opts)
}

// OpenLayout opens the files of a layout Discover returned (or one built by
// hand, for a list of files).
func OpenLayout(l *Layout, opts *Options) (*Dataset, error) {
	return nil, errors.New("dataset: not implemented yet")
}

// Layout returns the files the Dataset holds and those Discover skipped.
func (d *Dataset) Layout() *Layout { return d.layout }

// Tables lists the logical tables, sorted by name.
func (d *Dataset) Tables() []Table { return nil }

// Warnings says what Open skipped or repaired: truncated mods entries,
// unsealed data files, both .mods and .mods2 beside a file.
func (d *Dataset) Warnings() []string { return d.warnings }

// Rules describes, one line each, the IoTDB rules this Dataset applies
// (which files are merged, how many mods entries), for a CLI to print.
func (d *Dataset) Rules() []string { return nil }

// Versions lists the data files and companions the snapshot read, in a
// stable order.
func (d *Dataset) Versions() []FileVersion { return nil }

// Schema returns the Arrow schema of a table as NewReader would stream it
// with the same options: every column any file holds, each of the type of
// its newest file (the others are cast).
func (d *Dataset) Schema(table string, o *arrowconv.Options) (*arrow.Schema, error) {
	return nil, errors.New("dataset: not implemented yet")
}

// NewReader streams the resolved rows of a table. The options push down
// as for a single file: Columns, Time, Devices, Where and Limit prune files
// by their resources before any footer is read.
func (d *Dataset) NewReader(table string, o *arrowconv.Options) (*Reader, error) {
	return nil, errors.New("dataset: not implemented yet")
}

// Close releases the files the Dataset opened.
func (d *Dataset) Close() error { return nil }

// ReadStats counts what a Reader did.
type ReadStats struct {
	// FilesPruned were skipped by their resources (no device or time in
	// the query); FilesRead were opened.
	FilesPruned, FilesRead int
	// RowsRead are the rows decoded from files (before deletions and the
	// merge), RowsOut those returned.
	RowsRead, RowsOut int64
	// RowsDeleted are rows a mods file removed whole; CellsDeleted cells of
	// rows that stayed.
	RowsDeleted, CellsDeleted int64
	// RowsOverwritten are copies of a row another file's copy (or a later
	// chunk of the same file) replaced.
	RowsOverwritten int64
	// RowsMerged are the rows that went through the k-way merge; the rest
	// streamed through from a single file.
	RowsMerged int64
}

// Reader streams the rows of one table of a Dataset as an
// array.RecordReader. Batches hold at most Options.BatchSize rows.
type Reader struct {
	schema *arrow.Schema
	rec    arrow.RecordBatch
	err    error
	stats  ReadStats
}

// Schema returns the schema of every batch.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Next advances to the next batch; false at the end or on an error (Err).
func (r *Reader) Next() bool { return false }

// RecordBatch returns the current batch, valid until the next call to Next.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (r *Reader) Record() arrow.RecordBatch { return r.rec }

// Err returns the error that ended the stream, if any.
func (r *Reader) Err() error { return r.err }

// Stats returns what the reader did so far.
func (r *Reader) Stats() ReadStats { return r.stats }

// Retain is a no-op: a Reader is owned by its caller.
func (r *Reader) Retain() {}

// Release releases the current batch and the files' readers.
func (r *Reader) Release() {}
