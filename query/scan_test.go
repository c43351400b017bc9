//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestPushdownSkipsOnly hands the scan pushdowns the statements' WHERE
// and LIMIT imply (as sqlpush's planPushdown will) and requires the same
// answers as without, with fewer rows scanned.
func TestPushdownSkipsOnly(t *testing.T) {
	const devices, rows = 4, 3000
	db, _ := openTable(t, devices, rows)
	id := db.ids[0]
	ctx := context.Background()
	for _, tc := range []struct {
		q  string
		pd pushdown
	}{
		{"SELECT count(*), sum(v) FROM t WHERE time >= epoch_ms(100) AND time <= epoch_ms(199)",
			pushdown{Start: 100, End: 199, HasStart: true, HasEnd: true}},
		{"SELECT count(*), sum(v) FROM t WHERE region IN ('r0001', 'r0003')",
			pushdown{Tags: map[string][]string{"region": {"r0001", "r0003"}}}},
		{"SELECT count(*), sum(v) FROM t WHERE region = 'r0002' AND time > epoch_ms(2900)",
			pushdown{Start: 2901, HasStart: true, Tags: map[string][]string{"region": {"r0002"}}}},
		{"SELECT count(*), sum(v) FROM t WHERE time > epoch_ms(5) AND time < epoch_ms(3)",
			pushdown{Empty: true}},
		{`SELECT count(*), sum(v) FROM (SELECT v FROM t WHERE region = '\N' LIMIT 5)`,
			pushdown{Tags: map[string][]string{"region": {`\N`}}, Limit: 5}},
	} {
		run := func(ctx context.Context) (string, int64, int64) {
			conn, err := db.Conn(ctx)
			require.NoError(t, err)
			defer conn.Close()
			before := db.Stats()
			var n int64
			var s *int64
			require.NoError(t, conn.QueryRowContext(ctx, tc.q).Scan(&n, &s), tc.q)
			got := fmt.Sprint(n)
			if s != nil {
				got += fmt.Sprint(" ", *s)
			}
			after := db.Stats()
			return got, after.RowsScanned - before.RowsScanned, after.PagesDecoded - before.PagesDecoded
		}
		want, all, allPages := run(ctx)
		got, some, somePages := run(withPushdown(ctx, map[string]pushdown{id: tc.pd}))
		require.Equal(t, want, got, tc.q)
		if tc.pd.Empty {
			// DuckDB may see the contradiction itself and scan nothing.
			require.Zero(t, some, tc.q)
			continue
		}
		require.Equal(t, int64(devices*rows), all, tc.q)
		require.Less(t, some, all, tc.q)
		require.Positive(t, allPages, tc.q)
		require.LessOrEqual(t, somePages, allPages, tc.q)
	}
}

// TestStatsDataset: the bytes of IoTDB data files count in Stats.
func TestStatsDataset(t *testing.T) {
	db, err := Open(context.Background(), []string{"../testdata/iotdb"}, nil)
	require.NoError(t, err)
	defer db.Close()
	before := db.Stats()
	n := count(t, db.SQL(), "SELECT count(*) FROM weather")
	after := db.Stats()
	require.Equal(t, n, after.RowsScanned-before.RowsScanned)
	require.Greater(t, after.BytesRead, before.BytesRead)
	require.Greater(t, after.PagesDecoded, before.PagesDecoded)
	require.Positive(t, after.Units)
}

// TestConcurrentQueries runs eight QueryArrow streams at once (as Flight
// SQL clients do), each over the scans, and checks every answer.
func TestConcurrentQueries(t *testing.T) {
	const devices, rows = 3, 4000
	db, _ := openTable(t, devices, rows)
	ctx := context.Background()
	errs := make(chan error, 8)
	for k := range 8 {
		go func() {
			errs <- func() error {
				rd, err := db.QueryArrow(ctx, "SELECT count(*), sum(v)::BIGINT FROM t WHERE v >= ?", k)
				if err != nil {
					return err
				}
				defer rd.Release()
				if !rd.Next() {
					return fmt.Errorf("no row: %v", rd.Err())
				}
				rec := rd.RecordBatch()
				n, s := rec.Column(0).ValueStr(0), rec.Column(1).ValueStr(0)
				wantN := devices * (rows - k)
				wantS := devices * (rows*(rows-1)/2 - k*(k-1)/2)
				if n != fmt.Sprint(wantN) || s != fmt.Sprint(wantS) {
					return fmt.Errorf("k=%d: got %s %s, want %d %d", k, n, s, wantN, wantS)
				}
				return nil
			}()
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}

func TestWhereLiteral(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"north", "north"},
		{`\N`, `\\N`},
		{`\\N`, `\\\N`},
		{"N", "N"},
		{`a\N`, `a\N`},
		{"", ""},
	} {
		require.Equal(t, tc.out, whereLiteral(tc.in), tc.in)
		// arrowconv reads it back as the value, never as null.
		v, null := arrowconv.ParseWhereValue(whereLiteral(tc.in))
		require.False(t, null, tc.in)
		require.Equal(t, tc.in, v)
	}
}

func TestDeviceGroups(t *testing.T) {
	var devs []tsfile.DeviceID
	for i := range 10 {
		devs = append(devs, tsfile.NewDeviceID("t", fmt.Sprint(i)))
	}
	for _, n := range []int{0, 1, 3, 10, 40} {
		gs := deviceGroups(devs, n)
		if n <= 1 {
			require.Equal(t, [][]tsfile.DeviceID{nil}, gs)
			continue
		}
		require.Len(t, gs, min(n, len(devs)))
		var all []tsfile.DeviceID
		for _, g := range gs {
			require.NotEmpty(t, g)
			all = append(all, g...)
		}
		require.Equal(t, devs, all, "every device once, in order")
	}
	require.Equal(t, [][]tsfile.DeviceID{nil}, deviceGroups(nil, 8))
}

// TestEarlyEndReleases: a statement that stops its scans early (LIMIT)
// leaves no reader behind: a dataset reader merging overlapping files
// holds goroutines until it is released.
func TestEarlyEndReleases(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"sequence/db/1/0/1-1-0-0.tsfile", "unsequence/db/1/0/2-2-0-0.tsfile"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, writeTable(t, 2, 20000), 0o644))
	}
	db, err := Open(context.Background(), []string{dir}, nil)
	require.NoError(t, err)
	defer db.Close()
	require.Equal(t, int64(40000), count(t, db.SQL(), "SELECT count(*) FROM db.t"))
	runtime.GC()
	base := runtime.NumGoroutine()
	for range 10 {
		count(t, db.SQL(), "SELECT count(*) FROM (SELECT * FROM db.t LIMIT 1)")
	}
	n := 0
	for range 100 {
		runtime.GC()
		if n = runtime.NumGoroutine(); n <= base+2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, n, base+2, "goroutines left by abandoned scans")
}
