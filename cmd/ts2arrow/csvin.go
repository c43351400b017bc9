package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/arrowconv"
)

// CSV input. arrow-go's csv.NewInferringReader infers each column's type
// from the first data row alone and cannot tell a quoted empty cell from
// an unquoted one, which convert's own CSV output uses to tell an empty
// string from a null (export.WriteCSV). So CSV is read here: RFC 4180
// cells, types inferred from the first csvSampleRows rows unless --schema
// gives them, and every cell that does not fit its column's type an error
// naming its line.

// csvSampleRows is how many data rows a CSV column's type is inferred from.
const csvSampleRows = 10000

// csvBatchRows is the rows per record batch read from a CSV file.
const csvBatchRows = 64 << 10

// csvOptions configure reading a CSV input.
type csvOptions struct {
	// schema gives the types (and field metadata) of the columns it
	// names (--schema); the others are inferred.
	schema *arrow.Schema
	// timeColumn is the time column, which infers as an integer (in the
	// stored unit) or a timestamp, also from bare dates.
	timeColumn string
}

// csvCell is one cell and whether it was quoted: an unquoted empty cell is
// null, a quoted one ("") the empty string.
type csvCell struct {
	s      string
	quoted bool
}

func (c csvCell) null() bool { return !c.quoted && c.s == "" }

// csvScanner splits a CSV text into records by RFC 4180: cells separated
// by commas, records by LF or CRLF, a quoted cell may hold commas, quotes
// written twice and line breaks. Blank lines are skipped.
type csvScanner struct {
	r     *bufio.Reader
	line  int // lines read
	start int // line of the last record's first line
	cells []csvCell
	buf   []byte
}

// readLine returns the next line without its line break; io.EOF after the
// last one.
func (s *csvScanner) readLine() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		b, err := s.r.ReadSlice('\n')
		s.buf = append(s.buf, b...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(s.buf) > 0 {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		s.line++
		line := bytes.TrimSuffix(s.buf, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if s.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
		}
		return line, nil
	}
}

// next returns the cells of the next record, valid until the next call;
// io.EOF after the last.
func (s *csvScanner) next() ([]csvCell, error) {
	var line []byte
	for len(line) == 0 {
		var err error
		if line, err = s.readLine(); err != nil {
			return nil, err
		}
	}
	s.start = s.line
	s.cells = s.cells[:0]
	i := 0
	for {
		if i < len(line) && line[i] == '"' {
			var val []byte
			i++
			for {
				j := bytes.IndexByte(line[i:], '"')
				if j < 0 {
					// The cell goes on past the line break.
					val = append(append(val, line[i:]...), '\n')
					more, err := s.readLine()
					if err == io.EOF {
						return nil, fmt.Errorf("line %d: a quoted cell is not closed before the end of the file", s.start)
					}
					if err != nil {
						return nil, err
					}
					line, i = more, 0
					continue
				}
				val = append(val, line[i:i+j]...)
				i += j + 1
				if i < len(line) && line[i] == '"' {
					val = append(val, '"')
					i++
					continue
				}
				break
			}
			if i < len(line) && line[i] != ',' {
				return nil, fmt.Errorf("line %d: text after the closing quote of cell %d; a quote inside a quoted cell is written twice", s.line, len(s.cells)+1)
			}
			s.cells = append(s.cells, csvCell{s: string(val), quoted: true})
		} else {
			end := len(line)
			if j := bytes.IndexByte(line[i:], ','); j >= 0 {
				end = i + j
			}
			field := line[i:end]
			if bytes.IndexByte(field, '"') >= 0 {
				return nil, fmt.Errorf("line %d: a quote inside unquoted cell %d; quote the whole cell and write the quote twice", s.line, len(s.cells)+1)
			}
			s.cells = append(s.cells, csvCell{s: string(field)})
			i = end
		}
		if i >= len(line) {
			return s.cells, nil
		}
		i++ // the comma
		if i == len(line) {
			s.cells = append(s.cells, csvCell{})
			return s.cells, nil
		}
	}
}

