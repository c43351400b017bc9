//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/arrowmapping"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// The streaming result. duckdb-go's Arrow.QueryContext executes through
// duckdb_pending_prepared + duckdb_execute_pending, which materializes the
// whole result inside DuckDB before the first batch is handed out: a
// SELECT * of a large table is then held whole, whatever the reader's
// consumer (Flight SQL's memory budget, `sql -o out.parquet`) does.
// streamQuery runs the statement through duckdb_pending_prepared_streaming
// instead: DuckDB runs the plan only as far as the chunks fetched so far
// need, so memory stays bounded by the pipeline, not the result.

// Batch sizes of the streaming reader. DuckDB hands out chunks of 2,048
// rows (STANDARD_VECTOR_SIZE); Next gathers chunks up to streamBatchRows
// rows or streamBatchBytes bytes, so Flight and the Parquet writer get
// batches of a useful size. Variables so that a test can measure the
// choice; streamBatchRows <= 0 hands DuckDB's chunks out one by one.
var (
	streamBatchRows  = 64 * 1024
	streamBatchBytes = int64(16 << 20)
)

// streamReader is an array.RecordReader over a streaming DuckDB result.
// It owns the result, the prepared statement, the pushdown entry of its
// connection and the ctx watcher, and frees them all when its last
// reference is released; the connection itself is connReader's.
type streamReader struct {
	ctx    context.Context
	conn   mapping.Connection
	res    mapping.Result
	hasRes bool // res is DuckDB's, to destroy
	opts   arrowmapping.ArrowOptions
	hasOpt bool
	schema *arrow.Schema
	stmt   driver.Stmt

	imu   sync.Mutex // orders Interrupt on conn before free
	freed bool

	refs atomic.Int64

	mu      sync.Mutex // protects everything below
	closed  bool
	current arrow.RecordBatch
	err     error
	done    bool

	stopWatch func() bool // stops the ctx -> interrupt watcher
	clearPD   func()      // ends the pushdown hand-over
}

// preparedStatement is the C prepared statement of a duckdb-go *Stmt,
// found by name and type as rawConnection finds the connection (duckdb-go
// has no exported way to execute a bound statement as a stream).
func preparedStatement(s driver.Stmt) (mapping.PreparedStatement, error) {
	st, ok := s.(*duckdb.Stmt)
	if !ok {
		return mapping.PreparedStatement{}, fmt.Errorf("query: %T is not a duckdb-go statement", s)
	}
	f := reflect.ValueOf(st).Elem().FieldByName("preparedStmt")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*mapping.PreparedStatement]() || f.IsNil() {
		return mapping.PreparedStatement{}, errors.New("query: duckdb-go's Stmt has no preparedStmt field of type *mapping.PreparedStatement; this duckdb-go version is not supported")
	}
	return **(**mapping.PreparedStatement)(unsafe.Pointer(f.UnsafeAddr())), nil
}

// namedArgs numbers args as database/sql would (sql.NamedArg by name),
// which is what duckdb-go's Arrow.QueryContext binds.
func namedArgs(args []any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		if na, ok := a.(sql.NamedArg); ok {
			out[i].Name = na.Name
			a = na.Value
		}
		out[i].Value = a
		out[i].Ordinal = i + 1
	}
	return out
}

