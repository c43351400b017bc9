//go:build cgo && duckdb_arrow

package sqlbench

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/benchmarks"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/query"
	"github.com/tsarrow/tsarrow/tsfile"
)

// aggregate is issue 38's full-scan query: per device, a count, a mean and
// a maximum. The first %s is the table, the second a WHERE clause or
// nothing.
const aggregate = `SELECT device_id, count(*) AS n, avg(temperature) AS t, max(pressure) AS p FROM %s%s GROUP BY ALL`

// aggregateColumns are the columns the aggregate reads (the TAG comes
// from the device, not from pages): the projection the convert reference
// of the selective reads is given, so that both read the same chunks.
var aggregateColumns = []string{"time", "device_id", "temperature", "pressure"}

// threads is the DuckDB thread count of both engines: the cores Go uses.
func threads() int { return runtime.GOMAXPROCS(0) }

func rowsOf(b *testing.B) int {
	b.Helper()
	rows, err := benchmarks.Rows()
	if err != nil {
		b.Fatal(err)
	}
	return rows
}

func ensure(b *testing.B, variant string, rows int) string {
	b.Helper()
	p, err := benchmarks.Ensure(variant, rows)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// ident quotes a DuckDB identifier; literal a string constant.
func ident(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func literal(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

func readParquet(path string) string { return "read_parquet(" + literal(path) + ")" }

// openTsarrow opens a generated file with the query package and returns
// the database with the qualified name of the generated table.
func openTsarrow(b *testing.B, path string) (*query.DB, string) {
	b.Helper()
	db, err := query.Open(context.Background(), []string{path}, &query.Options{Threads: threads()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var names []string
	for _, t := range db.Tables() {
		if t.Name == benchmarks.Table {
			if t.Schema == "" {
				return db, ident(t.Name)
			}
			return db, ident(t.Schema) + "." + ident(t.Name)
		}
		names = append(names, t.Schema+"."+t.Name)
	}
	b.Fatalf("query.Open(%s): no table %q among %v", path, benchmarks.Table, names)
	return nil, ""
}

// groups is an aggregate's answer: rows per device, and the sum of the
// per-device maxima (a check that both engines read the same values).
type groups struct {
	n      map[string]int64
	maxSum float64
}

func (g groups) total() int64 {
	var t int64
	for _, n := range g.n {
		t += n
	}
	return t
}

// equal compares two answers: the same devices and counts, and the same
// maxima (a float sum, so to a relative 1e-9).
func (g groups) equal(o groups) error {
	if len(g.n) != len(o.n) {
		return fmt.Errorf("%d devices against %d", len(g.n), len(o.n))
	}
	for d, n := range g.n {
		if o.n[d] != n {
			return fmt.Errorf("device %s: %d rows against %d", d, n, o.n[d])
		}
	}
	if math.Abs(g.maxSum-o.maxSum) > 1e-9*math.Abs(g.maxSum) {
		return fmt.Errorf("sum of max(pressure) %v against %v", g.maxSum, o.maxSum)
	}
	return nil
}

// readGroups drains (and releases) the result of an aggregate.
func readGroups(rr array.RecordReader) (groups, error) {
	defer rr.Release()
	g := groups{n: map[string]int64{}}
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			n, err := intAt(rec.Column(1), i)
			if err != nil {
				return g, err
			}
			// A clone: the string may alias the batch's buffer, which
			// the engine reuses once the batch is released.
			g.n[strings.Clone(rec.Column(0).ValueStr(i))] += n
			if p, ok := rec.Column(3).(*array.Float64); ok && p.IsValid(i) {
				g.maxSum += p.Value(i)
			}
		}
	}
	return g, rr.Err()
}

func intAt(a arrow.Array, i int) (int64, error) {
	if c, ok := a.(*array.Int64); ok {
		return c.Value(i), nil
	}
	return strconv.ParseInt(a.ValueStr(i), 10, 64)
}

// tsarrowGroups runs an aggregate through QueryArrow.
func tsarrowGroups(ctx context.Context, db *query.DB, q string) (groups, error) {
	rr, err := db.QueryArrow(ctx, q)
	if err != nil {
		return groups{}, fmt.Errorf("%s: %w", q, err)
	}
	return readGroups(rr)
}

// peer is plain DuckDB, as a user queries the Parquet files convert
// wrote: a database of its own, with the same thread count, its result
// read as Arrow as QueryArrow's is.
type peer struct {
	db   *sql.DB
	conn *sql.Conn
}

func openPeer(b *testing.B) *peer {
	b.Helper()
	c, err := duckdb.NewConnector("", nil)
	if err != nil {
		b.Fatal(err)
	}
	p := &peer{db: sql.OpenDB(c)}
	b.Cleanup(func() { p.db.Close() })
	ctx := context.Background()
	if p.conn, err = p.db.Conn(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.conn.Close() })
	if _, err := p.conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", threads())); err != nil {
		b.Fatal(err)
	}
	return p
}

func (p *peer) groups(ctx context.Context, q string) (groups, error) {
	var g groups
	err := p.conn.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		rr, err := ar.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		g, err = readGroups(rr)
		return err
	})
	return g, err
}

