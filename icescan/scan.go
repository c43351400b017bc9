package icescan

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/iceref"
	"github.com/tsarrow/tsarrow/icesync"
)

// ErrQuery is returned for a query the table cannot answer: a column it
// lacks, a TAG condition on a column that is no string column.
var ErrQuery = errors.New("icescan: bad query")

// ErrTable is returned for a table icescan cannot read as a TsFile
// table: no timestamp column first.
var ErrTable = errors.New("icescan: not a time series table")

// ErrPrecision is returned when a timestamp holds digits below the unit
// asked for: the value would change.
var ErrPrecision = errors.New("icescan: timestamp finer than the time unit")

// closer is what icesync.OpenCatalog returns: iceberg-go's catalog and
// Close. Held as this interface, the code does not depend on OpenCatalog's
// concrete type.
type closer interface {
	catalog.Catalog
	Close() error
}

// Table is an Iceberg table open for reading.
type Table struct {
	ref iceref.Ref
	cat closer
	tbl *table.Table
	// timeName is the name of the first column, the time column.
	timeName string
}

// Open opens the catalog of ref and loads its table. Close the Table
// when done.
func Open(ctx context.Context, ref iceref.Ref) (*Table, error) {
	if path, ok := strings.CutPrefix(ref.Catalog, "sqlite:"); ok {
		// OpenCatalog creates a missing database (a sync's first run
		// needs that); a read must not leave an empty catalog behind.
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("icescan: catalog %s: %w", ref.Catalog, err)
		}
	}
	c, err := icesync.OpenCatalog(ctx, ref.Catalog, "")
	if err != nil {
		return nil, err
	}
	var cat closer = c
	ident := catalog.ToIdentifier(append(ref.Namespace[:len(ref.Namespace):len(ref.Namespace)], ref.Table)...)
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		cat.Close()
		if errors.Is(err, catalog.ErrNoSuchTable) || errors.Is(err, catalog.ErrNoSuchNamespace) {
			return nil, fmt.Errorf("icescan: %s: no table %s in the catalog: %w", ref.Catalog, ref.Name(), err)
		}
		return nil, fmt.Errorf("icescan: %s: loading %s: %w", ref.Catalog, ref.Name(), err)
	}
	sc := tbl.Schema()
	if len(sc.Fields()) == 0 {
		cat.Close()
		return nil, fmt.Errorf("%w: %s has no columns", ErrTable, ref)
	}
	switch sc.Field(0).Type.(type) {
	case iceberg.TimestampTzType, iceberg.TimestampType:
	default:
		cat.Close()
		return nil, fmt.Errorf("%w: %s: its first column %q is %s, not a timestamp", ErrTable, ref, sc.Field(0).Name, sc.Field(0).Type)
	}
	return &Table{ref: ref, cat: cat, tbl: tbl, timeName: sc.Field(0).Name}, nil
}

// Close closes the catalog.
func (t *Table) Close() error { return t.cat.Close() }

// Ref returns the input the table was opened from.
func (t *Table) Ref() iceref.Ref { return t.ref }

// TimeColumn is the name of the time column (the first).
func (t *Table) TimeColumn() string { return t.timeName }

// TagValues are the values a TAG column may take in a Query: any of
// Values, or null when Null is set.
type TagValues struct {
	Values []string
	Null   bool
}

// Query says what a read returns.
type Query struct {
	// Columns are the columns after time, in this order; nil: all of
	// them in the table's order. The time column is always first.
	Columns []string
	// Time keeps the rows whose time lies in it (inclusive, in Unit).
	Time *arrowconv.TimeRange
	// Unit is the unit of the timestamps returned and of Time: ms unless
	// set, as the TsFile readers give them.
	Unit arrowconv.TimeUnit
	// Tags keeps the rows whose column takes one of the values (all must
	// hold). Each is pushed into the scan.
	Tags map[string]TagValues
	// Limit > 0 stops after this many rows.
	Limit int64
	// BatchSize is the rows of a Parquet read batch; 0: iceberg-go's.
	BatchSize int
	// Allocator allocates converted timestamps; nil: Go's.
	Allocator memory.Allocator
}

// Schema returns the Arrow schema of q's rows (nil q: every column, ms).
// Timestamps are UTC in q.Unit; a column whose doc icesync wrote ("TsFile
// TAG STRING") gets the tsfile.category and tsfile.type metadata the
// TsFile readers give it, and the time column category TIME.
func (t *Table) Schema(q *Query) (*arrow.Schema, error) {
	if q == nil {
		q = &Query{}
	}
	sc := t.tbl.Schema()
	full, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		return nil, fmt.Errorf("icescan: %s: %w", t.ref, err)
	}
	names, err := t.columns(q.Columns)
	if err != nil {
		return nil, err
	}
	unit := q.Unit.Unit()
	fields := make([]arrow.Field, 0, len(names))
	for _, name := range names {
		i := full.FieldIndices(name)[0]
		f := full.Field(i)
		if _, ok := f.Type.(*arrow.TimestampType); ok {
			f.Type = &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}
		}
		f.Metadata = fieldMeta(sc.Field(i), i == 0)
		if i == 0 {
			f.Nullable = false
		}
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil), nil
}

