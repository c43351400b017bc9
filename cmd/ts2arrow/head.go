package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/pflag"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/iceref"
)

const headHelp = `Usage: ts2arrow head FILE [-n 20] [--table T] [--columns A,B] [--width 40]
                     [--start T] [--end T] [--time-format iso|epoch] [--time-unit U]
                     [--raw] [--no-verify]

Prints the first rows of FILE, as "ts2arrow convert" would convert them, as
an aligned table: a header row of column names, a rule, then one line per
row. Only the first -n rows are read, so head is quick on large and remote
files. --columns prints only the columns named, in that order, after time
(always printed, always first).

Numbers are right-aligned. A null prints as NULL; an empty string as an
empty cell. Timestamps (the time column and TIMESTAMP columns) print in
ISO 8601, UTC, with the digits of the --time-unit, as convert writes them
to CSV; --time-format epoch prints the stored integers instead (rfc3339
and raw are accepted for iso and epoch). BLOBs print as 0x and hex, dates
as YYYY-MM-DD. Tabs, newlines and other control characters in strings print
escaped (\t, \n, \x1b) so that each row stays one line. A string or BLOB
longer than --width characters is cut to that width, ending in "…"
(numbers and times never are); --width 0 never cuts.

--start and --end print only the rows in a time range, as convert keeps
them:
` + timeRangeHelp + `
FILE is a path, an http(s) URL or an object URL such as s3://bucket/key
(read with range requests). A table-model
file with several tables needs --table; a tree-model file gives "time,
device, <measurements>" unless --table names one of its tree tables: a
device path's first three nodes, or all but the last of a shorter path
(root.sg.d1 is in table root.sg, root.sg.x.y in root.sg.x, as TsFile and
IoTDB 2.x file them), whose devices alone are read.
FILE may also be IoTDB data (below): head prints the first rows of the
resolved stream. FILE may also be a Parquet, Arrow IPC (file or stream) or
CSV file, told by its first bytes (a CSV file by its .csv extension): head
prints its first rows as "convert FILE -o OUT.tsfile" reads them.

` + rawHelp + `
Examples:
  ts2arrow head testdata/sample.tsfile
  ts2arrow head testdata/sample.tsfile -n 5 --columns temperature,humidity
  ts2arrow head data.tsfile --table weather --width 0 --time-format epoch
  ts2arrow head https://example.com/data/day.tsfile -n 3
  ts2arrow head /iotdb/data/datanode/data --table root.sg
` + keysHelp + "\n" + httpHelp + "\n" + objectHelp + "\n" + cellHelp + `
Exit status: 0 on success, 1 on a data or format error, 2 on a usage
error, 130 when Ctrl-C stopped it (143 for SIGTERM).

Options:
`

// nullCell is how head prints a null. A word rather than an empty cell,
// so that a null and an empty string differ on screen.
const nullCell = "NULL"

