//go:build cgo && duckdb_arrow

package main

// The printers of ts2arrow sql's results (pure Go, but only a build with
// the SQL engine has results to print).

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// writeResult writes one statement's result in the job's format, to OUT
// or standard output. elapsed, when not nil, says how long the statement
// has taken so far (for the footer of a table); ctx stops an upload of OUT
// to a bucket.
func (j *sqlJob) writeResult(ctx context.Context, rdr array.RecordReader, started time.Time) (int64, error) {
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
		return rows, j.dst.writeFile(ctx, write)
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
