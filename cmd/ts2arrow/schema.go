package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/pflag"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/iceref"
	"github.com/tsarrow/tsarrow/tsfile"
)

const schemaHelp = `Usage: ts2arrow schema FILE [--table T] [--arrow | --json] [--time-unit U] [--columns A,B]
                       [--raw]

Prints the Apache Arrow schema that "ts2arrow convert" produces for FILE
with the same --table, --time-unit and --columns (the time column first,
then the columns in the order --columns gives them): one line per column with
its name, Arrow type, whether it is nullable, its TsFile category (TIME,
TAG, ATTRIBUTE, FIELD, DEVICE or MEASUREMENT) and TsFile data type, then
the schema metadata (the table name and the time unit). No rows are read.
The time column is "time", or, when the table schema records a column of
category TIME (as the C++ and Python writers of TsFile 2.5 do), that
column's name; a FIELD named "time" beside it is a column like any other.

--arrow prints arrow-go's own rendering of the schema instead. --json
prints {"fields": [{"name", "type", "nullable", "metadata"}], "metadata"},
with "type" spelled as in --arrow and both metadata objects mapping keys
to values ("tsfile.category", "tsfile.type"; "tsfile.table",
"tsfile.time_unit").

FILE is a path, an http(s) URL or an object URL such as s3://bucket/key
(read with range requests). A table-model
file with several tables needs --table; a tree-model file gives "time,
device, <measurements>" unless --table names one of its tree tables: a
device path's first three nodes, or all but the last of a shorter path
(root.sg.d1 is in table root.sg, root.sg.x.y in root.sg.x, as TsFile and
IoTDB 2.x file them), whose devices alone are read.
FILE may also be IoTDB data (below): schema prints the table's schema over
all its files, each column of the type of its newest file.
FILE may also be a Parquet, Arrow IPC (file or stream) or CSV file, told
by its first bytes (a CSV file by its .csv extension): schema prints its
Arrow schema as "convert FILE -o OUT.tsfile" reads it, a CSV file's types
inferred from its first 10000 rows (see convert --help).

` + rawHelp + `
Examples:
  ts2arrow schema testdata/sample.tsfile
  ts2arrow schema testdata/sample.tsfile --arrow
  ts2arrow schema data.tsfile --table weather --json | jq '.fields[].name'
  ts2arrow schema data.tsfile --time-unit us --columns temperature,humidity
` + keysHelp + "\n" + httpHelp + "\n" + objectHelp + `
Exit status: 0 on success, 1 on a data or format error, 2 on a usage
error, 130 when Ctrl-C stopped it (143 for SIGTERM).

Options:
`

// schemaJSON is the --json form of schema. Field names are part of the
// CLI's interface.
type schemaJSON struct {
	Fields   []schemaFieldJSON `json:"fields"`
	Metadata map[string]string `json:"metadata"`
}

type schemaFieldJSON struct {
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Nullable bool              `json:"nullable"`
	Metadata map[string]string `json:"metadata"`
}

func runSchema(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("schema", schemaHelp, stderr)
	table := fs.String("table", "", "table whose schema to print")
	dsFlags := addDatasetFlags(fs)
	asArrow := fs.Bool("arrow", false, "print arrow-go's rendering of the schema")
	asJSON := fs.Bool("json", false, "print the schema as JSON")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: s, ms, us or ns")
	columns := fs.String("columns", "", "comma-separated columns to keep (time is always kept)")
	lenient := fs.Bool("lenient", false, "read files with known writer quirks, reporting warnings")
	rawFiles := fs.Bool("raw", false, "read FILE as it is, also in an IoTDB data directory or beside mods files (see above)")
	keys := addKeyFlags(fs)
	hf := addHTTPFlags(fs)
	defer hf.release()
	obj := addObjectFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	hf.objects = obj.options()
	if len(pos) != 1 {
		return usagef("schema takes one FILE (got %d arguments)", len(pos))
	}
	if *asArrow && *asJSON {
		return usagef("--arrow and --json exclude each other")
	}
	tu, err := timeUnitFlag(*unit)
	if err != nil {
		return err
	}
	opts := &arrowconv.Options{TimeUnit: arrowconv.TimeUnitOf(tu), Columns: columnsFlag(*columns)}
	ropts, err := keys.readOptions(*lenient)
	if err != nil {
		return err
	}
	var sc *arrow.Schema
	if iceref.IsInput(pos[0]) {
		if *table != "" || *rawFiles {
			return usagef("--table and --raw do not apply to an Iceberg input, which names its table")
		}
		if sc, err = schemaIceberg(pos[0], opts); err != nil {
			return err
		}
	} else if k := sniffForeign(pos[0]); k != "" {
		set := map[string]bool{}
		fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
		if err := foreignOnly(pos[0], k, set, "table", "columns"); err != nil {
			return err
		}
		if sc, err = foreignSchema(pos[0], k); err != nil {
			return err
		}
	} else if ds, err := datasetFor(pos[0], *rawFiles, hf.objects); err != nil {
		return err
	} else if err := checkDatasetFlags(dsFlags, ds); err != nil {
		return err
	} else if ds != nil {
		sc, err = schemaDataset(ds, ropts, *table, dsFlags, opts, stderr)
		if err != nil {
			return err
		}
	} else if sc, err = readSchema(pos[0], *table, opts, ropts, hf, stderr); err != nil {
		return err
	}
	switch {
	case *asArrow:
		_, err = fmt.Fprintln(stdout, sc.String())
	case *asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(schemaToJSON(sc))
	default:
		err = printSchema(stdout, sc)
	}
	return err
}

