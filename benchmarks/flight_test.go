package benchmarks

import (
	"context"
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
// buffer), or with gRPC's defaults when TSARROW_FLIGHT_CLIENT=stock.
func (fb *flightBench) client(b *testing.B) arrowflight.Client {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if os.Getenv("TSARROW_FLIGHT_CLIENT") != "stock" {
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

// readEndpoint reads one endpoint's stream to the end, counting rows and
// the Arrow bytes of the received batches as scanFile counts them.
func readEndpoint(c arrowflight.Client, ep *arrowflight.FlightEndpoint) (rows, outBytes int64, err error) {
	s, err := c.DoGet(context.Background(), ep.Ticket)
	if err != nil {
		return 0, 0, err
	}
	r, err := arrowflight.NewRecordReader(s)
	if err != nil {
		return 0, 0, err
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		rows += rec.NumRows()
		outBytes += RecordBytes(rec)
	}
	return rows, outBytes, r.Err()
}

// BenchmarkFlightDoGet reads the whole generated table over loopback
// through one DoGet of an uncompressed IPC stream, with the arrow-go
// Flight client in the same process. Between the timed iterations (outside
// the timer) it scans the same file in-process with the same options, so
// x-inprocess (Flight speed over in-process speed) compares runs that met
// the same machine noise. cpu-ms/op is the process's CPU time (user and
// system, server and client together) during a timed read, and
// x-inprocess-cpu the in-process scan's CPU time over it: what the
// transport costs on top of decoding, which other load on the machine
// disturbs far less than it does wall time.
func BenchmarkFlightDoGet(b *testing.B) {
	for _, v := range Variants {
		b.Run(v, func(b *testing.B) {
			fb := startFlight(b, v, 1<<62)
			c := fb.client(b)
			fi := fb.info(b, c)
			if len(fi.Endpoint) != 1 {
				b.Fatalf("%d endpoints, want 1", len(fi.Endpoint))
			}
			var out int64
			var local, cpu, localCPU time.Duration
			b.ReportAllocs()
			for b.Loop() {
				c0 := cpuTime()
				rows, n, err := readEndpoint(c, fi.Endpoint[0])
				cpu += cpuTime() - c0
				if err != nil {
					b.Fatal(err)
				}
				if rows != int64(fb.rows) {
					b.Fatalf("read %d rows, want %d", rows, fb.rows)
				}
				out = n
				b.StopTimer()
				start, c1 := time.Now(), cpuTime()
				if _, _, err := scanFile(fb.path, &arrowconv.Options{}); err != nil {
					b.Fatal(err)
				}
				local += time.Since(start)
				localCPU += cpuTime() - c1
				b.StartTimer()
			}
			b.SetBytes(out)
			perOp := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(fb.rows)/perOp, "rows/s")
			b.ReportMetric(float64(out)/perOp/1e9, "decoded-GB/s")
			b.ReportMetric(local.Seconds()/b.Elapsed().Seconds(), "x-inprocess")
			b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
			b.ReportMetric(localCPU.Seconds()/cpu.Seconds(), "x-inprocess-cpu")
		})
	}
}

// BenchmarkFlightDoGetParallel reads a flight cut into at least 8
// endpoints with 8 clients (one connection each) at once, and reports the
// speedup over reading the whole file through one endpoint, timed between
// the iterations as BenchmarkFlightDoGet times in-process scans;
// x-one-endpoint-cpu is the single read's CPU time over the parallel one.
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
	var out int64
	var serial, cpu, serialCPU time.Duration
	b.ReportAllocs()
	for b.Loop() {
		c0 := cpuTime()
		var mu sync.Mutex
		var rows, n int64
		var firstErr error
		next := make(chan *arrowflight.FlightEndpoint, len(fi.Endpoint))
		for _, ep := range fi.Endpoint {
			next <- ep
		}
		close(next)
		var wg sync.WaitGroup
		for i := 0; i < readers; i++ {
			wg.Add(1)
			go func(c arrowflight.Client) {
				defer wg.Done()
				for ep := range next {
					r, k, err := readEndpoint(c, ep)
					mu.Lock()
					rows, n = rows+r, n+k
					if err != nil && firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}(clients[i])
		}
		wg.Wait()
		cpu += cpuTime() - c0
		if firstErr != nil {
			b.Fatal(firstErr)
		}
		if rows != int64(fb.rows) {
			b.Fatalf("read %d rows, want %d", rows, fb.rows)
		}
		out = n
		b.StopTimer()
		start, c1 := time.Now(), cpuTime()
		if _, _, err := readEndpoint(one, oneInfo.Endpoint[0]); err != nil {
			b.Fatal(err)
		}
		serial += time.Since(start)
		serialCPU += cpuTime() - c1
		b.StartTimer()
	}
	b.SetBytes(out)
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(fi.Endpoint)), "endpoints")
	b.ReportMetric(float64(fb.rows)/perOp, "rows/s")
	b.ReportMetric(float64(out)/perOp/1e9, "decoded-GB/s")
	b.ReportMetric(serial.Seconds()/b.Elapsed().Seconds(), "x-one-endpoint")
	b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
	b.ReportMetric(serialCPU.Seconds()/cpu.Seconds(), "x-one-endpoint-cpu")
}
