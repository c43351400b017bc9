package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/benchmarks"
	"github.com/tsarrow/tsarrow/benchmarks/internal/procstat"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

// readMain is the library read, run as a child process of its own
// (objscan -read [flags] INPUT) so that its peak RSS is its own: it opens
// INPUT, an object URL (objstore.Open, Store.OpenFile, tsfile.Open on the
// File) or a local file (tsfile.Open on it through a ReadAt counter),
// scans the generated table with arrowconv to the end, and prints
//
//	BenchmarkObjectRead 1 <ns> ns/op <MB> peak-RSS-MB <n> rows <n> requests <MB> fetched-MB <MB> read-MB
//
// requests and fetched-MB are objstore's Stats (OpenFile's HEAD
// included), read-MB the bytes the local scan's ReadAt calls asked for.
// The local read runs in the same binary, so that both carry the same
// linked code (the cloud SDKs objstore links add about 25 MB to any
// process's RSS before it reads anything).
func readMain(args []string) {
	fs := flag.NewFlagSet("objscan -read", flag.ExitOnError)
	var window arrowconv.TimeRange
	var o objstore.Options
	fs.Int64Var(&window.Start, "start", 0, "read only rows from this time (inclusive; with -end)")
	fs.Int64Var(&window.End, "end", 0, "read only rows up to this time (inclusive; with -start)")
	fs.IntVar(&o.Concurrency, "concurrency", 0, "objstore.Options.Concurrency (0: its default)")
	fs.Int64Var(&o.ReadAhead, "read-ahead", 0, "objstore.Options.ReadAhead in bytes (0: its default, <0: off)")
	fs.IntVar(&o.BlockSize, "block-size", 0, "objstore.Options.BlockSize in bytes (0: its default)")
	workers := fs.Int("workers", 0, "decode workers (default GOMAXPROCS)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the read to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the read to this file")
	fs.Parse(args)
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: objscan -read [-start T -end T] [-concurrency N] [-read-ahead B] [-block-size B] [-workers N] [-cpuprofile F] [-memprofile F] INPUT")
		os.Exit(2)
	}
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(pf)
		}
		if err != nil {
			fail(err)
		}
	}
	start := time.Now()
	rows, st, read, err := scan(fs.Arg(0), &o, window, *workers)
	elapsed := time.Since(start)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		fail(err)
	}
	if *memProfile != "" {
		pf, err := os.Create(*memProfile)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(pf, 0)
		}
		if err != nil {
			fail(err)
		}
	}
	hwm, err := procstat.PeakRSS()
	if err != nil {
		fail(err)
	}
	fmt.Printf("BenchmarkObjectRead 1 %d ns/op %.1f peak-RSS-MB %d rows %d requests %.3f fetched-MB %.3f read-MB\n",
		elapsed.Nanoseconds(), mb(hwm), rows, st.Requests, mb(st.Bytes), mb(read))
}

// scan reads the generated table of input to the end.
func scan(input string, o *objstore.Options, window arrowconv.TimeRange, workers int) (rows int64, st objstore.Stats, read int64, err error) {
	var r io.ReaderAt
	var size int64
	var obj *objstore.File
	var counter *countingReaderAt
	if objstore.IsURL(input) {
		ctx := context.Background()
		store, key, err := objstore.Open(ctx, input, o)
		if err != nil {
			return 0, st, 0, err
		}
		defer store.Close()
		obj, err = store.OpenFile(ctx, key)
		if err != nil {
			return 0, st, 0, err
		}
		defer obj.Close()
		r, size = obj, obj.Size()
	} else {
		fh, err := os.Open(input)
		if err != nil {
			return 0, st, 0, err
		}
		defer fh.Close()
		info, err := fh.Stat()
		if err != nil {
			return 0, st, 0, err
		}
		counter = &countingReaderAt{r: fh}
		r, size = counter, info.Size()
	}
	f, err := tsfile.Open(r, size, nil)
	if err != nil {
		return 0, st, 0, err
	}
	defer f.Close()
	opts := &arrowconv.Options{Workers: workers}
	if window != (arrowconv.TimeRange{}) {
		opts.Time = &window
	}
	rdr, err := arrowconv.NewTableReader(f, benchmarks.Table, opts)
	if err != nil {
		return 0, st, 0, err
	}
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
	}
	err = rdr.Err()
	rdr.Release()
	if obj != nil {
		st = obj.Stats()
	}
	if counter != nil {
		read = counter.n.Load()
	}
	return rows, st, read, err
}

// countingReaderAt counts the bytes asked of a local file.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}
