//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"
)

// materializedRows runs q through duckdb-go's own Arrow.QueryContext (the
// path QueryArrow took before it streamed) on a connection of db, and
// returns the schema and the sorted rows.
func materializedRows(t testing.TB, db *DB, unit arrow.TimeUnit, q string, args ...any) (*arrow.Schema, [][]string) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	var schema *arrow.Schema
	var rows [][]string
	require.NoError(t, conn.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		rd, err := ar.QueryContext(context.Background(), q, args...)
		if err != nil {
			return err
		}
		defer rd.Release()
		schema = rd.Schema()
		rows = rowsOf(t, rd, unit)
		return nil
	}))
	return schema, rows
}

// streamedRows runs q through QueryArrow.
func streamedRows(t testing.TB, db *DB, unit arrow.TimeUnit, q string, args ...any) (*arrow.Schema, [][]string) {
	t.Helper()
	rd, err := db.QueryArrow(context.Background(), q, args...)
	require.NoError(t, err, q)
	defer rd.Release()
	return rd.Schema(), rowsOf(t, rd, unit)
}

// checkStreamed compares QueryArrow's streamed result of q with
// duckdb-go's materialized one: same schema, same rows.
func checkStreamed(t *testing.T, db *DB, unit arrow.TimeUnit, q string, args ...any) int {
	t.Helper()
	ms, mrows := materializedRows(t, db, unit, q, args...)
	ss, srows := streamedRows(t, db, unit, q, args...)
	require.True(t, ms.Equal(ss), "schema: streamed %s, materialized %s", ss, ms)
	require.Equal(t, len(mrows), len(srows), "rows of %s", q)
	for i := range mrows {
		require.Equal(t, mrows[i], srows[i], "row %d of %s", i, q)
	}
	return len(srows)
}

// TestStreamEqualsMaterialized: for every table of the sample, the interop
// files and testdata/iotdb, the streamed SELECT * is duckdb-go's
// materialized result, schema and rows.
func TestStreamEqualsMaterialized(t *testing.T) {
	inputs, _ := filepath.Glob("../../shared/interop/*.tsfile")
	inputs = append(inputs, "../testdata/sample.tsfile", "../testdata/iotdb")
	require.Greater(t, len(inputs), 2)
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			db, err := Open(context.Background(), []string{in}, nil)
			require.NoError(t, err)
			defer db.Close()
			require.NotEmpty(t, db.Tables())
			for _, tb := range db.Tables() {
				q := fmt.Sprintf("SELECT * FROM %s.%s", quoteIdent(tb.Schema), quoteIdent(tb.Name))
				checkStreamed(t, db, tb.Unit, q)
			}
		})
	}
}

// TestStreamBatching: the chunks gathered into batches (or handed out one
// by one) give the materialized rows, and no batch is over the row cap.
func TestStreamBatching(t *testing.T) {
	db, _ := openTable(t, 4, 20000)
	defer func(r int) { streamBatchRows = r }(streamBatchRows)
	for _, rows := range []int{0, 1, 5000, 64 * 1024} {
		streamBatchRows = rows
		require.Equal(t, 80000, checkStreamed(t, db, arrow.Microsecond, "SELECT * FROM t"), "batch rows %d", rows)
		rd, err := db.QueryArrow(context.Background(), "SELECT * FROM t")
		require.NoError(t, err)
		var batches int
		for rd.Next() {
			batches++
			n := rd.RecordBatch().NumRows()
			// A batch is whole chunks (2,048 rows at most each) up to the cap.
			require.LessOrEqual(t, n, int64(max(rows, 1)+2047), "batch of %d rows with a cap of %d", n, rows)
		}
		require.NoError(t, rd.Err())
		rd.Release()
		if rows == 64*1024 {
			require.Less(t, batches, 5, "64K-row batches of 80,000 rows")
		}
	}
}

// TestStreamFirstBatchEarly proves the result streams: when the first
// batch of a SELECT * arrives, the scan has handed DuckDB only a part of
// the table. duckdb-go's materialized path has read it all by then.
func TestStreamFirstBatchEarly(t *testing.T) {
	const devices, rows = 40, 50000 // 2M rows
	db, _ := openTable(t, devices, rows)
	before := db.Stats().RowsScanned
	rd, err := db.QueryArrow(context.Background(), "SELECT * FROM t")
	require.NoError(t, err)
	require.True(t, rd.Next(), rd.Err())
	first := rd.RecordBatch().NumRows()
	scanned := db.Stats().RowsScanned - before
	t.Logf("first batch %d rows; rows scanned by then %d of %d", first, scanned, devices*rows)
	require.Less(t, scanned, int64(devices*rows/4), "the scan ran ahead of the first batch: the result is not streamed")
	rd.Release()
}

