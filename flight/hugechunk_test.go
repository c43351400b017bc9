package flight

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

// Four clients at once read a sparse file of half a gigabyte whose time
// chunk declares all of it as data, zeros, from a server whose memory
// budget is 256 MiB (issue 36: four such reads took a server to 4.23 GB).
// Each stream fails at the chunk's first page header; the bytes the server
// allocates in all, its live heap above idle and its metered memory stay
// within the budget.
func TestHugeTimeChunkWithinBudget(t *testing.T) {
	const budget = 256 << 20
	const clients = 4
	root := t.TempDir()
	valid := testkit.AlignedTable(t, 100, nil)
	testkit.HugeTimeChunk(t, valid, "t", 512<<20).WriteFile(t, filepath.Join(root, "huge.tsfile"))
	srv := startServer(t, Options{Root: root, MemoryLimit: budget, IdleRelease: -1})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, cmdDesc(t, Query{Table: "t"}))
	require.Len(t, fi.Endpoint, 1)

	base := liveHeap()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	hs := sampleHeap()
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for k := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[k] = rowsDigest(context.Background(), c, &arrowflight.FlightInfo{Endpoint: fi.Endpoint})
		}()
	}
	wg.Wait()
	peak := hs.end()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	for k, err := range errs {
		require.Error(t, err, "client %d", k)
		assert.Contains(t, err.Error(), "page header at offset", "client %d", k)
		assert.Contains(t, err.Error(), "empty page in a chunk that is not an aligned value chunk", "client %d", k)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("budget %s: %d streams allocated %s in all; live heap %s idle, peak %s above it; peak metered memory %s",
		byteCount(budget), clients, byteCount(int64(alloc)), byteCount(int64(base)), byteCount(int64(peak)-int64(base)), byteCount(srv.arrow.Peak()))
	assert.LessOrEqual(t, srv.arrow.Peak(), int64(budget), "the streams' metered memory")
	assert.LessOrEqual(t, int64(peak)-int64(base), int64(budget), "the live heap above idle")
	if !raceEnabled {
		assert.Less(t, alloc, uint64(budget), "bytes allocated by the streams")
	}
}
