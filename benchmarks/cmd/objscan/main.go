// Command objscan measures reading TsFiles from object storage (issue
// 39): it starts versitygw (an S3-compatible server, posix backend) on
// 127.0.0.1, uploads FILE (the generated default mix), and reads it from
// there and from local disk alternately, in child processes, round after
// round, so that both meet the same machine noise:
//
//   - the CLI: `ts2arrow convert INPUT --format arrows -o -` (standard
//     output to /dev/null), wall time and the child's peak RSS
//     (ru_maxrss), INPUT the s3:// URL or the local path;
//   - the library: objscan -read (readMain: objstore.OpenFile and the
//     arrowconv scan, or tsfile.Open locally) in a child of its own, its
//     time, peak RSS (VmHWM), objstore's request and byte counts, and
//     the bytes the local scan reads (its ReadAt calls: the bytes needed);
//   - the raw ceiling: one GET of the whole object with the AWS SDK
//     against a read of the local file (page cache), in this process.
//
// Then, once, through a counting proxy in front of the server: the
// requests and response bytes of the CLI's full scan and of its 1% time
// window (benchmarks.SelectiveWindow), and the library's 1% window. It
// prints benchmark lines that benchmarks/cmd/report reads:
//
//	BenchmarkObjectGet/rows=N 1 <ns> ns/op <MB/s> MB/s <MB/s> local-MB/s <x> x-local <MB> file-MB <ms> server-cpu-ms
//	BenchmarkObjectGet/ranges=8MiB/conc=C/rows=N 1 <ns> ns/op <MB/s> MB/s <MB> file-MB
//	BenchmarkObjectScan/cli/rows=N 1 <ns> ns/op <ns> local-ns/op <x> x-local
//	    <MB> peak-RSS-MB <MB> local-peak-RSS-MB <x> x-local-RSS <MB> file-MB
//	    <ms> cpu-ms <ms> server-cpu-ms <ms> local-cpu-ms
//	BenchmarkObjectScan/lib/rows=N ... (the same) <n> requests <MB> fetched-MB <MB> needed-MB
//	BenchmarkObjectCount/{cli,lib}/scan/rows=N 1 <ns> ns/op <n> requests <MB> fetched-MB <MB> file-MB
//	    <n> gets <KB> median-get-KB <KB> max-get-KB <n> max-inflight
//	BenchmarkObjectWindow/cli/rows=N 1 <ns> ns/op <ns> local-ns/op <n> requests <MB> fetched-MB
//	    <MB> file-MB <x> fetched-frac
//	BenchmarkObjectWindow/lib/rows=N ... (the same) <MB> needed-MB
//
// x-local is the local time over the remote one (the remote scan's speed
// as a fraction of the local scan's; the target is 0.7), x-local-RSS the
// remote peak RSS over the local one (target at most 1.5); cpu-ms is the
// remote reader's CPU time (user and system), server-cpu-ms versitygw's
// during that read (on 2 cores the two share them), fetched-frac
// the window's fetched bytes over the file size (target at most 0.05).
//
// -quick (benchmarks/run --quick) leaves out the ranged GETs and the
// counted full scans. -window-file reads the 1% window of a larger default-mix file too (the
// full run's 100M-row scaling file, where a page is 0.8% of a device's
// rows instead of 8%).
//
// Usage:
//
//	cd benchmarks && go run ./cmd/objscan -ts2arrow BIN [-count 3] [-rows N]
//	    [-window-file BIG -window-rows N] FILE
//
// The server binary: $TSARROW_VERSITYGW, else versitygw on PATH, else
// /work/tools/bin/versitygw. -serve D only uploads FILE, prints the
// environment that reaches the server and keeps it D, to try things by
// hand. -read-args passes more flags to every library
// read (objstore knobs: -concurrency, -read-ahead, -block-size), to try
// other settings without a rebuild.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tsarrow/tsarrow/benchmarks"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-read" {
		readMain(os.Args[2:])
		return
	}
	ts2arrow := flag.String("ts2arrow", "", "the ts2arrow binary (required)")
	count := flag.Int("count", 3, "rounds of each measurement")
	rows := flag.Int("rows", 0, "rows of FILE (default $TSARROW_BENCH_ROWS or 10,000,000), for the time window")
	readArgs := flag.String("read-args", "", "more flags for every library read (objscan -read; space-separated)")
	skipCLI := flag.Bool("no-cli", false, "measure the library only")
	windowFile := flag.String("window-file", "", "also read the 1% time window of this larger default-mix file (its rows in -window-rows)")
	windowRows := flag.Int("window-rows", 0, "rows of -window-file")
	serve := flag.Duration("serve", 0, "upload FILE, print the environment that reaches it, and keep the server this long (for trying things by hand)")
	quick := flag.Bool("quick", false, "smoke run: no ranged GETs, no counted full scans (the window only)")
	getOnly := flag.Bool("get-only", false, "measure the raw GET against the local read only (no ts2arrow)")
	flag.Parse()
	if flag.NArg() != 1 || (!*getOnly && *serve == 0 && *ts2arrow == "") || *count < 1 {
		fmt.Fprintln(os.Stderr, "usage: objscan -ts2arrow BIN [-count N] [-rows N] [-read-args ARGS] FILE\n       objscan -read [flags] INPUT")
		os.Exit(2)
	}
	if *rows == 0 {
		n, err := benchmarks.Rows()
		if err != nil {
			fail(err)
		}
		*rows = n
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	m := &measure{ts2arrow: *ts2arrow, self: self, path: flag.Arg(0), rows: *rows,
		readArgs: strings.Fields(*readArgs), cli: !*skipCLI, getOnly: *getOnly,
		windowFile: *windowFile, windowRows: *windowRows, serve: *serve, quick: *quick}
	if (*windowFile == "") != (*windowRows == 0) {
		fmt.Fprintln(os.Stderr, "objscan: -window-file and -window-rows go together")
		os.Exit(2)
	}
	if err := m.run(*count); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "objscan:", err)
	os.Exit(1)
}