func runHead(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("head", headHelp, stderr)
	n := fs.IntP("lines", "n", 20, "number of rows to print")
	table := fs.String("table", "", "table to read")
	dsFlags := addDatasetFlags(fs)
	columns := fs.String("columns", "", "comma-separated columns to print (time is always printed)")
	width := fs.Int("width", 40, "most characters per cell; 0 for no limit")
	timeFormat := fs.String("time-format", "iso", "how timestamps print: iso (2023-11-14T22:13:20.123Z) or epoch (the stored integers)")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: s, ms, us or ns")
	start := fs.String("start", "", "first timestamp to print: an integer in the stored unit, a date or a date and time (UTC unless a zone is given)")
	end := fs.String("end", "", "last timestamp to print, inclusive (a date includes its whole day)")
	lenient := fs.Bool("lenient", false, "read files with known writer quirks, reporting warnings")
	rawFiles := fs.Bool("raw", false, "read FILE as it is, also in an IoTDB data directory or beside mods files (see above)")
	noVerify := fs.Bool("no-verify", false, "do not check decoded pages against their statistics (see convert --help)")
	keys := addKeyFlags(fs)
	hf := addHTTPFlags(fs)
	defer hf.release()
	obj := addObjectFlags(fs)
	cells := addCellFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	hf.objects = obj.options()
	if len(pos) != 1 {
		return usagef("head takes one FILE (got %d arguments)", len(pos))
	}
	if *n < 0 {
		return usagef("-n must not be negative (got %d)", *n)
	}
	if *width < 0 {
		return usagef("--width must not be negative (got %d)", *width)
	}
	if *width > 0 && *width < 2 {
		return usagef("--width must be at least 2, or 0 for no limit")
	}
	tf, err := timeFormatFlag(*timeFormat)
	if err != nil {
		return err
	}
	raw := tf == export.TimeEpoch
	tu, err := timeUnitFlag(*unit)
	if err != nil {
		return err
	}
	tr, err := timeRangeFlags(*start, *end, tu)
	if err != nil {
		return err
	}
	name := pos[0]
	if k := sniffForeign(name); k != "" {
		return headForeign(fs, name, k, *n, raw, *width, stdout)
	}
	ropts, err := keys.readOptions(*lenient)
	if err != nil {
		return err
	}
	ropts.NoVerify = *noVerify
	// The batch is the rows asked for, so that the reader decodes no more
	// pages than those rows need and stops (Limit) after them.
	opts := &arrowconv.Options{TimeUnit: arrowconv.TimeUnitOf(tu), Columns: columnsFlag(*columns),
		Limit: int64(*n), BatchSize: min(max(*n, 1), arrowconv.DefaultBatchSize), Time: tr}
	if err := cells.apply(opts); err != nil {
		return err
	}
	if iceref.IsInput(name) {
		if *table != "" || *rawFiles {
			return usagef("--table and --raw do not apply to an Iceberg input, which names its table")
		}
		return headIceberg(name, opts, *n, raw, *width, stdout)
	}
	if ds, err := datasetFor(name, *rawFiles, hf.objects); err != nil {
		return err
	} else if err := checkDatasetFlags(dsFlags, ds); err != nil {
		return err
	} else if ds != nil {
		return headDataset(ds, ropts, *table, dsFlags, opts, *n, raw, *width, stdout, stderr)
	}
	in, err := openInput(context.Background(), name, ropts, hf)
	if err != nil {
		return err
	}
	defer in.close()
	defer printWarnings(stderr, name, in.file)
	if n := treeTableNote(*table, in.file.Tables(), func(t string) bool { _, ok := in.file.SchemaOf(t); return !ok }); n != "" {
		fmt.Fprintf(stderr, "ts2arrow: %s\n", n)
	}
	rdr, err := openProjected(in.file, *table, opts)
	if err != nil {
		return withFile(name, err)
	}
	defer rdr.Release()
	return printHead(rdr, *n, raw, *width, stdout, func(err error) error { return withFile(name, err) })
}

// headForeign prints the first n rows of a Parquet, Arrow or CSV file, as
// the reverse path reads it.
func headForeign(fs *pflag.FlagSet, name string, k foreignKind, n int, raw bool, width int, stdout io.Writer) error {
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	if err := foreignOnly(name, k, set, "table", "columns"); err != nil {
		return err
	}
	rr, closeFn, err := openForeign(context.Background(), name, k, csvOptions{timeColumn: arrowconv.TimeColumn})
	if err != nil {
		return withFile(name, err)
	}
	defer closeFn()
	defer rr.Release()
	return printHead(rr, n, raw, width, stdout, func(err error) error { return withFile(name, err) })
}

// printHead prints the first n rows of rdr as head does; wrap attributes
// a read error to the input.
func printHead(rdr array.RecordReader, n int, raw bool, width int, stdout io.Writer, wrap func(error) error) error {
	t := newTextTable(rdr.Schema(), raw, width)
	// -n 0 prints the header alone; Limit 0 would mean every row.
	for n > 0 && t.rows() < n && rdr.Next() {
		if err := t.add(rdr.RecordBatch(), n-t.rows()); err != nil {
			return wrap(err)
		}
	}
	if err := rdr.Err(); err != nil {
		return wrap(err)
	}
	bw := bufio.NewWriter(stdout)
	t.print(bw)
	return bw.Flush()
}

