//go:build cgo && duckdb_arrow

package query

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// count runs a count(*) query on db's database.
func count(t testing.TB, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, db.QueryRowContext(context.Background(), q, args...).Scan(&n), q)
	return n
}

// TestReadOnly: QueryArrow runs one read statement and refuses the rest,
// as DuckDB's parser and binder classify them.
func TestReadOnly(t *testing.T) {
	db, _ := openTable(t, 1, 10)
	ctx := context.Background()
	for _, q := range []string{
		"SELECT * FROM t",
		"WITH a AS (SELECT v FROM t) SELECT count(*) FROM a",
		"VALUES (1), (2)",
		"SHOW TABLES",
		"DESCRIBE t",
		"EXPLAIN SELECT * FROM t",
		"EXPLAIN ANALYZE SELECT * FROM t",
		"PRAGMA table_info('t')",
		"FROM t LIMIT 1",
	} {
		rd, err := db.QueryArrow(ctx, q)
		require.NoError(t, err, q)
		for rd.Next() {
		}
		require.NoError(t, rd.Err(), q)
		rd.Release()
	}
	for _, q := range []string{
		"CREATE TABLE x AS SELECT * FROM t",
		"DROP VIEW t",
		"SELECT 1; DROP VIEW t",
		"DROP VIEW t; SELECT 1",
		"COPY t TO '" + filepath.Join(t.TempDir(), "x.csv") + "'",
		"ATTACH ':memory:' AS other",
		"SET threads = 1",
		"PRAGMA enable_profiling",
		"LOAD json",
	} {
		_, err := db.QueryArrow(ctx, q)
		require.ErrorIs(t, err, ErrReadOnly, q)
	}
	// EXPLAIN ANALYZE runs its statement: what it explains must be a read
	// statement itself, and a form whose words cannot be told is refused.
	copied := filepath.Join(t.TempDir(), "explained.csv")
	for _, q := range []string{
		"EXPLAIN ANALYZE DROP VIEW t",
		"EXPLAIN ANALYZE CREATE TABLE x AS SELECT 1",
		"explain analyse create macro m() as 1",
		"EXPLAIN ANALYZE COPY t TO '" + copied + "'",
		"/* first */ EXPLAIN ANALYZE COPY t TO '" + copied + "'",
		"EXPLAIN -- c\nANALYZE COPY t TO '" + copied + "'",
		"EXPLAIN (ANALYZE) COPY t TO '" + copied + "'",
	} {
		_, err := db.QueryArrow(ctx, q)
		require.ErrorIs(t, err, ErrReadOnly, q)
	}
	require.NoFileExists(t, copied)
	for _, q := range []string{"EXPLAIN ANALYZE (SELECT count(*) FROM t)", "explain\n  analyze\tFROM t", "EXPLAIN CREATE TABLE x AS SELECT 1"} {
		rd, err := db.QueryArrow(ctx, q)
		if err == nil {
			for rd.Next() {
			}
			err = rd.Err()
			rd.Release()
		}
		if strings.Contains(q, "CREATE") {
			// Planned, not run; DuckDB's read-only transaction refuses
			// even the plan.
			require.ErrorContains(t, err, "read-only", q)
			continue
		}
		require.NoError(t, err, q)
	}
	// DuckDB's binder refuses this one first (t is a view).
	_, err := db.QueryArrow(ctx, "INSERT INTO t VALUES (1)")
	require.Error(t, err)
	// Nothing above ran: t is still there.
	require.Equal(t, int64(10), count(t, db.SQL(), "SELECT count(*) FROM t"))
	_, err = db.QueryArrow(ctx, "SELEC 1")
	require.ErrorContains(t, err, "syntax error")
}

// TestCancel: cancelling the context of QueryArrow interrupts DuckDB,
// which is busy in a query of its own, and a scan of ours.
func TestCancel(t *testing.T) {
	db, _ := openTable(t, 4, 20000)
	for _, q := range []string{
		"SELECT count(*) FROM range(1000000000000) a",
		"SELECT count(*) FROM t a, t b WHERE a.v + b.v = -1",
	} {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(200*time.Millisecond, cancel)
		rd, err := db.QueryArrow(ctx, q)
		if err == nil {
			for rd.Next() {
			}
			err = rd.Err()
			rd.Release()
		}
		timer.Stop()
		cancel()
		require.Error(t, err, q)
		require.True(t, errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "INTERRUPT") || strings.Contains(err.Error(), "context canceled"), "%s: %v", q, err)
	}
	// The database still answers.
	require.Equal(t, int64(80000), count(t, db.SQL(), "SELECT count(*) FROM t"))
}

