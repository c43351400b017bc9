//go:build cgo && duckdb_arrow

package query

/*
#include <stdlib.h>

void tsarrowScanBind(void *);
void tsarrowScanInit(void *);
void tsarrowScanLocalInit(void *);
void tsarrowScanFunc(void *, void *);
void tsarrowScanDelete(void *);

typedef void (*tsarrow_cb1)(void *);
typedef void (*tsarrow_cb2)(void *, void *);
*/
import "C"

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime/cgo"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// scanFunction is the name of the table function registerScan registers:
// tsfile_scan(id VARCHAR) reads the scanTable the registry knows as id.
const scanFunction = "tsfile_scan"

// The scan's fast path. DuckDB's C table-function API is driven through
// duckdb-go's mapping package with our own callbacks (duckdb-go's
// RegisterTableUDF hides the vectors' C handles, and its per-value
// SetChunkValue costs 3-4x DuckDB over Parquet; docs/dev-notes-sql.md §2):
//
//   - bind maps the table's Arrow schema to DuckDB types (duckColumn) and
//     takes the statement's pushdown (setStatementPushdown);
//   - init reads the projection DuckDB pushes, asks the table for its scan
//     units with it and shares them in a queue; MaxThreads = units;
//   - each DuckDB thread's local state takes the next unit, opens its
//     reader and serves each Arrow batch over as many 2048-row chunks as
//     it takes, by bulk copies into the output vectors: memcpy of fixed
//     width values and validity words, one C loop per chunk for strings,
//     and a DuckDB dictionary vector sliced by the batch's indices for
//     dictionary<utf8> columns (TAGs).
//
// Every object handed to DuckDB is a cgo.Handle in C memory, freed by
// DuckDB through tsarrowScanDelete; readers and batches are released there
// too, so a query that fails or is interrupted leaks nothing.

// scanRegistry is the extra info of the registered function.
type scanRegistry struct {
	lookup func(id string) (*scanTable, bool)
	rows   *atomic.Int64 // rows handed to DuckDB; nil: not counted
	// queries is duckdb-go's store of the context of the call running on
	// each connection (by DuckDB connection id), the one its own
	// BindArgumentsContext hands out.
	queries *sync.Map
}

// registerFastScan registers the table function tsfile_scan(id VARCHAR)
// on conn's database (a table function is visible to every connection of
// it): tsfile_scan('x') reads lookup("x"); rows (nil: none) counts the
// rows it hands to DuckDB. Register it once per database. lookup, Units
// and the units run on DuckDB's threads, concurrently.
//
// A scan's pushdown is its statement's: the one set for the connection
// with setStatementPushdown, else pushdownFor the context of the
// QueryContext (or Exec, Prepare) call running on the connection, as
// duckdb-go's BindArgumentsContext would see it. That context is also
// the readers' (canceling it stops them).
func registerFastScan(conn *sql.Conn, lookup func(id string) (*scanTable, bool), rows *atomic.Int64) error {
	return conn.Raw(func(dc any) error {
		c, err := rawConnection(dc)
		if err != nil {
			return err
		}
		queries, err := contextStore(dc)
		if err != nil {
			return err
		}
		f := mapping.CreateTableFunction()
		defer mapping.DestroyTableFunction(&f)
		mapping.TableFunctionSetName(f, scanFunction)
		vt := mapping.CreateLogicalType(mapping.TypeVarchar)
		mapping.TableFunctionAddParameter(f, vt)
		mapping.DestroyLogicalType(&vt)
		mapping.TableFunctionSetExtraInfo(f, newHandle(&scanRegistry{lookup: lookup, rows: rows, queries: queries}), deleteCallback())
		mapping.TableFunctionSupportsProjectionPushdown(f, true)
		mapping.TableFunctionSetBind(f, unsafe.Pointer(C.tsarrow_cb1(C.tsarrowScanBind)))
		mapping.TableFunctionSetInit(f, unsafe.Pointer(C.tsarrow_cb1(C.tsarrowScanInit)))
		mapping.TableFunctionSetLocalInit(f, unsafe.Pointer(C.tsarrow_cb1(C.tsarrowScanLocalInit)))
		mapping.TableFunctionSetFunction(f, unsafe.Pointer(C.tsarrow_cb2(C.tsarrowScanFunc)))
		if mapping.RegisterTableFunction(c, f) == mapping.StateError {
			// The one way a valid table function is refused.
			return fmt.Errorf("query: DuckDB refused to register %s: it already exists on this database", scanFunction)
		}
		return nil
	})
}

