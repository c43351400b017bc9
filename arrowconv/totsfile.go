package arrowconv

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/tsfile"
)

// DefaultMaxBufferedRows is the number of rows WriteTsFile buffers, over all
// devices, when TsFileOptions.MaxBufferedRows is not positive.
const DefaultMaxBufferedRows = 1 << 20

// TsFileOptions configure WriteTsFile. A nil *TsFileOptions selects the
// defaults noted on each field.
type TsFileOptions struct {
	// Table is the name of the table to write (default: the schema
	// metadata MetaTable; without either WriteTsFile fails).
	Table string
	// Tags names the TAG columns in the order of the DeviceID segments
	// after the table name. Nil selects the fields whose MetaCategory
	// metadata is "TAG", in schema order; an empty non-nil slice means the
	// table has no TAG columns. A TAG column may be utf8, large_utf8,
	// string_view, a dictionary of those, or an integer type (written in
	// decimal); a null is a null DeviceID segment.
	Tags []string
	// Attributes names ATTRIBUTE columns. Nil selects the fields whose
	// MetaCategory metadata is "ATTRIBUTE". TsFile v4 lists ATTRIBUTE
	// columns in the table schema, where they are declared as STRING, but
	// stores no attribute values: chunk groups hold the FIELD columns only
	// (the database keeps attributes elsewhere). Their values are therefore
	// dropped, and NewTableReader reads them back as nulls.
	Attributes []string
	// TimeColumn names the time column, which must be a timestamp or int64
	// column without nulls (default: the field whose MetaCategory is
	// "TIME", else "time").
	TimeColumn string
	// TimeUnit is the unit of the timestamps stored in the file, which
	// TsFile does not record: read the file back with the same
	// Options.TimeUnit. The default is the unit of a timestamp time column;
	// for an int64 time column it is the schema metadata MetaTimeUnit, else
	// milliseconds. Every timestamp column (the time column and timestamp
	// FIELD columns) is converted to this unit, exactly: a value that is
	// not a whole number of the unit, or overflows it, is an error. An
	// int64 time column is taken to be in this unit already.
	TimeUnit arrow.TimeUnit
	// TimeUnitSet must be true for a TimeUnit of arrow.Second to be used,
	// since arrow.Second is the zero TimeUnit; other units need no flag.
	TimeUnitSet bool
	// Encodings chooses the encoding of FIELD columns by name (default
	// PLAIN). The pairs the format does not allow, such as CAMEL for INT32,
	// are refused before anything is written.
	Encodings map[string]tsfile.Encoding
	// Compression compresses the pages of every FIELD column not named in
	// Compressions (default UNCOMPRESSED).
	Compression tsfile.Compression
	// Compressions chooses the compression of FIELD columns by name.
	Compressions map[string]tsfile.Compression
	// Write configures the TsFile writer: page sizes, the time column's
	// encoding and compression, the index fanout, the Bloom filter. Nil
	// selects the writer's defaults.
	Write *tsfile.WriteOptions
	// MaxBufferedRows bounds the rows held in memory over all devices
	// (default DefaultMaxBufferedRows). When the bound is reached, the
	// devices holding the most rows are written, each as one chunk group,
	// until at most half the bound remains buffered.
	MaxBufferedRows int
	// KeepLast makes the last of several input rows of one device with the
	// same timestamp replace the others (the whole row, nulls included)
	// instead of failing. Only rows still buffered together can be
	// replaced; a timestamp already written for the device is an error
	// either way.
	KeepLast bool
}

// An OptionError is an error of WriteTsFile that one of the TsFileOptions
// settles. Its message names the TsFileOptions field; Option lets a program
// that fills the options from its own flags or settings name those instead,
// since its users never see the Go names.
type OptionError struct {
	// Problem says what is wrong, without a remedy.
	Problem string
	// Option is the TsFileOptions field that settles the problem, such as
	// "KeepLast".
	Option string
	// Remedy says what setting Option does, following "set
	// TsFileOptions.<Option> ".
	Remedy string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("arrowconv: %s (set TsFileOptions.%s %s)", e.Problem, e.Option, e.Remedy)
}

