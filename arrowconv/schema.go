package arrowconv

import (
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/scan"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Metadata keys written on the Arrow schema and its fields.
const (
	// MetaType is the field metadata key holding the TsFile data type,
	// such as "INT64" or "DATE".
	MetaType = "tsfile.type"
	// MetaCategory is the field metadata key holding the column's role:
	// "TIME", "TAG", "ATTRIBUTE", "FIELD", "DEVICE" (tree files) or
	// "MEASUREMENT" (tree files).
	MetaCategory = "tsfile.category"
	// MetaTable is the schema metadata key holding the table name; it is
	// absent for tree-model streams.
	MetaTable = "tsfile.table"
	// MetaTimeUnit is the schema metadata key holding the time unit of the
	// stored timestamps ("s", "ms", "us" or "ns").
	MetaTimeUnit = "tsfile.time_unit"
)

// TimeColumn and DeviceColumn are the names of the columns that do not come
// from a measurement. TimeColumn is the name of the time column of a tree
// stream and of a table whose schema has no column of category TIME; a
// table schema's TIME column names it otherwise (TimeFieldName).
const (
	TimeColumn   = "time"
	DeviceColumn = "device"
)

// DefaultBatchSize is the number of rows per record batch when
// Options.BatchSize is not positive.
const DefaultBatchSize = 65536

// Options configure conversion. A nil *Options selects the defaults noted on
// each field.
type Options struct {
	// Allocator provides every Arrow buffer. The default is a Go-heap
	// allocator that keeps large buffers released by the records'
	// consumers for later batches (zeroed when reused), which makes scans
	// markedly faster than memory.DefaultAllocator by sparing the heap a
	// batch's worth of fresh memory each time. As with any Arrow
	// allocator that reuses memory, values read from a batch without a
	// copy (array.String.Value returns a string sharing the buffer) are
	// valid only until the batch is released. With Workers above 1 it
	// must be safe for concurrent use, as arrow-go's allocators are.
	Allocator memory.Allocator
	// BatchSize is the maximum number of rows per record batch
	// (default DefaultBatchSize). Every batch but the last is full.
	BatchSize int
	// TimeUnit is the unit of the stored timestamps of the time column and
	// of TIMESTAMP fields, which TsFile does not record (default
	// arrow.Millisecond, the writers' default precision; select another
	// with TimeUnitOf).
	TimeUnit TimeUnit

	// Columns projects the stream onto the named columns, in the order
	// given, after the time column, which is always kept and always first
	// (naming it is allowed, anywhere, under its name: TimeFieldName; an
	// empty list keeps it alone); a name given twice counts once,
	// where it first appears. Only the chunks of projected value columns
	// are read. Nil keeps every column in schema order; an unknown name is
	// an error.
	//
	// A projection keeps the rows of the time source of the columns read.
	// A table-model or aligned tree device has a time column, so every row
	// is kept, also one whose projected columns are all null, as a table
	// model SELECT does. A non-aligned tree device has none: each series
	// has its own timestamps, so its rows are those where a projected
	// series has a point, as in IoTDB's SELECT s1 FROM root.d; with no
	// series projected they are the timestamps of all its series, which
	// reads all its chunks.
	Columns []string
	// Time keeps only rows whose timestamp lies in the range. Chunk and page
	// statistics skip what cannot match; nil keeps every row.
	Time *TimeRange
	// Devices keeps only the listed devices; the index lookup (and the bloom
	// filter, when the file has one) finds them without visiting the rest.
	// Nil keeps every device.
	Devices []tsfile.DeviceID
	// Where keeps only the devices whose constant columns (TAG or device
	// column) equal the given values. A null TAG never equals a value; the
	// value NullTag (`\N`) asks for the devices whose TAG is null instead
	// (WHERE tag IS NULL), and `\\N` for the literal value `\N`.
	Where map[string]string
	// Limit stops the stream after this many rows; 0 means no limit.
	Limit int64
	// Workers is the number of goroutines decoding the independent chunks of
	// a chunk group at once (default runtime.GOMAXPROCS(0)); output order
	// does not depend on it. 1 decodes on the caller's goroutine.
	Workers int
	// StringView makes TEXT and STRING columns arrow.STRING_VIEW instead of
	// utf8.
	StringView bool
	// PlainTags makes the constant-per-device columns (TAG, ATTRIBUTE,
	// device) plain utf8 instead of dictionary<int32, utf8>.
	PlainTags bool
	// DeviceBatches ends a batch wherever the device changes, so that
	// every batch holds the rows of one device (Reader.Device names it):
	// a reader that resolves many files device by device reads each file
	// once instead of once per device. Batches are smaller where devices
	// are.
	DeviceBatches bool
	// PagesDecoded, when set, counts the pages the reader decodes (time
	// and value pages; a page skipped by its statistics is not counted),
	// for a caller that reports what a query read (package query's
	// ScanStats). Readers sharing it count into it concurrently.
	PagesDecoded *atomic.Int64

	// ObjectBytes reads OBJECT columns as the objects' bytes
	// (ObjectBytesType) instead of their references (ObjectType), from
	// the files ObjectRoot holds. A missing object file is an error
	// naming it.
	ObjectBytes bool
	// ObjectRoot is the object folder OBJECT paths are relative to (the
	// object/ folder of an IoTDB data directory); nil when not known, in
	// which case ObjectBytes fails at the first OBJECT cell.
	ObjectRoot fs.FS
	// MaxObjectSize is the largest object ObjectBytes reads; 0 means
	// DefaultMaxObjectSize. A larger object is an OptionError.
	MaxObjectSize int64
}

// An OptionError is an error of a Reader that one of the Options settles,
// such as a batch too large for Arrow's int32 offsets. Its message names
// the Options field; Option lets a program that fills the options from its
// own flags or settings name those instead, as for fromarrow.OptionError.
// It wraps tsfile.ErrUnsupported, and encoding.ErrUnsupported so that a
// page decode that returns it keeps it unsupported.
type OptionError struct {
	// Problem says what is wrong, without a remedy.
	Problem string
	// Option is the Options field that settles the problem, such as
	// "BatchSize".
	Option string
	// Remedy says what setting Option does, following "set
	// Options.<Option> ".
	Remedy string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("arrowconv: %s (set Options.%s %s)", e.Problem, e.Option, e.Remedy)
}

// Unwrap returns the sentinels the error matches.
func (e *OptionError) Unwrap() []error {
	return []error{tsfile.ErrUnsupported, encoding.ErrUnsupported}
}

// TimeUnit is the unit of stored timestamps, for options whose zero value
// must mean the default (arrow.Millisecond here; fromarrow takes the input's
// unit), although the zero arrow.TimeUnit is arrow.Second. Select a unit
// with TimeUnitOf.
type TimeUnit struct {
	unit arrow.TimeUnit
	set  bool
}

// TimeUnitOf returns the TimeUnit that selects u.
func TimeUnitOf(u arrow.TimeUnit) TimeUnit { return TimeUnit{unit: u, set: true} }

// Unit returns the unit selected: arrow.Millisecond for the zero value.
func (t TimeUnit) Unit() arrow.TimeUnit {
	if !t.set {
		return arrow.Millisecond
	}
	return t.unit
}

// IsSet reports whether a unit was selected with TimeUnitOf, for options
// whose default is not arrow.Millisecond.
func (t TimeUnit) IsSet() bool { return t.set }

// String returns the name of the unit selected, such as "ms".
func (t TimeUnit) String() string { return t.Unit().String() }

// TimeRange is an inclusive range of stored timestamps.
type TimeRange struct {
	Start, End int64
}

// Contains reports whether t lies in the range.
func (r *TimeRange) contains(t int64) bool { return r == nil || (t >= r.Start && t <= r.End) }

// Overlaps reports whether [start, end] meets the range; statistics use it
// to skip chunks and pages.
func (r *TimeRange) overlaps(start, end int64) bool {
	return r == nil || (end >= r.Start && start <= r.End)
}

// Covers reports whether every timestamp of [start, end] lies in the range,
// so that rows need no trimming.
func (r *TimeRange) covers(start, end int64) bool {
	return r == nil || (start >= r.Start && end <= r.End)
}

// check rejects options no default can repair.
func (o *Options) check() error {
	if o == nil {
		return nil
	}
	if u := o.TimeUnit.Unit(); u < arrow.Second || u > arrow.Nanosecond {
		return fmt.Errorf("arrowconv: invalid time unit %d", int(u))
	}
	if o.Time != nil && o.Time.Start > o.Time.End {
		return fmt.Errorf("arrowconv: time range starts at %d after its end %d", o.Time.Start, o.Time.End)
	}
	if o.Limit < 0 {
		return fmt.Errorf("arrowconv: negative row limit %d", o.Limit)
	}
	if o.MaxObjectSize < 0 {
		return fmt.Errorf("arrowconv: negative MaxObjectSize %d", o.MaxObjectSize)
	}
	return nil
}

// withDefaults returns a copy of o with every unset field defaulted.
func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Allocator == nil {
		r.Allocator = scan.DefaultPool
	}
	if r.BatchSize <= 0 {
		r.BatchSize = DefaultBatchSize
	}
	if r.Workers <= 0 {
		r.Workers = runtime.GOMAXPROCS(0)
	}
	return r
}

