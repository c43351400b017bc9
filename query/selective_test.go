//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestSelectiveReadsLikeConvert: over a file of many devices, a query of
// one device reads about the bytes convert --where reads for it, and a
// window no device reaches opens no unit: the scan cuts its units from
// the devices the pushdown leaves, not from all of them (each unit's
// reader looked its devices up in the index, which cost more than the
// device's pages).
func TestSelectiveReadsLikeConvert(t *testing.T) {
	const devices, rows = 600, 200
	db, path := openTable(t, devices, rows)
	ctx := context.Background()
	run := func(q string) (groups int64, read, units int64) {
		t.Helper()
		before := db.Stats()
		rd, err := db.QueryArrow(ctx, q)
		require.NoError(t, err, q)
		for rd.Next() {
			groups += rd.RecordBatch().NumRows()
		}
		require.NoError(t, rd.Err(), q)
		rd.Release()
		after := db.Stats()
		return groups, after.BytesRead - before.BytesRead, after.Units - before.Units
	}
	// The first query lists the table's devices once; later ones do not.
	n, _, _ := run("SELECT region, count(*) FROM t GROUP BY ALL")
	require.Equal(t, int64(devices), n)

	// convert with the device region=r0300 (as the benchmarks' reference
	// reads one device), on a file opened afresh: the bytes read after
	// the footer.
	var counted atomic.Int64
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	fi, err := fh.Stat()
	require.NoError(t, err)
	f, err := tsfile.Open(&countingReaderAt{r: fh, n: &counted}, fi.Size(), nil)
	require.NoError(t, err)
	counted.Store(0)
	cr, err := arrowconv.NewTableReader(f, "t", &arrowconv.Options{Devices: []tsfile.DeviceID{tsfile.NewDeviceID("t", "r0300")}, Columns: []string{"time", "region", "v"}})
	require.NoError(t, err)
	var convRows int64
	for cr.Next() {
		convRows += cr.RecordBatch().NumRows()
	}
	require.NoError(t, cr.Err())
	cr.Release()
	conv := counted.Load()
	require.Equal(t, int64(rows), convRows)

	q := "SELECT region, count(*), sum(v) FROM t WHERE region = 'r0300' GROUP BY ALL"
	n, read, units := run(q)
	require.Equal(t, int64(1), n)
	require.Equal(t, int64(1), units, q)
	t.Logf("one device of %d: the query read %d bytes, convert --where %d", devices, read, conv)
	require.LessOrEqual(t, read, 3*conv, "one device of %d: the query read %d bytes, convert --where %d", devices, read, conv)

	// A window before the first row: no device can match.
	q = "SELECT count(*) FROM t WHERE time < epoch_ms(0)"
	n, read, units = run(q)
	require.Equal(t, int64(1), n)
	require.Zero(t, units, q)
	require.Zero(t, read, q)
}
