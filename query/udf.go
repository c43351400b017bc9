//go:build cgo && duckdb_arrow

package query

// The table functions through duckdb-go's RegisterTableUDF, copying values
// one by one with SetChunkValue (the spike's chunkSource). sqlfill's
// tsfile_scan registered through duckdb-go's mapping package replaces
// registerScan; the registry, scanTable and the pushdown hand-over stay.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// duckType is the DuckDB type of a column of Arrow type dt (as schema
// --arrow gives it):
//
//	timestamp[s|ms|us, tz=UTC] (time, TIMESTAMP)  TIMESTAMPTZ (µs: exact for s, ms, us)
//	timestamp[ns, tz=UTC]                          TIMESTAMP_NS (DuckDB has no TIMESTAMPTZ in ns;
//	                                               TIMESTAMPTZ would drop the last three digits)
//	bool                                           BOOLEAN
//	int32 / int64                                  INTEGER / BIGINT
//	float32 / float64                              FLOAT / DOUBLE
//	utf8, dictionary<int32, utf8> (TAG, ATTRIBUTE,
//	device)                                        VARCHAR
//	binary (BLOB, OBJECT)                          BLOB
//	date32 (DATE)                                  DATE
//
// TIMESTAMPTZ, not TIMESTAMP_MS: the instant is what TsFile stores (UTC
// epoch), DuckDB's Arrow result gives it back as timestamp[us, tz=UTC]
// (DB opened with TimeZone UTC), and `time >= '2024-01-01'` compares
// without a cast, where TIMESTAMP_MS against a string or integer literal
// needs one (docs/dev-notes-sql.md).
func duckType(dt arrow.DataType) (duckdb.Type, error) {
	switch t := dt.(type) {
	case *arrow.TimestampType:
		if t.Unit == arrow.Nanosecond {
			return duckdb.TYPE_TIMESTAMP_NS, nil
		}
		return duckdb.TYPE_TIMESTAMP_TZ, nil
	case *arrow.DictionaryType:
		if t.ValueType.ID() == arrow.STRING {
			return duckdb.TYPE_VARCHAR, nil
		}
	}
	switch dt.ID() {
	case arrow.BOOL:
		return duckdb.TYPE_BOOLEAN, nil
	case arrow.INT32:
		return duckdb.TYPE_INTEGER, nil
	case arrow.INT64:
		return duckdb.TYPE_BIGINT, nil
	case arrow.FLOAT32:
		return duckdb.TYPE_FLOAT, nil
	case arrow.FLOAT64:
		return duckdb.TYPE_DOUBLE, nil
	case arrow.STRING, arrow.STRING_VIEW:
		return duckdb.TYPE_VARCHAR, nil
	case arrow.BINARY:
		return duckdb.TYPE_BLOB, nil
	case arrow.DATE32:
		return duckdb.TYPE_DATE, nil
	}
	return duckdb.TYPE_INVALID, fmt.Errorf("query: no DuckDB type for Arrow %s", dt)
}

// columnInfos returns DuckDB's columns for a schema.
func columnInfos(sc *arrow.Schema) ([]duckdb.ColumnInfo, error) {
	out := make([]duckdb.ColumnInfo, 0, sc.NumFields())
	for _, f := range sc.Fields() {
		k, err := duckType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		ti, err := duckdb.NewTypeInfo(k)
		if err != nil {
			return nil, err
		}
		out = append(out, duckdb.ColumnInfo{Name: f.Name, T: ti})
	}
	return out, nil
}

// scanSource is one bound scan of a table: DuckDB's threads share its
// units, each thread reading one unit at a time.
type scanSource struct {
	ctx   context.Context
	t     *scanTable
	pd    pushdown
	infos []duckdb.ColumnInfo
	rows  *atomic.Int64

	once  sync.Once
	units []scanUnit
	err   error
	next  atomic.Int64
}

func newScanSource(ctx context.Context, t *scanTable, pd pushdown, rows *atomic.Int64) (*scanSource, error) {
	infos, err := columnInfos(t.Schema)
	if err != nil {
		return nil, err
	}
	return &scanSource{ctx: ctx, t: t, pd: pd, infos: infos, rows: rows}, nil
}

func (s *scanSource) ColumnInfos() []duckdb.ColumnInfo     { return s.infos }
func (s *scanSource) Cardinality() *duckdb.CardinalityInfo { return nil }
func (s *scanSource) Init() duckdb.ParallelTableSourceInfo {
	return duckdb.ParallelTableSourceInfo{MaxThreads: runtime.GOMAXPROCS(0)}
}

