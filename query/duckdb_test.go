//go:build cgo

package query

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// openDB opens an in-memory DuckDB and one connection on it (table
// functions are registered per connection).
func openDB(t testing.TB) (*sql.DB, *sql.Conn) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return db, conn
}

func TestSelect42(t *testing.T) {
	_, conn := openDB(t)
	var n int
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT 42").Scan(&n))
	require.Equal(t, 42, n)
	var v string
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT version()").Scan(&v))
	t.Logf("DuckDB %s", v)
}

// TestJSONSerializeSQL checks that DuckDB's own parser is reachable as
// json_serialize_sql, the sound way to read a query's WHERE conjuncts for
// pushdown (issue 38 point 3).
func TestJSONSerializeSQL(t *testing.T) {
	_, conn := openDB(t)
	var js string
	require.NoError(t, conn.QueryRowContext(context.Background(),
		`SELECT json_serialize_sql('SELECT * FROM t WHERE time >= 10 AND region IN (''a'', ''b'')')::VARCHAR`).Scan(&js))
	require.Contains(t, js, `"error":false`)
	require.Contains(t, js, "COMPARE_GREATERTHANOREQUALTO")
	require.Contains(t, js, "COMPARE_IN")
}

// writeTable writes a table "t" (TAG region, FIELD v INT64, FIELD x
// DOUBLE) of devices devices with rows rows each: time i, v = i, x = i/2.
func writeTable(t testing.TB, devices, rows int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
		{Name: "x", DataType: tsfile.Double, Category: tsfile.Field},
	}}))
	times, vs, xs := make([]int64, rows), make([]int64, rows), make([]float64, rows)
	for i := range times {
		times[i], vs[i], xs[i] = int64(i), int64(i), float64(i)/2
	}
	for d := range devices {
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", fmt.Sprintf("r%04d", d)), times, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64, Encoding: encoding.TS2Diff}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: vs}},
			{SeriesSchema: tsfile.SeriesSchema{Name: "x", DataType: tsfile.Double, Encoding: encoding.Gorilla}, Values: tsfile.Values{Type: tsfile.Double, Float64s: xs}},
		}))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// chunkSource is a spike of a DuckDB table function over an arrowconv
// reader: it copies each Arrow batch into DuckDB's vectors value by value
// (the only write API duckdb-go v2.20000.0 has for numbers). DuckDB
// pushes the projection: columns it does not need are not in the chunk
// (GetVector fails with an unprojected-column error), and the reader is
// opened lazily on the first FillChunk with only those columns.
type chunkSource struct {
	f      *tsfile.File
	table  string
	schema *arrow.Schema

	rd        *arrowconv.Reader
	projected []int // indices into schema of the columns DuckDB asked for
	cur       arrow.RecordBatch
	off       int
}

func duckType(t testing.TB, dt arrow.DataType) duckdb.TypeInfo {
	var k duckdb.Type
	switch dt.ID() {
	case arrow.TIMESTAMP:
		k = duckdb.TYPE_TIMESTAMP_MS
	case arrow.INT64:
		k = duckdb.TYPE_BIGINT
	case arrow.FLOAT64:
		k = duckdb.TYPE_DOUBLE
	case arrow.STRING:
		k = duckdb.TYPE_VARCHAR
	default:
		t.Fatalf("spike: no DuckDB type for %s", dt)
	}
	ti, err := duckdb.NewTypeInfo(k)
	require.NoError(t, err)
	return ti
}

func (s *chunkSource) ColumnInfos() []duckdb.ColumnInfo {
	var out []duckdb.ColumnInfo
	for _, f := range s.schema.Fields() {
		out = append(out, duckdb.ColumnInfo{Name: f.Name, T: duckType(nil, f.Type)})
	}
	return out
}

func (s *chunkSource) Cardinality() *duckdb.CardinalityInfo { return nil }
func (s *chunkSource) Init()                                {}

func (s *chunkSource) open(chunk duckdb.DataChunk) error {
	var cols []string
	for i, f := range s.schema.Fields() {
		if _, err := chunk.GetVector(i); err == nil {
			s.projected = append(s.projected, i)
			cols = append(cols, f.Name)
		}
	}
	rd, err := arrowconv.NewTableReader(s.f, s.table, &arrowconv.Options{Columns: cols, PlainTags: true})
	if err != nil {
		return err
	}
	s.rd = rd
	return nil
}