// TestStreamCancel cancels a query between batches: the reader ends with
// the cancellation, the connection goes back to the pool, and the
// database still answers.
func TestStreamCancel(t *testing.T) {
	db, _ := openTable(t, 20, 50000)
	ctx, cancel := context.WithCancel(context.Background())
	rd, err := db.QueryArrow(ctx, "SELECT * FROM t")
	require.NoError(t, err)
	require.True(t, rd.Next(), rd.Err())
	cancel()
	n := 0
	for rd.Next() {
		n++
	}
	err = rd.Err()
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "INTERRUPT"), "%v", err)
	rd.Release()
	require.Zero(t, db.SQL().Stats().InUse, "connections in use after Release")
	require.Equal(t, int64(1000000), count(t, db.SQL(), "SELECT count(*) FROM t"))

	// A ctx canceled while DuckDB works inside one Next (a slow
	// aggregate) interrupts it.
	ctx, cancel = context.WithCancel(context.Background())
	timer := time.AfterFunc(300*time.Millisecond, cancel)
	defer timer.Stop()
	rd, err = db.QueryArrow(ctx, "SELECT * FROM range(10) r, (SELECT count(*) FROM t a, t b WHERE a.v + b.v = -1) c")
	if err == nil {
		for rd.Next() {
		}
		err = rd.Err()
		rd.Release()
	}
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "INTERRUPT"), "%v", err)
	require.Zero(t, db.SQL().Stats().InUse)
	require.Equal(t, int64(1000000), count(t, db.SQL(), "SELECT count(*) FROM t"))
}

// TestStreamParams binds the parameter types Flight SQL and ADBC send,
// positional and named, and compares with the materialized path.
func TestStreamParams(t *testing.T) {
	db, _ := openTable(t, 3, 5000)
	ts := time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)
	for _, c := range []struct {
		q    string
		args []any
		want int
	}{
		{"SELECT * FROM t WHERE v >= ? AND region = ? AND x < ?", []any{int64(4000), "r0001", float64(4500)}, 1000},
		{"SELECT * FROM t WHERE v < $n AND region IN ($a, $b)", []any{sql.Named("n", int64(10)), sql.Named("a", "r0000"), sql.Named("b", "r0002")}, 20},
		{"SELECT ?::BIGINT a, ?::DOUBLE b, ?::VARCHAR c, ?::BOOLEAN d, ?::BLOB e, ?::TIMESTAMPTZ f, ?::BIGINT g", []any{int64(-7), 2.5, "x'y", true, []byte{0, 1, 255}, ts, nil}, 1},
		{"SELECT count(*) FROM t WHERE time BETWEEN ? AND ?", []any{time.UnixMicro(10).UTC(), time.UnixMicro(19).UTC()}, 1},
	} {
		require.Equal(t, c.want, checkStreamed(t, db, arrow.Microsecond, c.q, c.args...), c.q)
	}
	// The values themselves, not only both paths agreeing.
	rd, err := db.QueryArrow(context.Background(), "SELECT ?::BIGINT a, ?::DOUBLE b, ?::VARCHAR c, ?::BOOLEAN d, ?::BLOB e, ?::TIMESTAMPTZ f, ?::BIGINT g", int64(-7), 2.5, "x'y", true, []byte{0, 1, 255}, ts, nil)
	require.NoError(t, err)
	require.True(t, rd.Next(), rd.Err())
	rec := rd.RecordBatch()
	require.Equal(t, int64(-7), rec.Column(0).(*array.Int64).Value(0))
	require.Equal(t, 2.5, rec.Column(1).(*array.Float64).Value(0))
	require.Equal(t, "x'y", rec.Column(2).(*array.String).Value(0))
	require.True(t, rec.Column(3).(*array.Boolean).Value(0))
	require.Equal(t, []byte{0, 1, 255}, rec.Column(4).(*array.Binary).Value(0))
	require.Equal(t, ts.UnixMicro(), int64(rec.Column(5).(*array.Timestamp).Value(0)))
	require.True(t, rec.Column(6).IsNull(0))
	rd.Release()

	// Too few arguments: DuckDB's (or duckdb-go's) error, no reader.
	_, err = db.QueryArrow(context.Background(), "SELECT * FROM t WHERE v = ? AND x = ?", int64(1))
	require.Error(t, err)
	require.Zero(t, db.SQL().Stats().InUse)
}

