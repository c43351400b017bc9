package flight

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// putRaw sends msgs on a DoPut stream as they are and returns the
// server's answer.
func putRaw(t *testing.T, c arrowflight.Client, msgs ...*arrowflight.FlightData) error {
	t.Helper()
	stream, err := c.DoPut(context.Background())
	require.NoError(t, err)
	for _, m := range msgs {
		if stream.Send(m) != nil {
			break // the server answered early: its status comes from Recv
		}
	}
	require.NoError(t, stream.CloseSend())
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// DoPut with bytes that are no Arrow IPC stream answers INVALID_ARGUMENT
// in the server's own words, not INTERNAL with a recovered runtime panic.
func TestDoPutGarbage(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, AllowPut: true})
	c := dial(t, srv.addr)
	desc := pathDesc("in/garbage.tsfile")
	schemaMsgs := putMessages(t, files[0], desc)
	cases := []struct {
		name string
		msgs []*arrowflight.FlightData
	}{
		{"header garbage", []*arrowflight.FlightData{{FlightDescriptor: desc, DataHeader: []byte("\x10\x00\x00\x00garbage garbage garbage")}}},
		{"header short", []*arrowflight.FlightData{{FlightDescriptor: desc, DataHeader: []byte{0xff, 0xff, 0xff, 0x7f, 1, 2}}}},
		{"batch header garbage", []*arrowflight.FlightData{schemaMsgs[0], {DataHeader: []byte("\x08\x00\x00\x00\x01\x02\x03\x04\xff\xff\xff\xff"), DataBody: []byte("body")}}},
		{"batch body short", []*arrowflight.FlightData{schemaMsgs[0], {DataHeader: schemaMsgs[1].DataHeader, DataBody: schemaMsgs[1].DataBody[:len(schemaMsgs[1].DataBody)/3]}}},
		{"batch header flipped", []*arrowflight.FlightData{schemaMsgs[0], {DataHeader: flip(schemaMsgs[1].DataHeader, 40), DataBody: schemaMsgs[1].DataBody}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Each case its own name, so that one published by mistake
			// does not make the next answer ALREADY_EXISTS.
			msgs := append([]*arrowflight.FlightData(nil), tc.msgs...)
			first := proto.Clone(msgs[0]).(*arrowflight.FlightData)
			first.FlightDescriptor = pathDesc("in/" + strings.ReplaceAll(tc.name, " ", "-") + ".tsfile")
			msgs[0] = first
			err := putRaw(t, c, msgs...)
			require.Error(t, err)
			assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
			t.Logf("%v", err)
			assert.NotContains(t, err.Error(), "runtime error")
			assert.NotContains(t, err.Error(), root)
		})
	}
	// Nothing was published, nor left behind.
	ents, _ := os.ReadDir(filepath.Join(root, "in"))
	assert.Empty(t, ents)
}

// putMessages returns the FlightData messages of a DoPut of src: the
// schema (carrying desc) and then its batches.
func putMessages(t *testing.T, src string, desc *arrowflight.FlightDescriptor) []*arrowflight.FlightData {
	t.Helper()
	var msgs []*arrowflight.FlightData
	rec := &recordingPut{msgs: &msgs}
	sendPut(t, rec, src, desc)
	require.GreaterOrEqual(t, len(msgs), 2)
	return msgs
}

func flip(b []byte, at int) []byte {
	out := append([]byte(nil), b...)
	out[at%len(out)] ^= 0xa5
	return out
}