// fieldMeta restores the TsFile metadata from a column doc "TsFile
// CATEGORY TYPE"; the time column is TIME whatever its doc.
func fieldMeta(f iceberg.NestedField, first bool) arrow.Metadata {
	cat, typ := "", ""
	if rest, ok := strings.CutPrefix(f.Doc, "TsFile "); ok {
		cat, typ, _ = strings.Cut(rest, " ")
	}
	if first {
		cat = "TIME"
		if typ == "" {
			typ = "TIMESTAMP"
		}
	}
	if cat == "" {
		return arrow.Metadata{}
	}
	keys, vals := []string{arrowconv.MetaCategory}, []string{cat}
	if typ != "" {
		keys, vals = append(keys, arrowconv.MetaType), append(vals, typ)
	}
	return arrow.NewMetadata(keys, vals)
}

// columns returns the time column then the asked ones (all when nil),
// checked against the table.
func (t *Table) columns(cols []string) ([]string, error) {
	sc := t.tbl.Schema()
	if cols == nil {
		var out []string
		for _, f := range sc.Fields() {
			out = append(out, f.Name)
		}
		return out, nil
	}
	out := []string{t.timeName}
	for _, c := range cols {
		if c == t.timeName {
			continue // always first, as convert's --columns has it
		}
		if _, ok := sc.FindFieldByName(c); !ok {
			return nil, fmt.Errorf("%w: %s has no column %q (columns: %s)", ErrQuery, t.ref, c, strings.Join(t.names(), ", "))
		}
		if slices.Contains(out, c) {
			return nil, fmt.Errorf("%w: column %q given twice", ErrQuery, c)
		}
		out = append(out, c)
	}
	return out, nil
}

func (t *Table) names() []string {
	var out []string
	for _, f := range t.tbl.Schema().Fields() {
		out = append(out, f.Name)
	}
	return out
}

// filter is q's time range and TAG values as an Iceberg expression.
func (t *Table) filter(q *Query) (iceberg.BooleanExpression, error) {
	var conj []iceberg.BooleanExpression
	if q.Time != nil {
		lo, hi := toMicros(q.Time.Start, q.Unit.Unit(), false), toMicros(q.Time.End, q.Unit.Unit(), true)
		if q.Time.Start > q.Time.End {
			return iceberg.AlwaysFalse{}, nil
		}
		ref := iceberg.Reference(t.timeName)
		conj = append(conj, iceberg.GreaterThanEqual(ref, iceberg.Timestamp(lo)), iceberg.LessThanEqual(ref, iceberg.Timestamp(hi)))
	}
	keys := make([]string, 0, len(q.Tags))
	for k := range q.Tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		f, ok := t.tbl.Schema().FindFieldByName(k)
		if !ok {
			return nil, fmt.Errorf("%w: %s has no column %q (columns: %s)", ErrQuery, t.ref, k, strings.Join(t.names(), ", "))
		}
		if _, ok := f.Type.(iceberg.StringType); !ok {
			return nil, fmt.Errorf("%w: column %q is %s, not a TAG (string) column", ErrQuery, k, f.Type)
		}
		tv := q.Tags[k]
		ref := iceberg.Reference(k)
		var e iceberg.BooleanExpression = iceberg.AlwaysFalse{}
		switch len(tv.Values) {
		case 0:
		case 1:
			e = iceberg.EqualTo(ref, tv.Values[0])
		default:
			e = iceberg.IsIn(ref, tv.Values...)
		}
		if tv.Null {
			e = iceberg.NewOr(e, iceberg.IsNull(ref))
		}
		conj = append(conj, e)
	}
	switch len(conj) {
	case 0:
		return iceberg.AlwaysTrue{}, nil
	case 1:
		return conj[0], nil
	}
	return iceberg.NewAnd(conj[0], conj[1], conj[2:]...), nil
}

// toMicros turns a bound in unit into microseconds, saturating; an upper
// bound in ns rounds down and a lower one up, so the range keeps exactly
// the microseconds inside it.
func toMicros(v int64, u arrow.TimeUnit, upper bool) int64 {
	switch u {
	case arrow.Second:
		return satMul(v, 1_000_000, upper)
	case arrow.Millisecond:
		return satMul(v, 1000, upper)
	case arrow.Nanosecond:
		q := v / 1000
		if r := v % 1000; r != 0 && !upper && v > 0 {
			q++
		} else if r != 0 && upper && v < 0 {
			q--
		}
		return q
	}
	return v
}

