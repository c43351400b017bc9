package flight

import (
	"context"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
)

// writeLongStrings writes a table of one device whose rows carry a string
// of width bytes: a file whose default batch is tens of MiB of Arrow data.
func writeLongStrings(t testing.TB, path string, rows, width int) {
	t.Helper()
	tag := arrow.NewMetadata([]string{arrowconv.MetaCategory}, []string{"TAG"})
	meta := arrow.NewMetadata([]string{arrowconv.MetaTable}, []string{"notes"})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "device", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: tag},
		{Name: "seq", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
	}, &meta)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	pad := strings.Repeat("lorem ipsum dolor sit amet ", width/27+1)
	var recs []arrow.RecordBatch
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + int64(i)))
		b.Field(1).(*array.StringBuilder).Append("d1")
		b.Field(2).(*array.Int64Builder).Append(int64(i))
		s := fmt.Sprintf("%08d", i) + pad
		b.Field(3).(*array.StringBuilder).Append(s[:width])
		if (i+1)%4096 == 0 || i == rows-1 {
			recs = append(recs, b.NewRecordBatch())
		}
	}
	rr, err := array.NewRecordReader(schema, recs)
	require.NoError(t, err)
	defer rr.Release()
	for _, r := range recs {
		r.Release()
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = fromarrow.WriteTsFile(f, rr, nil)
	require.NoError(t, err)
}

// A stream's batches are cut from its share before they are decoded, so a
// file of long strings stays within --stream-memory instead of building a
// default batch of 60 MB and failing once it is built.
func TestStreamMemoryHoldsLongStrings(t *testing.T) {
	root := t.TempDir()
	const rows, width = 40_000, 1500 // about 61 MB of Arrow data
	writeLongStrings(t, filepath.Join(root, "notes.tsfile"), rows, width)
	for _, limit := range []int64{50 << 20, 20 << 20} {
		t.Run(byteCount(limit), func(t *testing.T) {
			srv := startServer(t, Options{Root: root, StreamMemory: limit})
			c := dial(t, srv.addr)
			fi := getInfo(t, c, pathDesc("notes"))
			require.Len(t, fi.Endpoint, 1)
			got, _ := doGet(t, context.Background(), c, fi.Endpoint[0])
			require.Len(t, got, rows)
			peak := srv.arrow.Peak()
			t.Logf("stream memory %s: peak Arrow memory %s", byteCount(limit), byteCount(peak))
			// Slack: the builders' capacity runs a page past the batch.
			assert.LessOrEqual(t, peak, limit+limit/20, "peak %s over the stream's %s", byteCount(peak), byteCount(limit))
		})
	}
}

// rowsDigest reads a flight's streams and returns its row count and a
// digest of its values, so that many clients can compare results without
// holding them.
func rowsDigest(ctx context.Context, c arrowflight.Client, fi *arrowflight.FlightInfo) (int, uint64, error) {
	var h maphash.Hash
	h.SetSeed(digestSeed)
	n := 0
	for _, ep := range fi.Endpoint {
		s, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return 0, 0, err
		}
		r, err := arrowflight.NewRecordReader(s)
		if err != nil {
			return 0, 0, err
		}
		for r.Next() {
			rec := r.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				for _, col := range rec.Columns() {
					hashValue(&h, col, i)
				}
				n++
			}
		}
		err = r.Err()
		r.Release()
		if err != nil {
			return 0, 0, err
		}
	}
	return n, h.Sum64(), nil
}

var digestSeed = maphash.MakeSeed()

// hashValue adds value i of a to h, independently of the array's layout
// (offset, dictionary), without formatting it.
func hashValue(h *maphash.Hash, a arrow.Array, i int) {
	if a.IsNull(i) {
		h.WriteByte(0)
		return
	}
	h.WriteByte(1)
	switch a := a.(type) {
	case *array.Dictionary:
		hashValue(h, a.Dictionary(), a.GetValueIndex(i))
	case *array.String:
		h.WriteString(a.Value(i))
	case *array.Binary:
		h.Write(a.Value(i))
	case *array.Boolean:
		if a.Value(i) {
			h.WriteByte(1)
		}
	default:
		if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && fw.BitWidth()%8 == 0 {
			w := fw.BitWidth() / 8
			off := (a.Data().Offset() + i) * w
			h.Write(a.Data().Buffers()[1].Bytes()[off : off+w])
			return
		}
		h.WriteString(a.ValueStr(i))
	}
}

