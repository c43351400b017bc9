package fromarrow

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/internal/civil"
	"github.com/tsarrow/tsarrow/tsfile"
)

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
		return fmt.Errorf("fromarrow: the record batch at row %d has %d columns, the reader's schema %d", s.next, rec.NumCols(), len(p.input.Fields()))
	}
	for i, f := range p.input.Fields() {
		if t := rec.Column(i).DataType(); !arrow.TypeEqual(t, f.Type) {
			return fmt.Errorf("fromarrow: column %q is %s in the record batch at row %d, %s in the reader's schema", f.Name, t, s.next, f.Type)
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
			return fmt.Errorf("fromarrow: TAG column %q: %w", rec.Schema().Field(c).Name, err)
		}
		tags[i] = g
	}
	fields := make([]fieldGetter, len(p.fields))
	for i, f := range p.fields {
		g, err := newFieldGetter(rec.Column(f.col), f.DataType, p.unit)
		if err != nil {
			return fmt.Errorf("fromarrow: column %q: %w", p.input.Field(f.col).Name, err)
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
				return p.timeError(row, p.input.Field(p.fields[j].col).Name, err)
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
				return fmt.Errorf("fromarrow: row %d: null time", s.next+int64(i))
			}
			t, err := convertTime(int64(vals[i]), p.timeFrom, p.unit)
			if err != nil {
				return p.timeError(s.next+int64(i), "", err)
			}
			s.times[i] = t
		}
		return nil
	case *array.Int64:
		raw = a.Int64Values()
	default:
		return fmt.Errorf("fromarrow: time column is %s in the record batch at row %d", a.DataType(), s.next)
	}
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			return fmt.Errorf("fromarrow: row %d: null time", s.next+int64(i))
		}
		s.times[i] = raw[i]
	}
	return nil
}

// newDevice creates the buffer of the device of row i, whose TAG values
// must be UTF-8 since TAG columns are STRING.
func (s *tsSink) newDevice(tags []tagGetter, i int) (*devBuf, error) {
	if s.plan.tree {
		return s.newTreeDevice(tags[0], i)
	}
	segs := make([]tsfile.Segment, 1, 1+len(tags))
	segs[0] = tsfile.Segment{Value: s.plan.table}
	for j, g := range tags {
		v, ok := g(nil, i)
		if !utf8.Valid(v) {
			return nil, fmt.Errorf("fromarrow: row %d TAG column %q: value %q is not valid UTF-8", s.next+int64(i), s.plan.input.Field(s.plan.tags[j]).Name, v)
		}
		segs = append(segs, tsfile.Segment{Value: string(v), Null: !ok})
	}
	d := &devBuf{id: tsfile.DeviceIDFromSegments(segs)}
	s.order = append(s.order, d)
	return d, nil
}

// newTreeDevice creates the buffer of the tree-model device whose path is
// in row i of the device column.
func (s *tsSink) newTreeDevice(g tagGetter, i int) (*devBuf, error) {
	row := s.next + int64(i)
	name := s.plan.input.Field(s.plan.tags[0]).Name
	v, ok := g(nil, i)
	if !ok {
		return nil, fmt.Errorf("fromarrow: row %d: the device column %q is null; every row needs a device path such as root.sg.d1", row, name)
	}
	path := string(v)
	if !utf8.ValidString(path) {
		return nil, fmt.Errorf("fromarrow: row %d device column %q: value %q is not valid UTF-8", row, name, path)
	}
	if err := checkTreePath(path); err != nil {
		return nil, fmt.Errorf("fromarrow: row %d device column %q: %w", row, name, err)
	}
	d := &devBuf{id: tsfile.ParseTreePath(path)}
	s.order = append(s.order, d)
	return d, nil
}

