// Command bigmods generates a mods2 file of a given size (1 GiB by
// default) beside a small TsFile and reads it as IoTDB data, printing the
// time, the peak Go heap and the peak resident set size as a benchmark
// line (issue 40 item 3, gigabyte mods files):
//
//	BenchmarkBigMods/<mode>/<size> 1 <ns> ns/op <MB> file-MB <MB> peak-heap-MB <MB> peak-RSS-MB <n> entries <n> targets
//
// Usage:
//
//	cd benchmarks && go run ./cmd/bigmods [-size 1GiB] [-targets 2000] [-dir DIR] [-mode open|scan|parse]
//
// -mode open (the default) opens the file's directory with dataset.Open,
// which merges the entries per deletion target as they stream, and reads
// the table to the end; scan counts the entries with dataset.ScanModsFS;
// parse keeps them all (dataset.ReadModsFile), as a Dataset did before
// issue 40, for comparison on a smaller -size.
//
// The file holds tree deletions of root.db.d<i>.s1 and table deletions of
// the devices of table t, half each, over -targets targets; each
// target's entries cover 64 disjoint blocks of time in overlapping steps,
// so it merges into 64 intervals. The peak heap is sampled every 5 ms
// from runtime/metrics; the peak RSS is VmHWM of /proc/self/status.
// Without -dir the files go to a temporary directory removed at the end.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tsarrow/tsarrow/benchmarks/internal/procstat"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

func main() {
	size := flag.String("size", "1GiB", "size of the mods2 file: a number of bytes, or with KiB, MiB or GiB")
	targets := flag.Int("targets", 2000, "distinct deletion targets")
	dir := flag.String("dir", "", "directory for the files (default: a temporary one, removed after)")
	mode := flag.String("mode", "open", "open (dataset.Open and read the table), scan (ScanModsFS) or parse (ReadModsFile)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the read to this file")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil || flag.NArg() != 0 || *targets < 2 || (*mode != "open" && *mode != "scan" && *mode != "parse") {
		fmt.Fprintln(os.Stderr, "usage: bigmods [-size 1GiB] [-targets N] [-dir DIR] [-mode open|scan|parse]")
		os.Exit(2)
	}
	if err := run(n, *targets, *dir, *mode, *size, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "bigmods:", err)
		os.Exit(1)
	}
}

func parseSize(s string) (int64, error) {
	mul := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if t, ok := strings.CutSuffix(s, u.suf); ok {
			s, mul = t, u.m
			break
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mul, nil
}

func run(size int64, targets int, dir, mode, sizeName, cpuProfile string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "bigmods")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	data := filepath.Join(dir, "x.tsfile")
	if err := writeTsFile(data, targets); err != nil {
		return err
	}
	mods := data + dataset.ModsV2Suffix
	entries, err := writeMods(mods, size, targets)
	if err != nil {
		return err
	}
	st, err := os.Stat(mods)
	if err != nil {
		return err
	}

	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go sampleHeap(&peak, stop, done)
	if cpuProfile != "" {
		pf, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			pf.Close()
		}()
	}
	start := time.Now()
	opts := &dataset.ModsOptions{MaxSize: st.Size()}
	var kept string
	switch mode {
	case "open":
		ds, err := dataset.Open([]string{data}, &dataset.Options{Mods: opts})
		if err != nil {
			return err
		}
		rows, err := readAll(ds)
		ds.Close()
		if err != nil {
			return err
		}
		kept = fmt.Sprintf(" %d rows", rows)
	case "scan":
		got := 0
		if _, err := dataset.ScanModsFS(nil, mods, opts, func(*dataset.Deletion) error { got++; return nil }); err != nil {
			return err
		}
		if got != entries {
			return fmt.Errorf("scanned %d entries, wrote %d", got, entries)
		}
	case "parse":
		m, err := dataset.ReadModsFile(mods, opts)
		if err != nil {
			return err
		}
		if len(m.Deletions) != entries {
			return fmt.Errorf("parsed %d entries, wrote %d", len(m.Deletions), entries)
		}
	}
	elapsed := time.Since(start)
	close(stop)
	<-done
	hwm, err := procstat.PeakRSS()
	if err != nil {
		return err
	}
	fmt.Printf("BenchmarkBigMods/%s/%s 1 %d ns/op %.1f file-MB %.1f peak-heap-MB %.1f peak-RSS-MB %d entries %d targets%s\n",
		mode, sizeName, elapsed.Nanoseconds(), mb(st.Size()), mb(int64(peak.Load())), mb(hwm), entries, targets, kept)
	return nil
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// writeTsFile writes the data file: table t with devices d0..d9 and the
// tree devices root.db.d0..d9, 20 000 rows each.
func writeTsFile(path string, targets int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := tsfile.NewWriter(f, nil)
	if err != nil {
		f.Close()
		return err
	}
	times := make([]int64, 20000)
	vals := make([]int64, len(times))
	for i := range times {
		times[i] = int64(i) * 1000
		vals[i] = int64(i)
	}
	for i := range 10 {
		dev := tsfile.ParseTreePath(fmt.Sprintf("root.db.d%d", i))
		if err := w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{{
			SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64},
			Times:        times,
			Values:       tsfile.Values{Type: tsfile.Int64, Int64s: vals},
		}}); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeMods writes entries until the file reaches size, returning how
// many it wrote.
func writeMods(path string, size int64, targets int) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	pats := make([]dataset.Deletion, targets)
	for i := range pats {
		if i%2 == 0 {
			p, err := dataset.ParsePattern(fmt.Sprintf("root.db.d%d.s1", i/2))
			if err != nil {
				return 0, err
			}
			pats[i] = dataset.Deletion{Kind: dataset.TreeDeletion, Pattern: p}
		} else {
			pats[i] = dataset.Deletion{Kind: dataset.TableDeletion, Table: "t", Predicate: dataset.TagPredicate{
				Kind: dataset.PredSegmentExactMatch, Segment: 1, Value: fmt.Sprintf("d%d", i/2)}}
		}
	}
	var written int64
	var buf []byte
	n := 0
	for j := 0; written < size; j++ {
		// Block j%64 of 10 s of each target, covered in steps of 10 ms
		// ranges 15 ms long: 64 intervals a target once merged.
		base := int64(j%64) * 100_000_000
		start := base + int64(j/64%1000)*10_000
		buf = buf[:0]
		for i := range pats {
			d := pats[i]
			d.Start, d.End = start, start+15_000
			if buf, err = dataset.AppendModsV2(buf, d); err != nil {
				return 0, err
			}
			n++
		}
		if _, err := bw.Write(buf); err != nil {
			f.Close()
			return 0, err
		}
		written += int64(len(buf))
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return n, f.Close()
}

// readAll reads every table of the dataset to the end.
func readAll(ds *dataset.Dataset) (int64, error) {
	tables, err := ds.Tables()
	if err != nil {
		return 0, err
	}
	var rows int64
	for _, t := range tables {
		rd, err := ds.NewReader(t.Ref, nil)
		if err != nil {
			return 0, err
		}
		for rd.Next() {
			rows += rd.RecordBatch().NumRows()
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return 0, err
		}
	}
	return rows, nil
}

// sampleHeap keeps in peak the largest heap-objects figure seen.
func sampleHeap(peak *atomic.Uint64, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}
