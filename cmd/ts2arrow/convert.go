package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

const convertHelp = `Usage: ts2arrow convert FILE -o OUT [--format csv|arrow|arrows] [--table NAME]

Converts the rows of one table of a TsFile. "arrow" is the Arrow IPC file
format, "arrows" the Arrow IPC stream format, "csv" comma-separated text
with a header row. The format defaults from OUT's extension (.csv, .arrow,
.arrows); "-o -" writes to standard output and needs --format. Output is
written to a temporary file beside OUT and renamed into place, so a failed
conversion leaves nothing behind.

A table-model file with several tables needs --table. A tree-model file
converts all its devices as "time, device, <measurements>" unless --table
names one of its path prefixes.

Examples:
  ts2arrow convert testdata/sample.tsfile -o sample.arrow
  ts2arrow convert testdata/sample.tsfile -o sample.csv
  ts2arrow convert data.tsfile --table weather --format arrows -o - | python read.py

Options:
`

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("convert", convertHelp, stderr)
	out := fs.String("o", "", "output path, or - for standard output")
	format := fs.String("format", "", "output format: csv, arrow or arrows (default from the -o extension)")
	table := fs.String("table", "", "table to convert")
	batch := fs.Int("batch-size", 65536, "rows per record batch")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: s, ms, us or ns")
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
			return usagef("cannot tell the format of %q; pass --format csv, arrow or arrows", *out)
		}
	}
	if fmtName != "csv" && fmtName != "arrow" && fmtName != "arrows" {
		return usagef("unknown format %q (want csv, arrow or arrows)", fmtName)
	}
	if *batch <= 0 {
		return usagef("--batch-size must be positive")
	}
	tu, ok := map[string]arrow.TimeUnit{"s": arrow.Second, "ms": arrow.Millisecond, "us": arrow.Microsecond, "ns": arrow.Nanosecond}[*unit]
	if !ok {
		return usagef("unknown --time-unit %q (want s, ms, us or ns)", *unit)
	}
	in := pos[0]
	f, err := tsfile.OpenFile(in, nil)
	if err != nil {
		return &fileError{in, err}
	}
	defer f.Close()
	opts := &arrowconv.Options{BatchSize: *batch, TimeUnit: tu, TimeUnitSet: true}
	rdr, err := openReader(f, *table, opts)
	if err != nil {
		return &fileError{in, err}
	}
	defer rdr.Release()
	write := func(w io.Writer) error { return writeFormat(w, fmtName, rdr) }
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

func writeFormat(w io.Writer, format string, rdr array.RecordReader) error {
	switch format {
	case "csv":
		_, err := arrowconv.WriteCSV(w, rdr)
		return err
	case "arrow":
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(rdr.Schema()))
		if err != nil {
			return err
		}
		for rdr.Next() {
			if err := fw.Write(rdr.RecordBatch()); err != nil {
				fw.Close()
				return err
			}
		}
		if err := rdr.Err(); err != nil {
			fw.Close()
			return err
		}
		return fw.Close()
	case "arrows":
		sw := ipc.NewWriter(w, ipc.WithSchema(rdr.Schema()))
		for rdr.Next() {
			if err := sw.Write(rdr.RecordBatch()); err != nil {
				sw.Close()
				return err
			}
		}
		if err := rdr.Err(); err != nil {
			sw.Close()
			return err
		}
		return sw.Close()
	}
	return fmt.Errorf("unknown format %q", format)
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