// rawConnection is the C connection behind a duckdb-go driver connection.
// duckdb-go keeps it unexported and registering a table function with our
// own callbacks needs it; reflection finds the field by name and type, so
// a duckdb-go release that changes it fails here with an error rather than
// reading the wrong memory.
func rawConnection(dc any) (mapping.Connection, error) {
	c, ok := dc.(*duckdb.Conn)
	if !ok {
		return mapping.Connection{}, fmt.Errorf("query: %T is not a duckdb-go connection", dc)
	}
	f := reflect.ValueOf(c).Elem().FieldByName("conn")
	if !f.IsValid() || f.Type() != reflect.TypeFor[mapping.Connection]() {
		return mapping.Connection{}, errors.New("query: duckdb-go's Conn has no conn field of type mapping.Connection; this duckdb-go version is not supported")
	}
	return *(*mapping.Connection)(unsafe.Pointer(f.UnsafeAddr())), nil
}

// contextStore is duckdb-go's per-connector map of DuckDB connection id to
// the context of the call running on it (contextStore.m), found by name
// and type as rawConnection finds the connection.
func contextStore(dc any) (*sync.Map, error) {
	c, ok := dc.(*duckdb.Conn)
	if !ok {
		return nil, fmt.Errorf("query: %T is not a duckdb-go connection", dc)
	}
	f := reflect.ValueOf(c).Elem().FieldByName("ctxStore")
	if f.IsValid() && f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.Struct {
		m := f.Elem().FieldByName("m")
		if m.IsValid() && m.Type() == reflect.TypeFor[sync.Map]() {
			return (*sync.Map)(unsafe.Pointer(m.UnsafeAddr())), nil
		}
	}
	return nil, errors.New("query: duckdb-go's Conn has no ctxStore with a sync.Map m; this duckdb-go version is not supported")
}

// queryContext is the context of the call running on DuckDB connection
// id, or nil.
func (r *scanRegistry) queryContext(id uint64) context.Context {
	if v, ok := r.queries.Load(id); ok {
		if ctx, ok := v.(context.Context); ok {
			return ctx
		}
	}
	return nil
}

// connectionID is DuckDB's id of the connection behind a duckdb-go driver
// connection, the id a table function's bind sees in its client context.
func connectionID(dc any) (uint64, error) {
	c, err := rawConnection(dc)
	if err != nil {
		return 0, err
	}
	var cc mapping.ClientContext
	mapping.ConnectionGetClientContext(c, &cc)
	defer mapping.DestroyClientContext(&cc)
	return uint64(mapping.ClientContextGetConnectionId(cc)), nil
}

// The pushdown hand-over. A table function of DuckDB's C API is told the
// projection only, so QueryArrow plans a statement's pushdown itself
// (planPushdown) and hands it to the scans of that statement here, keyed
// by DuckDB's connection id: bind reads the id from its client context
// (duckdb_table_function_get_client_context +
// duckdb_client_context_get_connection_id) and takes the entry of its
// table's ID. One statement runs at a time on a connection, so the entry
// is that statement's for as long as it is set. The pushdown is fixed
// when DuckDB binds: a statement prepared under one entry keeps it for
// every execution, so a prepared statement whose WHERE holds parameters
// must be prepared with no entry (or one that skips nothing) for its
// tables. The same table read twice in a statement (a self-join, a
// subquery) gets the same pushdown in both places: planPushdown must give
// only what holds for all of them. The entry's ctx also becomes the
// readers' context (canceling it stops them); scans with no entry read
// under context.Background() until DuckDB ends the scan.
type statementState struct {
	ctx context.Context
	m   map[string]pushdown
}

// statements maps a DuckDB connection id to its *statementState.
var statements sync.Map

// setStatementPushdown hands m (table ID -> pushdown) and ctx to the scans
// bound on conn until clear is called; call clear once the statement's
// result is read or closed. Do not call it inside conn.Raw (use
// setStatementPushdownDriver there).
func setStatementPushdown(ctx context.Context, conn *sql.Conn, m map[string]pushdown) (clear func(), err error) {
	id, err := duckdb.ConnId(conn)
	if err != nil {
		return nil, fmt.Errorf("query: connection id for pushdown: %w", err)
	}
	return setStatementPushdownID(ctx, id, m), nil
}

// setStatementPushdownDriver is setStatementPushdown for the driver
// connection that sql.Conn.Raw hands out.
func setStatementPushdownDriver(ctx context.Context, driverConn any, m map[string]pushdown) (clear func(), err error) {
	id, err := connectionID(driverConn)
	if err != nil {
		return nil, err
	}
	return setStatementPushdownID(ctx, id, m), nil
}

