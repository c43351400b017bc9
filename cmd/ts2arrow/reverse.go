package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/fromarrow"
)

// arrowInput reports whether an input is a Parquet, Arrow or CSV file,
// the sources of the reverse path: by its first bytes (sniffForeign), or
// by its extension for a file yet to be opened.
func arrowInput(name string) bool {
	if isURL(name) {
		return false
	}
	if sniffForeign(name) != "" {
		return true
	}
	return extKind(name) != ""
}

// extKind is the format an input's extension names.
func extKind(name string) foreignKind {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".parquet", ".pq":
		return kindParquet
	case ".arrow", ".feather", ".ipc":
		return kindArrowFile
	case ".arrows":
		return kindArrowStream
	case ".csv":
		return kindCSV
	}
	return ""
}

// openArrowInput reads a Parquet, Arrow IPC file or Arrow IPC stream as a
// record stream: of kind k, or as its extension says when k is "". The
// caller releases the stream, then calls the returned function to close
// the file.
func openArrowInput(ctx context.Context, name string, k foreignKind) (array.RecordReader, func(), error) {
	if k == "" {
		k = extKind(name)
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	mem := memory.DefaultAllocator
	switch k {
	case kindParquet:
		pf, err := file.NewParquetReader(fh)
		if err != nil {
			fh.Close()
			return nil, nil, &fileError{name, err}
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, mem)
		if err != nil {
			pf.Close()
			return nil, nil, &fileError{name, err}
		}
		rr, err := fr.GetRecordReader(ctx, nil, nil)
		if err != nil {
			pf.Close()
			return nil, nil, &fileError{name, err}
		}
		// pqarrow's record reader restores the field metadata from the
		// stored ARROW:schema but drops the schema metadata, where tsarrow
		// keeps the table name and time unit. The writer also copies the
		// schema metadata into the file's key-value metadata, which
		// survives even where a tool rewrote the file without ARROW:schema.
		sc := rr.Schema()
		keys, vals := sc.Metadata().Keys(), sc.Metadata().Values()
		kv := pf.MetaData().KeyValueMetadata()
		for i, k := range kv.Keys() {
			if strings.HasPrefix(k, "tsfile.") && sc.Metadata().FindKey(k) < 0 {
				keys, vals = append(keys, k), append(vals, kv.Values()[i])
			}
		}
		if len(keys) > sc.Metadata().Len() {
			md := arrow.NewMetadata(keys, vals)
			return &schemaRecords{rr, arrow.NewSchema(sc.Fields(), &md)}, func() { pf.Close() }, nil
		}
		return rr, func() { pf.Close() }, nil
	case kindArrowStream:
		rr, err := ipc.NewReader(fh, ipc.WithAllocator(mem))
		if err != nil {
			fh.Close()
			return nil, nil, &fileError{name, err}
		}
		return rr, func() { fh.Close() }, nil
	default:
		fr, err := ipc.NewFileReader(fh, ipc.WithAllocator(mem))
		if err != nil {
			fh.Close()
			return nil, nil, &fileError{name, err}
		}
		rr := &ipcFileRecords{f: fr}
		return rr, func() { fr.Close(); fh.Close() }, nil
	}
}

// schemaRecords is a record stream whose schema carries metadata its
// batches lack.
type schemaRecords struct {
	array.RecordReader
	schema *arrow.Schema
}

func (r *schemaRecords) Schema() *arrow.Schema { return r.schema }

// ipcFileRecords reads the batches of an Arrow IPC file in order.
type ipcFileRecords struct {
	f   *ipc.FileReader
	i   int
	rec arrow.RecordBatch
	err error
}

func (r *ipcFileRecords) Schema() *arrow.Schema { return r.f.Schema() }
func (r *ipcFileRecords) Retain()               {}
func (r *ipcFileRecords) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
}

func (r *ipcFileRecords) Next() bool {
	r.Release()
	if r.err != nil || r.i >= r.f.NumRecords() {
		return false
	}
	r.rec, r.err = r.f.RecordBatchAt(r.i)
	r.i++
	return r.err == nil
}

func (r *ipcFileRecords) RecordBatch() arrow.RecordBatch { return r.rec }
func (r *ipcFileRecords) Record() arrow.RecordBatch      { return r.rec }
func (r *ipcFileRecords) Err() error                     { return r.err }

