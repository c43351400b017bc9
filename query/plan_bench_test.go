//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"
)

// planBenchQueries are the statements whose planning cost the issue's
// speed targets depend on (the pushdown must cost far less than the scan
// it saves).
var planBenchQueries = []struct{ name, q string }{
	{"no_where", `SELECT * FROM t`},
	{"window", `SELECT * FROM t WHERE time >= '1970-01-01 00:00:00.010' AND time < '1970-01-01 00:00:00.020'`},
	{"count_window", `SELECT count(*) FROM t WHERE time >= '1970-01-01 00:00:00.010' AND time < '1970-01-01 00:00:00.020'`},
	{"tag_in", `SELECT region, count(*), avg(x) FROM t WHERE region IN ('r0001', 'r0002') GROUP BY ALL`},
}

// BenchmarkPlan measures what planning a statement's pushdown costs on a
// DB of Open whose raw handles were never handed out: "live" reads the
// catalog per statement (as for Register's DB, or once SQL was called),
// "snapshot" plans with the catalog snapshot, "cached" is QueryArrow's
// path (the statement's plan kept by its text, after the first), which
// also skips "readonly" (checkReadOnly) for a kept statement.
//
//	go test -tags duckdb_arrow ./query -run '^$' -bench BenchmarkPlan
//
// Measured on the shared 2-core box (load average 8-10, where one DuckDB
// round trip, even SELECT 1, costs ~1 ms), ms per statement: before the
// snapshot (planPushdown at 81968c6) / live now / snapshot / kept:
//
//	no WHERE             0.9-1.4 / 0.8-1.2 / 0.8-1.2 / 0.0002
//	time window          5.7-6.5 / 5.5-10  / 2.5-3.9 / 0.001
//	count(*), window     35-45   / 25-160  / 2.3-2.7 / 0.0015
//	region IN (2 tags)   24-36   / 33-66   / 2.0-2.6 / 0.002
//
// (checkReadOnly, which QueryArrow also skips for a kept statement: 0.3-1.)
func BenchmarkPlan(b *testing.B) {
	db, _ := openTable(b, 4, 1000)
	ctx := context.Background()
	conn, err := db.db.Conn(ctx) // not db.Conn: that hands the catalog out
	require.NoError(b, err)
	defer conn.Close()
	for _, bq := range planBenchQueries {
		b.Run(bq.name+"/live", func(b *testing.B) {
			for b.Loop() {
				if _, err := planPushdown(ctx, conn, bq.q, db.metas); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bq.name+"/readonly", func(b *testing.B) {
			for b.Loop() {
				if _, err := checkReadOnly(ctx, conn, bq.q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bq.name+"/snapshot", func(b *testing.B) {
			snap := func() (*pdCatalog, error) { return db.catalog(ctx, conn) }
			for b.Loop() {
				if _, _, err := planPushdownWith(ctx, conn, bq.q, db.metas, snap); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bq.name+"/cached", func(b *testing.B) {
			for b.Loop() {
				_, end, err := db.planFor(ctx, conn, bq.q, duckdb.STATEMENT_TYPE_SELECT)
				if err != nil {
					b.Fatal(err)
				}
				end()
			}
			if bq.name != "no_where" && db.plan.cat == nil {
				b.Fatal("the catalog snapshot was not kept")
			}
		})
	}
}