// WriteTsFile writes the record batches of rr to w as a TsFile v4 holding
// one table-model table, and returns the number of rows written (rows
// replaced under TsFileOptions.KeepLast are not counted). It reads
// rr to the end but does not release it, and it does not close w.
//
// Each distinct tuple of TAG values is a device, whose DeviceID is the
// table name followed by the TAG values. Every column other than the time,
// TAG and ATTRIBUTE columns becomes a FIELD column of the table schema,
// in input order after the TAGs and ATTRIBUTEs. FIELD types follow the
// Arrow type, and the field metadata MetaType where it names another type
// the column's values fit:
//
//	bool                                  BOOLEAN
//	int8, int16, int32, uint8, uint16     INT32 (or INT64)
//	int64, uint32                         INT64 (or TIMESTAMP)
//	float32                               FLOAT (or DOUBLE)
//	float64                               DOUBLE
//	utf8, large_utf8, string_view         STRING (or TEXT)
//	binary, large_binary, binary_view,
//	fixed_size_binary                     BLOB (or OBJECT)
//	date32, date64                        DATE, stored as YYYYMMDD
//	timestamp                             TIMESTAMP (or INT64), in TimeUnit
//	dictionary<integer, T>                as T
//
// Any other type, including uint64, is an error wrapping
// tsfile.ErrUnsupported that names the column.
//
// Rows may arrive in any order and devices may interleave. They are
// buffered per device (see TsFileOptions.MaxBufferedRows) and each
// device's buffered rows are written, sorted by time, as one aligned chunk
// group. Because a device's timestamps must increase through the file, a
// row whose time is not after the last one already written for its device
// is an error, and so, unless KeepLast is set, are two buffered rows of a
// device with the same time. A null time is an error.
//
// Errors name the column, the device and the row, counting the input's rows
// from 0 across all batches; an error that one of the options settles is an
// *OptionError. After an error the output is incomplete and
// has no footer, and the returned count is of the rows written before it.
func WriteTsFile(w io.Writer, rr array.RecordReader, opts *TsFileOptions) (rows int64, err error) {
	p, err := planTsFile(rr.Schema(), opts)
	if err != nil {
		return 0, err
	}
	if err := p.probe(); err != nil {
		return 0, err
	}
	tw, err := tsfile.NewWriter(w, p.write)
	if err != nil {
		return 0, fmt.Errorf("arrowconv: %w", err)
	}
	if err := tw.RegisterTable(p.schema); err != nil {
		return 0, fmt.Errorf("arrowconv: %w", err)
	}
	s := &tsSink{plan: p, w: tw, devices: map[string]*devBuf{}}
	for rr.Next() {
		if err := s.add(rr.RecordBatch()); err != nil {
			return s.rows, err
		}
	}
	if err := rr.Err(); err != nil {
		return s.rows, fmt.Errorf("arrowconv: reading the input after %d rows: %w", s.next, err)
	}
	for _, d := range s.order {
		if err := s.flush(d); err != nil {
			return s.rows, err
		}
	}
	if err := tw.Close(); err != nil {
		return s.rows, fmt.Errorf("arrowconv: finishing the TsFile: %w", err)
	}
	return s.rows, nil
}

// tsPlan is how the input columns map to the table.
type tsPlan struct {
	input    *arrow.Schema
	table    string
	time     int            // input column of the time
	timeFrom arrow.TimeUnit // unit of a timestamp time column
	timeTS   bool           // the time column is a timestamp
	unit     arrow.TimeUnit // stored unit
	tags     []int          // input columns of the TAGs, in segment order
	fields   []fieldPlan
	schema   tsfile.TableSchema
	write    *tsfile.WriteOptions
	maxRows  int
	keepLast bool
}

// fieldPlan is one FIELD column.
type fieldPlan struct {
	col int // input column
	tsfile.SeriesSchema
}