// convert writes the generated table at path to a Parquet file at out as
// `ts2arrow convert -o out.parquet` does (export.WriteParquet, its
// defaults: ZSTD), and returns the rows written.
func convert(path, out string) (int64, error) {
	f, err := tsfile.OpenFile(path, nil)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rdr, err := arrowconv.NewTableReader(f, benchmarks.Table, nil)
	if err != nil {
		return 0, err
	}
	defer rdr.Release()
	w, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	n, err := export.WriteParquet(bw, rdr, &export.ParquetOptions{})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// convertThenQuery is what a user does today: convert the file to
// Parquet, then query the Parquet with DuckDB. It returns the answer and
// the time of both steps together; the Parquet file is removed after.
func convertThenQuery(ctx context.Context, p *peer, path string, rows int) (groups, time.Duration, error) {
	out := filepath.Join(benchmarks.Dir(), fmt.Sprintf("sql-convert-%d.parquet", os.Getpid()))
	defer os.Remove(out)
	start := time.Now()
	n, err := convert(path, out)
	if err != nil {
		return groups{}, 0, err
	}
	if n != int64(rows) {
		return groups{}, 0, fmt.Errorf("convert wrote %d rows, want %d", n, rows)
	}
	g, err := p.groups(ctx, fmt.Sprintf(aggregate, readParquet(out), ""))
	return g, time.Since(start), err
}

// BenchmarkSQLAggregate times issue 38's full-scan aggregate over the
// generated default-mix table with the query package (query.Open,
// QueryArrow, the result drained), and between its iterations, outside
// the timer, the same aggregate in a plain DuckDB over the same rows as
// ZSTD Parquet (the peer file export.WriteParquet wrote once, as
// `ts2arrow convert` writes it: read_parquet) and, while they have taken
// less time than the timed queries (and at least twice), convert then
// query: the TsFile converted to a ZSTD Parquet file with our exporter and
// that file queried by DuckDB, timed together. x-parquet is tsarrow's
// speed over DuckDB-on-Parquet's (target >= 0.8), x-convert over
// convert-then-query's (target >= 5). The untimed first round checks
// that both engines give the same answer.
func BenchmarkSQLAggregate(b *testing.B) {
	rows := rowsOf(b)
	b.Run(fmt.Sprintf("%s/rows=%d", benchmarks.VariantDefault, rows), func(b *testing.B) {
		ctx := context.Background()
		path := ensure(b, benchmarks.VariantDefault, rows)
		pq, err := benchmarks.EnsurePeer(benchmarks.PeerParquet, rows)
		if err != nil {
			b.Fatal(err)
		}
		db, table := openTsarrow(b, path)
		p := openPeer(b)
		ours := fmt.Sprintf(aggregate, table, "")
		theirs := fmt.Sprintf(aggregate, readParquet(pq), "")
		want, err := tsarrowGroups(ctx, db, ours)
		if err != nil {
			b.Fatal(err)
		}
		if want.total() != int64(rows) || len(want.n) != benchmarks.Devices {
			b.Fatalf("tsarrow counted %d rows of %d devices, want %d of %d", want.total(), len(want.n), rows, benchmarks.Devices)
		}
		got, err := p.groups(ctx, theirs)
		if err != nil {
			b.Fatal(err)
		}
		if err := want.equal(got); err != nil {
			b.Fatalf("tsarrow and DuckDB over Parquet disagree: %v", err)
		}
		var pqTime, convTime time.Duration
		pqRuns, convRuns := 0, 0
		b.ReportAllocs()
		for b.Loop() {
			g, err := tsarrowGroups(ctx, db, ours)
			if err != nil {
				b.Fatal(err)
			}
			if g.total() != int64(rows) {
				b.Fatalf("tsarrow counted %d rows, want %d", g.total(), rows)
			}
			b.StopTimer()
			start := time.Now()
			if _, err := p.groups(ctx, theirs); err != nil {
				b.Fatal(err)
			}
			pqTime += time.Since(start)
			pqRuns++
			if convRuns < 2 || convTime < b.Elapsed() {
				g, d, err := convertThenQuery(ctx, p, path, rows)
				if err != nil {
					b.Fatal(err)
				}
				if err := want.equal(g); err != nil {
					b.Fatalf("convert then query disagrees: %v", err)
				}
				convTime += d
				convRuns++
			}
			b.StartTimer()
		}
		perOp := b.Elapsed().Seconds() / float64(b.N)
		pqPerOp := pqTime.Seconds() / float64(pqRuns)
		convPerOp := convTime.Seconds() / float64(convRuns)
		b.ReportMetric(float64(rows)/perOp, "rows/s")
		b.ReportMetric(pqPerOp*1e9, "parquet-ns/op")
		b.ReportMetric(pqPerOp/perOp, "x-parquet")
		b.ReportMetric(convPerOp*1e9, "convert-ns/op")
		b.ReportMetric(convPerOp/perOp, "x-convert")
		b.ReportMetric(fileMB(b, pq), "parquet-MB")
		b.ReportMetric(fileMB(b, path), "tsfile-MB")
	})
}

func fileMB(b *testing.B, path string) float64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return float64(st.Size()) / 1e6
}