// satMul is v*m clamped to int64; an upper bound takes the whole last
// unit (v*m + m-1) so that finer values inside it match.
func satMul(v, m int64, upper bool) int64 {
	if v > math.MaxInt64/m {
		return math.MaxInt64
	}
	if v < math.MinInt64/m {
		return math.MinInt64
	}
	r := v * m
	if upper {
		if r > math.MaxInt64-(m-1) {
			return math.MaxInt64
		}
		r += m - 1
	}
	return r
}

// Plan is a planned read: the data files the scan must open, after the
// manifests, partitions and file statistics pruned the rest.
type Plan struct {
	t      *Table
	q      Query
	filter iceberg.BooleanExpression
	fields []string
	schema *arrow.Schema
	tasks  []table.FileScanTask
}

// Plan plans q: iceberg-go reads the manifests and keeps the data files
// whose partition (the day) and column statistics may hold rows q keeps.
func (t *Table) Plan(ctx context.Context, q *Query) (*Plan, error) {
	if q == nil {
		q = &Query{}
	}
	sc, err := t.Schema(q)
	if err != nil {
		return nil, err
	}
	filter, err := t.filter(q)
	if err != nil {
		return nil, err
	}
	fields := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		fields[i] = f.Name
	}
	p := &Plan{t: t, q: *q, filter: filter, fields: fields, schema: sc}
	if t.tbl.CurrentSnapshot() == nil {
		return p, nil // a table no sync has committed to yet: no rows
	}
	scan := t.tbl.Scan(table.WithRowFilter(filter), table.WithSelectedFields(fields...))
	defer scan.Close()
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("icescan: %s: planning the scan: %w", t.ref, err)
	}
	timeID := t.tbl.Schema().Field(0).ID
	low := func(task table.FileScanTask) int64 {
		if b := task.File.LowerBoundValues()[timeID]; len(b) == 8 {
			return int64(binary.LittleEndian.Uint64(b))
		}
		return math.MinInt64
	}
	slices.SortStableFunc(tasks, func(a, b table.FileScanTask) int {
		return cmp.Or(cmp.Compare(low(a), low(b)), cmp.Compare(a.File.FilePath(), b.File.FilePath()), cmp.Compare(a.Start, b.Start))
	})
	p.tasks = tasks
	return p, nil
}

// Files is the number of data file pieces the plan reads.
func (p *Plan) Files() int { return len(p.tasks) }

// Schema is the schema of the plan's rows.
func (p *Plan) Schema() *arrow.Schema { return p.schema }

// Split cuts the plan into at most n plans of neighbouring files, which
// read the same rows together (in any order); none when the plan reads
// no file.
func (p *Plan) Split(n int) []*Plan {
	if len(p.tasks) == 0 {
		return nil
	}
	if n <= 1 || len(p.tasks) == 1 {
		return []*Plan{p}
	}
	n = min(n, len(p.tasks))
	out := make([]*Plan, 0, n)
	for i := range n {
		c := *p
		c.tasks = p.tasks[i*len(p.tasks)/n : (i+1)*len(p.tasks)/n]
		out = append(out, &c)
	}
	return out
}

// NewReader reads the plan's files one after another, a batch at a time:
// iceberg-go decodes one file at once (WithMaxConcurrency(1)), so memory
// is about a batch and a file's read state, not the table.
func (p *Plan) NewReader(ctx context.Context) (*Reader, error) {
	mem := p.q.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	r := &Reader{schema: p.schema, mem: mem, unit: p.q.Unit.Unit(), files: len(p.tasks), ref: p.t.ref, limit: p.q.Limit}
	r.refs.Store(1)
	if len(p.tasks) == 0 || p.filter.Equals(iceberg.AlwaysFalse{}) {
		r.files = 0
		return r, nil
	}
	opts := []table.ScanOption{table.WithRowFilter(p.filter), table.WithSelectedFields(p.fields...), table.WithMaxConcurrency(1)}
	if p.q.BatchSize > 0 {
		opts = append(opts, table.WithArrowBatchSize(p.q.BatchSize))
	}
	if p.q.Limit > 0 {
		opts = append(opts, table.WithLimit(p.q.Limit))
	}
	scan := p.t.tbl.Scan(opts...)
	_, seq, err := scan.ReadTasks(ctx, p.tasks)
	if err != nil {
		scan.Close()
		return nil, fmt.Errorf("icescan: %s: %w", p.t.ref, err)
	}
	r.scan = scan
	r.next, r.stop = iter.Pull2(seq)
	return r, nil
}

// NewReader plans q and opens its reader.
func (t *Table) NewReader(ctx context.Context, q *Query) (*Reader, error) {
	p, err := t.Plan(ctx, q)
	if err != nil {
		return nil, err
	}
	return p.NewReader(ctx)
}