// TableArrowSchema returns the Arrow schema of a table-model table: the
// time column timestamp[unit, UTC] (non-null; named after the schema's
// column of category TIME, else "time": TimeFieldName), the TAG columns as utf8, the ATTRIBUTE columns
// as utf8 (null until attributes are read), then the FIELD columns in schema
// order, typed as follows:
//
//	BOOLEAN bool       INT32 int32       INT64 int64
//	FLOAT float32      DOUBLE float64    TEXT, STRING utf8
//	BLOB binary                          DATE date32
//	TIMESTAMP timestamp[unit, UTC]       OBJECT ObjectType
//
// (OBJECT is ObjectBytesType under Options.ObjectBytes.) Field metadata records the TsFile data type (MetaType) and category
// (MetaCategory); schema metadata records the table (MetaTable) and the time
// unit (MetaTimeUnit).
func TableArrowSchema(f *tsfile.File, table string, opts *Options) (*arrow.Schema, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	s, err := tableLayout(f, table)
	if err != nil {
		return nil, err
	}
	if s, _, err = s.plan(&o); err != nil {
		return nil, err
	}
	return s.arrowSchema(o.TimeUnit.Unit()), nil
}

// TimeFieldName returns the name of the Arrow time field of a table of
// schema s: the name of its column of category TIME (s.TimeColumn), which
// the C++ and Python writers record and their readers name the time column
// after (apache/tsfile python/tsfile/utils.py, to_dataframe, renames the
// time column to it), else TimeColumn. A nil s gives TimeColumn, the name
// of a tree stream's time field.
func TimeFieldName(s *tsfile.TableSchema) string {
	if s != nil {
		if c, ok := s.TimeColumn(); ok {
			return c.Name
		}
	}
	return TimeColumn
}