// textTable collects the cells of head's output: columns must be as wide
// as their widest cell, so nothing prints before the last row is in.
type textTable struct {
	names []string
	right []bool // right-aligned (numeric) columns
	cut   []bool // columns whose long cells are cut to width
	cells [][]string
	raw   bool
	width int
}

func newTextTable(sc *arrow.Schema, raw bool, width int) *textTable {
	t := &textTable{raw: raw, width: width}
	for _, f := range sc.Fields() {
		t.names = append(t.names, f.Name)
		t.right = append(t.right, numeric(f.Type, raw))
		t.cut = append(t.cut, cuttable(f.Type))
	}
	return t
}

func (t *textTable) rows() int { return len(t.cells) }

// add formats up to max rows of rec. Cells are copied out as they are
// read, since the batch's buffers are reused once it is released.
func (t *textTable) add(rec arrow.RecordBatch, limit int) error {
	n := min(int(rec.NumRows()), limit)
	cols := make([]func(int) string, rec.NumCols())
	for j := range cols {
		f, err := t.cellFunc(rec.Column(j))
		if err != nil {
			return err
		}
		cols[j] = f
	}
	for i := range n {
		row := make([]string, len(cols))
		for j, f := range cols {
			if row[j] = f(i); t.cut[j] {
				row[j] = truncate(row[j], t.width)
			}
		}
		t.cells = append(t.cells, row)
	}
	return nil
}

func (t *textTable) print(w io.Writer) {
	widths := make([]int, len(t.names))
	for j, n := range t.names {
		widths[j] = textWidth(n)
	}
	for _, row := range t.cells {
		for j, c := range row {
			widths[j] = max(widths[j], textWidth(c))
		}
	}
	line := func(cells []string, right []bool) {
		var b strings.Builder
		for j, c := range cells {
			pad := strings.Repeat(" ", widths[j]-textWidth(c))
			last := j == len(cells)-1
			switch {
			case right != nil && right[j]:
				b.WriteString(pad + c)
			case last:
				b.WriteString(c) // no trailing blanks
			default:
				b.WriteString(c + pad)
			}
			if !last {
				b.WriteString("  ")
			}
		}
		// An empty last cell would leave the separator behind.
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
	line(t.names, t.right)
	rule := make([]string, len(widths))
	for j, n := range widths {
		rule[j] = strings.Repeat("-", n)
	}
	line(rule, nil)
	for _, row := range t.cells {
		line(row, t.right)
	}
}

// numeric reports whether a column's cells are numbers, which read best
// right-aligned.
func numeric(dt arrow.DataType, raw bool) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	case arrow.TIMESTAMP:
		return raw
	}
	return false
}

// cuttable reports whether a column's long cells may be cut. Numbers,
// times and dates never are: a cut number is a wrong number, and none of
// them is long.
func cuttable(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.BOOL, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
		return false
	}
	return !numeric(dt, true)
}

