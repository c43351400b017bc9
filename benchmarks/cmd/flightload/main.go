// Command flightload measures the Flight server under load: it starts
// `ts2arrow serve` as a child process on a root holding one copy of FILE,
// has -clients arrow-go Flight clients (each on its own connection) read
// the file's table -reads times each, all at once, and samples the
// server's resident set size throughout. It prints one benchmark line that
// benchmarks/cmd/report reads:
//
//	BenchmarkFlightLoad/<name> 1 <ns> ns/op <n> clients <MB> idle-RSS-MB
//	    <MB> peak-RSS-MB <MB> MB-per-stream <MB> after-RSS-MB <x> x-idle-after
//	    <MB> file-MB <n> rows
//
// idle-RSS-MB is the server's RSS once it has started and planned the
// flight, before any stream; peak-RSS-MB its VmHWM after the load;
// MB-per-stream (peak - idle) / clients; after-RSS-MB its RSS -after
// (default 30s) after the last stream ended, and x-idle-after that over
// idle. Every client's row count is checked against the flight's.
//
// With -second-signal it measures instead how fast a second SIGTERM ends
// the server while a stream holds the graceful shutdown of the first: one
// client plans the table, starts a DoGet and reads only its first message;
// the server gets SIGTERM, and once it says "shutting down", another. The
// line, whose ns/op is the time from the second signal to the server's
// exit (cmd/ts2arrow's TestServeSecondSignal checks that it ends, this its
// speed), is
//
//	BenchmarkServeSecondSignal 1 <ns> ns/op <ns> held-ns
//
// where held-ns is how long the first signal's shutdown had been held.
//
// Usage:
//
//	cd benchmarks && go run ./cmd/flightload -ts2arrow BIN [-clients 32] [-reads 5]
//	    [-after 30s] [-memory-limit SIZE] [-name NAME] FILE
//	cd benchmarks && go run ./cmd/flightload -ts2arrow BIN -second-signal FILE
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func main() {
	bin := flag.String("ts2arrow", "", "the ts2arrow binary to run serve with (required)")
	clients := flag.Int("clients", 32, "concurrent clients, each on its own connection")
	reads := flag.Int("reads", 5, "reads of the whole table by each client")
	after := flag.Duration("after", 30*time.Second, "how long after the load the RSS is read again")
	limit := flag.String("memory-limit", "", "serve --memory-limit (default: the server's)")
	name := flag.String("name", "", "benchmark name (default FlightLoad/clients=N)")
	second := flag.Bool("second-signal", false, "measure how fast a second SIGTERM ends a server a stream holds open")
	flag.Parse()
	if *second {
		if flag.NArg() != 1 || *bin == "" {
			fmt.Fprintln(os.Stderr, "usage: flightload -ts2arrow BIN -second-signal FILE")
			os.Exit(2)
		}
		if err := secondSignal(*bin, flag.Arg(0)); err != nil {
			fmt.Fprintln(os.Stderr, "flightload:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 1 || *bin == "" || *clients <= 0 || *reads <= 0 {
		fmt.Fprintln(os.Stderr, "usage: flightload -ts2arrow BIN [-clients N] [-reads N] [-after DUR] [-memory-limit SIZE] [-name NAME] FILE")
		os.Exit(2)
	}
	if *name == "" {
		*name = fmt.Sprintf("FlightLoad/clients=%d", *clients)
	}
	if err := run(*bin, flag.Arg(0), *name, *limit, *clients, *reads, *after); err != nil {
		fmt.Fprintln(os.Stderr, "flightload:", err)
		os.Exit(1)
	}
}

func run(bin, file, name, limit string, clients, reads int, after time.Duration) error {
	root, err := os.MkdirTemp("", "flightload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	size, err := copyFile(file, filepath.Join(root, filepath.Base(file)))
	if err != nil {
		return err
	}
	args := []string{"serve", "--root", root, "--addr", "127.0.0.1:0", "--rescan", "0", "--log-format", "text"}
	if limit != "" {
		args = append(args, "--memory-limit", limit)
	}
	srv, addr, err := startServer(bin, args)
	if err != nil {
		return err
	}
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
	}()
	pid := srv.Process.Pid

	dial := func() (arrowflight.Client, error) {
		return arrowflight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	c, err := dial()
	if err != nil {
		return err
	}
	defer c.Close()
	fi, err := tableFlight(c)
	if err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	idle, err := status(pid, "VmRSS")
	if err != nil {
		return err
	}

	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if v, err := status(pid, "VmRSS"); err == nil && v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	began := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, clients)
	rowsRead := make([]int64, clients)
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			c, err := dial()
			if err != nil {
				errs[k] = err
				return
			}
			defer c.Close()
			for r := 0; r < reads; r++ {
				n, err := readFlight(c, fi)
				if err != nil {
					errs[k] = err
					return
				}
				rowsRead[k] += n
			}
		}(k)
	}
	wg.Wait()
	elapsed := time.Since(began)
	close(stop)
	<-sampled
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for k := 1; k < clients; k++ {
		if rowsRead[k] != rowsRead[0] {
			return fmt.Errorf("client %d read %d rows, client 0 %d", k, rowsRead[k], rowsRead[0])
		}
	}
	hwm, err := status(pid, "VmHWM")
	if err != nil {
		return err
	}
	hwm = max(hwm, peak.Load())
	time.Sleep(after)
	rest, err := status(pid, "VmRSS")
	if err != nil {
		return err
	}
	fmt.Printf("Benchmark%s 1 %d ns/op %d clients %.1f idle-RSS-MB %.1f peak-RSS-MB %.2f MB-per-stream %.1f after-RSS-MB %.3f x-idle-after %.2f file-MB %d rows\n",
		name, elapsed.Nanoseconds(), clients, mb(idle), mb(hwm), mb(hwm-idle)/float64(clients), mb(rest), float64(rest)/float64(idle), mb(size), rowsRead[0]/int64(reads))
	return nil
}