// NewLocalState returns a thread's state. DuckDB drops a state without a
// word when the statement ends early (LIMIT, an error, an interrupt), and
// duckdb-go's delete callback only unpins it, so the reader it was in is
// released by a cleanup once the state is garbage: a dataset reader
// holds goroutines until it is released.
func (s *scanSource) NewLocalState() any {
	st := &scanState{held: &heldReader{}}
	runtime.AddCleanup(st, func(h *heldReader) { h.release() }, st.held)
	return st
}

// heldReader is the reader a scanState is in, apart from the state so
// that a cleanup can release it.
type heldReader struct {
	mu sync.Mutex
	rd array.RecordReader
}

func (h *heldReader) set(rd array.RecordReader) {
	h.mu.Lock()
	h.rd = rd
	h.mu.Unlock()
}

func (h *heldReader) release() {
	h.mu.Lock()
	if h.rd != nil {
		h.rd.Release()
		h.rd = nil
	}
	h.mu.Unlock()
}

// scanState is one DuckDB thread's position: the unit it reads, the batch
// and the row in it.
type scanState struct {
	started bool
	held    *heldReader // rd, for the cleanup
	rd      array.RecordReader
	cur     arrow.RecordBatch
	off     int
	proj    []int // projected columns (indexes into the table's schema)
	src     []int // for each of proj, its column in the reader's batches
}

// projection returns the columns DuckDB asked for: GetVector fails for
// the others (duckdb-go does not tell the projection otherwise).
func (s *scanSource) projection(chunk duckdb.DataChunk) []int {
	var cols []int
	for i := range s.infos {
		if _, err := chunk.GetVector(i); err == nil {
			cols = append(cols, i)
		}
	}
	return cols
}

func (s *scanSource) FillChunk(local any, chunk duckdb.DataChunk) error {
	st := local.(*scanState)
	if !st.started {
		st.started = true
		st.proj = s.projection(chunk)
		s.once.Do(func() { s.units, s.err = s.t.Units(s.ctx, st.proj, s.pd) })
	}
	if s.err != nil {
		return s.err
	}
	capacity := duckdb.GetDataChunkCapacity()
	n := 0
	for n < capacity {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if st.cur == nil || st.off == int(st.cur.NumRows()) {
			ok, err := s.advance(st)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			continue
		}
		k := min(capacity-n, int(st.cur.NumRows())-st.off)
		for j, c := range st.proj {
			if err := setColumn(chunk, c, n, st.cur.Column(st.src[j]), st.off, k); err != nil {
				return fmt.Errorf("column %s: %w", s.t.Schema.Field(c).Name, err)
			}
		}
		n += k
		st.off += k
	}
	s.rows.Add(int64(n))
	return chunk.SetSize(n)
}

// advance moves st to its next batch, opening the next unit when its
// reader ends; false when no unit is left.
func (s *scanSource) advance(st *scanState) (bool, error) {
	for {
		if st.rd != nil {
			if st.rd.Next() {
				st.cur, st.off = st.rd.RecordBatch(), 0
				return true, nil
			}
			if err := st.rd.Err(); err != nil {
				return false, err
			}
			st.held.release()
			st.rd, st.cur = nil, nil
		}
		i := int(s.next.Add(1) - 1)
		if i >= len(s.units) {
			return false, nil
		}
		rd, err := s.units[i](s.ctx)
		if err != nil {
			return false, err
		}
		sc := rd.Schema()
		st.src = st.src[:0]
		for _, c := range st.proj {
			idx := sc.FieldIndices(s.t.Schema.Field(c).Name)
			if len(idx) == 0 {
				rd.Release()
				return false, fmt.Errorf("query: the scan of %s lacks column %s", s.t.ID, s.t.Schema.Field(c).Name)
			}
			st.src = append(st.src, idx[0])
		}
		st.rd = rd
		st.held.set(rd)
	}
}

// Bounds of a timestamp in a unit coarser than µs that TIMESTAMPTZ (µs in
// an int64) can hold.
var tzLimit = map[arrow.TimeUnit]int64{arrow.Second: maxInt64 / 1_000_000, arrow.Millisecond: maxInt64 / 1000, arrow.Microsecond: maxInt64}