// A DoPut whose name the file system refuses, and every other refusal,
// names the file as the client did, never by the server's own path.
func TestDoPutErrorsNameNoServerPath(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, AllowPut: true})
	c := dial(t, srv.addr)
	// A directory the server cannot write in: the operating system's
	// error names it in full.
	locked := filepath.Join(root, "locked")
	require.NoError(t, os.Mkdir(locked, 0o500))
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	for _, tc := range []struct {
		name string
		code codes.Code
	}{
		{strings.Repeat("a", 300) + ".tsfile", codes.InvalidArgument},
		{"in/" + strings.Repeat("b", 250) + ".tsfile", codes.InvalidArgument},
		{strings.Repeat("c/", 2100) + "x.tsfile", codes.InvalidArgument},
		{"a.tsfile/x.tsfile", codes.Internal}, // a file where a directory goes
		{"locked/x/y.tsfile", codes.Internal}, // no permission
	} {
		name := tc.name
		if name == "locked/x/y.tsfile" && os.Geteuid() == 0 {
			continue // root writes anywhere
		}
		t.Run(name[:8], func(t *testing.T) {
			err := putFile(t, c, files[0], pathDesc(name))
			require.Error(t, err)
			assert.Equal(t, tc.code, status.Code(err), "%v", err)
			assert.NotContains(t, err.Error(), root)
			assert.NotContains(t, err.Error(), os.TempDir())
			t.Logf("%v", err)
		})
	}
	// The log keeps what the operator needs.
	assert.Contains(t, srv.log.String(), "DoPut")
}

// Request metadata is capped as gRPC servers usually cap it: a call with
// 64 KiB of headers, or ten thousand small ones, is refused before it
// reaches the service; one with an ordinary bearer token is not.
func TestHeaderLimits(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	ok := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+strings.Repeat("t", 4000))
	_, err := c.GetFlightInfo(ok, pathDesc("weather"))
	require.NoError(t, err)

	big := metadata.AppendToOutgoingContext(context.Background(), "x-big", strings.Repeat("x", 64<<10))
	_, err = c.GetFlightInfo(big, pathDesc("weather"))
	require.Error(t, err, "a 64 KiB header")
	t.Logf("64 KiB header: %v", err)

	kv := make([]string, 0, 2*10_000)
	for i := 0; i < 10_000; i++ {
		kv = append(kv, "x-h", "v")
	}
	many := metadata.AppendToOutgoingContext(context.Background(), kv...)
	_, err = c.GetFlightInfo(many, pathDesc("weather"))
	require.Error(t, err, "10,000 headers")
	t.Logf("10,000 headers: %v", err)

	// The server still answers after refusing them.
	_, err = c.GetFlightInfo(context.Background(), pathDesc("weather"))
	require.NoError(t, err)
}

// dialFrom dials addr from a loopback address of its own, as a second
// client host would.
func dialFrom(t testing.TB, local, addr string, opts ...grpc.DialOption) arrowflight.Client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", a)
		})}, opts...)
	c, err := arrowflight.NewClientWithMiddleware(addr, nil, nil, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// recordingPut keeps the FlightData a Flight writer sends.
type recordingPut struct{ msgs *[]*arrowflight.FlightData }

func (r *recordingPut) Send(d *arrowflight.FlightData) error {
	// The writer reuses d and its buffers.
	*r.msgs = append(*r.msgs, proto.Clone(d).(*arrowflight.FlightData))
	return nil
}

// sendPut writes the weather table of src to w as a DoPut client does.
func sendPut(t *testing.T, w arrowflight.DataStreamWriter, src string, desc *arrowflight.FlightDescriptor) {
	t.Helper()
	f, err := tsfile.OpenFile(src, nil)
	require.NoError(t, err)
	defer f.Close()
	r, err := arrowconv.NewTableReader(f, "weather", nil)
	require.NoError(t, err)
	defer r.Release()
	fw := arrowflight.NewRecordWriter(w, ipc.WithSchema(r.Schema()))
	fw.SetFlightDescriptor(desc)
	for r.Next() {
		if fw.Write(r.RecordBatch()) != nil {
			break
		}
	}
	fw.Close()
}

// putFile sends the weather table of src by DoPut and returns the
// server's answer.
func putFile(t *testing.T, c arrowflight.Client, src string, desc *arrowflight.FlightDescriptor) error {
	t.Helper()
	var msgs []*arrowflight.FlightData
	sendPut(t, &recordingPut{msgs: &msgs}, src, desc)
	return putRaw(t, c, msgs...)
}

// stallStreams opens n DoGet streams of ep on c that read one message and
// then stop reading, and returns a function that waits for their ends.
func stallStreams(t *testing.T, c arrowflight.Client, ep *arrowflight.FlightEndpoint, n int) func() []error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		s, err := c.DoGet(ctx, ep.Ticket)
		require.NoError(t, err)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := s.Recv(); err != nil {
				errs[i] = err
				return
			}
			// Then nothing more is read until the server gives up (or
			// the test ends): the error the stream ended with comes with
			// the next Recv.
			<-ctx.Done()
			errs[i] = drain(s, 0)
		}(i)
	}
	t.Cleanup(cancel)
	return func() []error {
		cancel()
		wg.Wait()
		return errs
	}
}

