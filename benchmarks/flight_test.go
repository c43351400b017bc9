package benchmarks

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/flight"
)

// flightBench serves the generated file of a variant over loopback.
type flightBench struct {
	srv  *flight.Server
	addr string
	path string
	rows int
	done chan error
}

func startFlight(b *testing.B, variant string, partition int64) (fb *flightBench) {
	var srv *flight.Server
	b.Helper()
	path, rows := benchFile(b, variant)
	// A hard link beside the file, not a copy (the 10-million-row file is
	// hundreds of MB) and not a symlink (the server refuses links leaving
	// its root).
	root, err := os.MkdirTemp(filepath.Dir(path), "flight-root-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Link(path, filepath.Join(root, "bench.tsfile")); err != nil {
		b.Fatal(err)
	}
	srv, err = flight.NewServer(flight.Options{
		Root: root, PartitionBytes: partition, Rescan: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	if p := srv.Problems(); len(p) > 0 {
		b.Fatalf("not served: %v", p)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	fb = &flightBench{srv: srv, addr: lis.Addr().String(), path: path, rows: rows, done: make(chan error, 1)}
	go func() { fb.done <- srv.Serve(lis) }()
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-fb.done
	})
	return fb
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// client dials the server with options a user reading large streams
// would set (no message size limit, large flow-control windows and read
// buffer), or with gRPC's defaults when TSARROW_FLIGHT_DIAL=default.
func (fb *flightBench) client(b *testing.B) arrowflight.Client {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if os.Getenv("TSARROW_FLIGHT_DIAL") != "default" {
		opts = append(opts,
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20)),
			grpc.WithInitialWindowSize(8<<20), grpc.WithInitialConnWindowSize(16<<20),
			grpc.WithReadBufferSize(1<<20))
	}
	c, err := arrowflight.NewClientWithMiddleware(fb.addr, nil, nil, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func (fb *flightBench) info(b *testing.B, c arrowflight.Client) *arrowflight.FlightInfo {
	fi, err := c.GetFlightInfo(context.Background(), &arrowflight.FlightDescriptor{
		Type: arrowflight.DescriptorPATH, Path: []string{"bench.tsfile", Table}})
	if err != nil {
		b.Fatal(err)
	}
	return fi
}

// readEndpoint reads one endpoint's stream to the end with flight.DoGet,
// as a Go user of this module would, counting rows and the Arrow bytes of
// the received batches as scanFile counts them.
func readEndpoint(c arrowflight.Client, ep *arrowflight.FlightEndpoint) (rows, outBytes int64, err error) {
	r, err := flight.DoGet(context.Background(), c, ep.Ticket)
	if err != nil {
		return 0, 0, err
	}
	return readRecords(r)
}

// readEndpointStock is readEndpoint with arrow-go's Flight client as it
// comes: its DoGet and flight.NewRecordReader, through gRPC's protobuf
// codec.
func readEndpointStock(c arrowflight.Client, ep *arrowflight.FlightEndpoint) (rows, outBytes int64, err error) {
	s, err := c.DoGet(context.Background(), ep.Ticket)
	if err != nil {
		return 0, 0, err
	}
	r, err := arrowflight.NewRecordReader(s)
	if err != nil {
		return 0, 0, err
	}
	return readRecords(r)
}

func readRecords(r *arrowflight.Reader) (rows, outBytes int64, err error) {
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		rows += rec.NumRows()
		outBytes += RecordBytes(rec)
	}
	return rows, outBytes, r.Err()
}

// untimed measures the wall and CPU time of a run outside the benchmark
// timer.
type untimed struct{ wall, cpu time.Duration }

func (u *untimed) run(b *testing.B, f func() error) {
	start, c0 := time.Now(), cpuTime()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	u.wall += time.Since(start)
	u.cpu += cpuTime() - c0
}

// runBoth runs fx into x and fy into y, swapping their order every other
// round so that neither always follows the timed read.
func runBoth(b *testing.B, round int, x *untimed, fx func() error, y *untimed, fy func() error) {
	if round%2 == 1 {
		x, fx, y, fy = y, fy, x, fx
	}
	x.run(b, fx)
	y.run(b, fy)
}

// BenchmarkFlightDoGet reads the whole generated table over loopback
// through one DoGet of an uncompressed IPC stream, with the arrow-go
// Flight client and flight.DoGet in the same process. Between the timed
// iterations (outside the timer) it scans the same file in-process with
// the same options and reads the stream again with the stock client
// (arrow-go's DoGet and NewRecordReader, gRPC's protobuf codec), in
// alternating order, so that x-inprocess (the timed read's speed over
// the in-process scan's) and x-stock-client (its speed over the stock
// client's) compare runs that met the same machine noise. cpu-ms/op is
// the process's CPU time (user and system, server and client together)
// during a timed read, x-inprocess-cpu and x-stock-client-cpu the other
// runs' CPU time over it: what the transport costs on top of decoding,
// which other load on the machine disturbs far less than it does wall
// time.
func BenchmarkFlightDoGet(b *testing.B) {
	for _, v := range Variants {
		b.Run(v, func(b *testing.B) {
			fb := startFlight(b, v, 1<<62)
			c := fb.client(b)
			fi := fb.info(b, c)
			if len(fi.Endpoint) != 1 {
				b.Fatalf("%d endpoints, want 1", len(fi.Endpoint))
			}
			ep := fi.Endpoint[0]
			var out int64
			var cpu time.Duration
			var local, stock untimed
			scan := func() error {
				_, _, err := scanFile(fb.path, &arrowconv.Options{})
				return err
			}
			readStock := func() error {
				rows, _, err := readEndpointStock(c, ep)
				if err == nil && rows != int64(fb.rows) {
					err = fmt.Errorf("stock client read %d rows, want %d", rows, fb.rows)
				}
				return err
			}
			// One untimed round first: the process's heap grows to its
			// working size (some 150 MB of fresh pages) during the first
			// read, which would otherwise land on the timed side alone.
			if _, _, err := readEndpoint(c, ep); err != nil {
				b.Fatal(err)
			}
			new(untimed).run(b, readStock)
			new(untimed).run(b, scan)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c0 := cpuTime()
				rows, n, err := readEndpoint(c, ep)
				cpu += cpuTime() - c0
				if err != nil {
					b.Fatal(err)
				}
				if rows != int64(fb.rows) {
					b.Fatalf("read %d rows, want %d", rows, fb.rows)
				}
				out = n
				b.StopTimer()
				runBoth(b, i, &local, scan, &stock, readStock)
				i++
				b.StartTimer()
			}
			b.SetBytes(out)
			perOp := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(fb.rows)/perOp, "rows/s")
			b.ReportMetric(float64(out)/perOp/1e9, "decoded-GB/s")
			b.ReportMetric(local.wall.Seconds()/b.Elapsed().Seconds(), "x-inprocess")
			b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
			b.ReportMetric(local.cpu.Seconds()/cpu.Seconds(), "x-inprocess-cpu")
			b.ReportMetric(stock.wall.Seconds()/b.Elapsed().Seconds(), "x-stock-client")
			b.ReportMetric(stock.cpu.Seconds()/cpu.Seconds(), "x-stock-client-cpu")
		})
	}
}