// csvGuess accumulates what the sampled cells of a column can be.
type csvGuess struct {
	seen                               bool // a non-null cell
	notInt, notFloat, notBool, notTime bool
	notDate                            bool // some cell is not a bare date
	bigInt                             bool // an integer a float64 would round
	frac                               int  // most fraction digits of a time
	firstBad                           string
	firstBadLine                       int
}

func (g *csvGuess) see(c csvCell, line int) {
	if c.null() {
		return
	}
	g.seen = true
	s := c.s
	if !g.notInt {
		if v, err := strconv.ParseInt(s, 10, 64); err != nil || leadingZero(s) {
			g.notInt = true
		} else if v > 1<<53 || v < -(1<<53) {
			g.bigInt = true
		}
	}
	if !g.notFloat {
		if _, err := strconv.ParseFloat(s, 64); err != nil || leadingZero(s) || strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
			g.notFloat = true
		}
	}
	if !g.notBool && !strings.EqualFold(s, "true") && !strings.EqualFold(s, "false") {
		g.notBool = true
	}
	if !g.notTime || !g.notDate {
		_, frac, dateOnly, ok := parseCSVTime(s)
		if !ok {
			g.notTime, g.notDate = true, true
		} else {
			g.frac = max(g.frac, frac)
			g.notDate = g.notDate || !dateOnly
		}
	}
	if g.notInt && g.notTime && g.firstBad == "" {
		g.firstBad, g.firstBadLine = s, line
	}
}

// leadingZero reports a number written with a leading zero, such as 007:
// a code, whose zeros a number would drop, so such a column stays text.
func leadingZero(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9'
}

// csvTimestamp is the type of a timestamp column of a CSV file, an instant
// in UTC as convert writes them, in the unit of its finest sampled value.
func csvTimestamp(frac int) arrow.DataType {
	u := arrow.Millisecond
	switch {
	case frac > 6:
		u = arrow.Nanosecond
	case frac > 3:
		u = arrow.Microsecond
	}
	return &arrow.TimestampType{Unit: u, TimeZone: "UTC"}
}

// typeOf decides the type of a column from its sampled cells.
func (g *csvGuess) typeOf(name string, isTime bool) (arrow.DataType, error) {
	if isTime {
		switch {
		case !g.notInt:
			return arrow.PrimitiveTypes.Int64, nil
		case !g.notTime:
			return csvTimestamp(g.frac), nil
		}
		return nil, fmt.Errorf("line %d: %q in the time column %q is neither an integer (in the --time-unit) nor an ISO 8601 time; --time-column names another column", g.firstBadLine, g.firstBad, name)
	}
	switch {
	case !g.seen:
		return arrow.BinaryTypes.String, nil
	case !g.notInt:
		return arrow.PrimitiveTypes.Int64, nil
	case !g.notFloat && !g.bigInt:
		return arrow.PrimitiveTypes.Float64, nil
	case !g.notBool:
		return arrow.FixedWidthTypes.Boolean, nil
	case !g.notDate:
		return arrow.FixedWidthTypes.Date32, nil
	case !g.notTime:
		return csvTimestamp(g.frac), nil
	}
	return arrow.BinaryTypes.String, nil
}

// csvTimeLayouts are the ISO 8601 forms a CSV time may take, after a blank
// between date and time is made a T. time.Parse takes a fraction of a
// second after the seconds in each. A time without a zone is UTC.
var csvTimeLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05Z07",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
}

// parseCSVTime parses an ISO 8601 time or a bare date (midnight UTC); frac
// is the number of digits of its fraction of a second.
func parseCSVTime(s string) (t time.Time, frac int, dateOnly, ok bool) {
	if len(s) < 10 || s[4] != '-' || s[0] < '0' || s[0] > '9' {
		return time.Time{}, 0, false, false
	}
	if len(s) == 10 {
		t, err := time.Parse(time.DateOnly, s)
		return t, 0, true, err == nil
	}
	if s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	if s[10] != 'T' {
		return time.Time{}, 0, false, false
	}
	for _, l := range csvTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if dot := strings.IndexByte(s[10:], '.'); dot >= 0 {
				for _, c := range s[10+dot+1:] {
					if c < '0' || c > '9' {
						break
					}
					frac++
				}
			}
			return t, frac, false, true
		}
	}
	return time.Time{}, 0, false, false
}