type measure struct {
	ts2arrow, self, path string
	rows                 int
	readArgs             []string
	cli, getOnly         bool
	serve                time.Duration
	quick                bool

	srv  *s3Server
	url  string // s3://bucket/key of the uploaded file
	size int64

	windowFile string // a larger file whose 1% window is read too
	windowRows int
}

const bucket = "bench"

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "objscan: "+format+"\n", args...) }

func (m *measure) run(count int) error {
	ctx := context.Background()
	st, err := os.Stat(m.path)
	if err != nil {
		return err
	}
	m.size = st.Size()
	// The server's files go beside the generated ones (the cache
	// directory has room for them; /tmp may be small).
	parent := os.Getenv("TSARROW_BENCH_DIR")
	if parent == "" {
		parent = filepath.Dir(m.path)
	}
	m.srv, err = startS3(parent)
	if err != nil {
		return err
	}
	defer m.srv.stop()
	// Interrupted (Ctrl-C, benchmarks/run killed, -serve ended by hand):
	// the server and its copy of the file go too.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		m.srv.stop()
		os.Exit(1)
	}()
	key := "data/" + filepath.Base(m.path)
	m.url = "s3://" + bucket + "/" + key
	start := time.Now()
	if err := m.srv.createBucket(ctx, bucket); err != nil {
		return err
	}
	if err := m.srv.put(ctx, bucket, key, m.path); err != nil {
		return err
	}
	logf("versitygw at %s; uploaded %s (%.1f MB) in %v", m.srv.Endpoint, m.url, mb(m.size), time.Since(start).Round(time.Millisecond))
	suffix := fmt.Sprintf("rows=%d", m.rows)
	if m.serve > 0 {
		for _, kv := range env(m.srv.Endpoint)[len(os.Environ()):] {
			fmt.Printf("export %s\n", kv)
		}
		fmt.Printf("# %s for %v\n", m.url, m.serve)
		time.Sleep(m.serve)
		return nil
	}

	for i := range count {
		if err := m.ceiling(ctx, key, suffix, i%2 == 1); err != nil {
			return err
		}
	}
	if m.getOnly {
		return nil
	}
	for i := range count {
		remoteFirst := i%2 == 1
		if m.cli {
			if err := m.cliScan(suffix, remoteFirst); err != nil {
				return err
			}
		}
		if err := m.libScan(suffix, remoteFirst); err != nil {
			return err
		}
	}
	return m.counted(ctx, suffix)
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// ceiling times one GET of the whole object against one read of the
// local file.
func (m *measure) ceiling(ctx context.Context, key, suffix string, remoteFirst bool) error {
	var remote, local, server time.Duration
	for _, r := range order(remoteFirst) {
		before := m.srv.cpu()
		start := time.Now()
		var n int64
		var err error
		if r {
			n, err = m.srv.get(ctx, bucket, key)
		} else {
			n, err = readLocal(m.path)
		}
		if err != nil {
			return err
		}
		if n != m.size {
			return fmt.Errorf("read %d bytes of %d", n, m.size)
		}
		if r {
			remote = time.Since(start)
			server = m.srv.cpu() - before
		} else {
			local = time.Since(start)
		}
	}
	fmt.Printf("BenchmarkObjectGet/%s 1 %d ns/op %.1f MB/s %.1f local-MB/s %.3f x-local %.1f file-MB %d server-cpu-ms\n",
		suffix, remote.Nanoseconds(), mb(m.size)/remote.Seconds(), mb(m.size)/local.Seconds(),
		local.Seconds()/remote.Seconds(), mb(m.size), server.Milliseconds())
	// The same in 8 MiB ranges, 1, 2, 4 and 8 at a time: whether
	// parallel requests raise the ceiling on this machine.
	if m.quick {
		return nil
	}
	for _, conc := range []int{1, 2, 4, 8} {
		start := time.Now()
		n, err := m.srv.getRanges(ctx, bucket, key, m.size, 8<<20, conc)
		if err != nil {
			return err
		}
		if n != m.size {
			return fmt.Errorf("ranges read %d bytes of %d", n, m.size)
		}
		d := time.Since(start)
		fmt.Printf("BenchmarkObjectGet/ranges=8MiB/conc=%d/%s 1 %d ns/op %.1f MB/s %.1f file-MB\n",
			conc, suffix, d.Nanoseconds(), mb(m.size)/d.Seconds(), mb(m.size))
	}
	return nil
}