// streamQuery prepares query on the duckdb-go driver connection dc, binds
// args with duckdb-go's own binding (every type its QueryContext takes),
// and executes it as a DuckDB streaming result. pd is handed to the scans
// of the statement (setStatementPushdownDriver) for the reader's whole
// life: tsfile_scan binds while DuckDB prepares, and its init runs at the
// first execution step, both under that entry. Canceling ctx interrupts
// DuckDB for as long as the reader is open.
func streamQuery(ctx context.Context, dc any, query string, args []any, pd map[string]pushdown) (rr *streamReader, err error) {
	c, err := rawConnection(dc)
	if err != nil {
		return nil, err
	}
	dconn := dc.(*duckdb.Conn)
	r := &streamReader{ctx: ctx, conn: c}
	r.refs.Store(1)
	r.clearPD, err = setStatementPushdownDriver(ctx, dc, pd)
	if err != nil {
		return nil, err
	}
	r.stopWatch = context.AfterFunc(ctx, r.interrupt)
	defer func() {
		if err != nil {
			r.free()
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stmt, err := dconn.PrepareContext(ctx, query)
	if err != nil {
		// (stmt may be a typed nil here: not kept.)
		return nil, err
	}
	r.stmt = stmt
	if err := r.stmt.(*duckdb.Stmt).Bind(namedArgs(args)); err != nil {
		return nil, err
	}
	ps, err := preparedStatement(r.stmt)
	if err != nil {
		return nil, err
	}
	var pending mapping.PendingResult
	// (Deprecated in the C API, yet its one way to a streaming result:
	// duckdb_pending_prepared materializes.)
	if bindings.PendingPreparedStreaming(ps, &pending) == mapping.StateError {
		msg := mapping.PendingError(pending)
		mapping.DestroyPending(&pending)
		return nil, errors.Join(ctx.Err(), errors.New(msg))
	}
	if err := ctx.Err(); err != nil {
		mapping.DestroyPending(&pending)
		return nil, err
	}
	state := mapping.ExecutePending(pending, &r.res)
	mapping.DestroyPending(&pending)
	r.hasRes = true
	if state == mapping.StateError {
		return nil, errors.Join(ctx.Err(), errors.New(mapping.ResultError(&r.res)))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.opts = arrowmapping.ResultGetArrowOptions(&r.res)
	r.hasOpt = true
	cc := mapping.ColumnCount(&r.res)
	names := make([]string, cc)
	types := make([]mapping.LogicalType, cc)
	for i := range cc {
		names[i] = mapping.ColumnName(&r.res, i)
		types[i] = mapping.ColumnLogicalType(&r.res, i)
	}
	schema, ed := arrowmapping.NewArrowSchema(r.opts, types, names)
	for i := range types {
		mapping.DestroyLogicalType(&types[i])
	}
	if err := errorData(ed); err != nil {
		return nil, fmt.Errorf("query: Arrow schema of the result: %w", err)
	}
	r.schema = schema
	return r, nil
}

// errorData turns DuckDB's error data into an error (nil: none) and
// frees it.
func errorData(ed mapping.ErrorData) error {
	defer mapping.DestroyErrorData(&ed)
	if !mapping.ErrorDataHasError(ed) {
		return nil
	}
	return errors.New(mapping.ErrorDataMessage(ed))
}

// interrupt stops DuckDB's work on the connection when ctx is canceled,
// unless the reader is already freed (the connection may then run
// someone else's statement).
func (r *streamReader) interrupt() {
	r.imu.Lock()
	defer r.imu.Unlock()
	if !r.freed {
		mapping.Interrupt(r.conn)
	}
}

// free releases what the reader holds, in the order DuckDB needs: the
// result before its prepared statement, both before the connection is
// given back (by connReader). It waits for a Next in progress (a Release
// from another goroutine, as a server canceling a stream does); ctx can
// still interrupt that Next meanwhile.
func (r *streamReader) free() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.imu.Lock()
	r.freed = true // no interrupt from here on: the connection goes back
	r.imu.Unlock()
	r.stopWatch()
	r.closed = true
	if r.current != nil {
		r.current.Release()
		r.current = nil
	}
	if r.hasRes {
		mapping.DestroyResult(&r.res)
		r.hasRes = false
	}
	if r.hasOpt {
		arrowmapping.DestroyArrowOptions(&r.opts)
		r.hasOpt = false
	}
	if r.stmt != nil {
		r.stmt.Close()
		r.stmt = nil
	}
	r.clearPD()
}

func (r *streamReader) Retain() { r.refs.Add(1) }

func (r *streamReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.free()
	}
}

func (r *streamReader) Schema() *arrow.Schema { return r.schema }

// Record returns the current batch (see RecordBatch).
//
// Deprecated: use RecordBatch.
func (r *streamReader) Record() arrow.RecordBatch { return r.RecordBatch() }

// RecordBatch returns the batch of the last Next that returned true; it
// is valid until the next call of Next or the last Release.
func (r *streamReader) RecordBatch() arrow.RecordBatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

func (r *streamReader) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Next fetches DuckDB's next chunks and makes them one batch.
func (r *streamReader) Next() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current != nil {
		r.current.Release()
		r.current = nil
	}
	if r.closed || r.err != nil || r.done {
		return false
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	var rows, bytes int64
	for {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return false
		}
		chunk := mapping.FetchChunk(r.res)
		if chunk.Ptr == nil {
			// The end, or an error (a scan's, an interrupt): DuckDB
			// keeps its message on the result.
			r.done = true
			if msg := mapping.ResultError(&r.res); msg != "" {
				r.err = errors.Join(r.ctx.Err(), errors.New(msg))
				return false
			}
			break
		}
		rec, ed := arrowmapping.DataChunkToArrowArray(r.opts, r.schema, chunk)
		mapping.DestroyDataChunk(&chunk)
		if err := errorData(ed); err != nil {
			r.err = fmt.Errorf("query: converting a DuckDB chunk to Arrow: %w", err)
			return false
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		recs = append(recs, rec)
		rows += rec.NumRows()
		if streamBatchRows <= 0 || rows >= int64(streamBatchRows) {
			break
		}
		if bytes += batchBytes(rec); bytes >= streamBatchBytes {
			break
		}
	}
	switch len(recs) {
	case 0:
		return false
	case 1:
		r.current, recs = recs[0], nil
		return true
	}
	rec, err := concatBatches(r.schema, recs)
	if err != nil {
		r.err = fmt.Errorf("query: gathering DuckDB chunks into a batch: %w", err)
		return false
	}
	r.current = rec
	return true
}

// batchBytes is the size of a batch's buffers.
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += int64(col.Data().SizeInBytes())
	}
	return n
}

// concatBatches makes one batch of recs, column by column.
func concatBatches(schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(recs))
	var rows int64
	for _, rec := range recs {
		rows += rec.NumRows()
	}
	for i := range cols {
		for j, rec := range recs {
			parts[j] = rec.Column(i)
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}