// heapSampler records the peak live heap (as of each collection's mark)
// while it runs.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func sampleHeap() *heapSampler {
	hs := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(hs.done)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > hs.peak.Load() {
				hs.peak.Store(v)
			}
			select {
			case <-hs.stop:
				return
			case <-t.C:
			}
		}
	}()
	return hs
}

func (hs *heapSampler) end() uint64 {
	close(hs.stop)
	<-hs.done
	return hs.peak.Load()
}

func liveHeap() uint64 {
	// Twice: a sync.Pool keeps what it held through one collection.
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// 32 arrow-go clients read every table of the upstream files at once,
// several times each, from a server whose budget is small enough that
// streams wait for it: every read matches a lone client's, the live heap
// stays within the budget plus 10%, and no goroutine is left behind.
func TestManyClientsWithinBudget(t *testing.T) {
	interop := filepath.Join("..", "..", "shared", "interop")
	if _, err := os.Stat(filepath.Join(interop, "manifest.json")); err != nil {
		need.Skipf(t, "shared/interop is not beside the checkout")
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// The budget lets about a third of the clients' streams run at once.
	// The clients run in this process too: their batches and connections
	// count in the live heap besides the server's.
	const budget = 40 << 20
	const clients = 32
	rows, rounds := int64(25_000), 3
	if raceEnabled {
		rows, rounds = 2000, 2
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	func() {
		srv := startServerNoCleanup(t, Options{Root: interop, MemoryLimit: budget, Allocator: mem, IdleRelease: -1})
		defer srv.stop(t)
		c := dialNoCleanup(t, srv.addr)
		defer c.Close()
		var infos []*arrowflight.FlightInfo
		lf, err := c.ListFlights(context.Background(), &arrowflight.Criteria{})
		require.NoError(t, err)
		for {
			fi, err := lf.Recv()
			if err != nil {
				break
			}
			if len(fi.FlightDescriptor.Path) != 1 { // one flight per table
				continue
			}
			// At most rows rows of each table, to stay within seconds.
			fi = getInfo(t, c, cmdDesc(t, Query{Table: fi.FlightDescriptor.Path[0], Limit: rows}))
			infos = append(infos, fi)
		}
		require.NotEmpty(t, infos)
		type result struct {
			rows int
			sum  uint64
		}
		want := make([]result, len(infos))
		for i, fi := range infos {
			n, sum, err := rowsDigest(context.Background(), c, fi)
			require.NoError(t, err, "%s", fi.FlightDescriptor.Cmd)
			require.Positive(t, n)
			want[i] = result{n, sum}
			t.Logf("%s: %d rows", fi.FlightDescriptor.Cmd, n)
		}
		base := liveHeap()
		hs := sampleHeap()
		var wg sync.WaitGroup
		errs := make([]error, clients)
		for k := 0; k < clients; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				c := dialNoCleanup(t, srv.addr, clientWindow...)
				defer c.Close()
				for r := 0; r < rounds; r++ {
					for j := range infos {
						i := (j + k + r) % len(infos)
						n, sum, err := rowsDigest(context.Background(), c, infos[i])
						if err == nil && (result{n, sum}) != want[i] {
							err = fmt.Errorf("%s: %d rows differ from a lone client's %d rows", infos[i].FlightDescriptor.Cmd, n, want[i].rows)
						}
						if err != nil {
							errs[k] = err
							return
						}
					}
				}
			}(k)
		}
		wg.Wait()
		peak := hs.end()
		for k, err := range errs {
			require.NoError(t, err, "client %d", k)
		}
		arrowPeak := srv.arrow.Peak()
		t.Logf("budget %s: peak Arrow memory %s; live heap %s idle, peak %s above it",
			byteCount(budget), byteCount(arrowPeak), byteCount(int64(base)), byteCount(int64(peak)-int64(base)))
		assert.LessOrEqual(t, arrowPeak, int64(budget), "the streams' Arrow memory")
		assert.LessOrEqual(t, int64(peak)-int64(base), int64(budget+budget/10), "the live heap above idle")
	}()
	mem.AssertSize(t, 0)
}

// The budget admits streams in arrival order against both the stream
// count and the bytes, gives both back on release, and reports which
// limit a stream waited on in vain.
func TestBudgetAdmission(t *testing.T) {
	ctx := context.Background()
	t.Run("bytes", func(t *testing.T) {
		b := newMemBudget(100, 10, 0, -1)
		r1, err := b.reserve(ctx, "", 60, time.Second)
		require.NoError(t, err)
		_, err = b.reserve(ctx, "", 50, 20*time.Millisecond)
		require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
		assert.Contains(t, err.Error(), "memory budget is spent")
		assert.Contains(t, err.Error(), "--memory-limit")
		got := make(chan error, 1)
		go func() {
			r, err := b.reserve(ctx, "", 50, time.Minute)
			if err == nil {
				r()
			}
			got <- err
		}()
		waitFor(t, "the waiter to queue", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.queue) == 1 })
		r1()
		require.NoError(t, <-got)
		n, used := b.inUse()
		assert.Equal(t, 0, n)
		assert.Zero(t, used)
	})
	t.Run("per peer", func(t *testing.T) {
		// Two streams a peer. Peer a's third waits, keeping its place,
		// while b's stream queued behind it is admitted; a's is admitted
		// once one of its own ends, and only then.
		b := newMemBudget(100, 10, 2, -1)
		a1, err := b.reserve(ctx, "a", 10, time.Second)
		require.NoError(t, err)
		a2, err := b.reserve(ctx, "a", 10, time.Second)
		require.NoError(t, err)
		_, err = b.reserve(ctx, "a", 10, 20*time.Millisecond)
		require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
		assert.Contains(t, err.Error(), "--max-streams-per-peer")
		got := make(chan error, 1)
		go func() {
			r, err := b.reserve(ctx, "a", 10, time.Minute)
			if err == nil {
				r()
			}
			got <- err
		}()
		waitFor(t, "a's third to queue", func() bool { return b.queued() == 1 })
		b1, err := b.reserve(ctx, "b", 10, 20*time.Millisecond)
		require.NoError(t, err, "b is not held back by a's queued stream")
		n, _ := b.inUse()
		assert.Equal(t, 3, n)
		b1()
		assert.Equal(t, 1, b.queued(), "b's end does not admit a's third")
		a1()
		require.NoError(t, <-got)
		a2()
		n, used := b.inUse()
		assert.Equal(t, 0, n)
		assert.Zero(t, used)
		assert.Empty(t, b.peers)
	})
	t.Run("streams", func(t *testing.T) {
		b := newMemBudget(100, 1, 0, -1)
		r1, err := b.reserve(ctx, "", 1, time.Second)
		require.NoError(t, err)
		_, err = b.reserve(ctx, "", 1, 20*time.Millisecond)
		require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
		assert.Contains(t, err.Error(), "all 1 streams are busy")
		r1()
		r1() // a second release gives nothing back twice
		n, used := b.inUse()
		assert.Equal(t, 0, n)
		assert.Zero(t, used)
	})
	t.Run("in order", func(t *testing.T) {
		// A large waiter at the head is not overtaken by a small one
		// that would fit.
		b := newMemBudget(100, 10, 0, -1)
		r1, err := b.reserve(ctx, "", 60, time.Second)
		require.NoError(t, err)
		bigIn := make(chan func(), 1)
		go func() {
			r, err := b.reserve(ctx, "", 80, time.Minute)
			assert.NoError(t, err)
			bigIn <- r
		}()
		waitFor(t, "the large waiter to queue", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.queue) == 1 })
		_, err = b.reserve(ctx, "", 10, 20*time.Millisecond)
		require.Equal(t, codes.ResourceExhausted, status.Code(err), "the small stream overtook the large one")
		r1()
		(<-bigIn)()
	})
	t.Run("cancelled", func(t *testing.T) {
		b := newMemBudget(100, 10, 0, -1)
		r1, err := b.reserve(ctx, "", 100, time.Second)
		require.NoError(t, err)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err = b.reserve(cctx, "", 10, time.Minute)
		assert.Equal(t, codes.Canceled, status.Code(err), "%v", err)
		r1()
		b.mu.Lock()
		assert.Empty(t, b.queue)
		b.mu.Unlock()
	})
	t.Run("larger than the budget", func(t *testing.T) {
		b := newMemBudget(100, 10, 0, -1)
		r, err := b.reserve(ctx, "", 1000, time.Second)
		require.NoError(t, err, "a stream alone must always run")
		r()
	})
}

