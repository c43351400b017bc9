//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPushdownEndToEnd runs statements over a real TsFile through the
// views twice on one connection: with the pushdown planPushdown makes (as
// QueryArrow hands it to the scans) and with none. The rows must be the
// same, and a 1% time window must read fewer bytes with it.
func TestPushdownEndToEnd(t *testing.T) {
	const devices, rows = 4, 100000
	db, _ := openTable(t, devices, rows)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	require.Len(t, db.metas, 1)
	id := db.metas[0].ID

	// run answers the statement's rows as text and the bytes its scans read.
	run := func(t *testing.T, q string, push bool) ([]string, int64, pushdown) {
		qctx := ctx
		var pd pushdown
		if push {
			m, err := planPushdown(ctx, conn, q, db.metas)
			require.NoError(t, err)
			pd = m[id]
			qctx = withPushdown(ctx, m)
		}
		before := db.Stats().BytesRead
		rs, err := conn.QueryContext(qctx, q)
		require.NoError(t, err)
		defer rs.Close()
		cols, err := rs.Columns()
		require.NoError(t, err)
		var out []string
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rs.Scan(ptrs...))
			out = append(out, fmt.Sprint(vals...))
		}
		require.NoError(t, rs.Err())
		return out, db.Stats().BytesRead - before, pd
	}
	for _, tc := range []struct {
		name, q string
		pushed  bool // the plan must push something
		count   bool // compare the number of rows only (LIMIT without ORDER BY)
		window  bool // a 1% window: far fewer bytes
	}{
		{"window", `SELECT time, region, v, x FROM t WHERE time >= '1970-01-01 00:00:50+00' AND time < '1970-01-01 00:00:51+00' ORDER BY region, time`, true, false, true},
		{"window strict sub-ms", `SELECT count(*), sum(v) FROM t WHERE time > '1970-01-01 00:00:50.0005+00' AND time <= TIMESTAMP '1970-01-01 00:00:50.9999'`, true, false, false},
		{"between and tags", `SELECT region, count(*), min(v), max(v) FROM t WHERE time BETWEEN '1970-01-01 00:00:10+00' AND '1970-01-01 00:00:20+00' AND region IN ('r0001', 'r0003') GROUP BY ALL ORDER BY ALL`, true, false, false},
		{"tag", `SELECT count(*), sum(x) FROM t WHERE region = 'r0002'`, true, false, false},
		{"empty", `SELECT count(*) FROM t WHERE time > '1970-01-01 00:00:20+00' AND time < '1970-01-01 00:00:10+00'`, true, false, false},
		{"limit", `SELECT * FROM t WHERE time >= '1970-01-01 00:01:39.990+00' LIMIT 30`, true, true, false},
		{"limit tag offset", `SELECT time, v FROM t WHERE region = 'r0003' LIMIT 5 OFFSET 3`, true, true, false},
		{"or", `SELECT count(*) FROM t WHERE time < '1970-01-01 00:00:01+00' OR region = 'r0000'`, false, false, false},
		{"self join", `SELECT count(*) FROM t a JOIN t b ON a.time = b.time AND a.region = b.region WHERE a.time < '1970-01-01 00:00:01+00'`, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, offBytes, _ := run(t, tc.q, false)
			on, onBytes, pd := run(t, tc.q, true)
			require.Equal(t, tc.pushed, !pdIsZero(pd), "pushdown %+v", pd)
			require.NotEmpty(t, off)
			if tc.count {
				require.Len(t, on, len(off))
			} else {
				require.Equal(t, off, on)
			}
			t.Logf("pushdown %+v: %d bytes read, %d without", pd, onBytes, offBytes)
			if tc.window {
				// The file's chunks hold few pages, so what is skipped is
				// bounded by page granularity and the metadata every scan reads.
				require.Less(t, onBytes*2, offBytes, "a 1%% window should read far less")
			}
		})
	}
}
