package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

const convertHelp = `Usage: ts2arrow convert FILE -o OUT [--format csv|arrow|arrows|parquet] [--table NAME]
                        [--compression NAME] [--row-group-size N]
                        [--recover [--schema-from FILE]] [--lenient]

Converts the rows of one table of a TsFile. "arrow" is the Arrow IPC file
format, "arrows" the Arrow IPC stream format, "parquet" Apache Parquet,
"csv" comma-separated text with a header row. The format defaults from
OUT's extension (.csv, .arrow, .arrows, .parquet or .pq); "-o -" writes to
standard output and needs --format. Output is written to a temporary file
beside OUT and renamed into place, so a failed conversion leaves nothing
behind.

--compression is, for parquet, zstd (the default), snappy, gzip, lz4 or
none; for arrow and arrows the IPC body compression, none (the default),
zstd or lz4 (LZ4 frame). CSV takes none. --row-group-size sets the rows
per Parquet row group (default 1048576).

--lenient reads files with known writer quirks (an absent Bloom filter
written as four zero bytes, a property count written unsigned) and
statistics that disagree with the data, with a warning on standard error
for each instead of failing.

--recover converts what "ts2arrow recover" would keep of a file whose
writer never finished it, without writing a fixed copy; --schema-from
names an intact file to take table schemas from.

A table-model file with several tables needs --table. A tree-model file
converts all its devices as "time, device, <measurements>" unless --table
names one of its path prefixes.

Examples:
  ts2arrow convert testdata/sample.tsfile -o sample.arrow
  ts2arrow convert testdata/sample.tsfile -o sample.parquet
  ts2arrow convert testdata/sample.tsfile -o sample.parquet --compression snappy --row-group-size 100000
  ts2arrow convert testdata/sample.tsfile -o sample.arrows --compression zstd
  ts2arrow convert testdata/sample.tsfile -o sample.csv
  ts2arrow convert data.tsfile --table weather --format arrows -o - | python read.py
  ts2arrow convert broken.tsfile --recover --schema-from intact.tsfile -o rows.parquet

Options:
`

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("convert", convertHelp, stderr)
	out := fs.String("o", "", "output path, or - for standard output")
	format := fs.String("format", "", "output format: csv, arrow, arrows or parquet (default from the -o extension)")
	compression := fs.String("compression", "", "compression: for parquet zstd (default), snappy, gzip, lz4 or none; for arrow and arrows none (default), zstd or lz4")
	rowGroup := fs.Int64("row-group-size", arrowconv.DefaultRowGroupSize, "rows per Parquet row group (parquet only)")
	table := fs.String("table", "", "table to convert")
	batch := fs.Int("batch-size", 65536, "rows per record batch")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: s, ms, us or ns")
	recoverIn := fs.Bool("recover", false, "convert the complete chunk groups of a file without a valid footer (see ts2arrow recover)")
	schemaFrom := fs.String("schema-from", "", "with --recover: intact TsFile to take table schemas from")
	lenient := fs.Bool("lenient", false, "read files with known writer quirks and inconsistent statistics, reporting warnings")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("convert takes one input FILE (got %d arguments)", len(pos))
	}
	if *out == "" {
		return usagef("convert needs -o OUT")
	}
	fmtName := *format
	if fmtName == "" {
		if fmtName = formatFromExt(*out); fmtName == "" {
			return usagef("cannot tell the format of %q; pass --format csv, arrow, arrows or parquet", *out)
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	wopts := writeOptions{compression: *compression, rowGroupSize: *rowGroup}
	switch fmtName {
	case "csv":
		if set["compression"] {
			return usagef("--compression does not apply to csv output")
		}
	case "arrow", "arrows":
		if !slices.Contains(arrowconv.IPCCompressions, wopts.compression) && wopts.compression != "" {
			return usagef("unknown --compression %q for %s (want %s)", wopts.compression, fmtName, strings.Join(arrowconv.IPCCompressions, ", "))
		}
	case "parquet":
		if !slices.Contains(arrowconv.ParquetCompressions, wopts.compression) && wopts.compression != "" {
			return usagef("unknown --compression %q for parquet (want %s)", wopts.compression, strings.Join(arrowconv.ParquetCompressions, ", "))
		}
		if wopts.rowGroupSize <= 0 {
			return usagef("--row-group-size must be positive")
		}
	default:
		return usagef("unknown format %q (want csv, arrow, arrows or parquet)", fmtName)
	}
	if set["row-group-size"] && fmtName != "parquet" {
		return usagef("--row-group-size applies to parquet output only")
	}
	if *batch <= 0 {
		return usagef("--batch-size must be positive")
	}
	tu, ok := map[string]arrow.TimeUnit{"s": arrow.Second, "ms": arrow.Millisecond, "us": arrow.Microsecond, "ns": arrow.Nanosecond}[*unit]
	if !ok {
		return usagef("unknown --time-unit %q (want s, ms, us or ns)", *unit)
	}
	if *schemaFrom != "" && !*recoverIn {
		return usagef("--schema-from applies with --recover only")
	}
	in := pos[0]
	ropts := &tsfile.ReadOptions{Lenient: *lenient}
	var f *tsfile.File
	if *recoverIn {
		fh, rec, err := recoverFile(in, *schemaFrom, ropts)
		if err != nil {
			return err
		}
		defer fh.Close()
		if f, err = rec.Open(fh, nil); err != nil {
			return &fileError{in, err}
		}
		reportRecovery(stderr, in, rec)
	} else {
		if f, err = tsfile.OpenFile(in, ropts); err != nil {
			return &fileError{in, err}
		}
		defer f.Close()
	}
	opts := &arrowconv.Options{BatchSize: *batch, TimeUnit: tu, TimeUnitSet: true}
	rdr, err := openReader(f, *table, opts)
	if err != nil {
		return &fileError{in, err}
	}
	defer rdr.Release()
	// Warnings come from the footer and from what the conversion read.
	defer func() {
		for _, w := range f.Warnings() {
			fmt.Fprintf(stderr, "ts2arrow: %s: warning: %s\n", in, w)
		}
	}()
	write := func(w io.Writer) error { return writeFormat(w, fmtName, rdr, wopts) }
	if *out == "-" {
		bw := bufio.NewWriterSize(stdout, 1<<16)
		if err := write(bw); err != nil {
			return &fileError{in, err}
		}
		return bw.Flush()
	}
	if err := writeAtomic(*out, write); err != nil {
		return &fileError{in, err}
	}
	return nil
}

func formatFromExt(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return "csv"
	case ".arrow", ".feather", ".ipc":
		return "arrow"
	case ".arrows":
		return "arrows"
	case ".parquet", ".pq":
		return "parquet"
	}
	return ""
}

