//go:build cgo && duckdb_arrow

package sqlbench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/benchmarks"
	"github.com/tsarrow/tsarrow/query"
)

// serveFlightSQL starts the flight package's Flight SQL service over db
// (serving the generated file at path) on 127.0.0.1 in this process,
// stopped when the benchmark ends, and returns its address. It is set by
// flightsql_serve_test.go; a build without it (a flight package without
// Flight SQL) leaves it nil, and BenchmarkSQLFlight skips.
var serveFlightSQL func(b *testing.B, db *query.DB, path string) string

// tenPercent is a window holding 10% of every device's rows, starting
// where benchmarks.SelectiveWindow's does.
func tenPercent(devices, rows int) *arrowconv.TimeRange {
	w := benchmarks.SelectiveWindow(devices, rows)
	span := int64(rows/devices) * 1000
	return &arrowconv.TimeRange{Start: w.Start, End: w.Start + span/10 - 1}
}

// BenchmarkSQLFlight reads the result of a query that returns many rows
// (SELECT * of a 10% time window of the default mix: a tenth of the
// rows, every column) over loopback with arrow-go's Flight SQL client
// (Execute, then DoGet of every endpoint, every batch drained), from the
// flight package's Flight SQL service in this process over a query.DB;
// between its iterations, outside the timer, QueryArrow of the same query
// on the same DB in process. x-inprocess is the Flight SQL read's speed
// over the in-process one's (target >= 0.8).
func BenchmarkSQLFlight(b *testing.B) {
	rows := rowsOf(b)
	b.Run(fmt.Sprintf("%s/rows=%d/time=10pct", benchmarks.VariantDefault, rows), func(b *testing.B) {
		if serveFlightSQL == nil {
			b.Skip("the flight package has no Flight SQL service in this build yet (issue 38, sqlflight): not measured")
		}
		ctx := context.Background()
		path := ensure(b, benchmarks.VariantDefault, rows)
		db, table := openTsarrow(b, path)
		q := fmt.Sprintf("SELECT * FROM %s%s", table, timeWhere(tenPercent(benchmarks.Devices, rows)))
		addr := serveFlightSQL(b, db, path)
		cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		want, err := inProcessRows(ctx, db, q)
		if err != nil {
			b.Fatal(err)
		}
		if frac := float64(want) / float64(rows); frac < 0.09 || frac > 0.11 {
			b.Fatalf("the window holds %d of %d rows, not about 10%%", want, rows)
		}
		if got, err := flightSQLRows(ctx, cl, q); err != nil {
			b.Fatal(err)
		} else if got != want {
			b.Fatalf("Flight SQL returned %d rows, in process %d", got, want)
		}
		var inproc time.Duration
		b.ReportAllocs()
		for b.Loop() {
			got, err := flightSQLRows(ctx, cl, q)
			if err != nil {
				b.Fatal(err)
			}
			if got != want {
				b.Fatalf("Flight SQL returned %d rows, want %d", got, want)
			}
			b.StopTimer()
			start := time.Now()
			if _, err := inProcessRows(ctx, db, q); err != nil {
				b.Fatal(err)
			}
			inproc += time.Since(start)
			b.StartTimer()
		}
		perOp := b.Elapsed().Seconds() / float64(b.N)
		inPerOp := inproc.Seconds() / float64(b.N)
		b.ReportMetric(float64(want)/perOp, "rows/s")
		b.ReportMetric(inPerOp*1e9, "inprocess-ns/op")
		b.ReportMetric(inPerOp/perOp, "x-inprocess")
	})
}

// inProcessRows runs a query with QueryArrow and counts its rows.
func inProcessRows(ctx context.Context, db *query.DB, q string) (int64, error) {
	rr, err := db.QueryArrow(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", q, err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	return n, rr.Err()
}

// flightSQLRows runs a query over Flight SQL and counts its rows: every
// endpoint of the FlightInfo, read in order.
func flightSQLRows(ctx context.Context, cl *flightsql.Client, q string) (int64, error) {
	info, err := cl.Execute(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("Flight SQL Execute %s: %w", q, err)
	}
	var n int64
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return n, fmt.Errorf("Flight SQL DoGet: %w", err)
		}
		for rdr.Next() {
			n += rdr.RecordBatch().NumRows()
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
