package main

// ts2arrow sql: SQL over TsFiles and IoTDB data directories, run by DuckDB
// (package query). This file holds what every build has: the help, the
// flags and their checks, so that "ts2arrow sql --help" and shell
// completion are the same in a build without the SQL engine;
// sql_duckdb.go runs the statements in a build with cgo and
// -tags duckdb_arrow, sql_print.go prints their results, and
// sql_nosql.go says that the other builds cannot.

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

const sqlHelp = `Usage: ts2arrow sql INPUT... [-c SQL | -f FILE] [-o OUT] [--format FORMAT]
                    [--max-rows N] [--max-width N] [--force]
                    [--compression NAME] [--row-group-size N] [--time-format iso|epoch]
                    [--time-unit ms] [--threads N] [--memory-limit SIZE]
                    [--lenient] [--no-verify] [--raw] [--mods-v1 MODE]
                    [--trust-resources]

Runs SQL over the tables of the INPUTs with DuckDB, in this process. An
INPUT is what convert reads: a TsFile, a directory or glob of them, an
http(s) or object URL (s3://bucket/key, or a prefix or glob of keys), or
IoTDB data (a data directory, or TsFiles with mods files beside them),
resolved as convert resolves it (deletions applied, overwritten points
once; --raw reads every file as it is). Every table
of the inputs is a DuckDB table: a TsFile's tables by their names, a tree
model's devices under their prefix, an IoTDB database as a DuckDB schema
("root.sg".t). A file that is not an INPUT is read with
SELECT * FROM 'x.tsfile' or tsfile('dir', "table" := 'weather').
An Iceberg table (iceberg:sqlite:cat.db#iot.weather, as "ts2arrow sync"
keeps it) is the table NAMESPACE.TABLE (iot.weather), its times in
microseconds; a WHERE on time and on TAGs (=, IN) and the columns read
go into iceberg-go's scan, so days and data files they exclude are
never read.

The query is -c SQL, or the text of -f FILE, or standard input when it is
not a terminal; several statements separated by ; run in order, each
printing its result (DuckDB's own parser tells where one ends). Only
statements that read run: SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN,
PRAGMA table_info. With no query on a terminal, ts2arrow sql prompts for
statements (ts2arrow> ), ending each with ; (.tables lists the tables,
.schema T describes one, .quit or Ctrl-D ends).

A result prints as a table (--format table, the default): column names
and types, numbers right-aligned, NULL for nulls, times in ISO 8601 UTC,
and below it the rows, columns and the time the statement took. A result
of more than --max-rows rows (default 40; 0 for all) shows its first and
last rows around a row of dots; on a terminal, cells are cut (…) and
columns left out so that the table fits the terminal (--max-width N sets
the width; 0 for no limit). --format markdown prints every row as a
Markdown table, csv and jsonl as convert writes them.

-o OUT writes the result instead, streamed as DuckDB produces it, in the
--format (by default from OUT's extension: .parquet, .arrow, .arrows,
.csv, .jsonl; also table or markdown), through a temporary file renamed
into place once complete, as convert writes it: an existing OUT is
refused unless --force, and a failure or Ctrl-C leaves nothing behind.
"-o -" writes to standard output. -o takes a query of one statement.
--compression, --row-group-size and --time-format are convert's.

Errors of the query are DuckDB's, with the line and a caret under where
in the query the error is; of a query of several statements, the line
numbers are those of the whole query.

Examples:
  ts2arrow sql testdata/sample.tsfile -c 'SELECT region, count(*), avg(temperature) FROM weather GROUP BY ALL'
  ts2arrow sql testdata/iotdb -c 'SHOW ALL TABLES'
  ts2arrow sql testdata/sample.tsfile -c 'SELECT * FROM weather WHERE temperature > 20' -o hot.parquet
  ts2arrow sql testdata/sample.tsfile --format csv -c 'SELECT station, max(temperature) AS t FROM weather GROUP BY ALL'
  ts2arrow sql testdata/sample.tsfile -f report.sql
` + keysHelp + "\n" + objectHelp + `
Exit status: 0 when every statement ran; 1 on an error of the query
(DuckDB's message) or of an input, 2 on a usage error, also in a build
without the SQL engine (built with CGO_ENABLED=0 or without
-tags duckdb_arrow); 130 when Ctrl-C (SIGINT) stopped it, 143 for
SIGTERM, with nothing written.

Options:
`

// defaultMaxRows is how many rows a table result shows by default, as
// DuckDB's CLI does (the first and last 20 of a longer result).
const defaultMaxRows = 40

// errNoSQLEngine is what a build without DuckDB says of ts2arrow sql.
var errNoSQLEngine = &usageError{"ts2arrow sql needs a build with cgo and -tags duckdb_arrow (in a checkout: CGO_ENABLED=1 go install -tags duckdb_arrow ./cmd/ts2arrow)"}

// sqlStdin is where ts2arrow sql reads a query (or its prompt's lines)
// from when it is given neither -c nor -f; tests replace it.
var sqlStdin io.Reader = os.Stdin

