package export

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/internal/civil"
)

// WriteCSV writes r as CSV with the default options: WriteCSVWith(w, r, nil).
func WriteCSV(w io.Writer, r array.RecordReader) (int64, error) {
	return WriteCSVWith(w, r, nil)
}

// WriteCSVWith writes a header row of the schema's field names and one row
// per record row, in the conventions of the interop corpus: an empty cell
// for null; bool as true/false; integers in decimal; timestamps as
// opts.Time says (default TimeISO: 2023-11-14T22:13:20.123Z; TimeEpoch:
// the raw stored integer, as the interop corpus writes them); FLOAT and DOUBLE in the shortest form that round-trips at their
// own precision (strconv's 'g' with precision -1), with NaN, Infinity and
// -Infinity spelled as Java spells them; binary as "0x" and lowercase hex;
// date32 as YYYY-MM-DD; strings raw; a struct (an OBJECT reference) as the
// text of its JSONL object, {"size":5,"path":"1/OQ/N4/1.bin"}. A cell is quoted by RFC 4180 rules only
// when it contains a comma, a double quote, CR or LF, and an empty non-null
// string is written as "" so that it stays distinct from null.
//
// It consumes r up to its end and returns the number of data rows written.
func WriteCSVWith(w io.Writer, r array.RecordReader, opts *TextOptions) (int64, error) {
	tf := opts.timeFormat()
	var head []byte
	for i, f := range r.Schema().Fields() {
		if i > 0 {
			head = append(head, ',')
		}
		head = appendCSVString(head, f.Name)
	}
	head = append(head, '\n')
	cell := func(a arrow.Array) (cellFunc, error) { return newCell(a, tf) }
	return writeLines(w, r, head, cell, func(line []byte, cells []cellFunc, i int) []byte {
		for c, f := range cells {
			if c > 0 {
				line = append(line, ',')
			}
			line = f(line, i)
		}
		return append(line, '\n')
	})
}

// writeLines is the loop of the line-per-row writers: head, then for each
// row the line that row builds from the cell formatters newCell made for
// the batch's columns. It returns the rows written.
func writeLines(w io.Writer, r array.RecordReader, head []byte, newCell func(arrow.Array) (cellFunc, error), row func(line []byte, cells []cellFunc, i int) []byte) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	schema := r.Schema()
	if _, err := bw.Write(head); err != nil {
		return 0, err
	}
	var rows int64
	var line []byte
	cells := make([]cellFunc, schema.NumFields())
	for r.Next() {
		rec := r.RecordBatch()
		if int(rec.NumCols()) != len(cells) {
			return rows, fmt.Errorf("export: record has %d columns, schema %d", rec.NumCols(), len(cells))
		}
		for c := range cells {
			f, err := newCell(rec.Column(c))
			if err != nil {
				return rows, fmt.Errorf("export: column %q: %w", schema.Field(c).Name, err)
			}
			cells[c] = f
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			line = row(line[:0], cells, i)
			if _, err := bw.Write(line); err != nil {
				return rows, err
			}
			rows++
		}
	}
	if err := r.Err(); err != nil {
		bw.Flush()
		return rows, err
	}
	return rows, bw.Flush()
}

// cellFunc appends the CSV form of row i of one column; nulls append nothing.
type cellFunc func(dst []byte, i int) []byte

// newCell returns the formatter of a column.
func newCell(a arrow.Array, tf TimeFormat) (cellFunc, error) {
	f, err := valueCell(a, tf)
	if err != nil {
		return nil, err
	}
	return func(dst []byte, i int) []byte {
		if a.IsNull(i) {
			return dst
		}
		return f(dst, i)
	}, nil
}