// checkTreePath refuses a device path IoTDB would not load: its tree
// model's paths start at the node root, and no node is empty.
func checkTreePath(path string) error {
	id := tsfile.ParseTreePath(path)
	if !strings.HasPrefix(path, "root.") || id.Len() < 2 {
		return fmt.Errorf("device path %q does not start with \"root.\" followed by a node, as IoTDB's tree-model paths do (root.sg.d1)", path)
	}
	for i := range id.Len() {
		seg, _ := id.Segment(i)
		if seg == "" || strings.Contains(seg, "..") || strings.HasSuffix(seg, ".") || strings.HasPrefix(seg, ".") {
			return fmt.Errorf("device path %q has an empty node", path)
		}
	}
	return nil
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
						Option: "KeepLast", Remedy: "to keep the last, or Options.Tags if a column tells devices apart"}
				}
				continue // the stable sort put the later row next
			}
			perm[k] = j
			k++
		}
		perm = perm[:k]
	}
	times := permute(d.times, perm)
	if s.plan.tree && !s.plan.aligned {
		return s.flushNonAligned(d, n, times, perm)
	}
	cols := make([]tsfile.AlignedColumn, 0, len(d.cols))
	for j := range d.cols {
		v, ok := d.cols[j].values(perm)
		if !ok && s.plan.tree {
			// An aligned tree device takes no new column after its
			// first group (tsfile.Writer.WriteAligned): every column is
			// in every group, all null if need be.
			v = tsfile.NewValues(s.plan.fields[j].DataType, len(times))
			v.Null, ok = make([]bool, len(times)), true
			for i := range v.Null {
				v.Null[i] = true
			}
		}
		if ok {
			cols = append(cols, tsfile.AlignedColumn{SeriesSchema: s.plan.fields[j].SeriesSchema, Values: v})
		}
	}
	if err := s.w.WriteAligned(d.id, times, cols); err != nil {
		return fmt.Errorf("fromarrow: writing %d rows of device %s (input rows from %d): %w", len(times), d.id, slices.Min(d.rows), err)
	}
	s.rows += int64(len(times))
	s.total -= n
	d.last, d.written = times[len(times)-1], true
	d.reset()
	return nil
}

// flushNonAligned writes the buffered rows of a non-aligned tree device,
// sorted and deduplicated into times (perm as flush made it): each
// measurement a series of its non-null values alone.
func (s *tsSink) flushNonAligned(d *devBuf, n int, times []int64, perm []int) error {
	series := make([]tsfile.NonAlignedSeries, 0, len(d.cols))
	stored := make([]bool, len(times)) // rows with a value
	for j := range d.cols {
		v, ok := d.cols[j].values(perm)
		if !ok {
			continue
		}
		st, sv := times, v
		if v.Null != nil {
			st, sv = compactNulls(times, v)
		}
		for i := range stored {
			stored[i] = stored[i] || v.Null == nil || !v.Null[i]
		}
		series = append(series, tsfile.NonAlignedSeries{SeriesSchema: s.plan.fields[j].SeriesSchema, Times: st, Values: sv})
	}
	if len(series) > 0 {
		if err := s.w.WriteNonAligned(d.id, series); err != nil {
			return fmt.Errorf("fromarrow: writing %d rows of device %s (input rows from %d): %w", len(times), d.id, slices.Min(d.rows), err)
		}
	}
	// A row whose measurements are all null stores nothing: a non-aligned
	// device has no time column of its own to hold it.
	for _, ok := range stored {
		if ok {
			s.rows++
		}
	}
	s.total -= n
	d.last, d.written = times[len(times)-1], true
	d.reset()
	return nil
}

// compactNulls returns the times and values of v's non-null rows, without
// the null marks.
func compactNulls(times []int64, v tsfile.Values) ([]int64, tsfile.Values) {
	out := tsfile.Values{Type: v.Type}
	out.Bools = compact(v.Bools, v.Null)
	out.Int32s = compact(v.Int32s, v.Null)
	out.Int64s = compact(v.Int64s, v.Null)
	out.Float32s = compact(v.Float32s, v.Null)
	out.Float64s = compact(v.Float64s, v.Null)
	out.Binaries = compact(v.Binaries, v.Null)
	return compact(times, v.Null), out
}

// compact returns the elements of s whose null mark is false; nil for nil.
func compact[T any](s []T, null []bool) []T {
	if s == nil {
		return nil
	}
	out := make([]T, 0, len(s))
	for i, x := range s {
		if !null[i] {
			out = append(out, x)
		}
	}
	return out
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
			return 0, &subUnitError{v: v, from: from, to: to}
		}
		return v / f, nil
	}
	if v > math.MaxInt64/f || v < math.MinInt64/f {
		return 0, fmt.Errorf("%d%s overflows int64 in %s", v, from, to)
	}
	return v * f, nil
}

// subUnitError is a timestamp with digits below the stored unit, which
// converting would drop.
type subUnitError struct {
	v        int64
	from, to arrow.TimeUnit
}

func (e *subUnitError) Error() string {
	return fmt.Sprintf("%d%s is not a whole number of %s", e.v, e.from, e.to)
}