// sqlJob is a parsed sql command line.
type sqlJob struct {
	inputs []string
	query  string
	// interactive: no query was given and standard input is a
	// terminal, so statements are read at a prompt.
	interactive bool
	queryName   string // where the query came from, for errors: "-c", the file, "standard input"
	out         string // "" for standard output
	dst         *output
	format      string // table, markdown, csv, jsonl, parquet, arrow, arrows
	maxRows     int
	maxWidth    int // 0: no limit
	wopts       writeOptions
	ropts       *tsfile.ReadOptions
	dsOpts      *dataset.Options
	objects     *objstore.Options // object URL inputs
	raw         bool
	threads     int
	timeUnit    arrowconv.TimeUnit
	memLimit    int64
	stdout      io.Writer
	stderr      io.Writer
}

func runSQL(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("sql", sqlHelp, stderr)
	command := fs.StringP("command", "c", "", "the `SQL` to run (one or more statements)")
	file := fs.StringP("file", "f", "", "read the SQL from `FILE`")
	out := fs.StringP("output", "o", "", "write the result to `OUT` (- for standard output) instead of printing it")
	format := fs.String("format", "", "output format: table, markdown, csv, jsonl, parquet, arrow or arrows (by default the -o extension's, else table)")
	maxRows := fs.Int("max-rows", defaultMaxRows, "the rows a table shows, the first and last half of a longer result; 0 for all")
	maxWidth := fs.Int("max-width", -1, "the width a table is fitted to (default the terminal's, none off a terminal; 0 for no limit)")
	fs.Lookup("max-width").DefValue = "" // -1 stands for the usage's default
	force := fs.Bool("force", false, "replace an existing output file")
	compression := fs.String("compression", "", "compression of parquet, arrow or arrows output (as convert's)")
	rowGroup := fs.Int64("row-group-size", export.DefaultRowGroupSize, "rows per Parquet row group (parquet only)")
	timeFormat := fs.String("time-format", "iso", "how csv and jsonl write timestamps: iso (2023-11-14T22:13:20.123Z) or epoch (the stored integers)")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: s, ms, us or ns")
	threads := fs.Int("threads", 0, "DuckDB's worker threads (default one per CPU)")
	var memLimit byteSize
	fs.Var(&memLimit, "memory-limit", "DuckDB's memory limit, a `SIZE` such as 2GiB (default DuckDB's: 80% of the RAM)")
	lenient := fs.Bool("lenient", false, "read files with known writer quirks and inconsistent statistics, reporting warnings")
	noVerify := fs.Bool("no-verify", false, "do not check decoded pages against their statistics")
	rawFiles := fs.Bool("raw", false, "read every *.tsfile as it is, also in an IoTDB data directory or beside mods files")
	// convert's IoTDB data flags but --database: a database is a DuckDB
	// schema here, which the query names ("root.sg".t).
	dsAll := pflag.NewFlagSet("sql", pflag.ContinueOnError)
	dsFlags := addDatasetFlags(dsAll)
	fs.AddFlag(dsAll.Lookup("mods-v1"))
	fs.AddFlag(dsAll.Lookup("trust-resources"))
	keys := addKeyFlags(fs)
	obj := addObjectFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	if !sqlEngineBuilt {
		return errNoSQLEngine
	}
	j := &sqlJob{inputs: pos, out: *out, format: *format, maxRows: *maxRows, raw: *rawFiles, threads: *threads, memLimit: int64(memLimit), stdout: stdout, stderr: stderr,
		objects: obj.options()}
	if *command != "" && *file != "" {
		return usagef("-c and -f both give the query; pass one")
	}
	if len(pos) == 0 {
		return usagef("sql needs at least one INPUT: a TsFile, a directory or glob of them, a URL or IoTDB data")
	}
	if *maxRows < 0 {
		return usagef("--max-rows must be 0 (all rows) or positive")
	}
	if *threads < 0 {
		return usagef("--threads must be positive (or 0 for one per CPU)")
	}
	if memLimit < 0 {
		return usagef("--memory-limit must be positive")
	}
	if j.format == "" {
		switch {
		case j.out == "" || j.out == "-":
			if j.out == "-" {
				return usagef("-o - needs --format")
			}
			j.format = "table"
		case strings.HasSuffix(strings.ToLower(j.out), ".md"):
			j.format = "markdown"
		default:
			if j.format = formatFromExt(j.out); j.format == "" || j.format == "tsfile" {
				return usagef("cannot tell the format of %q; pass --format parquet, arrow, arrows, csv, jsonl, table or markdown", j.out)
			}
		}
	}
	tf, err := timeFormatFlag(*timeFormat)
	if err != nil {
		return err
	}
	j.wopts = writeOptions{compression: *compression, rowGroupSize: *rowGroup, timeFormat: tf}
	switch j.format {
	case "table", "markdown":
		for _, name := range []string{"compression", "row-group-size", "time-format"} {
			if set[name] {
				return usagef("--%s does not apply to %s output", name, j.format)
			}
		}
	case "tsfile":
		return usagef("ts2arrow sql writes parquet, arrow, arrows, csv, jsonl, table or markdown; convert the result to tsfile with ts2arrow convert")
	default:
		if err := checkFormatOptions(j.format, j.wopts, set); err != nil {
			return err
		}
		if (j.format == "parquet" || j.format == "arrow" || j.format == "arrows") && j.out == "" {
			return usagef("--format %s writes binary: pass -o OUT (or -o - for standard output)", j.format)
		}
	}
	if (set["max-rows"] || set["max-width"]) && j.format != "table" {
		return usagef("--max-rows and --max-width apply to table output only")
	}
	switch {
	case *maxWidth >= 0:
		j.maxWidth = *maxWidth
	case j.out == "" && isTerminal(stdout):
		j.maxWidth = termWidth(stdout)
	}
	if j.format == "table" && j.out != "" {
		j.maxRows = *maxRows
		if !set["max-rows"] {
			j.maxRows = 0 // a file holds every row
		}
	}
	tu, err := timeUnitFlag(*unit)
	if err != nil {
		return err
	}
	j.timeUnit = arrowconv.TimeUnitOf(tu)
	if j.ropts, err = keys.readOptions(*lenient); err != nil {
		return err
	}
	j.ropts.NoVerify = *noVerify
	if j.dsOpts, err = dsFlags.options(j.ropts); err != nil {
		return err
	}
	if *rawFiles && (set["mods-v1"] || set["trust-resources"]) {
		return usagef("--mods-v1 and --trust-resources apply to IoTDB data read with its mods files, not with --raw")
	}
	switch {
	case set["command"]:
		j.query, j.queryName = *command, "-c"
	case set["file"]:
		b, err := os.ReadFile(*file)
		if err != nil {
			return fmt.Errorf("-f: %w", err)
		}
		j.query, j.queryName = string(b), *file
	case !readerIsTerminal(sqlStdin):
		// A script on standard input; a terminal gets the prompt.
		b, err := io.ReadAll(sqlStdin)
		if err != nil {
			return fmt.Errorf("reading the query from standard input: %w", err)
		}
		j.query, j.queryName = string(b), "standard input"
	case j.out != "":
		return usagef("-o writes the result of a query: pass -c SQL or -f FILE")
	default:
		j.interactive = true
	}
	if !j.interactive && strings.TrimSpace(j.query) == "" {
		return usagef("no query in %s: pass -c SQL, -f FILE or SQL on standard input", j.queryName)
	}
	if j.out != "" && j.out != "-" {
		var local []string
		for _, in := range j.inputs {
			if !isURL(in) || objstore.IsURL(in) { // an object OUT is checked against object inputs
				local = append(local, in)
			}
		}
		if j.dst, err = checkOutput(j.out, outFile, *force, local, j.objects, stderr); err != nil {
			return err
		}
		defer j.dst.close()
		// Never into IoTDB data the inputs are read from, as convert.
		if files, err := expandInputsWith(context.Background(), j.inputs, j.objects); err == nil && !j.raw {
			if dsIn, err := detectDatasetWith(context.Background(), j.inputs, files, j.objects); err == nil && dsIn != nil {
				defer dsIn.close()
				if err := checkDatasetOutput(j.out, dsIn); err != nil {
					return err
				}
			}
		}
	} else if *force {
		return usagef("--force applies with -o OUT only")
	}
	if j.interactive {
		// The prompt catches Ctrl-C itself: it stops the statement
		// running, not the session.
		return runSQLPrompt(j)
	}
	// Ctrl-C or SIGTERM interrupts DuckDB and removes a temporary output.
	ctx, stop := notifyInterrupt()
	defer stop()
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = interruptedBy(ctx)
		}
	}()
	return runSQLJob(ctx, j)
}

// readerIsTerminal reports whether r is a terminal (so that reading it
// waits for a person, not a script).
func readerIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// sqlQueryError is an error of a statement as DuckDB reports it: its
// message, which may span lines (the query's line and a caret under the
// place of the error), is printed as it is (exit status 1).
type sqlQueryError struct {
	prefix string // "statement 2 of 3: " in a query of several, else ""
	line   int    // the line of the query the statement starts on
	err    error
}

// duckLine is how DuckDB names the line of the query an error is on.
var duckLine = regexp.MustCompile(`(?m)^LINE ([0-9]+):`)

// Error is DuckDB's message, its LINE numbers made those of the whole
// query (DuckDB counts from the statement's first line).
func (e *sqlQueryError) Error() string {
	msg := e.err.Error()
	if e.line > 0 {
		msg = duckLine.ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(duckLine.FindStringSubmatch(m)[1])
			return fmt.Sprintf("LINE %d:", n+e.line)
		})
	}
	return e.prefix + msg
}

func (e *sqlQueryError) Unwrap() error { return e.err }

// keepLines is oneLine for a message whose line breaks are meant: every
// other control character is escaped, so that text from a query or a file
// cannot drive the terminal.
func keepLines(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = oneLine(l)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