// TimeField returns the index of the time field of an Arrow schema: the
// field whose MetaCategory is TIME, as every stream of this package and of
// package dataset marks it, else (a schema of the caller's own, without
// the metadata) the field named TimeColumn. ok is false when there is
// neither.
func TimeField(sc *arrow.Schema) (i int, ok bool) {
	if sc == nil {
		return -1, false
	}
	for i, f := range sc.Fields() {
		if c, _ := f.Metadata.GetValue(MetaCategory); c == tsfile.TimeCol.String() {
			return i, true
		}
	}
	if idx := sc.FieldIndices(TimeColumn); len(idx) > 0 {
		return idx[0], true
	}
	return -1, false
}

// TimeFieldNameOf returns the name of sc's time field (TimeField), or
// TimeColumn when it has none.
func TimeFieldNameOf(sc *arrow.Schema) string {
	if i, ok := TimeField(sc); ok {
		return sc.Field(i).Name
	}
	return TimeColumn
}

// checkTimeColumns refuses a table schema with more than one column of
// category TIME: a table has one time column, and the writers that record
// it record one (the C++ TableSchema keeps the category of each column
// it was given; nothing upstream writes two), so a second is a damaged
// category, and which of them names the time column cannot be told.
func checkTimeColumns(ts *tsfile.TableSchema) error {
	var names []string
	for _, c := range ts.Columns {
		if c.Category == tsfile.TimeCol {
			names = append(names, strconv.Quote(c.Name))
		}
	}
	if len(names) > 1 {
		return fmt.Errorf("arrowconv: table %q has %d columns of category TIME (%s), a table has one time column: %w", ts.Name, len(names), strings.Join(names, ", "), tsfile.ErrCorrupt)
	}
	return nil
}