// planTsFile checks the schema and options and plans the conversion.
func planTsFile(sc *arrow.Schema, opts *TsFileOptions) (*tsPlan, error) {
	var o TsFileOptions
	if opts != nil {
		o = *opts
	}
	p := &tsPlan{input: sc, write: o.Write, maxRows: o.MaxBufferedRows, keepLast: o.KeepLast}
	if p.maxRows <= 0 {
		p.maxRows = DefaultMaxBufferedRows
	}
	p.table = o.Table
	if p.table == "" {
		p.table, _ = sc.Metadata().GetValue(MetaTable)
	}
	if p.table == "" {
		return nil, &OptionError{Problem: "no table name", Option: "Table", Remedy: fmt.Sprintf("or the schema metadata %q", MetaTable)}
	}

	byName := map[string]int{}
	for i, f := range sc.Fields() {
		if f.Name == "" {
			return nil, fmt.Errorf("arrowconv: input column %d has an empty name", i)
		}
		if _, dup := byName[f.Name]; dup {
			return nil, fmt.Errorf("arrowconv: the input has two columns named %q", f.Name)
		}
		byName[f.Name] = i
	}
	category := func(i int) string {
		v, _ := sc.Field(i).Metadata.GetValue(MetaCategory)
		return v
	}
	withCategory := func(c string) []string {
		var out []string
		for i, f := range sc.Fields() {
			if category(i) == c {
				out = append(out, f.Name)
			}
		}
		return out
	}

	// The time column.
	timeName := o.TimeColumn
	if timeName == "" {
		timeName = TimeColumn
		if ts := withCategory(tsfile.TimeCol.String()); len(ts) == 1 {
			timeName = ts[0]
		}
	}
	ti, ok := byName[timeName]
	if !ok {
		return nil, fmt.Errorf("arrowconv: no time column %q in the input", timeName)
	}
	p.time = ti
	switch t := sc.Field(ti).Type.(type) {
	case *arrow.TimestampType:
		p.timeTS, p.timeFrom = true, t.Unit
	case *arrow.Int64Type:
	default:
		return nil, fmt.Errorf("arrowconv: time column %q is %s; it must be a timestamp or int64: %w", timeName, t, tsfile.ErrUnsupported)
	}
	switch {
	case o.TimeUnitSet || o.TimeUnit != arrow.Second:
		if o.TimeUnit < arrow.Second || o.TimeUnit > arrow.Nanosecond {
			return nil, fmt.Errorf("arrowconv: invalid time unit %d", int(o.TimeUnit))
		}
		p.unit = o.TimeUnit
	case p.timeTS:
		p.unit = p.timeFrom
	default:
		p.unit = arrow.Millisecond
		if v, ok := sc.Metadata().GetValue(MetaTimeUnit); ok {
			u, ok := parseTimeUnit(v)
			if !ok {
				return nil, fmt.Errorf("arrowconv: schema metadata %s = %q is not a time unit", MetaTimeUnit, v)
			}
			p.unit = u
		}
	}

	// TAG and ATTRIBUTE columns.
	role := map[int]string{ti: "the time column"}
	claim := func(name string, cat tsfile.ColumnCategory) (int, error) {
		what := "a " + cat.String() + " column"
		if cat == tsfile.Attribute {
			what = "an ATTRIBUTE column"
		}
		i, ok := byName[name]
		if !ok {
			return 0, fmt.Errorf("arrowconv: %s column %q is not in the input", cat, name)
		}
		if r, taken := role[i]; taken {
			return 0, fmt.Errorf("arrowconv: column %q cannot be both %s and %s", name, r, what)
		}
		if name == TimeColumn {
			return 0, fmt.Errorf("arrowconv: %s column %q would collide with the time column, which readers name %q", cat, name, TimeColumn)
		}
		role[i] = what
		return i, nil
	}
	tags := o.Tags
	if tags == nil {
		tags = withCategory(tsfile.Tag.String())
	}
	for _, name := range tags {
		i, err := claim(name, tsfile.Tag)
		if err != nil {
			return nil, err
		}
		if !tagTypeOK(sc.Field(i).Type) {
			return nil, fmt.Errorf("arrowconv: TAG column %q is %s; TAG columns must be strings, dictionary-encoded strings or integers: %w", name, sc.Field(i).Type, tsfile.ErrUnsupported)
		}
		p.tags = append(p.tags, i)
		p.schema.Columns = append(p.schema.Columns, tsfile.Column{Name: name, DataType: tsfile.String, Category: tsfile.Tag})
	}
	attrs := o.Attributes
	if attrs == nil {
		attrs = withCategory(tsfile.Attribute.String())
	}
	for _, name := range attrs {
		if _, err := claim(name, tsfile.Attribute); err != nil {
			return nil, err
		}
		p.schema.Columns = append(p.schema.Columns, tsfile.Column{Name: name, DataType: tsfile.String, Category: tsfile.Attribute})
	}

	// FIELD columns: the rest, in input order.
	fieldNames := map[string]bool{}
	for i, f := range sc.Fields() {
		if _, taken := role[i]; taken {
			continue
		}
		if f.Name == TimeColumn {
			return nil, &OptionError{Problem: fmt.Sprintf("FIELD column %q would collide with the time column, which readers name %q", f.Name, TimeColumn),
				Option: "TimeColumn", Remedy: "to make it the time column"}
		}
		dt, err := fieldType(f)
		if err != nil {
			return nil, err
		}
		fp := fieldPlan{col: i, SeriesSchema: tsfile.SeriesSchema{Name: f.Name, DataType: dt, Encoding: o.Encodings[f.Name], Compression: o.Compression}}
		if c, ok := o.Compressions[f.Name]; ok {
			fp.Compression = c
		}
		p.fields = append(p.fields, fp)
		fieldNames[f.Name] = true
		p.schema.Columns = append(p.schema.Columns, tsfile.Column{Name: f.Name, DataType: dt, Encoding: fp.Encoding, Compression: fp.Compression, Category: tsfile.Field})
	}
	for name := range o.Encodings {
		if !fieldNames[name] {
			return nil, fmt.Errorf("arrowconv: TsFileOptions.Encodings names %q, which is not a FIELD column", name)
		}
	}
	for name := range o.Compressions {
		if !fieldNames[name] {
			return nil, fmt.Errorf("arrowconv: TsFileOptions.Compressions names %q, which is not a FIELD column", name)
		}
	}
	p.schema.Name = p.table
	return p, nil
}

