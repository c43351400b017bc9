// Command rss converts a TsFile table to Parquet (or only scans it into
// record batches) and prints the process's peak resident set size, read
// from VmHWM in /proc/self/status at the end, as a benchmark line that
// benchmarks/cmd/report and benchstat read:
//
//	BenchmarkPeakRSS/<mode>/<file> 1 <ns> ns/op <MB> file-MB <MB> peak-RSS-MB ...
//
// Usage:
//
//	cd benchmarks && go run ./cmd/rss [-mode parquet|scan] [-workers N] [-o OUT] [-name NAME] FILE
//
// The Parquet output goes to a counting io.Discard unless -o names a file.
// -name replaces PeakRSS/<mode>/<file> in the benchmark name, so that a
// series of runs (the scaling case of benchmarks/run:
// -name Scaling/rows=N) is told apart from the peak-RSS case.
//
// -mode dataset reads a table of an IoTDB data directory (or any root
// dataset.Open takes) as the dataset package resolves it, to the end;
// file-MB is then the size of the data files under DIR:
//
//	rss -mode dataset [-table T] [-name NAME] DIR
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/benchmarks/internal/procstat"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

func main() {
	mode := flag.String("mode", "parquet", "parquet (convert), scan (read the record batches only), dataset (read a table of the data directory DIR resolved) or cli (run ts2arrow convert FILE -o x.parquet as a child process)")
	cli := flag.String("ts2arrow", "", "the ts2arrow binary for -mode cli")
	workers := flag.Int("workers", 0, "decode workers (default GOMAXPROCS)")
	table := flag.String("table", "", "table to read (default: the file's only table)")
	outPath := flag.String("o", "", "write the Parquet output to this file (default: discard it)")
	benchName := flag.String("name", "", "benchmark name to print instead of PeakRSS/<mode>/<file>")
	flag.Parse()
	if flag.NArg() != 1 || (*mode != "parquet" && *mode != "scan" && *mode != "cli" && *mode != "dataset") || (*mode == "cli") != (*cli != "") {
		fmt.Fprintln(os.Stderr, "usage: rss [-mode parquet|scan] [-workers N] [-table T] [-o OUT] FILE\n       rss -mode cli -ts2arrow BIN FILE\n       rss -mode dataset [-table T] DIR")
		os.Exit(2)
	}
	path := flag.Arg(0)
	start := time.Now()
	var rows, outBytes, hwm int64
	var err error
	switch *mode {
	case "cli":
		outBytes, hwm, err = runCLI(*cli, path)
	case "dataset":
		rows, err = runDataset(path, *table)
	default:
		rows, outBytes, err = run(path, *mode, *table, *outPath, *workers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
	elapsed := time.Since(start)
	if *mode != "cli" {
		hwm, err = procstat.PeakRSS()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
	size, err := dataSize(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	name := "PeakRSS/" + *mode + "/" + strings.TrimSuffix(filepath.Base(path), ".tsfile")
	if *benchName != "" {
		name = *benchName
	}
	fmt.Printf("Benchmark%s 1 %d ns/op %.1f file-MB %.1f peak-RSS-MB %.1f go-sys-MB %.1f out-MB %d rows\n",
		name, elapsed.Nanoseconds(), mb(size), mb(hwm), mb(int64(ms.Sys)), mb(outBytes), rows)
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func run(path, mode, table, outPath string, workers int) (rows, outBytes int64, err error) {
	f, err := tsfile.OpenFile(path, nil)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if table == "" {
		ts := f.Tables()
		if len(ts) != 1 {
			return 0, 0, fmt.Errorf("%s has %d tables; name one with -table", path, len(ts))
		}
		table = ts[0]
	}
	rdr, err := arrowconv.NewTableReader(f, table, &arrowconv.Options{Workers: workers})
	if err != nil {
		return 0, 0, err
	}
	defer rdr.Release()
	if mode == "scan" {
		for rdr.Next() {
			rows += rdr.RecordBatch().NumRows()
		}
		return rows, 0, rdr.Err()
	}
	var w io.Writer = io.Discard
	if outPath != "" {
		of, err := os.Create(outPath)
		if err != nil {
			return 0, 0, err
		}
		defer of.Close()
		w = of
	}
	cr := &countRows{RecordReader: rdr}
	n, err := writeParquet(w, cr)
	return cr.rows, n, err
}

// runDataset reads a table of the data directory (or file) at root as
// dataset.Open resolves it: deletions applied, overwritten copies merged.
func runDataset(root, table string) (rows int64, err error) {
	ds, err := dataset.Open([]string{root}, nil)
	if err != nil {
		return 0, err
	}
	defer ds.Close()
	if table == "" {
		ts, err := ds.Tables()
		if err != nil {
			return 0, err
		}
		if len(ts) != 1 {
			return 0, fmt.Errorf("%s has %d tables; name one with -table", root, len(ts))
		}
		table = ts[0].Name
	}
	rdr, err := ds.NewReader(table, nil)
	if err != nil {
		return 0, err
	}
	defer rdr.Release()
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
	}
	return rows, rdr.Err()
}

// dataSize is the size of a file, or of the data files under a directory.
func dataSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if !st.IsDir() {
		return st.Size(), nil
	}
	var n int64
	err = filepath.WalkDir(path, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, dataset.TsFileSuffix) {
			return err
		}
		info, err := e.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}

// runCLI converts path to Parquet with the ts2arrow binary in a child
// process, the way a user runs it, and returns the output size and the
// child's peak RSS (getrusage ru_maxrss).
func runCLI(bin, path string) (outBytes, hwm int64, err error) {
	dir, err := os.MkdirTemp("", "tsarrow-rss-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out.parquet")
	cmd := exec.Command(bin, "convert", path, "-o", out)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s convert: %w", bin, err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, fmt.Errorf("no rusage for the child on this system")
	}
	st, err := os.Stat(out)
	if err != nil {
		return 0, 0, err
	}
	return st.Size(), ru.Maxrss << 10, nil // ru_maxrss is in KiB on Linux
}

// countRows counts the rows a RecordReader hands out.
type countRows struct {
	array.RecordReader
	rows int64
}

func (c *countRows) Next() bool {
	if !c.RecordReader.Next() {
		return false
	}
	c.rows += c.RecordBatch().NumRows()
	return true
}
