//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// testRegistry is a tiny stand-in for sqlcore's registry: tables of real
// TsFiles read through arrowconv, one scan unit per device (table model)
// or one per table (tree model), and any hand-made tables a test adds.
type testRegistry struct {
	mu     sync.Mutex
	tables map[string]*scanTable
	// pds records the pushdown each Units call received, per table ID.
	pds map[string][]pushdown
	// cols records the projection of the last Units call, per table ID.
	cols map[string][]int
}

func newTestRegistry() *testRegistry {
	return &testRegistry{tables: map[string]*scanTable{}, pds: map[string][]pushdown{}, cols: map[string][]int{}}
}

func (r *testRegistry) lookup(id string) (*scanTable, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tables[id]
	return t, ok
}

func (r *testRegistry) add(t *scanTable) {
	r.mu.Lock()
	defer r.mu.Unlock()
	units := t.Units
	t.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		r.mu.Lock()
		r.pds[t.ID] = append(r.pds[t.ID], pd)
		r.cols[t.ID] = slices.Clone(cols)
		r.mu.Unlock()
		return units(ctx, cols, pd)
	}
	r.tables[t.ID] = t
}

// fileOptions are the arrowconv options a test registry reads a file with.
type fileOptions struct {
	unit      arrow.TimeUnit // 0: the file's
	batchSize int
	plainTags bool
	oneUnit   bool // one unit for the whole table instead of one per device
	workers   int  // arrowconv.Options.Workers
	mem       memory.Allocator
}

func (o fileOptions) arrowconv(cols []string) *arrowconv.Options {
	a := &arrowconv.Options{Columns: cols, BatchSize: o.batchSize, PlainTags: o.plainTags, Allocator: o.mem, Workers: o.workers}
	if o.unit != 0 {
		a.TimeUnit = arrowconv.TimeUnitOf(o.unit)
	}
	return a
}

// addFile registers every table of the TsFile at path under "<prefix>.<table>".
func (r *testRegistry) addFile(t testing.TB, prefix, path string, o fileOptions) []string {
	t.Helper()
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	var ids []string
	for _, table := range f.Tables() {
		_, isTable := f.SchemaOf(table)
		var schema *arrow.Schema
		if isTable {
			schema, err = arrowconv.TableArrowSchema(f, table, o.arrowconv(nil))
		} else {
			schema, err = arrowconv.TreeArrowSchema(f, table, o.arrowconv(nil))
		}
		require.NoError(t, err)
		id := prefix + "." + table
		ids = append(ids, id)
		r.add(&scanTable{ID: id, Schema: schema, Units: func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
			names := []string{schema.Field(0).Name} // count(*): the time column alone
			if len(cols) > 0 {
				names = names[:0]
				for _, c := range cols {
					names = append(names, schema.Field(c).Name)
				}
			}
			if !isTable {
				// A tree reader keeps only the rows where a projected
				// series has a point, which would drop rows that SQL
				// must see (the rows where those series are null): read
				// every series, the scan takes the columns it needs.
				names = nil
			}
			if !isTable || o.oneUnit {
				return []scanUnit{func(ctx context.Context) (array.RecordReader, error) {
					if isTable {
						return arrowconv.NewTableReader(f, table, o.arrowconv(names))
					}
					return arrowconv.NewTreeReader(f, table, o.arrowconv(names))
				}}, nil
			}
			devs, err := f.Devices(table)
			if err != nil {
				return nil, err
			}
			var units []scanUnit
			for _, d := range devs {
				units = append(units, func(ctx context.Context) (array.RecordReader, error) {
					opts := o.arrowconv(names)
					opts.Devices = []tsfile.DeviceID{d}
					return arrowconv.NewTableReader(f, table, opts)
				})
			}
			return units, nil
		}})
	}
	return ids
}

// openScanDB opens a DuckDB with tsfile_scan registered over reg.
func openScanDB(t testing.TB, reg *testRegistry) (*sql.DB, *sql.Conn) {
	t.Helper()
	db, conn := openDB(t)
	require.NoError(t, registerFastScan(conn, reg.lookup, nil))
	return db, conn
}