// instantIn returns t as an integer of unit u, failing where that would
// drop digits or overflow.
func instantIn(t time.Time, u arrow.TimeUnit) (int64, error) {
	sec, ns := t.Unix(), int64(t.Nanosecond())
	per := unitsPerSecond(u)
	div := 1e9 / per
	if ns%div != 0 {
		return 0, fmt.Errorf("has digits below the %s of its column", u)
	}
	if sec > math.MaxInt64/per-1 || sec < math.MinInt64/per+1 {
		return 0, fmt.Errorf("is out of the range of a timestamp[%s]", u)
	}
	return sec*per + ns/div, nil
}

// csvConverter appends the value of a non-null cell to b.
type csvConverter func(b array.Builder, s string) error

// csvConverterFor returns the converter of a column of type t.
func csvConverterFor(t arrow.DataType) (csvConverter, error) {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return func(b array.Builder, s string) error {
			switch {
			case strings.EqualFold(s, "true"):
				b.(*array.BooleanBuilder).Append(true)
			case strings.EqualFold(s, "false"):
				b.(*array.BooleanBuilder).Append(false)
			default:
				return errors.New("want true or false")
			}
			return nil
		}, nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		bits := t.(arrow.FixedWidthDataType).BitWidth()
		return func(b array.Builder, s string) error {
			v, err := strconv.ParseInt(s, 10, bits)
			if err != nil {
				return numError(err)
			}
			switch b := b.(type) {
			case *array.Int8Builder:
				b.Append(int8(v))
			case *array.Int16Builder:
				b.Append(int16(v))
			case *array.Int32Builder:
				b.Append(int32(v))
			case *array.Int64Builder:
				b.Append(v)
			}
			return nil
		}, nil
	case *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type:
		bits := t.(arrow.FixedWidthDataType).BitWidth()
		return func(b array.Builder, s string) error {
			v, err := strconv.ParseUint(s, 10, bits)
			if err != nil {
				return numError(err)
			}
			switch b := b.(type) {
			case *array.Uint8Builder:
				b.Append(uint8(v))
			case *array.Uint16Builder:
				b.Append(uint16(v))
			case *array.Uint32Builder:
				b.Append(uint32(v))
			}
			return nil
		}, nil
	case *arrow.Float32Type:
		return func(b array.Builder, s string) error {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil {
				return numError(err)
			}
			b.(*array.Float32Builder).Append(float32(v))
			return nil
		}, nil
	case *arrow.Float64Type:
		return func(b array.Builder, s string) error {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return numError(err)
			}
			b.(*array.Float64Builder).Append(v)
			return nil
		}, nil
	case *arrow.StringType:
		return func(b array.Builder, s string) error { b.(*array.StringBuilder).Append(s); return nil }, nil
	case *arrow.LargeStringType:
		return func(b array.Builder, s string) error { b.(*array.LargeStringBuilder).Append(s); return nil }, nil
	case *arrow.BinaryType:
		return func(b array.Builder, s string) error {
			if !strings.HasPrefix(s, "0x") {
				return errors.New("want 0x and hex digits, as convert writes a BLOB")
			}
			v, err := hex.DecodeString(s[2:])
			if err != nil {
				return errors.New("want 0x and hex digits, as convert writes a BLOB")
			}
			b.(*array.BinaryBuilder).Append(v)
			return nil
		}, nil
	case *arrow.Date32Type:
		return func(b array.Builder, s string) error {
			d, err := time.Parse(time.DateOnly, s)
			if err != nil {
				return errors.New("want a date YYYY-MM-DD")
			}
			b.(*array.Date32Builder).Append(arrow.Date32FromTime(d))
			return nil
		}, nil
	case *arrow.TimestampType:
		return func(b array.Builder, s string) error {
			// An integer is a time in the column's unit, as convert
			// writes times with --time-format epoch.
			if v, err := strconv.ParseInt(s, 10, 64); err == nil {
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
				return nil
			}
			tm, _, _, ok := parseCSVTime(s)
			if !ok {
				return errors.New("want an ISO 8601 time such as 2024-05-01T12:00:00Z (UTC when it names no zone), or an integer")
			}
			v, err := instantIn(tm, t.Unit)
			if err != nil {
				return err
			}
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			return nil
		}, nil
	}
	return nil, fmt.Errorf("a CSV column cannot be read as %s", t)
}