func setStatementPushdownID(ctx context.Context, id uint64, m map[string]pushdown) func() {
	st := &statementState{ctx: ctx, m: m}
	statements.Store(id, st)
	return func() { statements.CompareAndDelete(id, st) }
}

// statementOf is the state set for connection id, or nil.
func statementOf(id uint64) *statementState {
	if v, ok := statements.Load(id); ok {
		return v.(*statementState)
	}
	return nil
}

// colKind says how a column's Arrow values become a DuckDB vector.
type colKind uint8

const (
	kindFixed  colKind = iota // memcpy of width-byte values
	kindScaled                // int64 times mul, checked for overflow
	kindBool                  // bits to bytes
	kindString                // utf8, validated, to VARCHAR
	kindBinary                // binary to BLOB
	kindDict                  // dictionary<int32, utf8> to VARCHAR
	kindStruct                // struct (an OBJECT reference) to STRUCT, child by child
)

// colSpec is how one column of a table is filled.
type colSpec struct {
	name  string
	typ   arrow.DataType
	kind  colKind
	width int   // kindFixed: bytes per value
	mul   int64 // kindScaled: factor to DuckDB's unit
	// kindStruct: the fields' specs and DuckDB types.
	children   []colSpec
	childTypes []mapping.Type
}

// logicalType creates the DuckDB type of a column of spec s and type typ;
// the caller destroys it.
func logicalType(s colSpec, typ mapping.Type) mapping.LogicalType {
	if s.kind != kindStruct {
		return mapping.CreateLogicalType(typ)
	}
	types := make([]mapping.LogicalType, len(s.children))
	names := make([]string, len(s.children))
	for i, c := range s.children {
		types[i] = logicalType(c, s.childTypes[i])
		names[i] = c.name
	}
	lt := mapping.CreateStructType(types, names)
	for i := range types {
		mapping.DestroyLogicalType(&types[i])
	}
	return lt
}

// duckColumn maps an Arrow field of a table to its DuckDB type and fill.
//
// Timestamps: DuckDB's TIMESTAMP and TIMESTAMPTZ count microseconds. A
// zoned timestamp (arrowconv's time column and TIMESTAMP fields carry
// "UTC") of unit s, ms or us becomes TIMESTAMPTZ, an instant, so that
// DuckDB compares it with zoned literals correctly and its Arrow result is
// timestamp[us, UTC] with the same instants; ms values are multiplied by
// 1000 (a value beyond DuckDB's range, about ±292,000 years, fails the
// query rather than wrapping). Unit ns becomes TIMESTAMP_NS whether zoned
// or not: DuckDB has no zoned nanosecond type, and TIMESTAMPTZ would drop
// the last three digits of every value; the values stay UTC epoch
// nanoseconds, shown without a zone. A zoneless timestamp of s, ms or us
// becomes TIMESTAMP.
//
// A TIMESTAMP field that epochFields marked (epoch) becomes BIGINT, its
// values as stored: they are beyond what TIMESTAMPTZ holds.
func duckColumn(f arrow.Field, epoch bool) (colSpec, mapping.Type, error) {
	s := colSpec{name: f.Name, typ: f.Type}
	switch t := f.Type.(type) {
	case *arrow.BooleanType:
		s.kind = kindBool
		return s, mapping.TypeBoolean, nil
	case *arrow.Int32Type:
		s.width = 4
		return s, mapping.TypeInteger, nil
	case *arrow.Int64Type:
		s.width = 8
		return s, mapping.TypeBigInt, nil
	case *arrow.Float32Type:
		s.width = 4
		return s, mapping.TypeFloat, nil
	case *arrow.Float64Type:
		s.width = 8
		return s, mapping.TypeDouble, nil
	case *arrow.Date32Type:
		s.width = 4 // DuckDB's DATE is int32 days since the epoch too
		return s, mapping.TypeDate, nil
	case *arrow.StringType:
		s.kind = kindString
		return s, mapping.TypeVarchar, nil
	case *arrow.BinaryType:
		s.kind = kindBinary
		return s, mapping.TypeBlob, nil
	case *arrow.StructType:
		// An OBJECT reference (arrowconv.ObjectType): STRUCT(size
		// BIGINT, path VARCHAR), so that SQL reads o.size and o.path.
		s.kind = kindStruct
		for _, cf := range t.Fields() {
			c, ct, err := duckColumn(cf, false)
			if err != nil {
				return s, mapping.TypeInvalid, fmt.Errorf("column %q: %w", f.Name, err)
			}
			s.children = append(s.children, c)
			s.childTypes = append(s.childTypes, ct)
		}
		return s, mapping.TypeStruct, nil
	case *arrow.DictionaryType:
		if t.IndexType.ID() == arrow.INT32 && t.ValueType.ID() == arrow.STRING {
			s.kind = kindDict
			return s, mapping.TypeVarchar, nil
		}
	case *arrow.TimestampType:
		if epoch {
			s.width = 8
			return s, mapping.TypeBigInt, nil
		}
		typ := mapping.TypeTimestamp
		if t.TimeZone != "" {
			typ = mapping.TypeTimestampTZ
		}
		switch t.Unit {
		case arrow.Second:
			s.kind, s.mul = kindScaled, 1_000_000
		case arrow.Millisecond:
			s.kind, s.mul = kindScaled, 1000
		case arrow.Microsecond:
			s.width = 8
		case arrow.Nanosecond:
			s.width = 8
			typ = mapping.TypeTimestampNS
		}
		return s, typ, nil
	}
	return s, mapping.TypeInvalid, fmt.Errorf("column %q: Arrow type %s has no DuckDB mapping in tsfile_scan", f.Name, f.Type)
}

