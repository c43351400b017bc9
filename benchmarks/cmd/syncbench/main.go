// Command syncbench measures issue 41's speed targets of `ts2arrow sync`
// (an Iceberg table kept in step with an IoTDB data directory) and prints
// them as benchmark lines that benchmarks/cmd/report and benchstat read:
//
//	BenchmarkIcebergSync/<what>/rows=N 1 <ns> ns/op <r> rows/s <MB> peak-RSS-MB ...
//
// Usage:
//
//	cd benchmarks && go run ./cmd/syncbench -ts2arrow BIN [-rows N] [-days D] [-count C] [-keep]
//
// It takes the generated resolved data directory of N sequence rows
// (benchmarks.EnsureDatasetDays: 12 devices, unsequence files rewriting
// 10% of the rows, mods2 deleting 1%), its rows spread over D days (30),
// copies it into a scratch folder (data files hard-linked, mods files
// copied, since it changes them), and runs, each as a child process whose
// wall time and ru_maxrss it takes:
//
//   - convert: `ts2arrow convert DIR --table readings -o x.parquet`, the
//     peer of the first sync;
//   - first: `ts2arrow sync DIR ... --catalog sqlite:... --warehouse ...`
//     into a new table (C rounds alternating with convert, which goes
//     first in even rounds; x-convert is convert's time over the sync's,
//     the sync's speed as a share of convert's, target >= 0.8);
//   - append1pct: after new sequence files holding 1% more rows, later
//     than every row (benchmarks.AppendDatasetFiles), a sync of the last
//     round's table; x-first is its time over the first sync's (median),
//     target <= 0.05;
//   - delete1day: after a DELETE of one hour of one day in the middle
//     (day D/2) appended to the .mods2 of every file it touches
//     (benchmarks.AppendDatasetDeletion), a sync; target <= 0.10.
//
// Every line has the child's CPU time (user + system, cpu-ms) too, and
// the ratios by CPU time beside those by wall time (x-convert-cpu,
// x-first-cpu): on a machine other processes load, the CPU time varies
// less than the wall time. Each sync line also says the data files the sync wrote (files-written,
// counted in the warehouse) and took out of the table (files-removed,
// from its summary line), and the rows it wrote. The scratch folder goes
// at the end unless -keep.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tsarrow/tsarrow/benchmarks"
)

func main() {
	bin := flag.String("ts2arrow", "", "the ts2arrow binary (required)")
	rows := flag.Int("rows", 0, "sequence rows of the data directory (default $TSARROW_DATASET_ROWS or 10,000,000)")
	days := flag.Int("days", 30, "days the rows span")
	count := flag.Int("count", 1, "rounds of convert and first sync")
	keep := flag.Bool("keep", false, "keep the scratch folder (its path goes to stderr)")
	generate := flag.Bool("generate", false, "only generate the data directory (unless cached) and exit")
	flag.Parse()
	if (*bin == "" && !*generate) || flag.NArg() != 0 || *count < 1 || *days < 1 {
		fmt.Fprintln(os.Stderr, "usage: syncbench -ts2arrow BIN [-rows N] [-days D] [-count C] [-keep]")
		os.Exit(2)
	}
	if *rows == 0 {
		n, err := benchmarks.DatasetRows()
		if err != nil {
			fail(err)
		}
		*rows = n
	}
	if *generate {
		if _, err := benchmarks.EnsureDatasetDays(*rows, *days); err != nil {
			fail(err)
		}
		return
	}
	if err := run(*bin, *rows, *days, *count, *keep); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "syncbench:", err)
	os.Exit(1)
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "syncbench: "+format+"\n", args...) }

// fig is what one child process took.
type fig struct {
	wall  time.Duration
	cpu   time.Duration // user + system
	rssMB float64
	out   string
}