// secondSignal is the -second-signal case: see the file comment.
func secondSignal(bin, file string) error {
	root, err := os.MkdirTemp("", "flightload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if _, err := copyFile(file, filepath.Join(root, filepath.Base(file))); err != nil {
		return err
	}
	srv, addr, log, logDone, err := startServerLog(bin, []string{"serve", "--root", root, "--addr", "127.0.0.1:0", "--rescan", "0", "--log-format", "text"})
	if err != nil {
		return err
	}
	exited := make(chan error, 1)
	waited := make(chan struct{})
	go func() {
		<-logDone // Wait closes the pipe: read it to its end first
		exited <- srv.Wait()
		close(waited)
	}()
	defer func() {
		_ = srv.Process.Kill() // an error once it has exited
		<-waited
	}()
	c, err := arrowflight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer c.Close()
	fi, err := tableFlight(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	if err != nil {
		return err
	}
	if _, err := s.Recv(); err != nil { // the schema; then read nothing more
		return err
	}
	first := time.Now()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	// The shutdown has begun when the server says so; it must not end
	// while the stream is held.
	deadline := time.After(30 * time.Second)
	for !strings.Contains(log.String(), "shutting down") {
		select {
		case err := <-exited:
			return fmt.Errorf("the server exited after the first signal while a stream was held (%v):\n%s", err, log)
		case <-deadline:
			return fmt.Errorf("no \"shutting down\" 30 s after SIGTERM:\n%s", log)
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case err := <-exited:
		return fmt.Errorf("the server exited after the first signal while a stream was held (%v):\n%s", err, log)
	case <-time.After(300 * time.Millisecond):
	}
	second := time.Now()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("serve after the second signal: %w\n%s", err, log)
		}
	case <-time.After(60 * time.Second):
		return fmt.Errorf("serve still running 60 s after the second signal:\n%s", log)
	}
	ended := time.Now()
	fmt.Printf("BenchmarkServeSecondSignal 1 %d ns/op %d held-ns\n", ended.Sub(second).Nanoseconds(), second.Sub(first).Nanoseconds())
	return nil
}

// logBuf collects a child's log lines for the -second-signal case.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(line)
	l.b.WriteByte('\n')
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServerLog is startServer keeping the child's log; done is closed
// when the log ends, after which the caller may Wait.
func startServerLog(bin string, args []string) (cmd *exec.Cmd, addr string, log *logBuf, done chan struct{}, err error) {
	cmd = exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", nil, nil, err
	}
	log = &logBuf{}
	found := make(chan string, 1)
	done = make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.add(sc.Text())
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- strings.Trim(m[1], `"`):
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case addr = <-found:
		return cmd, addr, log, done, nil
	case <-done:
		select {
		case addr = <-found:
			return cmd, addr, log, done, nil
		default:
		}
		_ = cmd.Wait()
		return nil, "", nil, nil, fmt.Errorf("%s %s exited before serving:\n%s", bin, strings.Join(args, " "), log)
	}
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

var servingLine = regexp.MustCompile(`serving .* on grpc://(\S+)`)

// startServer runs ts2arrow serve and waits for its start line, which
// names the port bound.
func startServer(bin string, args []string) (*exec.Cmd, string, error) {
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
			// Keep draining the log, or the server blocks on a full pipe.
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return cmd, strings.Trim(m[1], `"`), nil
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, "", fmt.Errorf("%s %s exited before serving", bin, strings.Join(args, " "))
}

// tableFlight plans the root's one table.
func tableFlight(c arrowflight.Client) (*arrowflight.FlightInfo, error) {
	lf, err := c.ListFlights(context.Background(), &arrowflight.Criteria{})
	if err != nil {
		return nil, err
	}
	for {
		fi, err := lf.Recv()
		if err != nil {
			return nil, fmt.Errorf("no table flight listed: %w", err)
		}
		if len(fi.FlightDescriptor.GetPath()) == 1 {
			return fi, nil
		}
	}
}

// readFlight reads every endpoint of fi to the end and returns its rows.
func readFlight(c arrowflight.Client, fi *arrowflight.FlightInfo) (int64, error) {
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

// status reads a size field of /proc/PID/status, in bytes.
func status(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s line %q: %w", field, line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