// timeError places err, an error converting the timestamp of row row in
// column col (the time column when col is ""), and makes one that drops
// digits an *OptionError for TimeUnit.
func (p *tsPlan) timeError(row int64, col string, err error) error {
	where := fmt.Sprintf("row %d time", row)
	if col != "" {
		where = fmt.Sprintf("row %d column %q", row, col)
	}
	var se *subUnitError
	if !errors.As(err, &se) {
		return fmt.Errorf("fromarrow: %s: %w", where, err)
	}
	stored := "the unit asked for"
	if !p.unitSet {
		stored = "the unit stored by default (IoTDB's default timestamp precision)"
	}
	return &OptionError{
		Problem: fmt.Sprintf("%s: %d%s (%s) has digits below %s, %s, which would be dropped", where, se.v, se.from, instant(se.v, se.from).Format(time.RFC3339Nano), se.to, stored),
		Option:  "TimeUnit",
		Remedy:  fmt.Sprintf("to %s (arrowconv.TimeUnitOf) to keep them, for servers whose timestamp precision is %s", se.from, se.from),
	}
}

// instant is the UTC time of v in unit u.
func instant(v int64, u arrow.TimeUnit) time.Time {
	switch u {
	case arrow.Second:
		return time.Unix(v, 0).UTC()
	case arrow.Millisecond:
		return time.UnixMilli(v).UTC()
	case arrow.Microsecond:
		return time.UnixMicro(v).UTC()
	}
	return time.Unix(0, v).UTC()
}

// maxDateYear is the last year whose YYYYMMDD form fits an int32.
const maxDateYear = math.MaxInt32 / 10000

// daysToDate converts days since the epoch to DATE's YYYYMMDD form.
func daysToDate(days int64) (int32, error) {
	y, m, d := civil.FromDays(days)
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

func bytesField(a valuer[[]byte], dt tsfile.DataType) fieldGetter {
	if dt == tsfile.Object {
		// Bytes stored as OBJECT must be OBJECT cells already (a size
		// and a path): the objects' own bytes, which a read with
		// ObjectBytes gives, would make cells no reader can parse.
		return func(c *colBuf, i int) error {
			if a.IsNull(i) {
				c.putNull()
				return nil
			}
			v := a.Value(i)
			if _, err := tsfile.ParseObjectCell(v); err != nil {
				return fmt.Errorf("a %d-byte value is not an OBJECT cell (an object's size and path), so it cannot be stored as OBJECT: objects' bytes (read with --object-bytes) do not go back into a TsFile; convert without --object-bytes to keep the references: %w", len(v), err)
			}
			c.putBytes(v)
			return nil
		}
	}
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
		} else {
			c.putBytes(a.Value(i))
		}
		return nil
	}
}

// objectRefField returns the getter of an OBJECT column read as
// references (arrowconv.ObjectType, checked by fieldTypes): each
// reference is encoded back into a cell in the form IoTDB would read.
func objectRefField(a *array.Struct) fieldGetter {
	sizes := a.Field(0).(*array.Int64)
	paths := a.Field(1).(*array.String)
	var cell []byte
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
			return nil
		}
		if sizes.IsNull(i) || paths.IsNull(i) {
			return fmt.Errorf("OBJECT reference without a size or a path")
		}
		var err error
		if cell, err = tsfile.EncodeObjectCell(cell[:0], sizes.Value(i), paths.Value(i)); err != nil {
			return err
		}
		c.putBytes(cell)
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
		return bytesField(a, dt), nil
	case *array.LargeBinary:
		return bytesField(a, dt), nil
	case *array.BinaryView:
		return bytesField(a, dt), nil
	case *array.FixedSizeBinary:
		return bytesField(a, dt), nil
	case *array.Struct:
		return objectRefField(a), nil
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
	case *array.Decimal32, *array.Decimal64, *array.Decimal128, *array.Decimal256:
		return decimalField(a.(decimalArray)), nil
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

// decimalArray is an Arrow decimal array of any width.
type decimalArray interface {
	IsNull(int) bool
	ValueStr(int) string
}

// decimalField stores decimals as DOUBLE (Options.DecimalAsDouble). The
// decimal's text goes through strconv.ParseFloat, which rounds correctly
// to the nearest double; arrow-go's ToFloat64 multiplies by an inexact
// power of ten and can miss it by an ulp.
func decimalField(a decimalArray) fieldGetter {
	return func(c *colBuf, i int) error {
		if a.IsNull(i) {
			c.putNull()
			return nil
		}
		v, err := strconv.ParseFloat(a.ValueStr(i), 64)
		if err != nil {
			return fmt.Errorf("decimal %s as a double: %w", a.ValueStr(i), err)
		}
		c.putF64(v)
		return nil
	}
}