// timeWhere is the WHERE clause of a time range (ms, inclusive) as a user
// writes it: time >= start AND time < end, with TIMESTAMPTZ literals in
// UTC (the time column is a timestamp in UTC, as `schema --arrow` gives
// it), so that the answer does not depend on the session's time zone.
func timeWhere(r *arrowconv.TimeRange) string {
	ts := func(ms int64) string {
		return "TIMESTAMPTZ '" + time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000") + "+00'"
	}
	return fmt.Sprintf(" WHERE time >= %s AND time < %s", ts(r.Start), ts(r.End+1))
}

// BenchmarkSQLSelective times the aggregate restricted by a WHERE clause
// that pushdown lets the scan skip most of the file for, against the full
// aggregate of the same file (run between its iterations, outside the
// timer, whenever the full queries so far took less time than the timed
// ones, and at least twice, so both meet the same noise), as
// BenchmarkSelective does for arrowconv:
//
//   - default/rows=N/time=1pct: a window holding 1% of every device's rows
//     (benchmarks.SelectiveWindow) on the default mix;
//   - default-1000dev/rows=N/time=1pct: the same on the 1,000-device twin;
//   - default-1000dev/rows=N/device=1of1000: WHERE device_id = one device
//     of the twin.
//
// x-full is the full query's time over the selective one's (targets: 20
// for the window, 200 for the device). floor-ns/op times, between the
// iterations, the same aggregate over a window before the first row, which
// reads no page: the fixed cost of a query over the table. It reports what the scan read for
// each query (the query package's Stats: bytes read from the file, pages
// decoded, rows handed to DuckDB) and, as the reference, what arrowconv
// reads for `convert` with the same window or device and the query's
// columns (bytes through a counting io.ReaderAt, as the query package
// counts them, and arrowconv.Options.PagesDecoded), which pushdown should
// about equal.
func BenchmarkSQLSelective(b *testing.B) {
	rows := rowsOf(b)
	def, many := benchmarks.VariantDefault, benchmarks.VariantDefault+benchmarks.ManyDevicesSuffix
	dev := benchmarks.DeviceIDOf(benchmarks.ManyDevices, benchmarks.SelectiveDevice)
	devName, _ := dev.Segment(dev.Len() - 1)
	for _, c := range []struct {
		name, variant, where string
		o                    arrowconv.Options
	}{
		{"time=1pct", def, timeWhere(benchmarks.SelectiveWindow(benchmarks.Devices, rows)),
			arrowconv.Options{Time: benchmarks.SelectiveWindow(benchmarks.Devices, rows)}},
		{"time=1pct", many, timeWhere(benchmarks.SelectiveWindow(benchmarks.ManyDevices, rows)),
			arrowconv.Options{Time: benchmarks.SelectiveWindow(benchmarks.ManyDevices, rows)}},
		{fmt.Sprintf("device=1of%d", benchmarks.ManyDevices), many, " WHERE device_id = " + literal(devName),
			arrowconv.Options{Devices: []tsfile.DeviceID{dev}}},
	} {
		b.Run(fmt.Sprintf("%s/rows=%d/%s", c.variant, rows, c.name), func(b *testing.B) {
			benchSQLSelective(b, c.variant, rows, c.where, c.o)
		})
	}
}

