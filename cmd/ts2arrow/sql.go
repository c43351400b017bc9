package main

// ts2arrow sql: SQL over TsFiles and IoTDB data directories, run by DuckDB
// (package query). This file holds what every build has: the help, the
// flags, their checks and the printers of results, so that "ts2arrow sql
// --help", shell completion and the usage errors are the same in a build
// without the SQL engine; sql_duckdb.go runs the statements in a build
// with cgo and -tags duckdb_arrow, sql_nosql.go says that the others
// cannot.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/tsfile"
)

const sqlHelp = `Usage: ts2arrow sql [INPUT...] [-c SQL | -f FILE] [-o OUT] [--format FORMAT]
                    [--max-rows N] [--max-width N] [--force]
                    [--compression NAME] [--row-group-size N] [--time-format iso|epoch]
                    [--threads N] [--memory-limit SIZE]
                    [--lenient] [--no-verify] [--raw] [--mods-v1 MODE]
                    [--trust-resources]

Runs SQL over the tables of the INPUTs with DuckDB, in this process. An
INPUT is what convert reads: a TsFile, a directory or glob of them, an
http(s) URL, or IoTDB data (a data directory, or TsFiles with mods files
beside them), resolved as convert resolves it (deletions applied,
overwritten points once; --raw reads every file as it is). Every table
of the inputs is a DuckDB table: a TsFile's tables by their names, a tree
model's devices under their prefix, an IoTDB database as a DuckDB schema
("root.sg".t). A file that is not an INPUT is read with
SELECT * FROM 'x.tsfile' or tsfile('dir', table := 'weather').

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
  echo 'SELECT count(*) FROM weather' | ts2arrow sql testdata/sample.tsfile --format csv
` + keysHelp + `
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
	raw         bool
	threads     int
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
	maxWidth := fs.Int("max-width", -1, "the width a table is fitted to (default the terminal's; 0 for no limit)")
	force := fs.Bool("force", false, "replace an existing output file")
	compression := fs.String("compression", "", "compression of parquet, arrow or arrows output (as convert's)")
	rowGroup := fs.Int64("row-group-size", export.DefaultRowGroupSize, "rows per Parquet row group (parquet only)")
	timeFormat := fs.String("time-format", "iso", "how csv and jsonl write timestamps: iso (2023-11-14T22:13:20.123Z) or epoch (the stored integers)")
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
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	if !sqlEngineBuilt {
		return errNoSQLEngine
	}
	j := &sqlJob{inputs: pos, out: *out, format: *format, maxRows: *maxRows, raw: *rawFiles, threads: *threads, memLimit: int64(memLimit), stdout: stdout, stderr: stderr}
	if *command != "" && *file != "" {
		return usagef("-c and -f both give the query; pass one")
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
			if !isURL(in) {
				local = append(local, in)
			}
		}
		if j.dst, err = checkOutput(j.out, outFile, *force, local, stderr); err != nil {
			return err
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

// writeResult writes one statement's result in the job's format, to OUT
// or standard output. elapsed, when not nil, says how long the statement
// has taken so far (for the footer of a table).
func (j *sqlJob) writeResult(rdr array.RecordReader, started time.Time) (int64, error) {
	var rows int64
	write := func(w io.Writer) error {
		var err error
		switch j.format {
		case "table":
			rows, err = printBox(w, rdr, boxOptions{maxRows: j.maxRows, maxWidth: j.maxWidth, started: started})
		case "markdown":
			rows, err = printMarkdown(w, rdr)
		default:
			c := &countingReader{RecordReader: rdr}
			err = writeFormat(w, j.format, c, j.wopts)
			rows = c.rows
		}
		return err
	}
	if j.dst != nil {
		return rows, j.dst.writeFile(write)
	}
	bw := bufio.NewWriterSize(j.stdout, 1<<16)
	if err := write(bw); err != nil {
		bw.Flush()
		return rows, err
	}
	return rows, bw.Flush()
}

// countingReader counts the rows that pass through it.
type countingReader struct {
	array.RecordReader
	rows int64
}

func (c *countingReader) Next() bool {
	if !c.RecordReader.Next() {
		return false
	}
	c.rows += c.RecordReader.RecordBatch().NumRows()
	return true
}

// ctxReader stops a result at its next batch once ctx is cancelled, for
// the printers, which take no context (DuckDB is interrupted too; this
// makes the stop certain between batches).
type ctxReader struct {
	array.RecordReader
	ctx context.Context
	err error
}

func (c *ctxReader) Next() bool {
	if c.ctx.Err() != nil {
		c.err = interruptedBy(c.ctx)
		return false
	}
	return c.RecordReader.Next()
}

func (c *ctxReader) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.RecordReader.Err()
}

// resultCell is head's cell text, and a DECIMAL's with the digits of its
// scale (1.50), as DuckDB prints it.
func resultCell(tt *textTable, a arrow.Array) (func(int) string, error) {
	d, ok := a.(*array.Decimal128)
	if !ok {
		return tt.cellFunc(a)
	}
	scale := d.DataType().(*arrow.Decimal128Type).Scale
	return func(i int) string {
		if d.IsNull(i) {
			return nullCell
		}
		return d.Value(i).ToString(scale)
	}, nil
}

// duckTypeName names an Arrow type of a DuckDB result as DuckDB does, for
// the header of a table.
func duckTypeName(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return "boolean"
	case *arrow.Int8Type:
		return "tinyint"
	case *arrow.Int16Type:
		return "smallint"
	case *arrow.Int32Type:
		return "integer"
	case *arrow.Int64Type:
		return "bigint"
	case *arrow.Uint8Type:
		return "utinyint"
	case *arrow.Uint16Type:
		return "usmallint"
	case *arrow.Uint32Type:
		return "uinteger"
	case *arrow.Uint64Type:
		return "ubigint"
	case *arrow.Float32Type:
		return "float"
	case *arrow.Float64Type:
		return "double"
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "varchar"
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return "blob"
	case *arrow.Date32Type, *arrow.Date64Type:
		return "date"
	case *arrow.Time32Type, *arrow.Time64Type:
		return "time"
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return "timestamp with time zone"
		}
		return map[arrow.TimeUnit]string{arrow.Second: "timestamp_s", arrow.Millisecond: "timestamp_ms", arrow.Microsecond: "timestamp", arrow.Nanosecond: "timestamp_ns"}[t.Unit]
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case *arrow.DictionaryType:
		return duckTypeName(t.ValueType)
	case *arrow.ListType:
		return duckTypeName(t.Elem()) + "[]"
	case *arrow.MonthDayNanoIntervalType:
		return "interval"
	}
	return strings.ToLower(dt.String())
}

// rightAligned reports whether a result column holds numbers.
func rightAligned(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	case arrow.DICTIONARY:
		return rightAligned(dt.(*arrow.DictionaryType).ValueType)
	}
	return numeric(dt, false)
}

// boxOptions are how printBox fits a result.
type boxOptions struct {
	maxRows  int // 0: every row
	maxWidth int // 0: no limit
	started  time.Time
}

// printBox prints a result as DuckDB's CLI does (its "duckbox" mode): a
// box of column names and types over the rows, and below it how many rows
// and columns there are and the time taken. It streams: of a result
// longer than maxRows it keeps the text of the first and last maxRows/2
// rows only.
func printBox(w io.Writer, rdr array.RecordReader, o boxOptions) (int64, error) {
	sc := rdr.Schema()
	ncol := sc.NumFields()
	head, tailN := o.maxRows, 0
	if o.maxRows > 0 {
		head, tailN = (o.maxRows+1)/2, o.maxRows/2
	}
	var first [][]string
	tail := make([][]string, tailN) // a ring of the last rows
	var total int64
	tt := &textTable{}
	for rdr.Next() {
		rec := rdr.RecordBatch()
		cols := make([]func(int) string, ncol)
		for c := range cols {
			f, err := resultCell(tt, rec.Column(c))
			if err != nil {
				return total, err
			}
			cols[c] = f
		}
		for i := range int(rec.NumRows()) {
			keep := o.maxRows == 0 || len(first) < head
			if !keep && tailN == 0 {
				total++
				continue
			}
			row := make([]string, ncol)
			for c, f := range cols {
				// A copy: a string cell shares the batch's memory,
				// which DuckDB frees with the next batch.
				row[c] = strings.Clone(f(i))
			}
			if keep {
				first = append(first, row)
			} else {
				tail[(total-int64(head))%int64(tailN)] = row
			}
			total++
		}
	}
	if err := rdr.Err(); err != nil {
		return total, err
	}
	rows := first
	elided := o.maxRows > 0 && total > int64(o.maxRows)
	if elided {
		rows = append(rows, nil) // the row of dots
	}
	if tailN > 0 && total > int64(head) {
		// The ring holds the last n rows, the oldest at start.
		n := min(total-int64(head), int64(tailN))
		start := (total - int64(head) - n) % int64(tailN)
		for k := range n {
			rows = append(rows, tail[(start+k)%int64(tailN)])
		}
	}
	names := make([]string, ncol)
	types := make([]string, ncol)
	right := make([]bool, ncol)
	cut := make([]bool, ncol)
	widths := make([]int, ncol)
	for c, f := range sc.Fields() {
		names[c] = escapeCell(f.Name)
		types[c] = duckTypeName(f.Type)
		right[c] = rightAligned(f.Type)
		cut[c] = cuttable(f.Type)
		widths[c] = max(textWidth(names[c]), textWidth(types[c]), 1)
		for _, r := range rows {
			if r != nil {
				widths[c] = max(widths[c], textWidth(r[c]))
			}
		}
	}
	shown := fitColumns(widths, cut, o.maxWidth)
	var b strings.Builder
	rule := func(l, m, r string) {
		b.WriteString(l)
		for k, c := range shown {
			if k > 0 {
				b.WriteString(m)
			}
			b.WriteString(strings.Repeat("─", widths[c]+2))
		}
		b.WriteString(r + "\n")
	}
	line := func(cells []string, align bool) {
		b.WriteString("│")
		for _, c := range shown {
			s := "·"
			if cells != nil {
				s = truncate(cells[c], widths[c])
			}
			pad := strings.Repeat(" ", widths[c]-textWidth(s))
			if align && right[c] {
				b.WriteString(" " + pad + s + " │")
			} else {
				b.WriteString(" " + s + pad + " │")
			}
		}
		b.WriteString("\n")
	}
	if ncol > 0 {
		rule("┌", "┬", "┐")
		line(names, false)
		line(types, false)
		rule("├", "┼", "┤")
		for _, r := range rows {
			if r == nil {
				for range 3 {
					line(nil, true)
				}
				continue
			}
			line(r, true)
		}
		rule("└", "┴", "┘")
	}
	plural := func(n int64, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	foot := plural(total, "row")
	if elided {
		foot += fmt.Sprintf(" (%d shown)", len(rows)-1)
	}
	foot += ", " + plural(int64(ncol), "column")
	if len(shown) < ncol {
		foot += fmt.Sprintf(" (%d shown)", len(shown))
	}
	if !o.started.IsZero() {
		foot += fmt.Sprintf(", %.3f s", time.Since(o.started).Seconds())
	}
	b.WriteString(foot + "\n")
	_, err := io.WriteString(w, b.String())
	return total, err
}

// fitColumns narrows the columns of a box to maxWidth terminal columns
// (0: no limit): first the widest text columns, down to a few characters
// each (numbers and times are never cut: a cut number is a wrong number),
// then it leaves out the columns at the right that still do not fit. It
// returns the indexes of the columns shown; widths is updated.
func fitColumns(widths []int, cut []bool, maxWidth int) []int {
	shown := make([]int, len(widths))
	for c := range shown {
		shown[c] = c
	}
	if maxWidth <= 0 || len(widths) == 0 {
		return shown
	}
	total := func() int {
		n := 1
		for _, c := range shown {
			n += widths[c] + 3
		}
		return n
	}
	const minCut = 8
	for total() > maxWidth {
		widest := -1
		for _, c := range shown {
			if cut[c] && widths[c] > minCut && (widest < 0 || widths[c] > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break
		}
		widths[widest] = max(minCut, widths[widest]-(total()-maxWidth))
	}
	for total() > maxWidth && len(shown) > 1 {
		shown = shown[:len(shown)-1]
	}
	return shown
}

// printMarkdown prints every row of a result as a Markdown table (GitHub's
// flavour): numbers right-aligned, | escaped.
func printMarkdown(w io.Writer, rdr array.RecordReader) (int64, error) {
	sc := rdr.Schema()
	bw := bufio.NewWriter(w)
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	bw.WriteString("|")
	for _, f := range sc.Fields() {
		bw.WriteString(" " + cell(escapeCell(f.Name)) + " |")
	}
	bw.WriteString("\n|")
	for _, f := range sc.Fields() {
		if rightAligned(f.Type) {
			bw.WriteString("---:|")
		} else {
			bw.WriteString("---|")
		}
	}
	bw.WriteString("\n")
	tt := &textTable{}
	var total int64
	for rdr.Next() {
		rec := rdr.RecordBatch()
		cols := make([]func(int) string, rec.NumCols())
		for c := range cols {
			f, err := resultCell(tt, rec.Column(c))
			if err != nil {
				return total, err
			}
			cols[c] = f
		}
		for i := range int(rec.NumRows()) {
			bw.WriteString("|")
			for _, f := range cols {
				bw.WriteString(" " + cell(f(i)) + " |")
			}
			bw.WriteString("\n")
			total++
		}
	}
	if err := rdr.Err(); err != nil {
		return total, err
	}
	return total, bw.Flush()
}

// errNoQuery is the error of a query text that holds no statement.
var errNoQuery = errors.New("the query holds no statement")