// TestRegister registers the tables on a DuckDB connection of the
// user's, and Close takes them away again.
func TestRegister(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.tsfile")
	require.NoError(t, os.WriteFile(path, writeTable(t, 2, 50), 0o644))
	sdb, conn := openDB(t)
	ctx := context.Background()
	db, err := Register(ctx, conn, []string{path}, nil)
	require.NoError(t, err)
	var n int64
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, int64(100), n)
	require.Nil(t, db.SQL())
	_, err = db.Conn(ctx)
	require.Error(t, err)
	rd, err := db.QueryArrow(ctx, "SELECT sum(v)::BIGINT FROM t")
	require.NoError(t, err)
	require.True(t, rd.Next())
	require.Equal(t, int64(2*49*50/2), rd.RecordBatch().Column(0).(*array.Int64).Value(0))
	rd.Release()
	// Another connection of the same database sees the view.
	require.Equal(t, int64(100), count(t, sdb, "SELECT count(*) FROM t"))
	// A second Register on the same database (tsfile_scan is there
	// already) adds its tables beside the first's.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "w.tsfile"), writeOther(t), 0o644))
	conn2, err := sdb.Conn(ctx)
	require.NoError(t, err)
	defer conn2.Close()
	_, err = conn2.ExecContext(ctx, "CREATE SCHEMA other; SET schema = 'other'")
	require.NoError(t, err)
	db2, err := Register(ctx, conn2, []string{dir}, nil)
	require.ErrorContains(t, err, "already exists", "the second t clashes with the first")
	require.Nil(t, db2)
	require.NoError(t, db.Close())
	require.Error(t, conn.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	db2, err = Register(ctx, conn2, []string{dir}, nil)
	require.NoError(t, err)
	require.Equal(t, int64(2), count(t, sdb, "SELECT count(*) FROM main.t"))
	require.NoError(t, db2.Close())
}

// writeOther writes a table "t" whose schema differs from writeTable's
// (v is INT32).
func writeOther(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int32, Category: tsfile.Field},
	}}))
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "r"), []int64{1, 2}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int32, Encoding: encoding.Plain}, Values: tsfile.Values{Type: tsfile.Int32, Int32s: []int32{1, 2}}},
	}))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// TestInputs: directories and globs make one table of the files of a
// name; a schema mismatch leaves the table out with a warning; a URL is
// read with range requests.
func TestInputs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "x", "y"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.tsfile"), writeTable(t, 2, 10), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x", "y", "b.tsfile"), writeTable(t, 3, 10), 0o644))
	for _, in := range []string{dir, filepath.Join(dir, "**", "*.tsfile")} {
		db, err := Open(ctx, []string{in}, nil)
		require.NoError(t, err, in)
		require.Len(t, db.Tables(), 1)
		require.Len(t, db.Tables()[0].Inputs, 2)
		require.Equal(t, int64(50), count(t, db.SQL(), "SELECT count(*) FROM t"))
		require.Equal(t, int64(50), count(t, db.SQL(), "SELECT count(*) FROM tsfile(?)", in))
		require.NoError(t, db.Close())
	}
	// A file whose t differs: the table is left out, with a warning.
	other := filepath.Join(t.TempDir(), "c.tsfile")
	require.NoError(t, os.WriteFile(other, writeOther(t), 0o644))
	var warnings []string
	_, err := Open(ctx, []string{dir, other}, &Options{Warn: func(m string) { warnings = append(warnings, m) }})
	require.ErrorContains(t, err, "no table")
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0], `column 3 is "v" int64`)
	_, err = Open(ctx, []string{filepath.Join(dir, "none*.tsfile")}, nil)
	require.ErrorContains(t, err, "matches no file")

	// A URL.
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	db, err := Open(ctx, []string{srv.URL + "/a.tsfile"}, nil)
	require.NoError(t, err)
	defer db.Close()
	require.Equal(t, int64(20), count(t, db.SQL(), "SELECT count(*) FROM t"))
	require.Equal(t, int64(20), count(t, db.SQL(), "SELECT count(*) FROM '"+srv.URL+"/a.tsfile'"))
	require.Positive(t, db.Stats().BytesRead)
}