// runReverse converts one Parquet, Arrow or CSV input to a TsFile.
func (j *convertJob) runReverse(ctx context.Context, stdout, stderr io.Writer) error {
	if len(j.inputs) != 1 {
		return usagef("Parquet, Arrow and CSV inputs convert one at a time")
	}
	if j.format != "tsfile" {
		return usagef("%s is not a TsFile; it converts to tsfile only (-o OUT.tsfile)", j.inputs[0])
	}
	if j.query.Columns != nil || j.query.Where != nil || j.query.Time != nil || len(j.devices) > 0 || j.recover {
		return usagef("--columns, --where, --device, --start, --end and --recover apply to TsFile inputs")
	}
	name := j.inputs[0]
	kind := sniffForeign(name)
	if kind == "" {
		kind = extKind(name)
	}
	if j.csvSchema != nil && kind != kindCSV {
		return usagef("--schema gives the column types of a CSV input; %s is %s, whose types are its own", name, kind.article())
	}
	timeCol := j.timeColumn
	if timeCol == "" {
		timeCol = arrowconv.TimeColumn
	}
	rr, closeFn, err := openForeign(ctx, name, kind, csvOptions{schema: j.csvSchema, timeColumn: timeCol})
	if err != nil {
		return err
	}
	defer closeFn()
	if err := checkTimeColumn(name, rr.Schema(), j.timeColumn); err != nil {
		rr.Release()
		return err
	}
	prog := j.progressFor(stderr, 0)
	chain := &chainReader{ctx: ctx, schema: rr.Schema(), prog: prog, next: func(k int) (*input, array.RecordReader, error) {
		if k > 0 {
			return nil, nil, nil
		}
		return nil, rr, nil
	}, done: func(*input) {}}
	defer chain.Release()
	topts := &fromarrow.Options{Table: j.table, Tags: j.tags, Write: j.tsWrite, TimeColumn: j.timeColumn, DecimalAsDouble: j.castDecimal,
		WriteTimeColumn: j.writeTime, Tree: j.tree, DeviceColumn: j.deviceColumn, Aligned: j.aligned}
	table, tableFrom := j.table, "--table"
	if j.tree {
		table = ""
	} else if table == "" {
		table, _ = rr.Schema().Metadata().GetValue(arrowconv.MetaTable)
		tableFrom = "recorded in the input"
	}
	if table == "" && !j.tree {
		// Parquet written by other tools carries no table name: the
		// input's base name is the one a user would pick.
		topts.Table = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		table, tableFrom = topts.Table, "the input's base name; --table names another"
	}
	if j.verbose && j.tree {
		fmt.Fprintf(stderr, "ts2arrow: %s: tree model, devices from column %s\n", name, j.deviceColumn)
	} else if j.verbose {
		tags, tagsFrom := j.tags, "--tags"
		if tags == nil {
			tags, tagsFrom = markedTags(rr.Schema()), "marked TAG in the input"
		}
		what := "no TAG columns, so one device"
		if len(tags) > 0 {
			what = fmt.Sprintf("TAG columns %s (%s)", strings.Join(tags, ","), tagsFrom)
		}
		fmt.Fprintf(stderr, "ts2arrow: %s: table %s (%s), %s\n", name, table, tableFrom, what)
	}
	// Unless --time-unit was given, the unit is the one a tsarrow
	// conversion recorded, else ms (fromarrow.Options.TimeUnit): IoTDB's
	// default precision, whatever the input's, since DuckDB, pandas and
	// Spark write us or ns.
	topts.TimeUnit = j.query.TimeUnit
	j.wopts.tsfile = topts
	write := func(w io.Writer) error { return writeFormat(w, "tsfile", chain, j.wopts) }
	if j.out == "-" {
		err = write(stdout)
	} else {
		err = j.dst.writeFile(ctx, write)
	}
	prog.finish(err == nil)
	if err != nil {
		if chain.err != nil {
			return &fileError{name, chain.err}
		}
		return &fileError{name, err}
	}
	if j.verbose {
		fmt.Fprintf(stderr, "ts2arrow: wrote %d rows to %s\n", chain.rows, j.out)
	}
	return nil
}

// checkTimeColumn refuses an input without the time column, naming the
// columns there are: fromarrow's own error cannot name the flag.
func checkTimeColumn(name string, sc *arrow.Schema, timeColumn string) error {
	if sc.FieldIndices(fromarrow.TimeColumnOf(sc, &fromarrow.Options{TimeColumn: timeColumn})) != nil {
		return nil
	}
	var names []string
	for _, f := range sc.Fields() {
		names = append(names, f.Name)
	}
	if timeColumn == "" {
		return usagef("%s has no column %q (columns: %s); --time-column NAME names the time column", name, arrowconv.TimeColumn, strings.Join(names, ", "))
	}
	return usagef("--time-column %s: %s has no such column (columns: %s)", timeColumn, name, strings.Join(names, ", "))
}