// queued returns the streams waiting for admission.
func (b *memBudget) queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// A client that opens many streams and reads none of them does not keep
// another client from reading: it holds at most its per-peer share of
// the slots, and its further streams wait without holding back others.
func TestPeerCap(t *testing.T) {
	root := bigRoot(t)
	// No write deadline here, so that only the cap can let the honest
	// client in before it gives up waiting.
	srv := startServer(t, Options{Root: root, MaxStreams: 4, MaxStreamsPerPeer: 2, WriteTimeout: -1,
		QueueWait: 20 * time.Second, BatchSize: 4096})
	greedy := dial(t, srv.addr, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, clientWindow...)...)
	fi := getInfo(t, greedy, pathDesc("weather"))
	end := stallStreams(t, greedy, fi.Endpoint[0], 6)
	waitFor(t, "the greedy client's streams to be admitted or queued", func() bool {
		return srv.activeStreams() >= 2 && srv.activeStreams()+srv.budget.queued() == 6
	})

	honest := dialFrom(t, "127.0.0.2", srv.addr)
	rows, _ := doGet(t, context.Background(), honest, fi.Endpoint[0])
	assert.Len(t, rows, 4*60_000)
	assert.Equal(t, 2, srv.activeStreams(), "the greedy client still holds its two")

	// The greedy client's queued streams give up, saying why.
	for _, err := range end() {
		assert.Contains(t, []codes.Code{codes.Canceled, codes.ResourceExhausted}, status.Code(err), "%v", err)
	}
}