// cellFunc returns the text of row i of a column.
func (t *textTable) cellFunc(a arrow.Array) (func(int) string, error) {
	var f func(int) string
	switch a := a.(type) {
	case *array.Boolean:
		f = func(i int) string { return strconv.FormatBool(a.Value(i)) }
	case *array.Int8:
		f = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int16:
		f = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int32:
		f = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int64:
		f = func(i int) string { return strconv.FormatInt(a.Value(i), 10) }
	case *array.Uint8:
		f = func(i int) string { return strconv.FormatUint(uint64(a.Value(i)), 10) }
	case *array.Uint16:
		f = func(i int) string { return strconv.FormatUint(uint64(a.Value(i)), 10) }
	case *array.Uint32:
		f = func(i int) string { return strconv.FormatUint(uint64(a.Value(i)), 10) }
	case *array.Uint64:
		f = func(i int) string { return strconv.FormatUint(a.Value(i), 10) }
	case *array.Float32:
		f = func(i int) string { return formatFloat(float64(a.Value(i)), 32) }
	case *array.Float64:
		f = func(i int) string { return formatFloat(a.Value(i), 64) }
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		if t.raw {
			f = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
		} else {
			f = func(i int) string { return formatTimestamp(int64(a.Value(i)), unit) }
		}
	case *array.Date32:
		f = func(i int) string { return formatDate(int64(a.Value(i))) }
	case *array.String:
		f = func(i int) string { return escapeCell(a.Value(i)) }
	case *array.LargeString:
		f = func(i int) string { return escapeCell(a.Value(i)) }
	case *array.StringView:
		f = func(i int) string { return escapeCell(a.Value(i)) }
	case *array.Binary:
		f = func(i int) string { return "0x" + hex.EncodeToString(a.Value(i)) }
	case *array.LargeBinary:
		f = func(i int) string { return "0x" + hex.EncodeToString(a.Value(i)) }
	case *array.BinaryView:
		f = func(i int) string { return "0x" + hex.EncodeToString(a.Value(i)) }
	case *array.Dictionary:
		dict, err := t.cellFunc(a.Dictionary())
		if err != nil {
			return nil, err
		}
		f = func(i int) string { return dict(a.GetValueIndex(i)) }
	case *array.Struct:
		// An OBJECT reference: {size: 5, path: 1/OQ/N4/1.bin}, its
		// fields in order, each printed as a column of its type.
		st := a.DataType().(*arrow.StructType)
		fields := make([]func(int) string, st.NumFields())
		for k := range fields {
			ff, err := t.cellFunc(a.Field(k))
			if err != nil {
				return nil, err
			}
			fields[k] = ff
		}
		f = func(i int) string {
			var sb strings.Builder
			sb.WriteByte('{')
			for k, ff := range fields {
				if k > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(st.Field(k).Name + ": " + ff(i))
			}
			sb.WriteByte('}')
			return sb.String()
		}
	default:
		// Types arrowconv does not produce today still print, in
		// arrow-go's own spelling.
		f = func(i int) string { return escapeCell(a.ValueStr(i)) }
	}
	return func(i int) string {
		if a.IsNull(i) {
			return nullCell
		}
		return f(i)
	}, nil
}

// formatFloat spells floats as convert's CSV does: the shortest text
// that reads back to the same value at the column's precision, and the
// non-finite values as Java spells them.
func formatFloat(v float64, bits int) string {
	switch {
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

// formatTimestamp spells a timestamp as convert's CSV does: every value
// of a column has as many fraction digits as its unit, so that the column
// lines up.
func formatTimestamp(v int64, unit arrow.TimeUnit) string {
	return string(export.AppendISOTime(nil, v, unit))
}

func formatDate(days int64) string {
	tm := time.Unix(days*86400, 0).UTC()
	if y := tm.Year(); y >= 0 && y <= 9999 {
		return tm.Format("2006-01-02")
	}
	// Beyond four digits, signed as ISO 8601 (and Java's LocalDate)
	// write the expanded years.
	sign := "+"
	y := tm.Year()
	if y < 0 {
		sign, y = "-", -y
	}
	return fmt.Sprintf("%s%d-%02d-%02d", sign, y, tm.Month(), tm.Day())
}

// escapeCell keeps a value on one line: control characters and invalid
// UTF-8 are written as Go escapes.
func escapeCell(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// truncate cuts s to width terminal columns, the last one "…".
func truncate(s string, width int) string {
	if width <= 0 || textWidth(s) <= width {
		return s
	}
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > width-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// textWidth is how many terminal columns s takes.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// runeWidth approximates the columns a terminal gives r: none for
// combining marks, two for East Asian wide and fullwidth characters and
// emoji, else one. Close enough to keep CJK text aligned without a
// Unicode width table.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0x303e, r >= 0x3041 && r <= 0x33ff,
		r >= 0x3400 && r <= 0x4dbf, r >= 0x4e00 && r <= 0x9fff, r >= 0xa000 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