// isTimeColumn reports whether f is a table's time column rather than a
// TIMESTAMP field: arrowconv marks each field's category in its metadata,
// and a schema without it (a caller's own) counts as time.
func isTimeColumn(f arrow.Field) bool {
	cat, ok := f.Metadata.GetValue(arrowconv.MetaCategory)
	return !ok || cat == tsfile.TimeCol.String()
}

// scanBind is the bind data of one tsfile_scan call in a plan.
type scanBind struct {
	table   *scanTable
	specs   []colSpec // per column of table.Schema
	pd      pushdown
	connID  uint64
	rows    *atomic.Int64
	queries *scanRegistry
}

//export tsarrowScanBind
func tsarrowScanBind(p unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: p}
	defer func() {
		if r := recover(); r != nil {
			mapping.BindSetError(info, fmt.Sprintf("%s: internal error: %v", scanFunction, r))
		}
	}()
	reg := handleValue(mapping.BindGetExtraInfo(info)).(*scanRegistry)
	v := mapping.BindGetParameter(info, 0)
	id := mapping.GetVarchar(v)
	mapping.DestroyValue(&v)
	t, ok := reg.lookup(id)
	if !ok || t == nil {
		mapping.BindSetError(info, fmt.Sprintf("%s: no table with id %q (tsarrow registers the ids its views use)", scanFunction, id))
		return
	}
	b := &scanBind{table: t, specs: make([]colSpec, t.Schema.NumFields())}
	for i, f := range t.Schema.Fields() {
		s, typ, err := duckColumn(f, t.Epoch != nil && t.Epoch[i])
		if err != nil {
			mapping.BindSetError(info, fmt.Sprintf("%s(%q): %v", scanFunction, id, err))
			return
		}
		b.specs[i] = s
		lt := logicalType(s, typ)
		mapping.BindAddResultColumn(info, f.Name, lt)
		mapping.DestroyLogicalType(&lt)
	}
	var cc mapping.ClientContext
	mapping.TableFunctionGetClientContext(info, &cc)
	b.connID = uint64(mapping.ClientContextGetConnectionId(cc))
	mapping.DestroyClientContext(&cc)
	b.rows = reg.rows
	if st := statementOf(b.connID); st != nil {
		b.pd = st.m[t.ID]
	} else if ctx := reg.queryContext(b.connID); ctx != nil {
		b.pd = pushdownFor(ctx, t.ID)
	}
	b.queries = reg
	mapping.BindSetBindData(info, newHandle(b), deleteCallback())
}

// scanGlobal is the state of one execution of a scan, shared by its
// threads: the units and the next one to take.
type scanGlobal struct {
	bind   *scanBind
	proj   []int // output vector -> column of the table; -1: a column we do not fill
	units  []scanUnit
	next   atomic.Int64
	ctx    context.Context
	cancel context.CancelFunc
}

func (g *scanGlobal) release() { g.cancel() }

// rowIDColumn is the column index DuckDB asks for when it wants a row id
// (COLUMN_IDENTIFIER_ROW_ID); such a vector is left as DuckDB made it.
const rowIDColumn = math.MaxUint64