// numError drops strconv's quoting of the input, which the caller names.
func numError(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		if ne.Err == strconv.ErrRange {
			return errors.New("out of range")
		}
		return errors.New("not a number of that type")
	}
	return err
}

// csvReader reads a CSV file as record batches.
type csvReader struct {
	sc       *csvScanner
	schema   *arrow.Schema
	inferred []bool // column i's type was inferred, not given
	conv     []csvConverter
	bld      *array.RecordBuilder
	pending  [][]csvCell // sampled rows not yet returned
	lines    []int       // their lines
	rec      arrow.RecordBatch
	err      error
	done     bool
}

// openCSV opens a CSV file with a header row. It reads the first
// csvSampleRows rows to infer the column types --schema does not give.
func openCSV(name string, o csvOptions) (array.RecordReader, func(), error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	r, err := newCSVReader(fh, o)
	if err != nil {
		fh.Close()
		return nil, nil, &fileError{name, err}
	}
	return r, func() { fh.Close() }, nil
}

func newCSVReader(in io.Reader, o csvOptions) (*csvReader, error) {
	sc := &csvScanner{r: bufio.NewReaderSize(in, 1<<16)}
	head, err := sc.next()
	if err == io.EOF {
		return nil, errors.New("the CSV file is empty; it needs a header row of column names")
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, len(head))
	seen := map[string]bool{}
	for i, c := range head {
		if c.s == "" {
			return nil, fmt.Errorf("line %d: column %d of the header row has no name", sc.start, i+1)
		}
		if seen[c.s] {
			return nil, fmt.Errorf("line %d: the header row names column %q twice", sc.start, c.s)
		}
		seen[c.s] = true
		names[i] = c.s
	}
	given := map[string]arrow.Field{}
	if o.schema != nil {
		for _, f := range o.schema.Fields() {
			if !seen[f.Name] {
				return nil, fmt.Errorf("--schema names column %q, which the header row does not (columns: %s)", f.Name, strings.Join(names, ", "))
			}
			given[f.Name] = f
		}
	}
	r := &csvReader{sc: sc}
	guesses := make([]csvGuess, len(names))
	for len(r.pending) < csvSampleRows {
		cells, err := sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(cells) != len(names) {
			return nil, fmt.Errorf("line %d has %d cells, the header row %d", sc.start, len(cells), len(names))
		}
		for i, c := range cells {
			if _, ok := given[names[i]]; !ok {
				guesses[i].see(c, sc.start)
			}
		}
		r.pending = append(r.pending, append([]csvCell(nil), cells...))
		r.lines = append(r.lines, sc.start)
	}
	fields := make([]arrow.Field, len(names))
	r.inferred = make([]bool, len(names))
	for i, n := range names {
		if f, ok := given[n]; ok {
			fields[i] = f
			fields[i].Nullable = true
		} else {
			t, err := guesses[i].typeOf(n, n == o.timeColumn)
			if err != nil {
				return nil, err
			}
			fields[i] = arrow.Field{Name: n, Type: t, Nullable: true}
			r.inferred[i] = true
		}
		conv, err := csvConverterFor(fields[i].Type)
		if err != nil {
			return nil, fmt.Errorf("--schema %s: %w", n, err)
		}
		r.conv = append(r.conv, conv)
	}
	var md *arrow.Metadata
	if o.schema != nil && o.schema.Metadata().Len() > 0 {
		m := o.schema.Metadata()
		md = &m
	}
	r.schema = arrow.NewSchema(fields, md)
	r.bld = array.NewRecordBuilder(memory.DefaultAllocator, r.schema)
	return r, nil
}