func run(bin string, rows, days, count int, keep bool) error {
	start := time.Now()
	// Generate in a child process: the generator's memory would stay in
	// this process's RSS, which every child inherits at fork as the
	// start of its ru_maxrss (Linux keeps the high-water mark across
	// execve), and so shows as the children's peak.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	gen := exec.Command(self, "-generate", "-rows", strconv.Itoa(rows), "-days", strconv.Itoa(days))
	gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
	if err := gen.Run(); err != nil {
		return fmt.Errorf("generating the data directory: %w", err)
	}
	in, err := benchmarks.EnsureDatasetDays(rows, days)
	if err != nil {
		return err
	}
	step := benchmarks.DatasetStep(rows, days)
	logf("dataset %s (%v; one row every %d ms a device, %d days): %s", benchmarks.DatasetPathDays(rows, days),
		time.Since(start).Round(time.Millisecond), step, days, in.Summary())
	work, err := os.MkdirTemp(benchmarks.Dir(), "syncbench-*")
	if err != nil {
		return err
	}
	if keep {
		logf("scratch folder %s", work)
	} else {
		defer os.RemoveAll(work)
	}
	data := filepath.Join(work, "data")
	if err := mirror(in.Resolved, data); err != nil {
		return err
	}
	name := func(what string) string { return fmt.Sprintf("IcebergSync/%s/rows=%d", what, rows) }
	line := func(what string, f fig, written int64, extra string) {
		fmt.Printf("Benchmark%s 1 %d ns/op %.0f rows/s %.1f peak-RSS-MB %.0f cpu-ms%s\n", name(what), f.wall.Nanoseconds(),
			float64(written)/f.wall.Seconds(), f.rssMB, float64(f.cpu)/1e6, extra)
	}

	var firsts, firstCPU []time.Duration
	var cat, lake string
	for i := range count {
		cat, lake = filepath.Join(work, fmt.Sprintf("cat-%d.db", i)), filepath.Join(work, fmt.Sprintf("lake-%d", i))
		out := filepath.Join(work, "convert.parquet")
		convert := func() (fig, error) {
			f, err := child(bin, "convert", data, "--table", benchmarks.DatasetTable, "-o", out)
			os.Remove(out)
			return f, err
		}
		var conv, first fig
		var sr syncResult
		if i%2 == 0 {
			if conv, err = convert(); err == nil {
				first, sr, err = syncOnce(bin, data, cat, lake)
			}
		} else {
			if first, sr, err = syncOnce(bin, data, cat, lake); err == nil {
				conv, err = convert()
			}
		}
		if err != nil {
			return err
		}
		line("convert", conv, in.ExpectedRows, "")
		line("first", first, sr.rows, fmt.Sprintf(" %.4f x-convert %.4f x-convert-cpu %d files-written %d files-removed",
			conv.wall.Seconds()/first.wall.Seconds(), conv.cpu.Seconds()/first.cpu.Seconds(), sr.written, sr.removed))
		firsts = append(firsts, first.wall)
		firstCPU = append(firstCPU, first.cpu)
		if i+1 < count {
			os.RemoveAll(lake)
			os.Remove(cat)
		}
	}
	med, medCPU := median(firsts), median(firstCPU)

	add := rows / 100
	paths, err := benchmarks.AppendDatasetFiles(data, rows, step, 2, add)
	if err != nil {
		return err
	}
	logf("added %d rows in %d sequence files after every row: %s", add, len(paths), strings.Join(base(paths), ", "))
	f, sr, err := syncOnce(bin, data, cat, lake)
	if err != nil {
		return err
	}
	line("append1pct", f, sr.rows, incr(f, sr, med, medCPU))

	del := benchmarks.DatasetDayDeletion(days / 2)
	touched, err := benchmarks.AppendDatasetDeletion(data, del)
	if err != nil {
		return err
	}
	logf("deleted %s in the .mods2 of %d data files: %s", del.String(), len(touched), strings.Join(base(touched), ", "))
	f, sr, err = syncOnce(bin, data, cat, lake)
	if err != nil {
		return err
	}
	line("delete1day", f, sr.rows, incr(f, sr, med, medCPU))
	logf("done in %v", time.Since(start).Round(time.Millisecond))
	return nil
}

// incr is the tail of an incremental sync's line: its time and CPU time
// as shares of the first sync's (medians), and its files.
func incr(f fig, sr syncResult, first, firstCPU time.Duration) string {
	return fmt.Sprintf(" %.4f x-first %.4f x-first-cpu %d files-written %d files-removed",
		f.wall.Seconds()/first.Seconds(), f.cpu.Seconds()/firstCPU.Seconds(), sr.written, sr.removed)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func base(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// syncResult is what a sync did: rows and data files written (those new
// in the warehouse), data files taken out of the table.
type syncResult struct {
	rows, written, removed int64
}

// summary matches the counts of ts2arrow sync's line: "... N data files
// added, M replaced, R rows, ...".
var summary = regexp.MustCompile(`(\d+) data files added, (\d+) replaced, (\d+) rows`)

func syncOnce(bin, data, cat, lake string) (fig, syncResult, error) {
	before, err := dataFiles(lake)
	if err != nil {
		return fig{}, syncResult{}, err
	}
	f, err := child(bin, "sync", data, "--table", benchmarks.DatasetTable, "--catalog", "sqlite:"+cat,
		"--warehouse", lake, "--to", "iot."+benchmarks.DatasetTable)
	if err != nil {
		return f, syncResult{}, err
	}
	after, err := dataFiles(lake)
	if err != nil {
		return f, syncResult{}, err
	}
	var r syncResult
	for p := range after {
		if !before[p] {
			r.written++
		}
	}
	logf("sync in %v, peak RSS %.0f MB: %s", f.wall.Round(time.Millisecond), f.rssMB, strings.TrimSpace(f.out))
	if m := summary.FindStringSubmatch(f.out); m != nil {
		r.removed, _ = strconv.ParseInt(m[2], 10, 64)
		r.rows, _ = strconv.ParseInt(m[3], 10, 64)
	} else if !strings.Contains(f.out, "nothing to sync") {
		return f, r, fmt.Errorf("sync printed %q, not the summary syncbench reads", strings.TrimSpace(f.out))
	}
	return f, r, nil
}

// dataFiles lists the Parquet files under the warehouse.
func dataFiles(lake string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(lake, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == lake {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out[p] = true
		}
		return nil
	})
	return out, err
}

// child runs ts2arrow with args, returning its wall time, peak RSS and
// standard output.
func child(bin string, args ...string) (fig, error) {
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	t0 := time.Now()
	err := cmd.Run()
	f := fig{wall: time.Since(t0), out: stdout.String()}
	if err != nil {
		return f, fmt.Errorf("%s %s: %w: %s", filepath.Base(bin), strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		f.rssMB = float64(ru.Maxrss<<10) / 1e6 // KiB on Linux
		f.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return f, nil
}

// mirror copies the data directory src to dst: data files and resources
// as hard links (copies where linking fails), mods files as copies, since
// the benchmark appends to them.
func mirror(src, dst string) error {
	var paths []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		q := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(q), 0o755); err != nil {
			return err
		}
		if !strings.Contains(filepath.Base(p), ".mods") && os.Link(p, q) == nil {
			continue
		}
		if err := copyFile(p, q); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
