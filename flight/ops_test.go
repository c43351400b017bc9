package flight

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// bigRoot holds one file large enough that a stream spans many batches
// and fills gRPC's flow-control windows.
func bigRoot(t testing.TB) string {
	root := t.TempDir()
	writeTestFile(t, root, "big.tsfile", 4, 60_000, 1)
	return root
}

func TestConcurrentClients(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	root, files := testRoot(t)
	want := localRows(t, nil, "weather", files...)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	func() {
		srv := startServerNoCleanup(t, Options{Root: root, PartitionBytes: 30 << 10, MaxStreams: 16, Allocator: mem})
		defer srv.stop(t)
		fi := func() *arrowflight.FlightInfo {
			c := dialNoCleanup(t, srv.addr)
			defer c.Close()
			return getInfo(t, c, pathDesc("weather"))
		}()
		require.Greater(t, len(fi.Endpoint), 4)

		const clients = 32
		var wg sync.WaitGroup
		results := make([][]string, clients)
		errs := make([]error, clients)
		for i := 0; i < clients; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				c := dialNoCleanup(t, srv.addr)
				defer c.Close()
				// Each client reads the endpoints in its own order and
				// reassembles them.
				parts := make([][]string, len(fi.Endpoint))
				for k := range fi.Endpoint {
					j := (k + i) % len(fi.Endpoint)
					rows, err := tryGet(context.Background(), c, fi.Endpoint[j])
					if err != nil {
						errs[i] = err
						return
					}
					parts[j] = rows
				}
				for _, p := range parts {
					results[i] = append(results[i], p...)
				}
			}(i)
		}
		wg.Wait()
		for i := 0; i < clients; i++ {
			require.NoError(t, errs[i], "client %d", i)
			require.Equal(t, want, results[i], "client %d", i)
		}
	}()
	mem.AssertSize(t, 0)
}

// startServerNoCleanup runs a server the test stops itself, so that leak
// checks run after it is gone.
type stoppable struct {
	*Server
	addr   string
	served chan error
}

func startServerNoCleanup(t testing.TB, o Options) *stoppable {
	t.Helper()
	if o.Rescan == 0 {
		o.Rescan = -1
	}
	if o.Logger == nil {
		o.Logger = discardLogger()
	}
	srv, err := NewServer(o)
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &stoppable{Server: srv, addr: lis.Addr().String(), served: make(chan error, 1)}
	go func() { s.served <- srv.Serve(lis) }()
	return s
}

func (s *stoppable) stop(t testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Shutdown(ctx))
	require.NoError(t, <-s.served)
}

func dialNoCleanup(t testing.TB, addr string, opts ...grpc.DialOption) arrowflight.Client {
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	c, err := arrowflight.NewClientWithMiddleware(addr, nil, nil, opts...)
	require.NoError(t, err)
	return c
}