func (r *csvReader) Schema() *arrow.Schema          { return r.schema }
func (r *csvReader) RecordBatch() arrow.RecordBatch { return r.rec }
func (r *csvReader) Record() arrow.RecordBatch      { return r.rec }
func (r *csvReader) Err() error                     { return r.err }
func (r *csvReader) Retain()                        {}

// Release lets go of the current batch and the builder.
func (r *csvReader) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.bld != nil {
		r.bld.Release()
		r.bld = nil
	}
}

// Next reads the next batch of rows.
func (r *csvReader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.err != nil || r.done || r.bld == nil {
		return false
	}
	n := 0
	for n < csvBatchRows {
		var cells []csvCell
		var line int
		if len(r.pending) > 0 {
			cells, line = r.pending[0], r.lines[0]
			r.pending, r.lines = r.pending[1:], r.lines[1:]
		} else {
			var err error
			cells, err = r.sc.next()
			if err == io.EOF {
				r.done = true
				break
			}
			if err != nil {
				r.err = err
				return false
			}
			line = r.sc.start
			if len(cells) != len(r.conv) {
				r.err = fmt.Errorf("line %d has %d cells, the header row %d", line, len(cells), len(r.conv))
				return false
			}
		}
		for i, c := range cells {
			b := r.bld.Field(i)
			if c.null() {
				b.AppendNull()
				continue
			}
			if err := r.conv[i](b, c.s); err != nil {
				r.err = r.cellError(line, i, c.s, err)
				return false
			}
		}
		n++
	}
	if n == 0 {
		return false
	}
	r.rec = r.bld.NewRecordBatch()
	return true
}

// cellError names the cell that does not fit its column's type, and for
// an inferred type how to give another.
func (r *csvReader) cellError(line, col int, s string, err error) error {
	f := r.schema.Field(col)
	msg := fmt.Sprintf("line %d column %q: cannot read %q as %s: %v", line, f.Name, s, f.Type, err)
	if r.inferred[col] {
		msg += fmt.Sprintf(" (the type the first %d rows gave; --schema %s:TYPE gives another)", csvSampleRows, f.Name)
	}
	return errors.New(msg)
}

// parseSchemaFlag reads --schema: a JSON file in the form "ts2arrow schema
// --json" prints, or a list "name:type,...". Types are TsFile's names
// (BOOLEAN, INT32, INT64, FLOAT, DOUBLE, TEXT, STRING, BLOB, DATE,
// TIMESTAMP, in any case; TIMESTAMP in unit) or Arrow's as the schema
// command prints them (bool, int8 to int64, uint8 to uint32, float32,
// float64, utf8, binary, date32, timestamp[ms] or timestamp[us, tz=UTC]).
func parseSchemaFlag(v string, unit arrow.TimeUnit) (*arrow.Schema, error) {
	if st, err := os.Stat(v); err == nil && st.Mode().IsRegular() {
		return readSchemaJSON(v, unit)
	}
	var fields []arrow.Field
	for _, part := range splitOutside(v) {
		part = strings.TrimSpace(part)
		// The name ends at the first colon: a zone in the type may hold one.
		name, typ, ok := strings.Cut(part, ":")
		if !ok || name == "" || typ == "" {
			return nil, usagef("--schema %q: want NAME:TYPE,... (such as time:timestamp[ms],temperature:double), or the path of a JSON schema as \"ts2arrow schema --json\" prints", part)
		}
		f, err := schemaField(name, typ, unit)
		if err != nil {
			return nil, usagef("--schema: %v", err)
		}
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil), nil
}

// readSchemaJSON reads a schema in the form of "ts2arrow schema --json",
// with its field and schema metadata (such as tsfile.category TAG).
func readSchemaJSON(path string, unit arrow.TimeUnit) (*arrow.Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sj schemaJSON
	if err := json.Unmarshal(b, &sj); err != nil {
		return nil, usagef("--schema %s: not a schema as \"ts2arrow schema --json\" prints: %v", path, err)
	}
	var fields []arrow.Field
	for _, fj := range sj.Fields {
		f, err := schemaField(fj.Name, fj.Type, unit)
		if err != nil {
			return nil, usagef("--schema %s: %v", path, err)
		}
		keys, vals := f.Metadata.Keys(), f.Metadata.Values()
		for k, v := range fj.Metadata {
			if f.Metadata.FindKey(k) < 0 {
				keys, vals = append(keys, k), append(vals, v)
			}
		}
		f.Metadata = arrow.NewMetadata(keys, vals)
		fields = append(fields, f)
	}
	var keys, vals []string
	for k, v := range sj.Metadata {
		keys, vals = append(keys, k), append(vals, v)
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md), nil
}