// Memory is given back once no stream has run for the quiet period, and
// not while streams come and go.
func TestBudgetGivesBackWhenIdle(t *testing.T) {
	b := newMemBudget(100, 10, 0, 30*time.Millisecond)
	var gave atomic.Int32
	b.giveBack = func() { gave.Add(1) }
	r, err := b.reserve(context.Background(), "", 10, time.Second)
	require.NoError(t, err)
	r2, err := b.reserve(context.Background(), "", 10, time.Second)
	require.NoError(t, err)
	r()
	time.Sleep(60 * time.Millisecond)
	assert.Zero(t, gave.Load(), "given back while a stream runs")
	r2()
	waitFor(t, "memory to be given back", func() bool { return gave.Load() == 1 })
	// A stream admitted before the quiet period ends cancels it.
	r3, err := b.reserve(context.Background(), "", 10, time.Second)
	require.NoError(t, err)
	r3()
	r4, err := b.reserve(context.Background(), "", 10, time.Second)
	require.NoError(t, err)
	time.Sleep(60 * time.Millisecond)
	assert.Equal(t, int32(1), gave.Load())
	r4()
	waitFor(t, "memory to be given back again", func() bool { return gave.Load() == 2 })
	b.stop()
}

// A stream that finds the server's budget held waits, and fails with
// RESOURCE_EXHAUSTED naming the budget after QueueWait.
func TestBudgetSpentOverFlight(t *testing.T) {
	root := bigRoot(t)
	srv := startServer(t, Options{Root: root, MemoryLimit: 8 << 20, QueueWait: 100 * time.Millisecond, BatchSize: 4096})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	// Another user of the server holds the whole budget.
	hold, err := srv.budget.reserve(context.Background(), "", 8<<20, time.Second)
	require.NoError(t, err)
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s.Recv()
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	assert.Contains(t, err.Error(), "--memory-limit")
	hold()
	rows, _ := doGet(t, context.Background(), c, fi.Endpoint[0])
	assert.Len(t, rows, 4*60_000)
}