// TestStreamReleaseEarly releases readers unread or read in part: each
// gives its connection back and leaves no goroutine behind.
func TestStreamReleaseEarly(t *testing.T) {
	db, _ := openTable(t, 20, 50000)
	require.Equal(t, int64(1000000), count(t, db.SQL(), "SELECT count(*) FROM t"))
	runtime.GC()
	base := runtime.NumGoroutine()
	for i := range 20 {
		rd, err := db.QueryArrow(context.Background(), "SELECT * FROM t")
		require.NoError(t, err)
		for range i % 3 {
			require.True(t, rd.Next(), rd.Err())
		}
		rd.Retain()
		rd.Release()
		require.Equal(t, 1, db.SQL().Stats().InUse, "a retained reader holds its connection")
		rd.Release()
		require.Zero(t, db.SQL().Stats().InUse, "round %d", i)
	}
	n := 0
	for range 100 {
		runtime.GC()
		if n = runtime.NumGoroutine(); n <= base+2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, n, base+2, "goroutines left by released readers")
	require.Equal(t, int64(1000000), count(t, db.SQL(), "SELECT count(*) FROM t"))
}

// TestStreamScanError: a scan unit failing after the first batch is
// out surfaces from Err with its message.
func TestStreamScanError(t *testing.T) {
	db, _ := openTable(t, 20, 50000)
	st, err := lookupTable(db.ids[0])
	require.NoError(t, err)
	units := st.Units
	boom := errors.New("reading t.tsfile: page at offset 1234: bad page")
	st.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		us, err := units(ctx, cols, pd)
		if err != nil || len(us) < 2 {
			return us, err
		}
		us[len(us)-1] = func(context.Context) (array.RecordReader, error) { return nil, boom }
		return us, nil
	}
	defer func() { st.Units = units }()
	rd, err := db.QueryArrow(context.Background(), "SELECT * FROM t")
	require.NoError(t, err)
	defer rd.Release()
	for rd.Next() {
	}
	require.ErrorContains(t, rd.Err(), "bad page")
}

// TestStreamPushdownHandOver: the pushdown streamQuery is given reaches
// the scan of its statement (bound at prepare, initialized at the first
// execution step), and is gone once the reader is released.
func TestStreamPushdownHandOver(t *testing.T) {
	db, _ := openTable(t, 4, 20000)
	st, err := lookupTable(db.ids[0])
	require.NoError(t, err)
	units := st.Units
	var seen []pushdown
	st.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		seen = append(seen, pd)
		return units(ctx, cols, pd)
	}
	defer func() { st.Units = units }()
	want := pushdown{Start: 100, End: 199, HasStart: true, HasEnd: true, Tags: map[string][]string{"region": {"r0001"}}}
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	var rows int64
	require.NoError(t, conn.Raw(func(dc any) error {
		rd, err := streamQuery(context.Background(), dc, "SELECT * FROM t WHERE time BETWEEN epoch_ms(100) AND epoch_ms(199) AND region = 'r0001'", nil, map[string]pushdown{db.ids[0]: want})
		if err != nil {
			return err
		}
		defer rd.Release()
		for rd.Next() {
			rows += rd.RecordBatch().NumRows()
		}
		return rd.Err()
	}))
	require.Equal(t, int64(100), rows)
	require.Equal(t, []pushdown{want}, seen)
	// A statement DuckDB refuses: its error, nothing left held.
	require.ErrorContains(t, conn.Raw(func(dc any) error {
		_, err := streamQuery(context.Background(), dc, "SELECT * FROM t WHERE time BETWEEN 1 AND 2", nil, map[string]pushdown{db.ids[0]: want})
		return err
	}), "Binder Error")
	// Released: the next statement on the connection has no pushdown.
	seen = nil
	var n int64
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, int64(80000), n)
	require.Equal(t, []pushdown{{}}, seen)
}