// Reader streams a plan's rows as an array.RecordReader in the plan's
// schema.
type Reader struct {
	refs   atomic.Int64
	schema *arrow.Schema
	mem    memory.Allocator
	unit   arrow.TimeUnit
	ref    iceref.Ref
	files  int
	limit  int64
	rows   int64
	scan   *table.Scan
	next   func() (arrow.RecordBatch, error, bool)
	stop   func()
	cur    arrow.RecordBatch
	err    error
}

// Files is the number of data file pieces the read opens.
func (r *Reader) Files() int { return r.files }

// Schema implements array.RecordReader.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Retain implements array.RecordReader.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release implements array.RecordReader; the last one ends the scan.
func (r *Reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	r.close()
}

func (r *Reader) close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.stop != nil {
		r.stop()
		r.stop, r.next = nil, nil
	}
	if r.scan != nil {
		r.scan.Close()
		r.scan = nil
	}
}

// Err implements array.RecordReader.
func (r *Reader) Err() error { return r.err }

// Record implements array.RecordReader.
//
// Deprecated: use RecordBatch.
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// RecordBatch implements array.RecordReader.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Next implements array.RecordReader.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for r.next != nil && r.err == nil {
		if r.limit > 0 && r.rows >= r.limit {
			break
		}
		rec, err, ok := r.next()
		if !ok {
			break
		}
		if err != nil {
			r.err = fmt.Errorf("icescan: %s: %w", r.ref, err)
			break
		}
		out, err := r.conform(rec)
		rec.Release()
		if err != nil {
			r.err = err
			break
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		if r.limit > 0 && r.rows+out.NumRows() > r.limit {
			s := out.NewSlice(0, r.limit-r.rows)
			out.Release()
			out = s
		}
		r.rows += out.NumRows()
		r.cur = out
		return true
	}
	if r.stop != nil {
		r.stop()
		r.stop, r.next = nil, nil
	}
	return false
}

// conform returns rec in the reader's schema: columns by name, in its
// order, timestamps converted from microseconds to the reader's unit.
func (r *Reader) conform(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, r.schema.NumFields())
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	for _, f := range r.schema.Fields() {
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("icescan: %s: the scan returned no column %q", r.ref, f.Name)
		}
		col := rec.Column(idx[0])
		if ts, ok := f.Type.(*arrow.TimestampType); ok {
			a, err := r.timestamps(f.Name, col, ts)
			if err != nil {
				return nil, err
			}
			cols = append(cols, a)
			continue
		}
		if !arrow.TypeEqual(col.DataType(), f.Type) {
			return nil, fmt.Errorf("icescan: %s: column %q came as %s, want %s", r.ref, f.Name, col.DataType(), f.Type)
		}
		col.Retain()
		cols = append(cols, col)
	}
	return array.NewRecordBatch(r.schema, cols, rec.NumRows()), nil
}

// timestamps converts an Iceberg timestamp column (microseconds) to out's
// unit, refusing a value with digits below it or beyond int64 rather
// than changing it.
func (r *Reader) timestamps(name string, col arrow.Array, out *arrow.TimestampType) (arrow.Array, error) {
	ts, ok := col.(*array.Timestamp)
	if !ok {
		return nil, fmt.Errorf("icescan: %s: column %q came as %s, not a timestamp", r.ref, name, col.DataType())
	}
	in := ts.DataType().(*arrow.TimestampType).Unit
	if in == out.Unit {
		data := array.NewData(out, ts.Len(), ts.Data().Buffers(), nil, ts.NullN(), ts.Data().Offset())
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	if in != arrow.Microsecond {
		return nil, fmt.Errorf("icescan: %s: column %q in %s, want us", r.ref, name, in)
	}
	b := array.NewTimestampBuilder(r.mem, out)
	defer b.Release()
	b.Reserve(ts.Len())
	for j, v := range ts.TimestampValues() {
		if ts.IsNull(j) {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		var w int64
		switch out.Unit {
		case arrow.Second, arrow.Millisecond:
			d := int64(1000)
			if out.Unit == arrow.Second {
				d = 1_000_000
			}
			if int64(v)%d != 0 {
				return nil, fmt.Errorf("%w: column %q holds %d us, which %s cannot hold; read it with time unit us", ErrPrecision, name, int64(v), out.Unit)
			}
			w = int64(v) / d
		case arrow.Nanosecond:
			if int64(v) > math.MaxInt64/1000 || int64(v) < math.MinInt64/1000 {
				return nil, fmt.Errorf("%w: column %q holds %d us, beyond the range of ns", ErrPrecision, name, int64(v))
			}
			w = int64(v) * 1000
		}
		b.UnsafeAppend(arrow.Timestamp(w))
	}
	return b.NewArray(), nil
}