// setColumn copies rows [off, off+n) of a into column col of chunk from
// row at.
func setColumn(chunk duckdb.DataChunk, col, at int, a arrow.Array, off, n int) error {
	var err error
	for r := range n {
		i := off + r
		if a.IsNull(i) {
			if err = chunk.SetValue(col, at+r, nil); err != nil {
				return err
			}
			continue
		}
		switch a := a.(type) {
		case *array.Timestamp:
			v := int64(a.Value(i))
			u := a.DataType().(*arrow.TimestampType).Unit
			if u == arrow.Nanosecond {
				err = duckdb.SetChunkValue(chunk, col, at+r, time.Unix(0, v).UTC())
				break
			}
			if lim := tzLimit[u]; v > lim || v < -lim {
				return fmt.Errorf("timestamp %d%s is outside DuckDB's TIMESTAMPTZ range", v, u)
			}
			var tm time.Time
			switch u {
			case arrow.Second:
				tm = time.Unix(v, 0)
			case arrow.Millisecond:
				tm = time.UnixMilli(v)
			default:
				tm = time.UnixMicro(v)
			}
			err = duckdb.SetChunkValue(chunk, col, at+r, tm.UTC())
		case *array.Boolean:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.Int32:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.Int64:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.Float32:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.Float64:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.String:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.StringView:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.Binary:
			err = duckdb.SetChunkValue(chunk, col, at+r, a.Value(i))
		case *array.Date32:
			err = duckdb.SetChunkValue(chunk, col, at+r, time.Unix(int64(a.Value(i))*86400, 0).UTC())
		case *array.Dictionary:
			d, ok := a.Dictionary().(*array.String)
			if !ok {
				return fmt.Errorf("dictionary of %s", a.Dictionary().DataType())
			}
			err = duckdb.SetChunkValue(chunk, col, at+r, d.Value(a.GetValueIndex(i)))
		default:
			return fmt.Errorf("no copy for Arrow %s", a.DataType())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// registerScan registers tsfile_scan(id VARCHAR) on conn's database,
// reading the tables of the registry; rows counts the rows it hands to
// DuckDB. sqlfill's registration replaces this one call.
var registerScan = registerScanUDF

func registerScanUDF(conn *sql.Conn, rows *atomic.Int64) error {
	varchar, err := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	if err != nil {
		return err
	}
	return ignoreExists(duckdb.RegisterTableUDF(conn, "tsfile_scan", duckdb.ParallelChunkTableFunction{
		Config: duckdb.TableFunctionConfig{Arguments: []duckdb.TypeInfo{varchar}},
		BindArgumentsContext: func(ctx context.Context, _ map[string]any, args ...any) (duckdb.ParallelChunkTableSource, error) {
			id, _ := args[0].(string)
			t, err := lookupTable(id)
			if err != nil {
				return nil, err
			}
			return newScanSource(ctx, t, pushdownFor(ctx, id), rows)
		},
	}))
}

// ignoreExists drops the error of registering a function a database
// already has (a second Register on the same DuckDB database).
func ignoreExists(err error) error {
	if err != nil && strings.Contains(err.Error(), "already exists") {
		return nil
	}
	return err
}

// registerTsfileFunc registers tsfile(path, "table" := NAME) on conn's
// database: path is a file, directory, glob or URL, resolved by db as
// Open resolves inputs. tsfile is a table macro over tsfile_read(path,
// table): duckdb-go fails the bind of a table function whose named
// argument the call leaves out ("unsupported data type: INVALID"), and a
// macro's parameter takes a default.
func registerTsfileFunc(ctx context.Context, conn *sql.Conn, db *DB) error {
	varchar, err := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	if err != nil {
		return err
	}
	err = ignoreExists(duckdb.RegisterTableUDF(conn, "tsfile_read", duckdb.ParallelChunkTableFunction{
		Config: duckdb.TableFunctionConfig{Arguments: []duckdb.TypeInfo{varchar, varchar}},
		BindArgumentsContext: func(ctx context.Context, _ map[string]any, args ...any) (duckdb.ParallelChunkTableSource, error) {
			path, _ := args[0].(string)
			table, _ := args[1].(string)
			if path == "" {
				return nil, errors.New("tsfile: the path is empty")
			}
			t, err := db.adhoc(ctx, path, table)
			if err != nil {
				return nil, err
			}
			return newScanSource(ctx, t, pushdown{}, &db.stats.rows)
		},
	}))
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `CREATE OR REPLACE MACRO tsfile(path, "table" := '') AS TABLE SELECT * FROM tsfile_read(path, "table")`)
	return err
}
