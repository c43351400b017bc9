//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/export"
)

// TestMeasureStreamBatches measures a 10M-row SELECT * (TestMeasureScan's
// file: 100 devices of 100,000 rows) written to Parquet and to an Arrow
// IPC stream (what Flight's DoGet encodes per batch), with DuckDB's
// 2,048-row chunks handed out one by one and gathered into 64K-row
// batches. It measures and asserts only the row counts; run with
// TSARROW_SQL_MEASURE=dir and -v.
func TestMeasureStreamBatches(t *testing.T) {
	dir := os.Getenv("TSARROW_SQL_MEASURE")
	if dir == "" {
		t.Skip("set TSARROW_SQL_MEASURE=dir to measure")
	}
	const devices, rows = 100, 100_000
	path := filepath.Join(dir, "m.tsfile")
	if _, err := os.Stat(path); err != nil {
		require.NoError(t, os.WriteFile(path, writeTable(t, devices, rows), 0o644))
	}
	db, err := Open(context.Background(), []string{path}, nil)
	require.NoError(t, err)
	defer db.Close()
	defer func(r int) { streamBatchRows = r }(streamBatchRows)
	for round := range 2 {
		for _, batch := range []int{0, 16 * 1024, 64 * 1024} {
			streamBatchRows = batch
			for _, sink := range []string{"parquet", "ipc-stream", "drain"} {
				rd, err := db.QueryArrow(context.Background(), "SELECT * FROM t")
				require.NoError(t, err)
				start := time.Now()
				var n int64
				switch sink {
				case "parquet":
					f, err := os.CreateTemp(dir, "out-*.parquet")
					require.NoError(t, err)
					n, err = export.WriteParquet(f, rd, nil)
					require.NoError(t, err)
					f.Close()
					os.Remove(f.Name())
				case "ipc-stream":
					n, err = export.WriteIPC(io.Discard, rd, &export.IPCOptions{Stream: true})
					require.NoError(t, err)
				case "drain":
					for rd.Next() {
						n += rd.RecordBatch().NumRows()
					}
					require.NoError(t, rd.Err())
				}
				el := time.Since(start)
				rd.Release()
				require.Equal(t, int64(devices*rows), n)
				t.Logf("round %d batch rows %6d %-10s %v (%.1f Mrows/s)", round, batch, sink, el.Round(time.Millisecond), float64(n)/el.Seconds()/1e6)
			}
		}
	}
}