// probe writes one row of zero values with the planned encodings and
// compressions to a discarded file, so that options the writer refuses are
// reported before any output is written.
func (p *tsPlan) probe() error {
	w, err := tsfile.NewWriter(io.Discard, p.write)
	if err != nil {
		return fmt.Errorf("arrowconv: %w", err)
	}
	defer w.Close() // zeroes the probe's data key, if it made one
	if err := w.RegisterTable(p.schema); err != nil {
		return fmt.Errorf("arrowconv: %w", err)
	}
	cols := make([]tsfile.AlignedColumn, len(p.fields))
	for i, f := range p.fields {
		cols[i] = tsfile.AlignedColumn{SeriesSchema: f.SeriesSchema, Values: tsfile.NewValues(f.DataType, 1)}
	}
	if err := w.WriteAligned(tsfile.NewDeviceID(p.table), []int64{0}, cols); err != nil {
		return fmt.Errorf("arrowconv: checking the FIELD encodings and compressions: %w", err)
	}
	return nil
}

func parseTimeUnit(s string) (arrow.TimeUnit, bool) {
	for u := arrow.Second; u <= arrow.Nanosecond; u++ {
		if u.String() == s {
			return u, true
		}
	}
	return 0, false
}

// fieldTypes returns the TsFile types values of Arrow type t can be stored
// as, the default first; nil when there is none.
func fieldTypes(t arrow.DataType) []tsfile.DataType {
	switch t.ID() {
	case arrow.BOOL:
		return []tsfile.DataType{tsfile.Boolean}
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.UINT8, arrow.UINT16:
		return []tsfile.DataType{tsfile.Int32, tsfile.Int64}
	case arrow.INT64, arrow.UINT32:
		return []tsfile.DataType{tsfile.Int64, tsfile.Timestamp}
	case arrow.FLOAT32:
		return []tsfile.DataType{tsfile.Float, tsfile.Double}
	case arrow.FLOAT64:
		return []tsfile.DataType{tsfile.Double}
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return []tsfile.DataType{tsfile.String, tsfile.Text}
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return []tsfile.DataType{tsfile.Blob, tsfile.Object}
	case arrow.DATE32, arrow.DATE64:
		return []tsfile.DataType{tsfile.Date}
	case arrow.TIMESTAMP:
		return []tsfile.DataType{tsfile.Timestamp, tsfile.Int64}
	case arrow.DICTIONARY:
		d := t.(*arrow.DictionaryType)
		if d.ValueType.ID() == arrow.DICTIONARY {
			return nil
		}
		return fieldTypes(d.ValueType)
	}
	return nil
}

// fieldType chooses the TsFile type of a FIELD column.
func fieldType(f arrow.Field) (tsfile.DataType, error) {
	allowed := fieldTypes(f.Type)
	if allowed == nil {
		return 0, fmt.Errorf("arrowconv: column %q has Arrow type %s, which has no TsFile counterpart: %w", f.Name, f.Type, tsfile.ErrUnsupported)
	}
	name, ok := f.Metadata.GetValue(MetaType)
	if !ok {
		return allowed[0], nil
	}
	for _, t := range allowed {
		if t.String() == name {
			return t, nil
		}
	}
	return 0, fmt.Errorf("arrowconv: column %q has metadata %s = %q, which Arrow type %s cannot be stored as: %w", f.Name, MetaType, name, f.Type, tsfile.ErrUnsupported)
}

// tagTypeOK reports whether a TAG column can have Arrow type t.
func tagTypeOK(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW,
		arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	case arrow.DICTIONARY:
		v := t.(*arrow.DictionaryType).ValueType
		return v.ID() != arrow.DICTIONARY && tagTypeOK(v)
	}
	return false
}

// tsSink buffers rows per device and writes them as chunk groups.
type tsSink struct {
	plan    *tsPlan
	w       *tsfile.Writer
	devices map[string]*devBuf // by tag key
	order   []*devBuf          // in order of first appearance
	total   int                // rows buffered over all devices
	next    int64              // input index of the next row
	rows    int64              // rows written

	times []int64 // the current batch's times, in the stored unit
	key   []byte
}

// devBuf holds the buffered rows of one device.
type devBuf struct {
	id      tsfile.DeviceID
	times   []int64
	rows    []int64 // input index of each row
	cols    []colBuf
	last    int64 // last time written
	written bool
}

// colBuf holds the buffered values of one FIELD column of a device; the
// slice of its physical type grows with null, holding zero for nulls.
type colBuf struct {
	typ   tsfile.DataType
	null  []bool
	valid int // non-null values
	bools []bool
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	data  []byte
	ends  []int // end of each binary value in data
}