// A stream whose client takes no data gives up its slot after the write
// deadline, with a status saying so, and a waiting client then reads.
func TestWriteTimeout(t *testing.T) {
	root := bigRoot(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv := startServer(t, Options{Root: root, MaxStreams: 2, MaxStreamsPerPeer: -1, WriteTimeout: 3 * time.Second,
		QueueWait: 20 * time.Second, BatchSize: 4096, Allocator: mem})
	greedy := dial(t, srv.addr, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, clientWindow...)...)
	fi := getInfo(t, greedy, pathDesc("weather"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stalled []arrowflight.FlightService_DoGetClient
	for i := 0; i < 2; i++ {
		s, err := greedy.DoGet(ctx, fi.Endpoint[0].Ticket)
		require.NoError(t, err)
		_, err = s.Recv()
		require.NoError(t, err)
		stalled = append(stalled, s)
	}
	waitFor(t, "both slots taken", func() bool { return srv.activeStreams() == 2 })

	// Another client, from the same address even, gets a slot once the
	// stalled streams are cut.
	rows, _ := doGet(t, context.Background(), greedy, fi.Endpoint[0])
	assert.Len(t, rows, 4*60_000)
	// The slot goes to the third stream when the first stalled stream is
	// cut; the second is cut at its own deadline, which on a loaded machine
	// can come after the third stream ends. Reading it before then would
	// resume it (it is stalled only while its client reads nothing) and it
	// would end whole.
	waitFor(t, "both stalled streams cut", func() bool { return strings.Count(srv.log.String(), "took no data") >= 2 })
	for _, s := range stalled {
		err := drain(s, 0)
		assert.Equal(t, codes.DeadlineExceeded, status.Code(err), "%v", err)
		assert.Contains(t, status.Convert(err).Message(), "took no data")
	}
	waitFor(t, "the stalled streams' memory to return", func() bool { return mem.CurrentAlloc() == 0 })
	assert.Contains(t, srv.log.String(), "took no data")
}

// dropClient dials addr, starts a DoGet of ep, reads msgs messages and
// then cuts the TCP connection without a word (a reset), as a killed
// client or a network cut does.
func dropClient(addr string, ep *arrowflight.FlightEndpoint, msgs int) error {
	var conn *net.TCPConn
	var mu sync.Mutex
	dialer := func(ctx context.Context, a string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", a)
		if err == nil {
			mu.Lock()
			conn = c.(*net.TCPConn)
			mu.Unlock()
		}
		return c, err
	}
	opts := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithContextDialer(dialer)}, clientWindow...)
	c, err := arrowflight.NewClientWithMiddleware(addr, nil, nil, opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := c.DoGet(context.Background(), ep.Ticket)
	if err != nil {
		return err
	}
	for i := 0; i < msgs; i++ {
		if _, err := s.Recv(); err != nil {
			return err
		}
	}
	mu.Lock()
	defer mu.Unlock()
	conn.SetLinger(0)
	return conn.Close()
}

// 200 connections dropped mid-stream, eight at a time, leave nothing
// behind without a garbage collection (collections are off here), and the
// streams' Arrow memory never exceeds the budget: a dropped stream's
// batches come back when it ends, before its share goes to the next.
func TestDroppedConnectionsRelease(t *testing.T) {
	root := bigRoot(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	const budget = 8 << 20
	srv := startServer(t, Options{Root: root, MemoryLimit: budget, MaxStreams: 8, MaxStreamsPerPeer: -1,
		WriteTimeout: -1, IdleRelease: -1, BatchSize: 8192, Allocator: mem})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, pathDesc("weather"))
	require.Len(t, fi.Endpoint, 1)

	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	const conns, parallel = 200, 8
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for p := 0; p < parallel; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < conns/parallel; i++ {
				if err := dropClient(srv.addr, fi.Endpoint[0], 3); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	waitFor(t, "the dropped streams' slots", func() bool { return srv.activeStreams() == 0 })
	waitFor(t, "the dropped streams' memory to return without a collection", func() bool { return mem.CurrentAlloc() == 0 })
	t.Logf("budget %s: peak Arrow memory %s", byteCount(budget), byteCount(srv.arrow.Peak()))
	assert.LessOrEqual(t, srv.arrow.Peak(), int64(budget))
}

// A DoPut whose client sends nothing gives up its slot after the write
// deadline too: it used to hold it for as long as the connection lived.
func TestPutWriteTimeout(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, AllowPut: true, MaxStreams: 1, MaxStreamsPerPeer: -1,
		WriteTimeout: 3 * time.Second, QueueWait: 20 * time.Second})
	c := dial(t, srv.addr)
	msgs := putMessages(t, files[0], pathDesc("in/slow.tsfile"))
	// The schema, and then nothing.
	stalled, err := c.DoPut(context.Background())
	require.NoError(t, err)
	require.NoError(t, stalled.Send(msgs[0]))
	waitFor(t, "the stalled DoPut to take the slot", func() bool { return srv.activeStreams() == 1 })

	// Another DoPut gets the slot once the stalled one is cut.
	first := proto.Clone(msgs[0]).(*arrowflight.FlightData)
	first.FlightDescriptor = pathDesc("in/honest.tsfile")
	require.NoError(t, putRaw(t, c, append([]*arrowflight.FlightData{first}, msgs[1:]...)...))
	_, err = stalled.Recv()
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), "sent no data")
	_, err = os.Stat(filepath.Join(root, "in", "honest.tsfile"))
	assert.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "in", "slow.tsfile"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// A status naming a file by the server's path reaches the client naming
// it relative to the root, whatever produced it; codes and other text
// are kept.
func TestRedactServerPaths(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root})
	for _, tc := range []struct{ in, want error }{
		{status.Error(codes.DataLoss, "sub/c.tsfile: open "+filepath.Join(root, "sub", "c.tsfile")+": bad chunk"), status.Error(codes.DataLoss, "sub/c.tsfile: open sub/c.tsfile: bad chunk")},
		{status.Error(codes.NotFound, "no file x.tsfile under the root"), status.Error(codes.NotFound, "no file x.tsfile under the root")},
		{errors.New("not a status"), errors.New("not a status")},
		{nil, nil},
	} {
		got := srv.redact(tc.in)
		if tc.want == nil {
			assert.NoError(t, got)
			continue
		}
		assert.Equal(t, status.Code(tc.want), status.Code(got))
		assert.Equal(t, tc.want.Error(), got.Error())
	}
}