//export tsarrowScanInit
func tsarrowScanInit(p unsafe.Pointer) {
	info := mapping.InitInfo{Ptr: p}
	b := handleValue(mapping.InitGetBindData(info)).(*scanBind)
	defer func() {
		if r := recover(); r != nil {
			mapping.InitSetError(info, scanError(b.table.ID, fmt.Errorf("internal error: %v", r)))
		}
	}()
	n := int(mapping.InitGetColumnCount(info))
	g := &scanGlobal{bind: b, proj: make([]int, n)}
	seen := make([]bool, len(b.specs))
	for i := range n {
		c := uint64(mapping.InitGetColumnIndex(info, mapping.IdxT(i)))
		g.proj[i] = -1
		if c < uint64(len(b.specs)) {
			g.proj[i] = int(c)
			seen[c] = true
		}
	}
	var cols []int
	for c, ok := range seen {
		if ok {
			cols = append(cols, c)
		}
	}
	ctx := context.Background()
	if st := statementOf(b.connID); st != nil && st.ctx != nil {
		ctx = st.ctx
	} else if qc := b.queries.queryContext(b.connID); qc != nil {
		ctx = qc
	}
	g.ctx, g.cancel = context.WithCancel(ctx)
	units, err := b.table.Units(g.ctx, cols, b.pd)
	if err != nil {
		g.cancel()
		mapping.InitSetError(info, scanError(b.table.ID, err))
		return
	}
	g.units = units
	mapping.InitSetMaxThreads(info, mapping.IdxT(max(1, len(units))))
	mapping.InitSetInitData(info, newHandle(g), deleteCallback())
}

// scanLocal is one DuckDB thread's state: the unit it reads and the batch
// it serves.
type scanLocal struct {
	rd     array.RecordReader
	schema *arrow.Schema // rd's schema, cols checked against it
	cols   []int         // output vector -> column of the batch (-1: none)
	batch  arrow.RecordBatch
	off    int // next row of batch to serve
	dicts  map[int]*dictVector
}

func (l *scanLocal) release() {
	l.closeReader()
}

func (l *scanLocal) closeReader() {
	l.batch = nil
	if l.rd != nil {
		l.rd.Release()
		l.rd = nil
	}
	for k, d := range l.dicts {
		d.destroy()
		delete(l.dicts, k)
	}
}

//export tsarrowScanLocalInit
func tsarrowScanLocalInit(p unsafe.Pointer) {
	info := mapping.InitInfo{Ptr: p}
	mapping.InitSetInitData(info, newHandle(&scanLocal{dicts: map[int]*dictVector{}}), deleteCallback())
}

//export tsarrowScanFunc
func tsarrowScanFunc(p, out unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: p}
	g := handleValue(mapping.FunctionGetInitData(info)).(*scanGlobal)
	l := handleValue(mapping.FunctionGetLocalInitData(info)).(*scanLocal)
	chunk := mapping.DataChunk{Ptr: out}
	defer func() {
		// A panic must not cross into DuckDB's C++ (it would end the
		// process): a batch that breaks an assumption fails the query.
		if r := recover(); r != nil {
			l.closeReader()
			mapping.DataChunkSetSize(chunk, 0)
			mapping.FunctionSetError(info, scanError(g.bind.table.ID, fmt.Errorf("internal error: %v", r)))
		}
	}()
	n, err := l.fill(g, chunk)
	if err != nil {
		l.closeReader()
		mapping.DataChunkSetSize(chunk, 0)
		mapping.FunctionSetError(info, scanError(g.bind.table.ID, err))
		return
	}
	if g.bind.rows != nil {
		g.bind.rows.Add(int64(n))
	}
	mapping.DataChunkSetSize(chunk, mapping.IdxT(n))
}

// scanError is err as DuckDB reports it: one line, naming the table.
func scanError(id string, err error) string {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	return fmt.Sprintf("%s(%q): %s", scanFunction, id, msg)
}

// vectorSize is DuckDB's STANDARD_VECTOR_SIZE, the rows of an output chunk.
var vectorSize = sync.OnceValue(func() int { return int(mapping.VectorSize()) })