func (c *colBuf) putNull() {
	c.null = append(c.null, true)
	switch c.typ {
	case tsfile.Boolean:
		c.bools = append(c.bools, false)
	case tsfile.Int32, tsfile.Date:
		c.i32 = append(c.i32, 0)
	case tsfile.Int64, tsfile.Timestamp:
		c.i64 = append(c.i64, 0)
	case tsfile.Float:
		c.f32 = append(c.f32, 0)
	case tsfile.Double:
		c.f64 = append(c.f64, 0)
	default:
		c.ends = append(c.ends, len(c.data))
	}
}

func (c *colBuf) present() { c.null = append(c.null, false); c.valid++ }

func (c *colBuf) putBool(v bool)   { c.present(); c.bools = append(c.bools, v) }
func (c *colBuf) putI32(v int32)   { c.present(); c.i32 = append(c.i32, v) }
func (c *colBuf) putI64(v int64)   { c.present(); c.i64 = append(c.i64, v) }
func (c *colBuf) putF32(v float32) { c.present(); c.f32 = append(c.f32, v) }
func (c *colBuf) putF64(v float64) { c.present(); c.f64 = append(c.f64, v) }
func (c *colBuf) putBytes(v []byte) {
	c.present()
	c.data = append(c.data, v...)
	c.ends = append(c.ends, len(c.data))
}
func (c *colBuf) putString(v string) {
	c.present()
	c.data = append(c.data, v...)
	c.ends = append(c.ends, len(c.data))
}

// values returns the rows perm of the column (all rows when perm is nil)
// as writer input; ok is false when every one of them is null.
func (c *colBuf) values(perm []int) (v tsfile.Values, ok bool) {
	v.Type = c.typ
	null, valid := c.null, c.valid
	if perm != nil {
		null, valid = make([]bool, len(perm)), 0
		for i, j := range perm {
			null[i] = c.null[j]
			if !null[i] {
				valid++
			}
		}
	}
	if valid == 0 {
		return v, false
	}
	if valid < len(null) {
		v.Null = null
	}
	switch c.typ {
	case tsfile.Boolean:
		v.Bools = permute(c.bools, perm)
	case tsfile.Int32, tsfile.Date:
		v.Int32s = permute(c.i32, perm)
	case tsfile.Int64, tsfile.Timestamp:
		v.Int64s = permute(c.i64, perm)
	case tsfile.Float:
		v.Float32s = permute(c.f32, perm)
	case tsfile.Double:
		v.Float64s = permute(c.f64, perm)
	default:
		all := make([][]byte, len(c.ends))
		for i, end := range c.ends {
			start := 0
			if i > 0 {
				start = c.ends[i-1]
			}
			all[i] = c.data[start:end:end]
		}
		v.Binaries = permute(all, perm)
	}
	return v, true
}

// permute returns s[perm[0]], s[perm[1]], ..., or s when perm is nil.
func permute[T any](s []T, perm []int) []T {
	if perm == nil {
		return s
	}
	out := make([]T, len(perm))
	for i, j := range perm {
		out[i] = s[j]
	}
	return out
}

// add buffers the rows of one record batch.
func (s *tsSink) add(rec arrow.RecordBatch) error {
	p := s.plan
	n := int(rec.NumRows())
	if int(rec.NumCols()) != len(p.input.Fields()) {
		return fmt.Errorf("arrowconv: the record batch at row %d has %d columns, the reader's schema %d", s.next, rec.NumCols(), len(p.input.Fields()))
	}
	for i, f := range p.input.Fields() {
		if t := rec.Column(i).DataType(); !arrow.TypeEqual(t, f.Type) {
			return fmt.Errorf("arrowconv: column %q is %s in the record batch at row %d, %s in the reader's schema", f.Name, t, s.next, f.Type)
		}
	}
	if n == 0 {
		return nil
	}
	if err := s.batchTimes(rec.Column(p.time), n); err != nil {
		return err
	}
	tags := make([]tagGetter, len(p.tags))
	for i, c := range p.tags {
		g, err := newTagGetter(rec.Column(c))
		if err != nil {
			return fmt.Errorf("arrowconv: TAG column %q: %w", rec.Schema().Field(c).Name, err)
		}
		tags[i] = g
	}
	fields := make([]fieldGetter, len(p.fields))
	for i, f := range p.fields {
		g, err := newFieldGetter(rec.Column(f.col), f.DataType, p.unit)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: %w", f.Name, err)
		}
		fields[i] = g
	}
	var d *devBuf
	var prev []byte
	for i := 0; i < n; i++ {
		row := s.next + int64(i)
		s.key = s.key[:0]
		for _, g := range tags {
			start := len(s.key)
			var ok bool
			if s.key, ok = g(s.key, i); !ok {
				s.key = append(s.key[:start], 0)
				continue
			}
			// The length follows the value and a marker ends the segment,
			// so the key decodes from its end and is unique per tuple.
			s.key = binary.BigEndian.AppendUint32(s.key, uint32(len(s.key)-start))
			s.key = append(s.key, 1)
		}
		if d == nil || !bytes.Equal(s.key, prev) {
			d = s.devices[string(s.key)]
			if d == nil {
				var err error
				if d, err = s.newDevice(tags, i); err != nil {
					return err
				}
				s.devices[string(s.key)] = d
			}
			prev = append(prev[:0], s.key...)
		}
		t := s.times[i]
		if d.written && t <= d.last {
			return &OptionError{Problem: fmt.Sprintf("row %d: time %d of device %s is not after %d, the last time already written for it; rows of a device can arrive out of time order only within the %d rows buffered", row, t, d.id, d.last, p.maxRows),
				Option: "MaxBufferedRows", Remedy: "higher, or sort the input by time"}
		}
		if d.cols == nil {
			d.alloc(p)
		}
		d.times = append(d.times, t)
		d.rows = append(d.rows, row)
		for j, g := range fields {
			if err := g(&d.cols[j], i); err != nil {
				return fmt.Errorf("arrowconv: row %d column %q: %w", row, p.fields[j].Name, err)
			}
		}
		s.total++
		if s.total >= p.maxRows {
			if err := s.flushLargest(); err != nil {
				return err
			}
		}
	}
	s.next += int64(n)
	return nil
}