// order is the order of a round's two reads: true is the remote one.
func order(remoteFirst bool) []bool {
	if remoteFirst {
		return []bool{true, false}
	}
	return []bool{false, true}
}

func readLocal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(io.Discard, f)
}

// run is one child's figures.
type runFig struct {
	elapsed time.Duration
	cpu     time.Duration // the child's user and system time
	server  time.Duration // the server's CPU time during the read
	rssMB   float64
	metrics map[string]float64 // the library read's line, by unit
	out     int64              // bytes of the CLI's standard output, when counted
}

// cliConvert runs ts2arrow convert on input (the local path or the URL),
// its standard output to /dev/null unless countOut, with extra flags.
func (m *measure) cliConvert(input string, environ []string, countOut bool, extra ...string) (runFig, error) {
	args := append([]string{"convert", input, "--format", "arrows", "-o", "-"}, extra...)
	cmd := exec.Command(m.ts2arrow, args...)
	cmd.Env = environ
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var cw countWriter
	if countOut {
		cmd.Stdout = &cw
	} else {
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return runFig{}, err
		}
		defer devnull.Close()
		cmd.Stdout = devnull
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return runFig{}, fmt.Errorf("ts2arrow %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	f := runFig{elapsed: time.Since(start), out: cw.n, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		f.rssMB = mb(ru.Maxrss << 10) // KiB on Linux
	}
	return f, nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// libRead runs objscan -read on input with extra flags in a child
// process and returns its line's metrics.
func (m *measure) libRead(input string, environ []string, extra ...string) (runFig, error) {
	args := append(append([]string{"-read"}, m.readArgs...), extra...)
	args = append(args, input)
	cmd := exec.Command(m.self, args...)
	cmd.Env = environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return runFig{}, fmt.Errorf("objscan %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	met, err := parseLine(stdout.String())
	if err != nil {
		return runFig{}, fmt.Errorf("objscan %s: %w", strings.Join(args, " "), err)
	}
	return runFig{elapsed: time.Duration(met["ns/op"]), rssMB: met["peak-RSS-MB"], metrics: met,
		cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

// parseLine reads the value-unit pairs of a benchmark line.
func parseLine(s string) (map[string]float64, error) {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		out := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("bad value %q", f[i])
			}
			out[f[i+1]] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("no benchmark line in %q", s)
}

// pair runs one read locally and one remotely, in the given order.
func (m *measure) pair(remoteFirst bool, read func(remote bool) (runFig, error)) (remote, local runFig, err error) {
	for _, r := range order(remoteFirst) {
		before := m.srv.cpu()
		f, err := read(r)
		if err != nil {
			return runFig{}, runFig{}, err
		}
		f.server = m.srv.cpu() - before
		if r {
			remote = f
		} else {
			local = f
		}
	}
	return remote, local, nil
}

func (m *measure) cliScan(suffix string, remoteFirst bool) error {
	remote, local, err := m.pair(remoteFirst, func(r bool) (runFig, error) {
		if r {
			return m.cliConvert(m.url, env(m.srv.Endpoint), false)
		}
		return m.cliConvert(m.path, os.Environ(), false)
	})
	if err != nil {
		return err
	}
	fmt.Printf("BenchmarkObjectScan/cli/%s 1 %d ns/op %d local-ns/op %.3f x-local %.1f peak-RSS-MB %.1f local-peak-RSS-MB %.3f x-local-RSS %.1f file-MB %s\n",
		suffix, remote.elapsed.Nanoseconds(), local.elapsed.Nanoseconds(), local.elapsed.Seconds()/remote.elapsed.Seconds(),
		remote.rssMB, local.rssMB, remote.rssMB/local.rssMB, mb(m.size), cpuText(remote, local))
	return nil
}

func (m *measure) libScan(suffix string, remoteFirst bool) error {
	remote, local, err := m.pair(remoteFirst, func(r bool) (runFig, error) {
		if r {
			return m.libRead(m.url, env(m.srv.Endpoint))
		}
		return m.libRead(m.path, os.Environ())
	})
	if err != nil {
		return err
	}
	if remote.metrics["rows"] != local.metrics["rows"] || local.metrics["rows"] != float64(m.rows) {
		return fmt.Errorf("library scan read %v rows remotely, %v locally, want %d", remote.metrics["rows"], local.metrics["rows"], m.rows)
	}
	fmt.Printf("BenchmarkObjectScan/lib/%s 1 %d ns/op %d local-ns/op %.3f x-local %.1f peak-RSS-MB %.1f local-peak-RSS-MB %.3f x-local-RSS %.1f file-MB %.0f requests %.2f fetched-MB %.2f needed-MB %s\n",
		suffix, remote.elapsed.Nanoseconds(), local.elapsed.Nanoseconds(), local.elapsed.Seconds()/remote.elapsed.Seconds(),
		remote.rssMB, local.rssMB, remote.rssMB/local.rssMB, mb(m.size),
		remote.metrics["requests"], remote.metrics["fetched-MB"], local.metrics["read-MB"], cpuText(remote, local))
	return nil
}

// cpuText is the CPU time of a pair: the remote child's, the server's
// during it, and the local child's.
func cpuText(remote, local runFig) string {
	return fmt.Sprintf("%d cpu-ms %d server-cpu-ms %d local-cpu-ms",
		remote.cpu.Milliseconds(), remote.server.Milliseconds(), local.cpu.Milliseconds())
}

// counted measures the requests and bytes of the CLI's full scan and of
// the 1% time window, CLI and library, through a counting proxy; then the
// window on the larger file of -window-file, when given.
func (m *measure) counted(ctx context.Context, suffix string) error {
	c, err := startCounter(hostPort(m.srv.Endpoint))
	if err != nil {
		return err
	}
	defer c.close()
	if m.quick {
		return m.windowRuns(c, m.url, m.path, m.size, m.rows)
	}
	if m.cli {
		remote, err := m.cliConvert(m.url, env(c.URL), true)
		if err != nil {
			return err
		}
		local, err := m.cliConvert(m.path, os.Environ(), true)
		if err != nil {
			return err
		}
		if remote.out != local.out {
			return fmt.Errorf("the CLI wrote %d bytes from %s, %d from %s", remote.out, m.url, local.out, m.path)
		}
		fmt.Printf("BenchmarkObjectCount/cli/scan/%s 1 %d ns/op %d requests %.2f fetched-MB %.1f file-MB %s\n",
			suffix, remote.elapsed.Nanoseconds(), c.requests.Load(), mb(c.got.Load()), mb(m.size), c.shape())
	}
	// The library's full scan through the proxy: the shape of its GETs.
	c.reset()
	lib, err := m.libRead(m.url, env(c.URL))
	if err != nil {
		return err
	}
	fmt.Printf("BenchmarkObjectCount/lib/scan/%s 1 %d ns/op %d requests %.2f fetched-MB %.1f file-MB %s\n",
		suffix, lib.elapsed.Nanoseconds(), c.requests.Load(), mb(c.got.Load()), mb(m.size), c.shape())
	if err := m.windowRuns(c, m.url, m.path, m.size, m.rows); err != nil {
		return err
	}
	if m.windowFile == "" {
		return nil
	}
	st, err := os.Stat(m.windowFile)
	if err != nil {
		return err
	}
	key := "data/" + filepath.Base(m.windowFile)
	start := time.Now()
	if err := m.srv.put(ctx, bucket, key, m.windowFile); err != nil {
		return err
	}
	logf("uploaded s3://%s/%s (%.1f MB) in %v", bucket, key, mb(st.Size()), time.Since(start).Round(time.Millisecond))
	return m.windowRuns(c, "s3://"+bucket+"/"+key, m.windowFile, st.Size(), m.windowRows)
}

// windowRuns reads the 1% time window of the file of rows rows at path
// and at url, by the CLI and the library, counting requests and bytes.
func (m *measure) windowRuns(c *counter, url, path string, size int64, rows int) error {
	suffix := fmt.Sprintf("rows=%d", rows)
	w := benchmarks.SelectiveWindow(benchmarks.Devices, rows)
	if m.cli {
		win := []string{"--start", strconv.FormatInt(w.Start, 10), "--end", strconv.FormatInt(w.End, 10)}
		c.reset()
		remote, err := m.cliConvert(url, env(c.URL), true, win...)
		if err != nil {
			return err
		}
		local, err := m.cliConvert(path, os.Environ(), true, win...)
		if err != nil {
			return err
		}
		if remote.out != local.out || remote.out == 0 {
			return fmt.Errorf("the CLI wrote %d bytes of the window from %s, %d from %s", remote.out, url, local.out, path)
		}
		fmt.Printf("BenchmarkObjectWindow/cli/%s 1 %d ns/op %d local-ns/op %d requests %.3f fetched-MB %.1f file-MB %.4f fetched-frac %s\n",
			suffix, remote.elapsed.Nanoseconds(), local.elapsed.Nanoseconds(), c.requests.Load(), mb(c.got.Load()), mb(size),
			float64(c.got.Load())/float64(size), c.shape())
	}
	lwin := []string{"-start", strconv.FormatInt(w.Start, 10), "-end", strconv.FormatInt(w.End, 10)}
	c.reset()
	remote, err := m.libRead(url, env(c.URL), lwin...)
	if err != nil {
		return err
	}
	local, err := m.libRead(path, os.Environ(), lwin...)
	if err != nil {
		return err
	}
	if remote.metrics["rows"] != local.metrics["rows"] || remote.metrics["rows"] == 0 {
		return fmt.Errorf("the library read %v rows of the window remotely, %v locally", remote.metrics["rows"], local.metrics["rows"])
	}
	// objstore's own count, and the proxy's as a check of it.
	fmt.Printf("BenchmarkObjectWindow/lib/%s 1 %d ns/op %d local-ns/op %.0f requests %.3f fetched-MB %.3f needed-MB %.1f file-MB %.4f fetched-frac %d proxy-requests %.3f proxy-fetched-MB %s\n",
		suffix, remote.elapsed.Nanoseconds(), local.elapsed.Nanoseconds(), remote.metrics["requests"], remote.metrics["fetched-MB"],
		local.metrics["read-MB"], mb(size), remote.metrics["fetched-MB"]/mb(size), c.requests.Load(), mb(c.got.Load()), c.shape())
	return nil
}