func (s *chunkSource) FillChunk(chunk duckdb.DataChunk) error {
	if s.rd == nil {
		if err := s.open(chunk); err != nil {
			return err
		}
	}
	capacity := duckdb.GetDataChunkCapacity()
	n := 0
	for n < capacity {
		if s.cur == nil || s.off == int(s.cur.NumRows()) {
			if !s.rd.Next() {
				if err := s.rd.Err(); err != nil {
					return err
				}
				break
			}
			s.cur, s.off = s.rd.RecordBatch(), 0
		}
		k := min(capacity-n, int(s.cur.NumRows())-s.off)
		rs := s.cur.Schema()
		for _, i := range s.projected {
			name := s.schema.Field(i).Name
			idx := rs.FieldIndices(name)
			col := s.cur.Column(idx[0])
			for r := range k {
				var err error
				switch a := col.(type) {
				case *array.Timestamp:
					err = duckdb.SetChunkValue(chunk, i, n+r, time.UnixMilli(int64(a.Value(s.off+r))))
				case *array.Int64:
					if a.IsNull(s.off + r) {
						err = chunk.SetValue(i, n+r, nil)
					} else {
						err = duckdb.SetChunkValue(chunk, i, n+r, a.Value(s.off+r))
					}
				case *array.Float64:
					if a.IsNull(s.off + r) {
						err = chunk.SetValue(i, n+r, nil)
					} else {
						err = duckdb.SetChunkValue(chunk, i, n+r, a.Value(s.off+r))
					}
				case *array.String:
					err = duckdb.SetChunkValue(chunk, i, n+r, a.Value(s.off+r))
				default:
					err = fmt.Errorf("spike: column %s of type %s", name, col.DataType())
				}
				if err != nil {
					return err
				}
			}
		}
		n += k
		s.off += k
	}
	return chunk.SetSize(n)
}

// registerTableUDF registers tsfile_t(path) on conn, reading table "t" of
// the TsFile at path; last receives each bound source so tests can see
// what DuckDB projected.
func registerTableUDF(t testing.TB, conn *sql.Conn, last **chunkSource) {
	t.Helper()
	varchar, err := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	require.NoError(t, err)
	err = duckdb.RegisterTableUDF(conn, "tsfile_t", duckdb.ChunkTableFunction{
		Config: duckdb.TableFunctionConfig{Arguments: []duckdb.TypeInfo{varchar}},
		BindArguments: func(_ map[string]any, args ...any) (duckdb.ChunkTableSource, error) {
			f, err := tsfile.OpenFile(args[0].(string), nil)
			if err != nil {
				return nil, err
			}
			schema, err := arrowconv.TableArrowSchema(f, "t", &arrowconv.Options{PlainTags: true})
			if err != nil {
				return nil, err
			}
			s := &chunkSource{f: f, table: "t", schema: schema}
			*last = s
			return s, nil
		},
	})
	require.NoError(t, err)
}

// TestTableUDFCount registers an arrowconv reader as a DuckDB table
// function and checks count and sums against the rows written, and that
// DuckDB's projection reached the reader.
func TestTableUDFCount(t *testing.T) {
	const devices, rows = 3, 5000
	path := filepath.Join(t.TempDir(), "t.tsfile")
	require.NoError(t, os.WriteFile(path, writeTable(t, devices, rows), 0o644))
	_, conn := openDB(t)
	var last *chunkSource
	registerTableUDF(t, conn, &last)

	var n, sumV int64
	var sumX float64
	require.NoError(t, conn.QueryRowContext(context.Background(),
		"SELECT count(*), sum(v), sum(x) FROM tsfile_t(?)", path).Scan(&n, &sumV, &sumX))
	wantV := int64(devices) * int64(rows) * int64(rows-1) / 2
	require.Equal(t, int64(devices*rows), n)
	require.Equal(t, wantV, sumV)
	require.Equal(t, float64(wantV)/2, sumX)
	require.Equal(t, []int{2, 3}, last.projected, "DuckDB should project v and x only")

	var regions int64
	require.NoError(t, conn.QueryRowContext(context.Background(),
		"SELECT count(DISTINCT region) FROM tsfile_t(?) WHERE time >= epoch_ms(10) AND time < epoch_ms(20)", path).Scan(&regions))
	require.Equal(t, int64(devices), regions)
	require.Equal(t, []int{0, 1}, last.projected, "DuckDB should project time and region")
}

// TestReplacementScan makes FROM 'x.tsfile' read through the table
// function, as DuckDB does for 'x.parquet'.
func TestReplacementScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.tsfile")
	require.NoError(t, os.WriteFile(path, writeTable(t, 2, 100), 0o644))
	c, err := duckdb.NewConnector("", nil)
	require.NoError(t, err)
	duckdb.RegisterReplacementScan(c, func(name string) (string, []any, error) {
		if !strings.HasSuffix(name, ".tsfile") {
			return "", nil, nil
		}
		return "tsfile_t", []any{name}, nil
	})
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	var last *chunkSource
	registerTableUDF(t, conn, &last)

	var n int64
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT count(*) FROM '"+path+"'").Scan(&n))
	require.Equal(t, int64(200), n)

	// A second connection of the same database sees the function too.
	conn2, err := db.Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { conn2.Close() })
	require.NoError(t, conn2.QueryRowContext(context.Background(), "SELECT count(*) FROM '"+path+"'").Scan(&n))
	require.Equal(t, int64(200), n)
}