// batchTimes converts the time column of a batch to the stored unit.
func (s *tsSink) batchTimes(a arrow.Array, n int) error {
	p := s.plan
	s.times = slices.Grow(s.times[:0], n)[:n]
	var raw []int64
	switch a := a.(type) {
	case *array.Timestamp:
		vals := a.TimestampValues()
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				return fmt.Errorf("arrowconv: row %d: null time", s.next+int64(i))
			}
			t, err := convertTime(int64(vals[i]), p.timeFrom, p.unit)
			if err != nil {
				return fmt.Errorf("arrowconv: row %d: time: %w", s.next+int64(i), err)
			}
			s.times[i] = t
		}
		return nil
	case *array.Int64:
		raw = a.Int64Values()
	default:
		return fmt.Errorf("arrowconv: time column is %s in the record batch at row %d", a.DataType(), s.next)
	}
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			return fmt.Errorf("arrowconv: row %d: null time", s.next+int64(i))
		}
		s.times[i] = raw[i]
	}
	return nil
}

// newDevice creates the buffer of the device of row i, whose TAG values
// must be UTF-8 since TAG columns are STRING.
func (s *tsSink) newDevice(tags []tagGetter, i int) (*devBuf, error) {
	segs := make([]tsfile.Segment, 1, 1+len(tags))
	segs[0] = tsfile.Segment{Value: s.plan.table}
	for j, g := range tags {
		v, ok := g(nil, i)
		if !utf8.Valid(v) {
			return nil, fmt.Errorf("arrowconv: row %d TAG column %q: value %q is not valid UTF-8", s.next+int64(i), s.plan.input.Field(s.plan.tags[j]).Name, v)
		}
		segs = append(segs, tsfile.Segment{Value: string(v), Null: !ok})
	}
	d := &devBuf{id: tsfile.DeviceIDFromSegments(segs)}
	s.order = append(s.order, d)
	return d, nil
}

// reset empties the buffer and lets go of its memory, so that a device
// with nothing buffered costs only its identity and last time.
func (d *devBuf) reset() { d.times, d.rows, d.cols = nil, nil, nil }

// alloc prepares the column buffers of an empty buffer.
func (d *devBuf) alloc(p *tsPlan) {
	d.cols = make([]colBuf, len(p.fields))
	for i, f := range p.fields {
		d.cols[i].typ = f.DataType
	}
}

// flushLargest writes the devices holding the most rows until at most half
// of MaxBufferedRows stay buffered.
func (s *tsSink) flushLargest() error {
	devs := make([]*devBuf, 0, len(s.order))
	for _, d := range s.order {
		if len(d.times) > 0 {
			devs = append(devs, d)
		}
	}
	slices.SortStableFunc(devs, func(a, b *devBuf) int { return cmp.Compare(len(b.times), len(a.times)) })
	for _, d := range devs {
		if s.total <= s.plan.maxRows/2 {
			break
		}
		if err := s.flush(d); err != nil {
			return err
		}
	}
	return nil
}