// TestTsfileFunction: tsfile() and FROM 'x.tsfile' over a file of several
// tables need the table named, and say which there are.
func TestTsfileFunction(t *testing.T) {
	ctx := context.Background()
	path := "../../shared/interop/j10_tree_nonaligned.tsfile"
	db, err := Open(ctx, []string{"../testdata/sample.tsfile"}, nil)
	require.NoError(t, err)
	defer db.Close()
	var n int64
	err = db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM tsfile(?)", path).Scan(&n)
	require.ErrorContains(t, err, "several tables")
	require.ErrorContains(t, err, "root.sg1, root.sg2")
	err = db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM '"+path+"'").Scan(&n)
	require.ErrorContains(t, err, "several tables")
	err = db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM tsfile(?, "table" := 'nope')`, path).Scan(&n)
	require.ErrorContains(t, err, `no table "nope"`)
	all := count(t, db.SQL(), `SELECT count(*) FROM tsfile(?, "table" := 'root.sg1')`, path) +
		count(t, db.SQL(), `SELECT count(*) FROM tsfile_scan(tsfile_id(?, 'root.sg2'))`, path)
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	rd, err := arrowconv.NewTreeReader(f, "", nil)
	require.NoError(t, err)
	var want int64
	for rd.Next() {
		want += rd.RecordBatch().NumRows()
	}
	require.NoError(t, rd.Err())
	rd.Release()
	require.Equal(t, want, all)
}

// TestDatasetSchemas: an IoTDB database is a DuckDB schema, and a name no
// other database holds is in main too.
func TestDatasetSchemas(t *testing.T) {
	db, err := Open(context.Background(), []string{"../testdata/iotdb"}, nil)
	require.NoError(t, err)
	defer db.Close()
	var names []string
	for _, tb := range db.Tables() {
		names = append(names, tb.Schema+"."+tb.Name)
	}
	require.Equal(t, []string{"main.root.sg", "weather.weather"}, names)
	// planPushdown knows the alias main.weather as a view of the same scan.
	var metas []string
	for _, m := range db.metas {
		metas = append(metas, m.Schema+"."+m.Name+"="+m.ID)
	}
	require.Equal(t, []string{"main.root.sg=" + db.ids[0], "weather.weather=" + db.ids[1], "main.weather=" + db.ids[1]}, metas)
	n := count(t, db.SQL(), "SELECT count(*) FROM weather.weather")
	require.Positive(t, n)
	require.Equal(t, n, count(t, db.SQL(), "SELECT count(*) FROM weather"))
	require.Positive(t, count(t, db.SQL(), `SELECT count(*) FROM "root.sg"`))
	// --raw reads every file as it is: the deleted and overwritten rows
	// are back.
	raw, err := Open(context.Background(), []string{"../testdata/iotdb"}, &Options{Raw: true})
	require.NoError(t, err)
	defer raw.Close()
	require.Greater(t, count(t, raw.SQL(), "SELECT count(*) FROM weather"), n)
}

// TestNanoseconds: a table read in ns has TIMESTAMP_NS time columns,
// whose digits TIMESTAMPTZ (µs) would drop.
func TestNanoseconds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.tsfile")
	require.NoError(t, os.WriteFile(path, writeTable(t, 1, 10), 0o644))
	ctx := context.Background()
	db, err := Open(ctx, []string{path}, &Options{TimeUnit: arrowconv.TimeUnitOf(arrow.Nanosecond)})
	require.NoError(t, err)
	defer db.Close()
	require.Equal(t, arrow.Nanosecond, db.Tables()[0].Unit)
	rd, err := db.QueryArrow(ctx, "SELECT time, typeof(time) FROM t ORDER BY time LIMIT 2")
	require.NoError(t, err)
	defer rd.Release()
	require.True(t, rd.Next())
	rec := rd.RecordBatch()
	require.Equal(t, "timestamp[ns]", rec.Column(0).DataType().String())
	require.Equal(t, int64(1), int64(rec.Column(0).(*array.Timestamp).Value(1)))
	require.Equal(t, "TIMESTAMP_NS", rec.Column(1).ValueStr(0))
}