func benchSQLSelective(b *testing.B, variant string, rows int, where string, o arrowconv.Options) {
	ctx := context.Background()
	path := ensure(b, variant, rows)
	db, table := openTsarrow(b, path)
	full := fmt.Sprintf(aggregate, table, "")
	sel := fmt.Sprintf(aggregate, table, where)
	// floor is the same query over a window before the first row: the
	// pushdown skips every page, so its time is what any query over the
	// table costs (planning, pushdown, opening the scan's units).
	floor := fmt.Sprintf(aggregate, table, timeWhere(&arrowconv.TimeRange{Start: benchmarks.GenStart - 2000, End: benchmarks.GenStart - 1001}))
	fullStats, fg, err := queryStats(ctx, db, full)
	if err != nil {
		b.Fatal(err)
	}
	if fg.total() != int64(rows) {
		b.Fatalf("full query counted %d rows, want %d", fg.total(), rows)
	}
	selStats, sg, err := queryStats(ctx, db, sel)
	if err != nil {
		b.Fatal(err)
	}
	got := sg.total()
	frac := float64(got) / float64(rows)
	if got == 0 || frac > 0.02 {
		b.Fatalf("selective query counted %d of %d rows", got, rows)
	}
	o.Columns = aggregateColumns
	conv, err := convertRead(path, &o)
	if err != nil {
		b.Fatal(err)
	}
	if conv.rows != got {
		b.Fatalf("convert with the same pushdown returns %d rows, the query counted %d", conv.rows, got)
	}
	var fullTime, floorTime time.Duration
	fulls := 0
	b.ReportAllocs()
	for b.Loop() {
		g, err := tsarrowGroups(ctx, db, sel)
		if err != nil {
			b.Fatal(err)
		}
		if g.total() != got {
			b.Fatalf("selective query counted %d rows, then %d", got, g.total())
		}
		b.StopTimer()
		start := time.Now()
		if g, err := tsarrowGroups(ctx, db, floor); err != nil {
			b.Fatal(err)
		} else if g.total() != 0 {
			b.Fatalf("the window before the first row counted %d rows", g.total())
		}
		floorTime += time.Since(start)
		b.StartTimer()
		if fulls < 2 || fullTime < b.Elapsed() {
			b.StopTimer()
			start := time.Now()
			g, err := tsarrowGroups(ctx, db, full)
			if err != nil {
				b.Fatal(err)
			}
			fullTime += time.Since(start)
			fulls++
			if g.total() != int64(rows) {
				b.Fatalf("full query counted %d rows, want %d", g.total(), rows)
			}
			b.StartTimer()
		}
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	fullPerOp := fullTime.Seconds() / float64(fulls)
	b.ReportMetric(frac, "rows-frac")
	b.ReportMetric(fullPerOp*1e9, "full-ns/op")
	b.ReportMetric(fullPerOp/perOp, "x-full")
	b.ReportMetric(float64(floorTime.Nanoseconds())/float64(b.N), "floor-ns/op")
	b.ReportMetric(float64(selStats.BytesRead)/1e6, "read-MB")
	b.ReportMetric(float64(selStats.PagesDecoded), "pages")
	b.ReportMetric(float64(selStats.RowsScanned), "rows-scanned")
	b.ReportMetric(float64(fullStats.BytesRead)/1e6, "full-read-MB")
	b.ReportMetric(float64(fullStats.PagesDecoded), "full-pages")
	b.ReportMetric(float64(fullStats.RowsScanned), "full-rows-scanned")
	b.ReportMetric(float64(conv.bytes)/1e6, "convert-read-MB")
	b.ReportMetric(float64(conv.pages), "convert-pages")
}

// queryStats runs an aggregate once and returns what the scan read for it
// (the difference of the cumulative Stats around it) with its answer.
func queryStats(ctx context.Context, db *query.DB, q string) (query.ScanStats, groups, error) {
	before := db.Stats()
	g, err := tsarrowGroups(ctx, db, q)
	after := db.Stats()
	return query.ScanStats{
		BytesRead:    after.BytesRead - before.BytesRead,
		PagesDecoded: after.PagesDecoded - before.PagesDecoded,
		RowsScanned:  after.RowsScanned - before.RowsScanned,
		Units:        after.Units - before.Units,
	}, g, err
}

// readCounter counts the bytes read through it.
type readCounter struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// readFigures is what one read returned and read: rows, file bytes and
// pages decoded.
type readFigures struct {
	rows, bytes, pages int64
}

// convertRead is the reference of a selective query: what arrowconv reads
// (as `convert --start --end` or a device filter reads) with the same
// pushdown and columns.
func convertRead(path string, o *arrowconv.Options) (readFigures, error) {
	var out readFigures
	fh, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return out, err
	}
	rc := &readCounter{r: fh}
	f, err := tsfile.Open(rc, st.Size(), nil)
	if err != nil {
		return out, err
	}
	defer f.Close()
	var pages atomic.Int64
	oc := *o
	oc.PagesDecoded = &pages
	rdr, err := arrowconv.NewTableReader(f, benchmarks.Table, &oc)
	if err != nil {
		return out, err
	}
	defer rdr.Release()
	for rdr.Next() {
		out.rows += rdr.RecordBatch().NumRows()
	}
	out.bytes, out.pages = rc.n.Load(), pages.Load()
	return out, rdr.Err()
}