// flush writes the buffered rows of d, sorted by time, as one chunk group.
func (s *tsSink) flush(d *devBuf) error {
	n := len(d.times)
	if n == 0 {
		return nil
	}
	var perm []int
	if !strictlyIncreasing(d.times) {
		perm = make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(d.times[a], d.times[b]) })
		k := 0
		for i, j := range perm {
			if i+1 < n && d.times[perm[i+1]] == d.times[j] {
				if !s.plan.keepLast {
					return &OptionError{Problem: fmt.Sprintf("rows %d and %d of device %s have the same time %d", d.rows[j], d.rows[perm[i+1]], d.id, d.times[j]),
						Option: "KeepLast", Remedy: "to keep the last, or TsFileOptions.Tags if a column tells devices apart"}
				}
				continue // the stable sort put the later row next
			}
			perm[k] = j
			k++
		}
		perm = perm[:k]
	}
	times := permute(d.times, perm)
	cols := make([]tsfile.AlignedColumn, 0, len(d.cols))
	for j := range d.cols {
		if v, ok := d.cols[j].values(perm); ok {
			cols = append(cols, tsfile.AlignedColumn{SeriesSchema: s.plan.fields[j].SeriesSchema, Values: v})
		}
	}
	if err := s.w.WriteAligned(d.id, times, cols); err != nil {
		return fmt.Errorf("arrowconv: writing %d rows of device %s (input rows from %d): %w", len(times), d.id, slices.Min(d.rows), err)
	}
	s.rows += int64(len(times))
	s.total -= n
	d.last, d.written = times[len(times)-1], true
	d.reset()
	return nil
}

func strictlyIncreasing(v []int64) bool {
	for i := 1; i < len(v); i++ {
		if v[i] <= v[i-1] {
			return false
		}
	}
	return true
}

// convertTime converts v from unit from to unit to, exactly.
func convertTime(v int64, from, to arrow.TimeUnit) (int64, error) {
	if from == to {
		return v, nil
	}
	f := int64(1)
	for i := min(from, to); i < max(from, to); i++ {
		f *= 1000
	}
	if to < from {
		if v%f != 0 {
			return 0, fmt.Errorf("%d%s is not a whole number of %s", v, from, to)
		}
		return v / f, nil
	}
	if v > math.MaxInt64/f || v < math.MinInt64/f {
		return 0, fmt.Errorf("%d%s overflows int64 in %s", v, from, to)
	}
	return v * f, nil
}

// maxDateYear is the last year whose YYYYMMDD form fits an int32.
const maxDateYear = math.MaxInt32 / 10000

// daysToDate converts days since the epoch to DATE's YYYYMMDD form.
func daysToDate(days int64) (int32, error) {
	y, m, d := civilFromDays(days)
	if y < 0 || y > maxDateYear {
		return 0, fmt.Errorf("date %d-%02d-%02d is outside the years 0 to %d that DATE holds", y, m, d, maxDateYear)
	}
	return int32(y*10000 + m*100 + d), nil
}

// tagGetter appends the text of a TAG value of row i to dst; ok is false
// for a null.
type tagGetter func(dst []byte, i int) (out []byte, ok bool)

// valuer is an Arrow array with typed values.
type valuer[T any] interface {
	IsNull(int) bool
	Value(int) T
}

func stringTag[S ~string | ~[]byte](a valuer[S]) tagGetter {
	return func(dst []byte, i int) ([]byte, bool) {
		if a.IsNull(i) {
			return dst, false
		}
		return append(dst, a.Value(i)...), true
	}
}

func intTag[T ~int8 | ~int16 | ~int32 | ~int64](a valuer[T]) tagGetter {
	return func(dst []byte, i int) ([]byte, bool) {
		if a.IsNull(i) {
			return dst, false
		}
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), true
	}
}

func uintTag[T ~uint8 | ~uint16 | ~uint32 | ~uint64](a valuer[T]) tagGetter {
	return func(dst []byte, i int) ([]byte, bool) {
		if a.IsNull(i) {
			return dst, false
		}
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), true
	}
}

func newTagGetter(a arrow.Array) (tagGetter, error) {
	switch a := a.(type) {
	case *array.String:
		return stringTag[string](a), nil
	case *array.LargeString:
		return stringTag[string](a), nil
	case *array.StringView:
		return stringTag[string](a), nil
	case *array.Int8:
		return intTag[int8](a), nil
	case *array.Int16:
		return intTag[int16](a), nil
	case *array.Int32:
		return intTag[int32](a), nil
	case *array.Int64:
		return intTag[int64](a), nil
	case *array.Uint8:
		return uintTag[uint8](a), nil
	case *array.Uint16:
		return uintTag[uint16](a), nil
	case *array.Uint32:
		return uintTag[uint32](a), nil
	case *array.Uint64:
		return uintTag[uint64](a), nil
	case *array.Dictionary:
		inner, err := newTagGetter(a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(dst []byte, i int) ([]byte, bool) {
			if a.IsNull(i) {
				return dst, false
			}
			return inner(dst, a.GetValueIndex(i))
		}, nil
	}
	return nil, fmt.Errorf("arrow type %s cannot hold TAG values: %w", a.DataType(), tsfile.ErrUnsupported)
}

// fieldGetter appends the value of row i to c.
type fieldGetter func(c *colBuf, i int) error

func boolField(a *array.Boolean) fieldGetter {
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
		} else {
			c.putBool(a.Value(i))
		}
		return nil
	}
}