// fill serves the next chunk: up to vectorSize rows of the current batch,
// moving to the next batch, reader and unit as each runs out. It returns 0
// when every unit is read.
func (l *scanLocal) fill(g *scanGlobal, chunk mapping.DataChunk) (int, error) {
	for l.batch == nil || l.off >= int(l.batch.NumRows()) {
		l.batch = nil
		if l.rd == nil {
			i := g.next.Add(1) - 1
			if i >= int64(len(g.units)) {
				return 0, nil
			}
			if err := g.ctx.Err(); err != nil {
				return 0, err
			}
			rd, err := g.units[i](g.ctx)
			if err != nil {
				return 0, err
			}
			if rd == nil {
				continue
			}
			l.rd = rd
			if err := l.mapColumns(g, rd.Schema()); err != nil {
				return 0, err
			}
			continue
		}
		if !l.rd.Next() {
			err := l.rd.Err()
			l.closeReader()
			if err != nil {
				return 0, err
			}
			continue
		}
		l.batch, l.off = l.rd.RecordBatch(), 0
		if s := l.batch.Schema(); s != l.schema && !s.Equal(l.schema) {
			if err := l.mapColumns(g, s); err != nil {
				return 0, err
			}
		}
	}
	k := min(vectorSize(), int(l.batch.NumRows())-l.off)
	for i, c := range l.cols {
		if c < 0 {
			continue
		}
		vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(i))
		if err := l.fillColumn(g.bind.specs[g.proj[i]], c, vec, k); err != nil {
			return 0, err
		}
	}
	l.off += k
	return k, nil
}

// mapColumns finds each projected column in a reader's schema by name and
// checks its type: a unit's reader may hold more columns than projected
// (the time column), in its own order, but never another type.
func (l *scanLocal) mapColumns(g *scanGlobal, s *arrow.Schema) error {
	l.schema = s
	l.cols = make([]int, len(g.proj))
	for i, c := range g.proj {
		l.cols[i] = -1
		if c < 0 {
			continue
		}
		spec := g.bind.specs[c]
		idx := s.FieldIndices(spec.name)
		if len(idx) != 1 {
			return fmt.Errorf("a scan unit's batch has %d columns named %q, want 1", len(idx), spec.name)
		}
		if got := s.Field(idx[0]).Type; !arrow.TypeEqual(got, spec.typ) {
			return fmt.Errorf("a scan unit's column %q is %s, the table says %s", spec.name, got, spec.typ)
		}
		l.cols[i] = idx[0]
	}
	for _, d := range l.dicts {
		d.destroy()
	}
	clear(l.dicts)
	return nil
}

// fillColumn copies rows [l.off, l.off+k) of batch column c into vec.
func (l *scanLocal) fillColumn(spec colSpec, c int, vec mapping.Vector, k int) error {
	return l.fillArray(spec, c, l.batch.Column(c), l.off, vec, k)
}

// fillArray copies rows [row, row+k) of a, column c of the batch or a
// field of it, into vec.
func (l *scanLocal) fillArray(spec colSpec, c int, a arrow.Array, row int, vec mapping.Vector, k int) error {
	d := a.Data()
	off := d.Offset() + row
	var valid []byte
	if a.NullN() > 0 {
		valid = d.Buffers()[0].Bytes()
	}
	bufs := d.Buffers()
	switch spec.kind {
	case kindFixed:
		dst := unsafe.Slice((*byte)(mapping.VectorGetData(vec)), k*spec.width)
		if bufs[1] == nil {
			if valid == nil || a.NullN() != a.Len() {
				return fmt.Errorf("column %q: batch has no value buffer", spec.name)
			}
			clear(dst)
		} else {
			src := bufs[1].Bytes()
			if len(src) < (off+k)*spec.width {
				return fmt.Errorf("column %q: value buffer of %d bytes for rows up to %d", spec.name, len(src), off+k)
			}
			copy(dst, src[off*spec.width:])
		}
	case kindScaled:
		dst := unsafe.Slice((*int64)(mapping.VectorGetData(vec)), k)
		src := arrow.Int64Traits.CastFromBytes(bufs[1].Bytes())[off : off+k]
		lim := math.MaxInt64 / spec.mul
		for i, v := range src {
			if v > lim || v < -lim {
				if valid == nil || bitutil.BitIsSet(valid, off+i) {
					return fmt.Errorf("column %q: time %d is beyond DuckDB's timestamp range", spec.name, v)
				}
				v = 0
			}
			dst[i] = v * spec.mul
		}
	case kindBool:
		dst := unsafe.Slice((*byte)(mapping.VectorGetData(vec)), k)
		src := bufs[1].Bytes()
		for i := range dst {
			dst[i] = 0
			if bitutil.BitIsSet(src, off+i) {
				dst[i] = 1
			}
		}
	case kindString, kindBinary:
		offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[off : off+k+1]
		var data []byte
		if bufs[2] != nil {
			data = bufs[2].Bytes()
		}
		if offs[0] < 0 || offs[k] < offs[0] || int(offs[k]) > len(data) {
			return fmt.Errorf("column %q: string offsets %d..%d outside the %d-byte data buffer", spec.name, offs[0], offs[k], len(data))
		}
		if spec.kind == kindString {
			if err := checkUTF8(spec.name, offs, data, valid, off); err != nil {
				return err
			}
		}
		assignStrings(vec.Ptr, offs, data, valid, off)
	case kindDict:
		return l.fillDict(spec, c, a.(*array.Dictionary), vec, valid, off, k)
	case kindStruct:
		st := a.(*array.Struct)
		for j, cs := range spec.children {
			// Field(j) is sliced to the struct's offset already.
			cv := mapping.StructVectorGetChild(vec, mapping.IdxT(j))
			if err := l.fillArray(cs, c, st.Field(j), row, cv, k); err != nil {
				return err
			}
			if valid != nil {
				// DuckDB reads a field of a NULL struct from the child,
				// so the child is NULL there too.
				mapping.VectorEnsureValidityWritable(cv)
				dst := unsafe.Slice((*byte)(mapping.VectorGetValidity(cv)), (k+7)/8)
				for i := range k {
					if !bitutil.BitIsSet(valid, off+i) {
						bitutil.ClearBit(dst, i)
					}
				}
			}
		}
	}
	if valid != nil {
		mapping.VectorEnsureValidityWritable(vec)
		dst := unsafe.Slice((*byte)(mapping.VectorGetValidity(vec)), (k+7)/8)
		bitutil.CopyBitmap(valid, off, k, dst, 0)
	}
	return nil
}