// naiveCell formats one Arrow value the way fastRowsOf formats DuckDB's.
func naiveCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.String:
		return strconv.Quote(a.Value(i))
	case *array.Binary:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC().Format(time.DateOnly)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		v := int64(a.Value(i))
		var ts time.Time
		switch unit {
		case arrow.Second:
			ts = time.Unix(v, 0)
		case arrow.Millisecond:
			ts = time.UnixMilli(v)
		case arrow.Microsecond:
			ts = time.UnixMicro(v)
		default:
			ts = time.Unix(0, v)
		}
		return ts.UTC().Format(time.RFC3339Nano)
	case *array.Dictionary:
		return strconv.Quote(a.Dictionary().(*array.String).Value(a.GetValueIndex(i)))
	}
	panic(fmt.Sprintf("naiveCell: %s", a.DataType()))
}

// naiveRows reads table of the file at path with arrowconv, all at once,
// and formats the named columns of each row.
func naiveRows(t testing.TB, path, table string, o fileOptions, cols []string) []string {
	t.Helper()
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	o.mem, o.batchSize = nil, 0
	var rd *arrowconv.Reader
	if _, ok := f.SchemaOf(table); ok {
		rd, err = arrowconv.NewTableReader(f, table, o.arrowconv(nil))
	} else {
		rd, err = arrowconv.NewTreeReader(f, table, o.arrowconv(nil))
	}
	require.NoError(t, err)
	defer rd.Release()
	var out []string
	for rd.Next() {
		rec := rd.RecordBatch()
		var idx []int
		for _, c := range cols {
			idx = append(idx, rec.Schema().FieldIndices(c)[0])
		}
		for r := range int(rec.NumRows()) {
			cells := make([]string, len(idx))
			for j, c := range idx {
				cells[j] = naiveCell(rec.Column(c), r)
			}
			out = append(out, strings.Join(cells, "|"))
		}
	}
	require.NoError(t, rd.Err())
	slices.Sort(out)
	return out
}

// fastRowsOf runs q and formats its rows as naiveRows does; types are the
// Arrow types of the selected columns (to tell DATE from TIMESTAMP).
func fastRowsOf(t testing.TB, conn *sql.Conn, types []arrow.DataType, q string) []string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), q)
	require.NoError(t, err, q)
	defer rows.Close()
	var out []string
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		require.NoError(t, rows.Scan(ptrs...))
		cells := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				cells[i] = "NULL"
			case bool:
				cells[i] = strconv.FormatBool(v)
			case int32:
				cells[i] = strconv.FormatInt(int64(v), 10)
			case int64:
				cells[i] = strconv.FormatInt(v, 10)
			case float32:
				cells[i] = strconv.FormatFloat(float64(v), 'g', -1, 32)
			case float64:
				cells[i] = strconv.FormatFloat(v, 'g', -1, 64)
			case string:
				cells[i] = strconv.Quote(v)
			case []byte:
				cells[i] = "0x" + hex.EncodeToString(v)
			case time.Time:
				if types[i].ID() == arrow.DATE32 {
					cells[i] = v.UTC().Format(time.DateOnly)
				} else {
					cells[i] = v.UTC().Format(time.RFC3339Nano)
				}
			default:
				t.Fatalf("rowsOf: %T", v)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	require.NoError(t, rows.Err())
	slices.Sort(out)
	return out
}