func intField[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32](a valuer[T], dt tsfile.DataType) fieldGetter {
	if dt == tsfile.Int32 {
		return func(c *colBuf, i int) error {
			if a.IsNull(i) {
				c.putNull()
			} else {
				c.putI32(int32(a.Value(i)))
			}
			return nil
		}
	}
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
		} else {
			c.putI64(int64(a.Value(i)))
		}
		return nil
	}
}

func floatField[T ~float32 | ~float64](a valuer[T], dt tsfile.DataType) fieldGetter {
	if dt == tsfile.Float {
		return func(c *colBuf, i int) error {
			if a.IsNull(i) {
				c.putNull()
			} else {
				c.putF32(float32(a.Value(i)))
			}
			return nil
		}
	}
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
		} else {
			c.putF64(float64(a.Value(i)))
		}
		return nil
	}
}

// stringField reads text values; STRING ones must be UTF-8, as the format
// says, while TEXT is a byte string.
func stringField(a valuer[string], dt tsfile.DataType) fieldGetter {
	check := dt == tsfile.String
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
			return nil
		}
		v := a.Value(i)
		if check && !utf8.ValidString(v) {
			return fmt.Errorf("STRING value %q is not valid UTF-8", v)
		}
		c.putString(v)
		return nil
	}
}

func bytesField(a valuer[[]byte]) fieldGetter {
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
		} else {
			c.putBytes(a.Value(i))
		}
		return nil
	}
}

// newFieldGetter returns the getter of FIELD values of a stored as dt, with
// timestamps converted to unit.
func newFieldGetter(a arrow.Array, dt tsfile.DataType, unit arrow.TimeUnit) (fieldGetter, error) {
	if !slices.Contains(fieldTypes(a.DataType()), dt) {
		return nil, fmt.Errorf("arrow type %s cannot be stored as %s: %w", a.DataType(), dt, tsfile.ErrUnsupported)
	}
	switch a := a.(type) {
	case *array.Boolean:
		return boolField(a), nil
	case *array.Int8:
		return intField[int8](a, dt), nil
	case *array.Int16:
		return intField[int16](a, dt), nil
	case *array.Int32:
		return intField[int32](a, dt), nil
	case *array.Int64:
		return intField[int64](a, dt), nil
	case *array.Uint8:
		return intField[uint8](a, dt), nil
	case *array.Uint16:
		return intField[uint16](a, dt), nil
	case *array.Uint32:
		return intField[uint32](a, dt), nil
	case *array.Float32:
		return floatField[float32](a, dt), nil
	case *array.Float64:
		return floatField[float64](a, dt), nil
	case *array.String:
		return stringField(a, dt), nil
	case *array.LargeString:
		return stringField(a, dt), nil
	case *array.StringView:
		return stringField(a, dt), nil
	case *array.Binary:
		return bytesField(a), nil
	case *array.LargeBinary:
		return bytesField(a), nil
	case *array.BinaryView:
		return bytesField(a), nil
	case *array.FixedSizeBinary:
		return bytesField(a), nil
	case *array.Date32:
		return func(c *colBuf, i int) error {
			if a.IsNull(i) {
				c.putNull()
				return nil
			}
			v, err := daysToDate(int64(a.Value(i)))
			if err != nil {
				return err
			}
			c.putI32(v)
			return nil
		}, nil
	case *array.Date64:
		return func(c *colBuf, i int) error {
			if a.IsNull(i) {
				c.putNull()
				return nil
			}
			ms := int64(a.Value(i))
			if ms%86400000 != 0 {
				return fmt.Errorf("date64 value %d is not a whole number of days", ms)
			}
			v, err := daysToDate(ms / 86400000)
			if err != nil {
				return err
			}
			c.putI32(v)
			return nil
		}, nil
	case *array.Timestamp:
		from := a.DataType().(*arrow.TimestampType).Unit
		return func(c *colBuf, i int) error {
			if a.IsNull(i) {
				c.putNull()
				return nil
			}
			v, err := convertTime(int64(a.Value(i)), from, unit)
			if err != nil {
				return err
			}
			c.putI64(v)
			return nil
		}, nil
	case *array.Dictionary:
		inner, err := newFieldGetter(a.Dictionary(), dt, unit)
		if err != nil {
			return nil, err
		}
		return func(c *colBuf, i int) error {
			if a.IsNull(i) {
				c.putNull()
				return nil
			}
			return inner(c, a.GetValueIndex(i))
		}, nil
	}
	return nil, fmt.Errorf("arrow type %s has no TsFile counterpart: %w", a.DataType(), tsfile.ErrUnsupported)
}