// schemaField is the field of one --schema entry.
func schemaField(name, typ string, unit arrow.TimeUnit) (arrow.Field, error) {
	f := arrow.Field{Name: name, Nullable: true}
	t := strings.ToLower(strings.TrimSpace(typ))
	// A dictionary, as a TAG column's type prints, holds its values' type.
	if rest, ok := strings.CutPrefix(t, "dictionary<values="); ok {
		t, _, _ = strings.Cut(rest, ",")
	}
	switch t {
	case "boolean", "bool":
		f.Type = arrow.FixedWidthTypes.Boolean
	case "int8":
		f.Type = arrow.PrimitiveTypes.Int8
	case "int16":
		f.Type = arrow.PrimitiveTypes.Int16
	case "int32":
		f.Type = arrow.PrimitiveTypes.Int32
	case "int64":
		f.Type = arrow.PrimitiveTypes.Int64
	case "uint8":
		f.Type = arrow.PrimitiveTypes.Uint8
	case "uint16":
		f.Type = arrow.PrimitiveTypes.Uint16
	case "uint32":
		f.Type = arrow.PrimitiveTypes.Uint32
	case "float", "float32":
		f.Type = arrow.PrimitiveTypes.Float32
	case "double", "float64":
		f.Type = arrow.PrimitiveTypes.Float64
	case "string", "utf8":
		f.Type = arrow.BinaryTypes.String
	case "text":
		f.Type = arrow.BinaryTypes.String
		f.Metadata = arrow.NewMetadata([]string{arrowconv.MetaType}, []string{"TEXT"})
	case "large_utf8", "large_string":
		f.Type = arrow.BinaryTypes.LargeString
	case "blob", "binary":
		f.Type = arrow.BinaryTypes.Binary
	case "date", "date32":
		f.Type = arrow.FixedWidthTypes.Date32
	case "timestamp":
		f.Type = &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}
	default:
		ts, err := timestampType(t)
		if err != nil {
			return f, fmt.Errorf("column %q: unknown type %q (want BOOLEAN, INT32, INT64, FLOAT, DOUBLE, STRING, TEXT, BLOB, DATE, TIMESTAMP, or an Arrow type such as int16, float64, utf8 or timestamp[us])", name, typ)
		}
		f.Type = ts
	}
	return f, nil
}

// timestampType parses Arrow's spelling timestamp[UNIT] or
// timestamp[UNIT, tz=ZONE].
func timestampType(t string) (*arrow.TimestampType, error) {
	inner, ok := strings.CutPrefix(t, "timestamp[")
	if !ok || !strings.HasSuffix(inner, "]") {
		return nil, errors.New("not a timestamp")
	}
	inner = strings.TrimSuffix(inner, "]")
	u, tz, _ := strings.Cut(inner, ",")
	tz = strings.TrimSpace(tz)
	if tz != "" {
		z, ok := strings.CutPrefix(tz, "tz=")
		if !ok {
			return nil, errors.New("not a timestamp")
		}
		if strings.EqualFold(z, "utc") {
			z = "UTC"
		}
		tz = z
	}
	unit, ok := parseUnitName(strings.TrimSpace(u))
	if !ok {
		return nil, errors.New("not a timestamp")
	}
	return &arrow.TimestampType{Unit: unit, TimeZone: tz}, nil
}

func parseUnitName(s string) (arrow.TimeUnit, bool) {
	for u := arrow.Second; u <= arrow.Nanosecond; u++ {
		if u.String() == s {
			return u, true
		}
	}
	return 0, false
}

// splitOutside splits s at commas outside brackets, so that
// "t:timestamp[us, tz=UTC],v:double" is two entries.
func splitOutside(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[', '<':
			depth++
		case ']', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