// fastCheckTable compares SELECT * and some projections of table id with the
// naive model, cell for cell.
func fastCheckTable(t *testing.T, conn *sql.Conn, reg *testRegistry, id, path, table string, o fileOptions) {
	st, ok := reg.lookup(id)
	require.True(t, ok)
	fields := st.Schema.Fields()
	projections := [][]int{nil} // nil: SELECT *
	n := len(fields)
	projections = append(projections, []int{n - 1}, []int{n - 1, 0})
	if n > 2 {
		projections = append(projections, []int{n / 2, n - 1, 1}, []int{1, n / 2})
	}
	for _, p := range projections {
		var names, sel []string
		var types []arrow.DataType
		if p == nil {
			for i := range fields {
				p = append(p, i)
			}
			sel = []string{"*"}
		}
		for _, c := range p {
			names = append(names, fields[c].Name)
			types = append(types, fields[c].Type)
			if sel == nil || sel[0] != "*" {
				sel = append(sel, quoteIdent(fields[c].Name))
			}
		}
		q := fmt.Sprintf("SELECT %s FROM tsfile_scan('%s')", strings.Join(sel, ", "), id)
		want := naiveRows(t, path, table, o, names)
		got := fastRowsOf(t, conn, types, q)
		require.Equal(t, len(want), len(got), q)
		for i := range want {
			require.Equal(t, want[i], got[i], "%s: row %d of %d", q, i, len(want))
		}
		t.Logf("%s: %d rows equal", q, len(want))
	}
	var cnt int64
	require.NoError(t, conn.QueryRowContext(context.Background(), fmt.Sprintf("SELECT count(*) FROM tsfile_scan('%s')", id)).Scan(&cnt))
	require.Equal(t, int64(len(naiveRows(t, path, table, o, []string{fields[0].Name}))), cnt)
	reg.mu.Lock()
	cols := reg.cols[id]
	reg.mu.Unlock()
	require.LessOrEqual(t, len(cols), 1, "count(*) should project at most one column (DuckDB asks for the first)")
}

// TestScanMatchesArrowconv reads every table of the sample, the interop
// files and generated files through tsfile_scan and compares each cell
// with arrowconv's batches read directly: every type, nulls, extreme
// values, dictionaries, batches larger than a chunk and batches that are
// slices (batch sizes that are not multiples of 2048), time units.
func TestScanMatchesArrowconv(t *testing.T) {
	dir := t.TempDir()
	gen := filepath.Join(dir, "gen.tsfile")
	require.NoError(t, os.WriteFile(gen, writeTable(t, 7, 5000), 0o644))
	many := filepath.Join(dir, "many.tsfile")
	require.NoError(t, os.WriteFile(many, writeTable(t, 1000, 3), 0o644))
	files := []string{"../testdata/sample.tsfile", gen}
	inter, _ := filepath.Glob("../../shared/interop/*.tsfile")
	files = append(files, inter...)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	type variant struct {
		name string
		o    fileOptions
	}
	variants := []variant{
		{"default", fileOptions{}},
		{"batch3000", fileOptions{batchSize: 3000}},
		{"batch1000plain", fileOptions{batchSize: 1000, plainTags: true}},
		{"ns", fileOptions{unit: arrow.Nanosecond, batchSize: 4097}},
		{"us", fileOptions{unit: arrow.Microsecond}},
	}
	// many: one unit over 1000 devices of 3 rows in batches of 500, so
	// the TAG dictionary grows batch by batch and outgrows the batch: both
	// the sliced DuckDB dictionary and the per-row expansion serve it.
	manyOpts := fileOptions{batchSize: 500, oneUnit: true, mem: mem}
	reg := newTestRegistry()
	_, conn := openScanDB(t, reg)
	for vi, v := range variants {
		v.o.mem = mem
		for fi, path := range files {
			f, err := tsfile.OpenFile(path, nil)
			require.NoError(t, err)
			tables := f.Tables()
			f.Close()
			ids := reg.addFile(t, fmt.Sprintf("v%df%d", vi, fi), path, v.o)
			for i, id := range ids {
				t.Run(v.name+"/"+filepath.Base(path)+"/"+tables[i], func(t *testing.T) {
					fastCheckTable(t, conn, reg, id, path, tables[i], v.o)
				})
			}
		}
	}
	for _, id := range reg.addFile(t, "many", many, manyOpts) {
		fastCheckTable(t, conn, reg, id, many, "t", manyOpts)
	}
	mem.AssertSize(t, 0)
}