// NullTag is the Options.Where value that matches a null TAG, as WHERE
// tag IS NULL does (apache/tsfile PR #848 gave upstream's tag filters IS
// NULL). It is the marker upstream's logical series paths give a null tag
// (python/tsfile/dataset/metadata.py): a backslash and N. So that every
// stored value can still be asked for, k > 1 backslashes and N match the
// value of k-1 backslashes and N (`\\N` matches the two characters `\N`);
// every other value matches itself. A file stores a null TAG as a null
// DeviceID segment, never as these characters.
const NullTag = `\N`

// ParseWhereValue decodes an Options.Where value: null reports the
// NullTag marker, otherwise value is the TAG value to match.
func ParseWhereValue(v string) (value string, null bool) {
	if v == NullTag {
		return "", true
	}
	if k := len(v) - 1; k > 1 && v[k] == 'N' && strings.Count(v[:k], `\`) == k {
		return v[1:], false
	}
	return v, false
}

// whereCond is one resolved Options.Where entry: the constant column's
// DeviceID segment (or constDevice) must equal value, or be null.
type whereCond struct {
	name  string
	tag   int
	value string
	null  bool // IS NULL: the segment must be null
}

// matches reports whether dev satisfies every condition. A TAG segment
// past the stored ones is null: devices drop their trailing null TAGs.
func matches(conds []whereCond, dev tsfile.DeviceID) bool {
	for _, c := range conds {
		var v string
		ok := true
		if c.tag == constDevice {
			v = dev.String()
		} else {
			v, ok = dev.Segment(c.tag)
		}
		if c.null {
			// The device column of a tree model is never null.
			if ok {
				return false
			}
			continue
		}
		if !ok || v != c.value {
			return false
		}
	}
	return true
}

// plan applies the options to a full layout: it resolves Options.Where
// against every constant column, then projects onto Options.Columns, and
// records the representation choices the schema depends on.
func (l *layout) plan(o *Options) (*layout, []whereCond, error) {
	var conds []whereCond
	for name, v := range o.Where {
		found := false
		for _, c := range l.consts {
			if c.name != name {
				continue
			}
			if c.tag == constAttribute {
				return nil, nil, fmt.Errorf("arrowconv: cannot filter on ATTRIBUTE column %q: attribute values are not stored in the file", name)
			}
			val, null := ParseWhereValue(v)
			conds = append(conds, whereCond{name: name, tag: c.tag, value: val, null: null})
			found = true
		}
		if !found {
			if _, ok := l.byName[name]; ok {
				return nil, nil, fmt.Errorf("arrowconv: cannot filter on %q: only TAG and device columns can be filtered on (%s)", name, l.filterable())
			}
			return nil, nil, fmt.Errorf("arrowconv: no column %q to filter on (%s)", name, l.filterable())
		}
	}
	sort.Slice(conds, func(i, j int) bool { return conds[i].name < conds[j].name })
	p := *l
	p.plainTags, p.stringView, p.objectBytes = o.PlainTags, o.StringView, o.ObjectBytes
	if o.Columns == nil {
		return &p, conds, nil
	}
	want := map[string]bool{}
	for _, c := range o.Columns {
		want[c] = true
	}
	delete(want, l.time)
	p.consts, p.fields, p.byName = nil, nil, map[string]int{}
	for _, c := range l.consts {
		if want[c.name] {
			p.consts = append(p.consts, c)
			delete(want, c.name)
		}
	}
	for _, c := range l.fields {
		if want[c.name] {
			p.byName[c.name] = len(p.fields)
			p.fields = append(p.fields, c)
			delete(want, c.name)
		}
	}
	if len(want) > 0 {
		var missing []string
		for n := range want {
			missing = append(missing, n)
		}
		sort.Strings(missing)
		what := fmt.Sprintf("table %q", l.table)
		if !l.isTable {
			what = "the tree-model devices"
		}
		return nil, nil, fmt.Errorf("arrowconv: %s has no column %q (columns: %s)", what, missing[0], strings.Join(l.names(), ", "))
	}
	p.order = p.outputOrder(o.Columns)
	return &p, conds, nil
}

// outputOrder returns the order of a projected layout's columns as cols
// names them (see layout.order): time first, then each column where its
// name first appears; nil when that is the layout's own order.
func (l *layout) outputOrder(cols []string) []int {
	pos := make(map[string]int, 1+len(l.consts)+len(l.fields))
	for i, n := range l.names() {
		pos[n] = i
	}
	order := make([]int, 1, len(pos))
	placed := map[string]bool{l.time: true}
	for _, c := range cols {
		if !placed[c] {
			placed[c] = true
			order = append(order, pos[c])
		}
	}
	for i, j := range order {
		if i != j {
			return order
		}
	}
	return nil
}

// names lists the layout's columns in schema order, time first, so that
// an error about a misspelt name can say what there is.
func (l *layout) names() []string {
	out := []string{l.time}
	for _, c := range l.consts {
		out = append(out, c.name)
	}
	for _, c := range l.fields {
		out = append(out, c.name)
	}
	return out
}

// filterable says which columns Options.Where accepts, for its errors.
func (l *layout) filterable() string {
	var out []string
	for _, c := range l.consts {
		if c.tag != constAttribute {
			out = append(out, c.name)
		}
	}
	switch {
	case !l.isTable:
		return "the device column: " + strings.Join(out, ", ")
	case len(out) == 0:
		return "the table has no TAG column"
	}
	return "TAG columns: " + strings.Join(out, ", ")
}

// layout is the column plan shared by schema construction and readers: the
// constant-per-device string columns after time, then the value columns.
type layout struct {
	table   string // "" for tree streams
	time    string // the time column's name (TimeFieldName; TimeColumn for tree streams)
	consts  []constColumn
	fields  []fieldColumn
	byName  map[string]int // measurement name -> index into fields
	tags    int            // TAG columns, the DeviceID segments after the table name
	isTable bool
	// Representation choices from Options.
	plainTags, stringView, objectBytes bool
	// order is the output order of the columns asked for (Options.Columns):
	// order[i] is the position, in the layout's own order (time, consts,
	// fields), of output column i. Nil when the two orders agree.
	order []int
}

// constColumn is a utf8 column whose value is fixed for each device.
type constColumn struct {
	name     string
	category string
	dataType tsfile.DataType
	tag      int // DeviceID segment index for TAGs; -1 for attributes, -2 for the device path
}

const (
	constAttribute = -1
	constDevice    = -2
)

// fieldColumn is a column of measured values.
type fieldColumn struct {
	name     string
	category string
	dataType tsfile.DataType
}

// tableLayout plans the columns of a table-model table.
func tableLayout(f *tsfile.File, table string) (*layout, error) {
	ts, ok := f.SchemaOf(table)
	if !ok {
		if _, exists := f.Metadata.TableIndexes[table]; exists {
			return nil, fmt.Errorf("arrowconv: %q has no table schema (a tree-model file?); use NewTreeReader", table)
		}
		return nil, fmt.Errorf("arrowconv: no table %q in the file", table)
	}
	l := &layout{table: table, time: TimeFieldName(ts), byName: map[string]int{}, isTable: true}
	if err := checkTimeColumns(ts); err != nil {
		return nil, err
	}
	// The time column's name is taken: a TAG or FIELD of that name is
	// a schema that names two columns alike. A FIELD named "time" beside
	// a TIME column of another name is a column like any other.
	seen := map[string]bool{l.time: true}
	add := func(c tsfile.Column) error {
		if seen[c.Name] {
			return fmt.Errorf("arrowconv: table %q has two columns named %q: %w", table, c.Name, tsfile.ErrCorrupt)
		}
		seen[c.Name] = true
		return nil
	}
	for i, c := range ts.Tags() {
		if err := add(c); err != nil {
			return nil, err
		}
		l.consts = append(l.consts, constColumn{name: c.Name, category: c.Category.String(), dataType: c.DataType, tag: i + 1})
		l.tags++
	}
	for _, c := range ts.Columns {
		if c.Category != tsfile.Attribute {
			continue
		}
		if err := add(c); err != nil {
			return nil, err
		}
		l.consts = append(l.consts, constColumn{name: c.Name, category: c.Category.String(), dataType: c.DataType, tag: constAttribute})
	}
	for _, c := range ts.Fields() {
		if err := add(c); err != nil {
			return nil, err
		}
		if _, err := arrowType(c.DataType, arrow.Millisecond); err != nil {
			return nil, fmt.Errorf("arrowconv: table %q column %q: %w", table, c.Name, err)
		}
		l.byName[c.Name] = len(l.fields)
		l.fields = append(l.fields, fieldColumn{name: c.Name, category: c.Category.String(), dataType: c.DataType})
	}
	if f.Options().Lenient {
		if err := l.addOrphans(f, ts); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// addOrphans makes a lenient read return the series of the table that its
// schema does not list as FIELD columns, instead of dropping them: a name
// or category byte damaged in the schema or the index would otherwise turn
// real values into a column of nulls. A series named like a TAG or
// ATTRIBUTE column proves that column a FIELD (neither kind has series), so
// the column moves to the fields and the later TAGs take its DeviceID
// segment; any other series becomes an extra FIELD column after the
// schema's. Each repair is a warning. A strict read fails instead, in
// tsfile.File.CheckTable, before any row is returned.
//
// This walks the whole index of the table, so only lenient reads pay it.
func (l *layout) addOrphans(f *tsfile.File, ts *tsfile.TableSchema) error {
	return f.TableSeries(l.table, func(dev tsfile.DeviceID, series []tsfile.TimeseriesMetadata) error {
		// A device ID the Bloom filter does not know: a warning.
		if err := f.CheckDeviceInBloom(l.table, dev, series); err != nil {
			return err
		}
		for i := range series {
			s := &series[i]
			if !s.IsValueColumn() {
				continue
			}
			if _, ok := l.byName[s.Measurement]; ok {
				continue
			}
			if s.Measurement == l.time {
				// A value series of the TIME column's name: a column
				// cannot be both, and which the file meant is unknown.
				return corruptf(s.Offset, "timeseries metadata", "series %q of device %s of table %q has the name of the table's TIME column; read with --raw or repair the schema", s.Measurement, dev, l.table)
			}
			if _, err := arrowType(s.DataType, arrow.Millisecond); err != nil {
				return fmt.Errorf("arrowconv: table %q series %q of device %s: %w", l.table, s.Measurement, dev, err)
			}
			what, at := "read as an extra FIELD column", len(l.fields)
			if k := slices.IndexFunc(l.consts, func(c constColumn) bool { return c.name == s.Measurement }); k >= 0 {
				what = fmt.Sprintf("the schema's %s column %q is read as a FIELD", l.consts[k].category, s.Measurement)
				l.dropConst(k)
				// In its schema position among the fields.
				at = 0
				for _, c := range ts.Columns {
					if c.Name == s.Measurement {
						break
					}
					if _, ok := l.byName[c.Name]; ok {
						at++
					}
				}
			}
			// The warning goes through Tolerate, which records it once
			// however many readers plan this table.
			if err := f.Tolerate(corruptf(s.Offset, "timeseries metadata", "series %q of device %s is not a FIELD column of table %q: the index and the table schema disagree; %s", s.Measurement, dev, l.table, what)); err != nil {
				return err
			}
			l.fields = slices.Insert(l.fields, at, fieldColumn{name: s.Measurement, category: tsfile.Field.String(), dataType: s.DataType})
			for j := at; j < len(l.fields); j++ {
				l.byName[l.fields[j].name] = j
			}
		}
		return nil
	})
}

// dropConst removes constant column k; when it is a TAG, the TAGs after it
// move one DeviceID segment up, where a schema without it puts them.
func (l *layout) dropConst(k int) {
	if c := l.consts[k]; c.tag > 0 {
		for j := range l.consts {
			if l.consts[j].tag > c.tag {
				l.consts[j].tag--
			}
		}
		l.tags--
	}
	l.consts = slices.Delete(l.consts, k, k+1)
}

// treeLayout plans the columns of the devices of tree-model tables: the
// union of their measurements, ordered by the offset of each measurement's
// first chunk, which is the order the writer first wrote them in.
func treeLayout(f *tsfile.File, table string) (*layout, []string, error) {
	tables, err := treeTables(f, table)
	if err != nil {
		return nil, nil, err
	}
	type seen struct {
		dataType tsfile.DataType
		first    int64
		device   tsfile.DeviceID
	}
	all := map[string]*seen{}
	for _, t := range tables {
		devs, err := f.Devices(t)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range devs {
			series, err := f.Series(d)
			if err != nil {
				return nil, nil, err
			}
			for i := range series {
				s := &series[i]
				if s.IsTimeColumn() || len(s.Chunks) == 0 {
					continue
				}
				first := s.Chunks[0].Offset
				for _, c := range s.Chunks[1:] {
					first = min(first, c.Offset)
				}
				m, ok := all[s.Measurement]
				if !ok {
					all[s.Measurement] = &seen{dataType: s.DataType, first: first, device: d}
					continue
				}
				if m.dataType != s.DataType {
					return nil, nil, fmt.Errorf("arrowconv: measurement %q is %s in device %s but %s in device %s; one column cannot hold both",
						s.Measurement, m.dataType, m.device, s.DataType, d)
				}
				m.first = min(m.first, first)
			}
		}
	}
	names := make([]string, 0, len(all))
	for n := range all {
		if n == TimeColumn || n == DeviceColumn {
			return nil, nil, fmt.Errorf("arrowconv: measurement %q collides with the %q column", n, n)
		}
		if _, err := arrowType(all[n].dataType, arrow.Millisecond); err != nil {
			return nil, nil, fmt.Errorf("arrowconv: measurement %q: %w", n, err)
		}
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := all[names[i]], all[names[j]]
		if a.first != b.first {
			return a.first < b.first
		}
		return names[i] < names[j]
	})
	l := &layout{time: TimeColumn, byName: map[string]int{}}
	l.consts = []constColumn{{name: DeviceColumn, category: "DEVICE", dataType: tsfile.String, tag: constDevice}}
	for i, n := range names {
		l.byName[n] = i
		l.fields = append(l.fields, fieldColumn{name: n, category: "MEASUREMENT", dataType: all[n].dataType})
	}
	return l, tables, nil
}

// treeTables resolves the tables of a tree stream: the given one, or every
// index root without a table schema when table is "".
func treeTables(f *tsfile.File, table string) ([]string, error) {
	if table == "" {
		var tables []string
		for _, t := range f.Tables() {
			if _, ok := f.SchemaOf(t); !ok {
				tables = append(tables, t)
			}
		}
		return tables, nil
	}
	if _, ok := f.Metadata.TableIndexes[table]; !ok {
		return nil, fmt.Errorf("arrowconv: no table %q in the file", table)
	}
	if _, ok := f.SchemaOf(table); ok {
		return nil, fmt.Errorf("arrowconv: %q is a table-model table; use NewTableReader", table)
	}
	return []string{table}, nil
}

// arrowSchema builds the Arrow schema of the layout's output: its columns
// in the order asked for (layout.order).
func (l *layout) arrowSchema(unit arrow.TimeUnit) *arrow.Schema {
	s := l.layoutSchema(unit)
	if l.order == nil {
		return s
	}
	fields := make([]arrow.Field, len(l.order))
	for i, j := range l.order {
		fields[i] = s.Field(j)
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// layoutSchema builds the Arrow schema of the layout in its own order:
// time, the constant columns, the fields, as the reader's builders are.
func (l *layout) layoutSchema(unit arrow.TimeUnit) *arrow.Schema {
	fields := make([]arrow.Field, 0, 1+len(l.consts)+len(l.fields))
	fields = append(fields, arrow.Field{
		Name: l.time,
		Type: &arrow.TimestampType{Unit: unit, TimeZone: "UTC"},
		Metadata: arrow.NewMetadata(
			[]string{MetaType, MetaCategory},
			[]string{tsfile.Timestamp.String(), tsfile.TimeCol.String()}),
	})
	var constType arrow.DataType = tagDictType
	if l.plainTags {
		constType = arrow.BinaryTypes.String
	}
	for _, c := range l.consts {
		fields = append(fields, arrow.Field{
			Name:     c.name,
			Type:     constType,
			Nullable: true,
			Metadata: arrow.NewMetadata([]string{MetaType, MetaCategory}, []string{c.dataType.String(), c.category}),
		})
	}
	for _, c := range l.fields {
		t, _ := arrowType(c.dataType, unit) // checked when the layout was built
		if l.stringView && t.ID() == arrow.STRING {
			t = viewType
		}
		if c.dataType == tsfile.Object {
			t = ObjectType
			if l.objectBytes {
				t = ObjectBytesType
			}
		}
		fields = append(fields, arrow.Field{
			Name:     c.name,
			Type:     t,
			Nullable: true,
			Metadata: arrow.NewMetadata([]string{MetaType, MetaCategory}, []string{c.dataType.String(), c.category}),
		})
	}
	keys := []string{MetaTimeUnit}
	vals := []string{unit.String()}
	if l.isTable {
		keys = append(keys, MetaTable)
		vals = append(vals, l.table)
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

// arrowType maps a TsFile value type to its Arrow type.
func arrowType(t tsfile.DataType, unit arrow.TimeUnit) (arrow.DataType, error) {
	switch t {
	case tsfile.Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case tsfile.Int32:
		return arrow.PrimitiveTypes.Int32, nil
	case tsfile.Int64:
		return arrow.PrimitiveTypes.Int64, nil
	case tsfile.Float:
		return arrow.PrimitiveTypes.Float32, nil
	case tsfile.Double:
		return arrow.PrimitiveTypes.Float64, nil
	case tsfile.Text, tsfile.String:
		return arrow.BinaryTypes.String, nil
	case tsfile.Blob, tsfile.Object:
		// OBJECT cells are decoded as binary and turned into ObjectType
		// (or read as bytes) as a batch is handed out (objectConv).
		return arrow.BinaryTypes.Binary, nil
	case tsfile.Date:
		return arrow.FixedWidthTypes.Date32, nil
	case tsfile.Timestamp:
		return &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}, nil
	}
	return nil, fmt.Errorf("data type %s has no Arrow representation: %w", t, tsfile.ErrUnsupported)
}

// TableDeviceFilter returns the test Options.Where applies to the devices
// of table-model table t of f, resolved exactly as NewTableReader resolves
// it (the same errors): a caller that lists devices itself (an SQL scan
// cutting a table into units) keeps only those a reader with this Where
// would read, without opening one.
func TableDeviceFilter(f *tsfile.File, table string, where map[string]string) (func(tsfile.DeviceID) bool, error) {
	l, err := tableLayout(f, table)
	if err != nil {
		return nil, err
	}
	_, conds, err := l.plan(&Options{Where: where})
	if err != nil {
		return nil, err
	}
	return func(d tsfile.DeviceID) bool { return matches(conds, d) }, nil
}