// openReader picks the table to convert.
func openReader(f *tsfile.File, table string, opts *arrowconv.Options) (array.RecordReader, error) {
	tables := f.Tables()
	var model, tree []string
	for _, t := range tables {
		if _, ok := f.TableSchema(t); ok {
			model = append(model, t)
		} else {
			tree = append(tree, t)
		}
	}
	if table != "" {
		if _, ok := f.TableSchema(table); ok {
			return arrowconv.NewTableReader(f, table, opts)
		}
		for _, t := range tree {
			if t == table {
				return arrowconv.NewTreeReader(f, []string{t}, opts)
			}
		}
		return nil, usagef("no table %q in the file (tables: %s)", table, strings.Join(tables, ", "))
	}
	switch {
	case len(model) == 1 && len(tree) == 0:
		return arrowconv.NewTableReader(f, model[0], opts)
	case len(model) == 0 && len(tree) > 0:
		return arrowconv.NewTreeReader(f, tree, opts)
	case len(tables) == 0:
		return nil, usagef("the file has no tables")
	}
	return nil, usagef("the file has several tables; pick one with --table (tables: %s)", strings.Join(tables, ", "))
}

// writeOptions are the format-specific options of convert.
type writeOptions struct {
	compression  string // "" for the format's default
	rowGroupSize int64  // parquet only
}

func writeFormat(w io.Writer, format string, rdr array.RecordReader, o writeOptions) error {
	var err error
	switch format {
	case "csv":
		_, err = arrowconv.WriteCSV(w, rdr)
	case "arrow", "arrows":
		_, err = arrowconv.WriteIPC(w, rdr, &arrowconv.IPCOptions{Stream: format == "arrows", Compression: o.compression})
	case "parquet":
		_, err = arrowconv.WriteParquet(w, rdr, &arrowconv.ParquetOptions{Compression: o.compression, RowGroupSize: o.rowGroupSize})
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	return err
}

// writeAtomic writes through fn to a temporary file beside path and
// renames it into place only when everything succeeded.
func writeAtomic(path string, fn func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	ok = true
	return nil
}