// BenchmarkFlightDoGetParallel reads a flight cut into at least 8
// endpoints with 8 clients (one connection each) at once, with
// flight.DoGet, and reports the speedup over reading the whole file
// through one endpoint (x-one-endpoint) and over the same parallel read
// with the stock client (x-stock-client), both timed between the
// iterations as BenchmarkFlightDoGet times its comparisons; the -cpu
// metrics are the same ratios of CPU time.
func BenchmarkFlightDoGetParallel(b *testing.B) {
	const readers = 8
	// Cut the file's estimated size into about 16 endpoints.
	whole := startFlight(b, Variants[0], 1<<62)
	one := whole.client(b)
	oneInfo := whole.info(b, one)
	est := oneInfo.TotalBytes
	fb := startFlight(b, Variants[0], max(1, est/16))
	clients := make([]arrowflight.Client, readers)
	for i := range clients {
		clients[i] = fb.client(b)
	}
	fi := fb.info(b, clients[0])
	if len(fi.Endpoint) < readers {
		b.Fatalf("%d endpoints, want at least %d", len(fi.Endpoint), readers)
	}
	// parallel reads every endpoint with the readers, returning the rows
	// and Arrow bytes read.
	parallel := func(read func(arrowflight.Client, *arrowflight.FlightEndpoint) (int64, int64, error)) (int64, int64, error) {
		var mu sync.Mutex
		var rows, n int64
		var firstErr error
		next := make(chan *arrowflight.FlightEndpoint, len(fi.Endpoint))
		for _, ep := range fi.Endpoint {
			next <- ep
		}
		close(next)
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Go(func() {
				for ep := range next {
					r, k, err := read(c, ep)
					mu.Lock()
					rows, n = rows+r, n+k
					if err != nil && firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if firstErr == nil && rows != int64(fb.rows) {
			firstErr = fmt.Errorf("read %d rows, want %d", rows, fb.rows)
		}
		return rows, n, firstErr
	}
	readOne := func() error {
		_, _, err := readEndpoint(one, oneInfo.Endpoint[0])
		return err
	}
	readStock := func() error {
		_, _, err := parallel(readEndpointStock)
		return err
	}
	// An untimed round first, as in BenchmarkFlightDoGet: the parallel
	// read grows the heap by far more than one stream does.
	if _, _, err := parallel(readEndpoint); err != nil {
		b.Fatal(err)
	}
	new(untimed).run(b, readStock)
	new(untimed).run(b, readOne)
	var out int64
	var cpu time.Duration
	var serial, stock untimed
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c0 := cpuTime()
		_, n, err := parallel(readEndpoint)
		cpu += cpuTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		out = n
		b.StopTimer()
		runBoth(b, i, &serial, readOne, &stock, readStock)
		i++
		b.StartTimer()
	}
	b.SetBytes(out)
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(fi.Endpoint)), "endpoints")
	b.ReportMetric(float64(fb.rows)/perOp, "rows/s")
	b.ReportMetric(float64(out)/perOp/1e9, "decoded-GB/s")
	b.ReportMetric(serial.wall.Seconds()/b.Elapsed().Seconds(), "x-one-endpoint")
	b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
	b.ReportMetric(serial.cpu.Seconds()/cpu.Seconds(), "x-one-endpoint-cpu")
	b.ReportMetric(stock.wall.Seconds()/b.Elapsed().Seconds(), "x-stock-client")
	b.ReportMetric(stock.cpu.Seconds()/cpu.Seconds(), "x-stock-client-cpu")
}