// sizeStream keeps the configured batch when it fits the fair share, cuts
// it to fit otherwise, and never below the floor.
func TestSizeStream(t *testing.T) {
	for _, tc := range []struct {
		name          string
		limit, stream int64
		streams       int
		rows          int64
		width         float64
		wantBatch     int
		shareAtMost   int64
	}{
		{"fits", 4 << 30, 1 << 30, 64, 1 << 20, 100, 65536, 64 << 20},
		{"fewer rows than a batch", 4 << 30, 1 << 30, 64, 1000, 100, 1000, 64 << 20},
		{"long strings", 4 << 30, 50 << 20, 64, 40_000, 1524, 5504, 50 << 20},
		{"floor", 16 << 20, 1 << 30, 64, 1 << 20, 100, minBatchRows, 16 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{opts: Options{MemoryLimit: tc.limit, StreamMemory: tc.stream, MaxStreams: tc.streams}}
			share, batch := s.sizeStream(tc.rows, tc.width, 4)
			assert.Equal(t, tc.wantBatch, batch)
			assert.LessOrEqual(t, share, tc.shareAtMost)
			assert.GreaterOrEqual(t, share, int64(float64(batchesInFlight*batch)*tc.width))
		})
	}
}

// GoMemoryLimit sets the runtime's soft limit from the budget for the
// server's life and restores the previous one at Shutdown; without it the
// runtime is left alone.
func TestGoMemoryLimit(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set, which the option defers to")
	}
	prev := debug.SetMemoryLimit(-1)
	for _, set := range []bool{false, true} {
		srv := startServerNoCleanup(t, Options{Root: t.TempDir(), MemoryLimit: 512 << 20, GoMemoryLimit: set})
		got := debug.SetMemoryLimit(-1)
		if set {
			// What the runtime held idle, plus the budget.
			base := got - 512<<20
			assert.Positive(t, base)
			assert.Less(t, base, int64(1<<30))
		} else {
			assert.Equal(t, prev, got, "GoMemoryLimit %v", set)
		}
		srv.stop(t)
		assert.Equal(t, prev, debug.SetMemoryLimit(-1), "restored at Shutdown")
	}
}

func TestDefaultMemoryLimit(t *testing.T) {
	d := DefaultMemoryLimit()
	assert.Positive(t, d)
	assert.LessOrEqual(t, d, int64(4<<30))
	if runtime.GOOS == "linux" {
		phys := physicalMemory()
		require.Positive(t, phys, "sysinfo")
		assert.Equal(t, min(phys/4, 4<<30), d)
	}
}

// clientWindow fixes the in-process clients' flow-control windows at
// gRPC's 64 KiB defaults. Otherwise gRPC's bandwidth estimate grows them
// on loopback to megabytes a connection, and 32 clients' receive buffers,
// which the server's budget does not govern, count in the live heap the
// test bounds.
var clientWindow = []grpc.DialOption{grpc.WithInitialWindowSize(64 << 10), grpc.WithInitialConnWindowSize(64 << 10)}
