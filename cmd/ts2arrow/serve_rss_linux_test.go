package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/fromarrow"
)

// procStatus reads a field of /proc/PID/status in bytes.
func procStatus(t *testing.T, pid int, key string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, key+":"); ok {
			f := strings.Fields(rest)
			require.Len(t, f, 2, l)
			require.Equal(t, "kB", f[1], l)
			v, err := strconv.ParseInt(f[0], 10, 64)
			require.NoError(t, err)
			return v << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", key, pid)
	return 0
}

// writeLoadFile writes a table of devices x rows with four doubles, a
// long and a short string: about 60 bytes of Arrow data a row.
func writeLoadFile(t *testing.T, path string, devices, rows int) {
	t.Helper()
	tag := arrow.NewMetadata([]string{arrowconv.MetaCategory}, []string{"TAG"})
	meta := arrow.NewMetadata([]string{arrowconv.MetaTable}, []string{"load"})
	fields := []arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "device", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: tag},
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema(fields, &meta)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	for d := 0; d < devices; d++ {
		for i := 0; i < rows; i++ {
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + int64(i)*1000))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("dev%03d", d))
			for c := 2; c < 6; c++ {
				b.Field(c).(*array.Float64Builder).Append(float64(i*c) / 7)
			}
			b.Field(6).(*array.Int64Builder).Append(int64(i * d))
			b.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("state-%d-%d", d, i%97))
			if (i+1)%16384 == 0 || i == rows-1 {
				recs = append(recs, b.NewRecordBatch())
			}
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

// TestServeRSSWithinBudget runs `ts2arrow serve --memory-limit 48MiB` as
// a child, has 32 clients read a table at once and then 200 connections
// dropped mid-stream, and checks the child's peak resident set (VmHWM,
// the kernel's own high-water mark) against the bound the serve
// documentation states: its idle RSS plus the budget plus a tenth of it.
// Under the old runtime limit (the budget plus 64 MiB) the garbage
// collector let the heap grow to twice the live data.
func TestServeRSSWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and 32 clients")
	}
	root := t.TempDir()
	writeLoadFile(t, filepath.Join(root, "load.tsfile"), 8, 125_000)
	const budget = 48 << 20
	// Eight streams of 6 MiB at once: the budget is spent and the other
	// clients queue for it.
	p := startServe(t, nil, "--root", root, "--addr", "127.0.0.1:0", "--memory-limit", "48MiB",
		"--max-streams", "8", "--max-streams-per-peer", "8", "--queue-wait", "10m", "--write-timeout", "10m", "--quiet")
	pid := p.cmd.Process.Pid
	c := dialFlight(t, p.addr)
	fi, err := c.GetFlightInfo(context.Background(), &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{"load"}})
	require.NoError(t, err)

	read := func(c arrowflight.Client) (int64, error) {
		var n int64
		for _, ep := range fi.Endpoint {
			s, err := c.DoGet(context.Background(), ep.Ticket)
			if err != nil {
				return n, err
			}
			r, err := arrowflight.NewRecordReader(s)
			if err != nil {
				return n, err
			}
			for r.Next() {
				n += r.RecordBatch().NumRows()
			}
			err = r.Err()
			r.Release()
			if err != nil {
				return n, err
			}
		}
		return n, nil
	}
	// Idle is a server that has served: one read first, so that the code
	// of a stream is paged in, and then the 5 s after which an idle
	// server gives its memory back.
	_, err = read(c)
	require.NoError(t, err)
	time.Sleep(6 * time.Second)
	idle := procStatus(t, pid, "VmRSS")

	var wg sync.WaitGroup
	errs := make([]error, 32)
	for k := range errs {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			c, err := arrowflight.NewClientWithMiddleware(p.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				errs[k] = err
				return
			}
			defer c.Close()
			n, err := read(c)
			if err == nil && n != 8*125_000 {
				err = fmt.Errorf("read %d rows", n)
			}
			errs[k] = err
		}(k)
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	loaded := procStatus(t, pid, "VmHWM")

	// 200 connections, eight at a time, each cut without a word once its
	// stream is under way.
	errs = make([]error, 8)
	for k := range errs {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for i := 0; i < 25 && errs[k] == nil; i++ {
				errs[k] = dropConn(p.addr, fi.Endpoint[0], 3)
			}
		}(k)
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	peak := procStatus(t, pid, "VmHWM")
	bound := idle + budget + budget/10
	t.Logf("idle RSS %.1f MiB; peak after 32 clients %.1f MiB, after 200 dropped connections %.1f MiB; bound %.1f MiB (idle + 1.1 x %d MiB)",
		mib(idle), mib(loaded), mib(peak), mib(bound), budget>>20)
	assert.LessOrEqual(t, peak, bound, "peak RSS over idle + budget + 10%")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// dropConn starts a DoGet of ep on a connection of its own, reads msgs
// messages and resets the connection.
func dropConn(addr string, ep *arrowflight.FlightEndpoint, msgs int) error {
	var mu sync.Mutex
	var conn *net.TCPConn
	dialer := func(ctx context.Context, a string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", a)
		if err == nil {
			mu.Lock()
			conn = c.(*net.TCPConn)
			mu.Unlock()
		}
		return c, err
	}
	c, err := arrowflight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(dialer), grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
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
			if errors.Is(err, io.EOF) {
				break
			}
			return err
		}
	}
	mu.Lock()
	defer mu.Unlock()
	conn.SetLinger(0)
	return conn.Close()
}