// foreignSchema is the Arrow schema of a Parquet, Arrow or CSV file as the
// reverse path reads it: a CSV file's types as inferred.
func foreignSchema(name string, k foreignKind) (*arrow.Schema, error) {
	rr, closeFn, err := openForeign(context.Background(), name, k, csvOptions{timeColumn: arrowconv.TimeColumn})
	if err != nil {
		return nil, withFile(name, err)
	}
	defer closeFn()
	defer rr.Release()
	return rr.Schema(), nil
}

// readSchema opens name and returns the schema of the reader convert would
// open on it; opening a reader reads no rows.
func readSchema(name, table string, opts *arrowconv.Options, ropts *tsfile.ReadOptions, hf *httpFlags, stderr io.Writer) (*arrow.Schema, error) {
	in, err := openInput(context.Background(), name, ropts, hf)
	if err != nil {
		return nil, err
	}
	defer in.close()
	defer printWarnings(stderr, name, in.file)
	if n := treeTableNote(table, in.file.Tables(), func(t string) bool { _, ok := in.file.SchemaOf(t); return !ok }); n != "" {
		fmt.Fprintf(stderr, "ts2arrow: %s\n", n)
	}
	rdr, err := openProjected(in.file, table, opts)
	if err != nil {
		return nil, withFile(name, err)
	}
	defer rdr.Release()
	return rdr.Schema(), nil
}

// openProjected is openReader with --columns and --where checked first
// against the full schema, so that a misspelt column is a usage error that
// lists the columns there are. Opening a reader reads no rows, so the
// extra one is cheap. head, schema and convert share it.
func openProjected(f *tsfile.File, table string, opts *arrowconv.Options) (array.RecordReader, error) {
	if len(opts.Columns) > 0 || len(opts.Where) > 0 {
		all := *opts
		all.Columns, all.Where = nil, nil
		rdr, err := openReader(f, table, &all)
		if err != nil {
			return nil, err
		}
		sc := rdr.Schema()
		rdr.Release()
		if err := checkColumns(sc, opts.Columns, opts.Where); err != nil {
			return nil, err
		}
	}
	return openReader(f, table, opts)
}

// checkColumns checks the --columns and --where names against the full
// schema sc and names the ones there are when one is not there.
func checkColumns(sc *arrow.Schema, columns []string, where map[string]string) error {
	var names, tags []string
	can := "the table has no TAG column"
	for _, fl := range sc.Fields() {
		names = append(names, fl.Name)
		switch c, _ := fl.Metadata.GetValue(arrowconv.MetaCategory); c {
		case "TAG":
			tags = append(tags, fl.Name)
			can = "it takes a TAG column: " + strings.Join(tags, ", ")
		case "DEVICE":
			tags = append(tags, fl.Name)
			can = "a tree-model file filters on its device column only (--where " + fl.Name + "=PATH)"
		}
	}
	for _, c := range columns {
		if !slices.Contains(names, c) {
			return usagef("no column %q (columns: %s)", c, strings.Join(names, ", "))
		}
	}
	keys := make([]string, 0, len(where))
	for k := range where {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.Contains(tags, k) {
			continue
		}
		if slices.Contains(names, k) {
			return usagef("--where %s=%s: %s is not a TAG column; %s", k, where[k], k, can)
		}
		return usagef("--where %s=%s: no column %q; %s", k, where[k], k, can)
	}
	return nil
}

// printWarnings reports what --lenient worked around, on stderr so that
// stdout stays parseable.
func printWarnings(stderr io.Writer, name string, f *tsfile.File) {
	for _, w := range f.Warnings() {
		fmt.Fprintf(stderr, "ts2arrow: %s: warning: %s\n", name, w)
	}
}

func schemaToJSON(sc *arrow.Schema) schemaJSON {
	out := schemaJSON{Fields: []schemaFieldJSON{}, Metadata: metadataMap(sc.Metadata())}
	for _, f := range sc.Fields() {
		out.Fields = append(out.Fields, schemaFieldJSON{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable, Metadata: metadataMap(f.Metadata)})
	}
	return out
}

func metadataMap(md arrow.Metadata) map[string]string {
	m := map[string]string{}
	for i, k := range md.Keys() {
		m[k] = md.Values()[i]
	}
	return m
}

// printSchema prints the readable form: the columns as a table, the
// metadata arrowconv always attaches as their own columns, anything else
// as key=value pairs, then the schema metadata.
func printSchema(w io.Writer, sc *arrow.Schema) error {
	known := map[string]bool{arrowconv.MetaCategory: true, arrowconv.MetaType: true}
	extra := make([]string, sc.NumFields())
	anyExtra := false
	for i, f := range sc.Fields() {
		var kv []string
		for j, k := range f.Metadata.Keys() {
			if !known[k] {
				kv = append(kv, k+"="+f.Metadata.Values()[j])
			}
		}
		sort.Strings(kv)
		extra[i] = strings.Join(kv, " ")
		anyExtra = anyExtra || len(kv) > 0
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	head := "COLUMN\tARROW TYPE\tNULLABLE\tCATEGORY\tTSFILE TYPE"
	if anyExtra {
		head += "\tMETADATA"
	}
	fmt.Fprintln(tw, head)
	for i, f := range sc.Fields() {
		nullable := "no"
		if f.Nullable {
			nullable = "yes"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", f.Name, f.Type, nullable, metaOr(f.Metadata, arrowconv.MetaCategory), metaOr(f.Metadata, arrowconv.MetaType))
		if anyExtra {
			line += "\t" + extra[i]
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	md := sc.Metadata()
	if md.Len() == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nschema metadata:")
	keys := append([]string(nil), md.Keys()...)
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := md.GetValue(k)
		fmt.Fprintf(w, "  %s = %s\n", k, v)
	}
	return nil
}

func metaOr(md arrow.Metadata, key string) string {
	if v, ok := md.GetValue(key); ok {
		return v
	}
	return "-"
}