// valueCell returns the formatter of the non-null values of a column,
// timestamps in format tf.
func valueCell(a arrow.Array, tf TimeFormat) (cellFunc, error) {
	switch a := a.(type) {
	case *array.Boolean:
		return func(d []byte, i int) []byte { return strconv.AppendBool(d, a.Value(i)) }, nil
	case *array.Int8:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }, nil
	case *array.Int16:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }, nil
	case *array.Int32:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }, nil
	case *array.Int64:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, a.Value(i), 10) }, nil
	case *array.Uint8:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }, nil
	case *array.Uint16:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }, nil
	case *array.Uint32:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }, nil
	case *array.Uint64:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, a.Value(i), 10) }, nil
	case *array.Float32:
		return func(d []byte, i int) []byte { return appendJavaFloat(d, float64(a.Value(i)), 32) }, nil
	case *array.Float64:
		return func(d []byte, i int) []byte { return appendJavaFloat(d, a.Value(i), 64) }, nil
	case *array.Timestamp:
		if tf == TimeEpoch {
			return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }, nil
		}
		iso := newISOTime(a.DataType().(*arrow.TimestampType))
		return func(d []byte, i int) []byte { return iso.append(d, int64(a.Value(i))) }, nil
	case *array.Date32:
		return func(d []byte, i int) []byte { return appendDate(d, int64(a.Value(i))) }, nil
	case *array.String:
		return func(d []byte, i int) []byte { return appendCSVString(d, a.Value(i)) }, nil
	case *array.LargeString:
		return func(d []byte, i int) []byte { return appendCSVString(d, a.Value(i)) }, nil
	case *array.StringView:
		return func(d []byte, i int) []byte { return appendCSVString(d, a.Value(i)) }, nil
	case *array.Binary:
		return func(d []byte, i int) []byte { return appendHex(d, a.Value(i)) }, nil
	case *array.LargeBinary:
		return func(d []byte, i int) []byte { return appendHex(d, a.Value(i)) }, nil
	case *array.BinaryView:
		return func(d []byte, i int) []byte { return appendHex(d, a.Value(i)) }, nil
	case *array.Decimal128:
		// Exact, with the digits of its scale (1.50), as DuckDB writes
		// a DECIMAL (and its HUGEINT sums) to CSV; a JSON number too.
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return func(d []byte, i int) []byte { return append(d, a.Value(i).ToString(scale)...) }, nil
	case *array.Struct:
		// A struct (an OBJECT reference) is one cell holding its JSON
		// object, {"size":N,"path":"..."}, quoted as CSV quotes text.
		v, err := structJSON(a, tf)
		if err != nil {
			return nil, err
		}
		var buf []byte
		return func(d []byte, i int) []byte {
			buf = v(buf[:0], i)
			return appendCSVString(d, string(buf))
		}, nil
	case *array.Dictionary:
		dict, err := newCell(a.Dictionary(), tf)
		if err != nil {
			return nil, err
		}
		return func(d []byte, i int) []byte { return dict(d, a.GetValueIndex(i)) }, nil
	}
	return nil, fmt.Errorf("export: no CSV form for Arrow type %s", a.DataType())
}

// appendJavaFloat appends the shortest round-trip form of v at the given
// precision, spelling the non-finite values as Java's Float.toString and
// Double.toString do.
func appendJavaFloat(dst []byte, v float64, bitSize int) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	case math.IsInf(v, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(v, -1):
		return append(dst, "-Infinity"...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bitSize)
}

// appendDate appends days since the epoch as YYYY-MM-DD, with years beyond
// four digits signed as Java's LocalDate.toString writes them.
func appendDate(dst []byte, days int64) []byte {
	y, m, d := civil.FromDays(days)
	switch {
	case y > 9999:
		dst = append(dst, '+')
		dst = strconv.AppendInt(dst, y, 10)
	case y < 0:
		dst = append(dst, '-')
		dst = appendPadded(dst, -y, 4)
	default:
		dst = appendPadded(dst, y, 4)
	}
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	return appendPadded(dst, d, 2)
}

func appendPadded(dst []byte, v int64, width int) []byte {
	s := strconv.AppendInt(nil, v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func appendHex(dst []byte, b []byte) []byte {
	dst = append(dst, "0x"...)
	return hex.AppendEncode(dst, b)
}

// appendCSVString appends s, quoted only when RFC 4180 requires it or when
// it is empty (an unquoted empty cell is null).
func appendCSVString(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, `""`...)
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, '"')
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '"')
}