// flagHint rewrites an error of the TsFile writer that one of
// fromarrow.Options settles so that it names what a ts2arrow user can
// do, with flags, instead of the Go option nobody on the command line can
// set. sc is the input's schema and tags the --tags columns, if given.
func flagHint(err error, sc *arrow.Schema, tags []string) error {
	var oe *fromarrow.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	if hint, ok := encodingHint(oe.Option, oe.Remedy); ok {
		// Only the flags set these options: a usage error (exit 2).
		return usagef("fromarrow: %s; %s", oe.Problem, hint)
	}
	var hint string
	switch oe.Option {
	case "Table":
		hint = "pass --table NAME"
	case "TimeColumn":
		hint = fmt.Sprintf("the time column is --time-column NAME, else the one marked %s=TIME, else %q; name the time column with --time-column or rename the other column", arrowconv.MetaCategory, arrowconv.TimeColumn)
	case "WriteTimeColumn":
		hint = ("pass --write-time-column to record the time column's name in the table schema (upstream Java TsFile and IoTDB cannot read such a file), or --time-column NAME to make the other column the time column")
	case "DecimalAsDouble":
		hint = "pass --cast-decimal double to store it as DOUBLE (rounded to the nearest double: exact to 15 significant digits)"
	case "DeviceColumn":
		hint = "--device-column NAME names the column of device paths (root.sg.d1)"
	case "MaxBufferedRows":
		hint = "sort the input by time first"
	case "KeepLast", "Tags":
		hint = tagsHint(sc, tags)
	case "TimeUnit":
		// A TsFile does not record its unit: the IoTDB it is loaded into
		// must use the same timestamp_precision, and reads back need the
		// same --time-unit.
		hint = "pass --time-unit us or --time-unit ns (as fine as the input) to keep them, for an IoTDB whose timestamp_precision is that unit, and read the file back with the same --time-unit; or round the input to milliseconds"
	default:
		hint = "ts2arrow has no flag for this; fix the input"
	}
	return &hintError{oe, "fromarrow: " + oe.Problem + "; " + hint}
}

// tagsHint explains two rows of one device with the same time, which on the
// command line nearly always means the columns that tell devices apart are
// not all TAGs.
func tagsHint(sc *arrow.Schema, tags []string) string {
	if tags == nil {
		tags = markedTags(sc)
	}
	for _, f := range sc.Fields() {
		// A tree-model export names each row's device in a DEVICE column;
		// a CSV or a foreign Parquet file may have one named "device".
		c, _ := f.Metadata.GetValue(arrowconv.MetaCategory)
		if (c == "DEVICE" || (c == "" && f.Name == arrowconv.DeviceColumn)) && !slices.Contains(tags, f.Name) {
			tree := "--tree"
			if f.Name != arrowconv.DeviceColumn {
				tree += " --device-column " + f.Name
			}
			return fmt.Sprintf("a TsFile holds one row per device and time, and column %q tells the devices apart: pass --tags %s, or %s to write the tree model",
				f.Name, strings.Join(append(slices.Clone(tags), f.Name), ","), tree)
		}
	}
	now := "none"
	if len(tags) > 0 {
		now = "--tags " + strings.Join(tags, ",")
	}
	return fmt.Sprintf("a TsFile holds one row per device and time: name every column that tells the devices apart with --tags COLUMN,... (TAG columns now: %s)", now)
}

// markedTags returns the columns a tsarrow conversion marked TAG, which
// the TsFile writer takes when --tags is not given.
func markedTags(sc *arrow.Schema) []string {
	var tags []string
	for _, f := range sc.Fields() {
		if c, _ := f.Metadata.GetValue(arrowconv.MetaCategory); c == "TAG" {
			tags = append(tags, f.Name)
		}
	}
	return tags
}

// hintError is a library's OptionError (fromarrow's or arrowconv's) told
// in ts2arrow's terms: its problem, then what to do with ts2arrow's flags.
type hintError struct {
	err  error
	text string
}

func (e *hintError) Error() string { return e.text }
func (e *hintError) Unwrap() error { return e.err }