// checkUTF8 fails on a string row that is not UTF-8, which DuckDB's
// VARCHAR requires (its checked assign would turn it into a NULL, a
// silent wrong row). The rows' bytes are checked at once, and each valid
// row's start must not fall inside a character, so that every row is
// UTF-8 on its own.
func checkUTF8(name string, offs []int32, data []byte, valid []byte, bitoff int) error {
	all := data[offs[0]:offs[len(offs)-1]]
	ok := utf8.Valid(all)
	if ok {
		for i := range len(offs) - 1 {
			lo, hi := offs[i], offs[i+1]
			if lo < hi && !utf8.RuneStart(data[lo]) || hi < lo {
				ok = false
				break
			}
		}
	}
	if ok {
		return nil
	}
	for i := range len(offs) - 1 {
		if valid != nil && !bitutil.BitIsSet(valid, bitoff+i) {
			continue
		}
		if lo, hi := offs[i], offs[i+1]; hi < lo || !utf8.Valid(data[lo:hi]) {
			return fmt.Errorf("column %q: a value is not UTF-8 (DuckDB's VARCHAR needs UTF-8)", name)
		}
	}
	return nil
}

// dictVector is a DuckDB VARCHAR vector holding a batch's dictionary, plus
// one NULL row at the end for null indices; chunks of the batch become
// dictionary vectors over it (duckdb_slice_vector). It is kept while the
// next batches' dictionaries begin with the same values (arrowconv's
// dictionaries grow for the whole stream).
type dictVector struct {
	vec  mapping.Vector
	offs []int32 // the values it holds, as Arrow offsets from 0 and data
	data []byte
}

func (d *dictVector) destroy() {
	mapping.DestroyVector(&d.vec)
}

// holds reports whether d holds exactly dict's values.
func (d *dictVector) holds(dict *array.String) bool {
	n := dict.Len()
	if n != len(d.offs)-1 {
		return false
	}
	dd := dict.Data()
	offs := arrow.Int32Traits.CastFromBytes(dd.Buffers()[1].Bytes())[dd.Offset() : dd.Offset()+n+1]
	base := offs[0]
	for i, o := range offs {
		if o-base != d.offs[i] {
			return false
		}
	}
	return string(dict.ValueBytes()) == string(d.data)
}