// tryGet is doGet returning errors instead of failing, for goroutines.
func tryGet(ctx context.Context, c arrowflight.Client, ep *arrowflight.FlightEndpoint) ([]string, error) {
	s, err := c.DoGet(ctx, ep.Ticket)
	if err != nil {
		return nil, err
	}
	r, err := arrowflight.NewRecordReader(s)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return readRows(r)
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCancelFreesMemory(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	root := bigRoot(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv := startServerNoCleanup(t, Options{Root: root, Allocator: mem, BatchSize: 4096})
	defer srv.stop(t)
	c := dialNoCleanup(t, srv.addr)
	defer c.Close()
	fi := getInfo(t, c, pathDesc("weather"))

	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	r, err := arrowflight.NewRecordReader(s)
	require.NoError(t, err)
	require.True(t, r.Next(), "first batch")
	waitFor(t, "the server to hold memory", func() bool { return mem.CurrentAlloc() > 0 })
	cancel()
	for r.Next() {
	}
	assert.Equal(t, codes.Canceled, status.Code(r.Err()), "%v", r.Err())
	r.Release()
	waitFor(t, "the cancelled stream's memory to return", func() bool { return mem.CurrentAlloc() == 0 })
	waitFor(t, "the stream slot to be freed", func() bool { return srv.activeStreams() == 0 })
}

func TestIdleTimeout(t *testing.T) {
	root := bigRoot(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv := startServer(t, Options{Root: root, Allocator: mem, IdleTimeout: 300 * time.Millisecond, BatchSize: 8192})
	c := dial(t, srv.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		// A small window makes the server block on flow control at once.
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	fi := getInfo(t, c, pathDesc("weather"))
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s.Recv()
	require.NoError(t, err)
	// The client stops reading; the server gives up on it.
	time.Sleep(1200 * time.Millisecond)
	last := drain(s, 0)
	assert.Equal(t, codes.DeadlineExceeded, status.Code(last), "%v", last)
	waitFor(t, "the idle stream's memory to return", func() bool { return mem.CurrentAlloc() == 0 })
	assert.Contains(t, srv.log.String(), "idle")
}

func TestStreamTimeout(t *testing.T) {
	root := bigRoot(t)
	srv := startServer(t, Options{Root: root, StreamTimeout: 200 * time.Millisecond, BatchSize: 1024})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	last := drain(s, 20*time.Millisecond) // a slow reader
	assert.Equal(t, codes.DeadlineExceeded, status.Code(last), "%v", last)
}

func TestMaxStreams(t *testing.T) {
	root := bigRoot(t)
	srv := startServer(t, Options{Root: root, MaxStreams: 1, QueueWait: 100 * time.Millisecond, BatchSize: 4096})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s.Recv()
	require.NoError(t, err)
	s2, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s2.Recv()
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	cancel()
	waitFor(t, "the slot", func() bool { return srv.activeStreams() == 0 })
	rows, _ := doGet(t, context.Background(), c, fi.Endpoint[0])
	assert.Len(t, rows, 4*60_000)
}

func TestStreamMemoryBudget(t *testing.T) {
	root := bigRoot(t)
	srv := startServer(t, Options{Root: root, StreamMemory: 64 << 10})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	last := drain(s, 0)
	assert.Equal(t, codes.ResourceExhausted, status.Code(last), "%v", last)
}

func TestGracefulShutdown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	root := bigRoot(t)
	srv := startServerNoCleanup(t, Options{Root: root, BatchSize: 4096})
	c := dialNoCleanup(t, srv.addr)
	defer c.Close()
	fi := getInfo(t, c, pathDesc("weather"))
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	r, err := arrowflight.NewRecordReader(s)
	require.NoError(t, err)
	defer r.Release()
	require.True(t, r.Next())
	n := r.RecordBatch().NumRows()

	conn, err := grpc.NewClient(srv.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	stopped := make(chan struct{})
	go func() { srv.stop(t); close(stopped) }()
	// Health turns NOT_SERVING while the stream drains.
	waitFor(t, "NOT_SERVING", func() bool {
		h, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
		return err != nil || h.Status == healthpb.HealthCheckResponse_NOT_SERVING
	})
	for r.Next() {
		n += r.RecordBatch().NumRows()
	}
	require.NoError(t, r.Err())
	assert.Equal(t, int64(4*60_000), n, "the running stream finished")
	<-stopped
}

func TestShutdownDeadlineCancelsStreams(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	root := bigRoot(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv := startServerNoCleanup(t, Options{Root: root, Allocator: mem, BatchSize: 4096})
	c := dialNoCleanup(t, srv.addr)
	defer c.Close()
	fi := getInfo(t, c, pathDesc("weather"))
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s.Recv()
	require.NoError(t, err)
	// The client never reads again; Shutdown gives up after its deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = srv.Shutdown(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, <-srv.served)
	assert.Zero(t, mem.CurrentAlloc())
	err = drain(s, 0)
	assert.NotEqual(t, codes.OK, status.Code(err))
}

func TestLogLines(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, cmdDesc(t, Query{Table: "weather", Files: []string{"b.tsfile"}, Where: map[string]string{"region": "north"}}))
	rows := readFlight(t, context.Background(), c, fi)
	log := srv.log.String()
	for _, want := range []string{"msg=stream", "rpc=DoGet", "client=127.0.0.1:", "table=weather", "file=b.tsfile",
		fmt.Sprintf("rows=%d", len(rows)), "bytes=", "duration=", "code=OK", "where=map[region:north]",
		"memory_share=", "batch_rows="} {
		assert.Contains(t, log, want)
	}
}

// drain reads a stream to its end, pausing between messages, and returns
// the error that ended it.
func drain(s arrowflight.FlightService_DoGetClient, pause time.Duration) error {
	for {
		if _, err := s.Recv(); err != nil {
			return err
		}
		time.Sleep(pause)
	}
}