// fillDict fills a dictionary<int32, utf8> column. When the dictionary is
// no larger than the batch it is put in a DuckDB vector once and each
// chunk is a selection of it (no string is copied per row); a larger one
// (a stream with more TAG values than rows per batch) is expanded per row
// instead, so that no batch costs more than its rows.
func (l *scanLocal) fillDict(spec colSpec, c int, a *array.Dictionary, vec mapping.Vector, valid []byte, off, k int) error {
	dict, ok := a.Dictionary().(*array.String)
	if !ok {
		return fmt.Errorf("column %q: dictionary of %s, want utf8", spec.name, a.Dictionary().DataType())
	}
	idx := arrow.Int32Traits.CastFromBytes(a.Data().Buffers()[1].Bytes())[off : off+k]
	n := int32(dict.Len())
	same := valid == nil
	for i, j := range idx {
		if (j < 0 || j >= n) && (valid == nil || bitutil.BitIsSet(valid, off+i)) {
			return fmt.Errorf("column %q: dictionary index %d out of the %d values", spec.name, j, n)
		}
		same = same && j == idx[0]
	}
	if same {
		// One value for the whole chunk, as a TAG is for the rows of a
		// device: a constant vector, which DuckDB hashes and aggregates
		// once per chunk (its Parquet reader does the same for a run).
		v := dict.Value(int(idx[0]))
		if !utf8.ValidString(v) {
			return fmt.Errorf("column %q: a value is not UTF-8 (DuckDB's VARCHAR needs UTF-8)", spec.name)
		}
		val := mapping.CreateVarcharLength(v, mapping.IdxT(len(v)))
		mapping.VectorReferenceValue(vec, val)
		mapping.DestroyValue(&val)
		return nil
	}
	dd := dict.Data()
	doffs := arrow.Int32Traits.CastFromBytes(dd.Buffers()[1].Bytes())[dd.Offset() : dd.Offset()+int(n)+1]
	var ddata []byte
	if dd.Buffers()[2] != nil {
		ddata = dd.Buffers()[2].Bytes()
	}
	if doffs[0] < 0 || doffs[n] < doffs[0] || int(doffs[n]) > len(ddata) {
		return fmt.Errorf("column %q: dictionary offsets outside its data buffer", spec.name)
	}
	if int(n) > int(l.batch.NumRows()) {
		if err := checkUTF8(spec.name, doffs, ddata, nil, 0); err != nil {
			return err
		}
		assignDict(vec.Ptr, idx, doffs, ddata, valid, off)
		if valid != nil {
			mapping.VectorEnsureValidityWritable(vec)
			dst := unsafe.Slice((*byte)(mapping.VectorGetValidity(vec)), (k+7)/8)
			bitutil.CopyBitmap(valid, off, k, dst, 0)
		}
		return nil
	}
	dv := l.dicts[c]
	if dv == nil || !dv.holds(dict) {
		if err := checkUTF8(spec.name, doffs, ddata, nil, 0); err != nil {
			return err
		}
		if dv != nil {
			dv.destroy()
		}
		dv = &dictVector{data: append([]byte(nil), ddata[doffs[0]:doffs[n]]...), offs: make([]int32, n+1)}
		for i, o := range doffs {
			dv.offs[i] = o - doffs[0]
		}
		lt := mapping.CreateLogicalType(mapping.TypeVarchar)
		dv.vec = mapping.CreateVector(lt, mapping.IdxT(n+1))
		mapping.DestroyLogicalType(&lt)
		// Row n is an empty string made NULL: null indices select it.
		assignStrings(dv.vec.Ptr, append(dv.offs[:n+1:n+1], dv.offs[n]), dv.data, nil, 0)
		mapping.VectorEnsureValidityWritable(dv.vec)
		mapping.ValiditySetRowInvalid(mapping.VectorGetValidity(dv.vec), mapping.IdxT(n))
		l.dicts[c] = dv
	}
	sel := mapping.CreateSelectionVector(mapping.IdxT(k))
	s := unsafe.Slice((*uint32)(unsafe.Pointer(mapping.SelectionVectorGetDataPtr(sel))), k)
	for i, j := range idx {
		if valid != nil && !bitutil.BitIsSet(valid, off+i) {
			j = n
		}
		s[i] = uint32(j)
	}
	mapping.VectorReferenceVector(vec, dv.vec)
	mapping.SliceVector(vec, sel, mapping.IdxT(k))
	mapping.DestroySelectionVector(&sel)
	return nil
}

// newHandle wraps v for DuckDB: a cgo.Handle in C memory (DuckDB keeps the
// pointer, so it must not point into Go's heap), freed by deleteCallback.
func newHandle(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(cgo.Handle(0))))
	*(*cgo.Handle)(p) = cgo.NewHandle(v)
	return p
}

// handleValue is the value newHandle wrapped in p.
func handleValue(p unsafe.Pointer) any {
	return (*(*cgo.Handle)(p)).Value()
}

// deleteCallback is the C function DuckDB calls to free a handle.
func deleteCallback() unsafe.Pointer {
	return unsafe.Pointer(C.tsarrow_cb1(C.tsarrowScanDelete))
}

//export tsarrowScanDelete
func tsarrowScanDelete(p unsafe.Pointer) {
	h := *(*cgo.Handle)(p)
	if r, ok := h.Value().(interface{ release() }); ok {
		r.release()
	}
	h.Delete()
	C.free(p)
}
