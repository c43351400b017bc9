// Command gen writes the generated benchmark tables into the cache
// directory ($TSARROW_BENCH_DIR, default $TMPDIR/tsarrow-bench) unless they
// are there already, and prints one line per file: variant, rows, bytes,
// path. benchmarks/run calls it so that generating files stays out of the
// measured time.
//
//	cd benchmarks && go run ./cmd/gen [-rows N] [-variant default|plain|all|V1,V2,...] [-peers]
//
// A variant is default or plain, optionally followed by -1000dev (the
// many-devices twin) and then -aead (the Page AEAD twin). -peers also
// writes the peer files of that row count (Parquet ZSTD, Parquet
// uncompressed, Arrow IPC), converted from the default variant, which the
// peer benchmarks read.
//
// -dataset N writes the IoTDB data directories of the dataset benchmark
// instead (N sequence rows; see benchmarks.GenerateDataset), and the table
// variants too only when -variant is given. Its line is "dataset", rows,
// bytes of the resolved directory's data files, and the folder holding
// resolved/, plain/ and manifest.json; the mix goes to stderr.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tsarrow/tsarrow/benchmarks"
)

func main() {
	rows := flag.Int("rows", 0, "rows of the table (default $TSARROW_BENCH_ROWS or 10,000,000)")
	variant := flag.String("variant", "all", "default, plain, all (both), or a comma-separated list of variants")
	peers := flag.Bool("peers", false, "also write the peer files (Parquet, Arrow IPC) of the same rows")
	dsRows := flag.Int("dataset", 0, "write the IoTDB data directories of the dataset benchmark with this many sequence rows")
	flag.Parse()
	if *dsRows > 0 {
		start := time.Now()
		in, err := benchmarks.EnsureDataset(*dsRows)
		if err != nil {
			fail(err)
		}
		fmt.Printf("dataset\t%d\t%d\t%s\n", *dsRows, in.ResolvedBytes, benchmarks.DatasetPath(*dsRows))
		fmt.Fprintf(os.Stderr, "gen: dataset in %v: %s\n", time.Since(start).Round(time.Millisecond), in.Summary())
		explicit := false
		flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "variant" || f.Name == "peers" })
		if !explicit {
			return
		}
	}
	if *rows == 0 {
		n, err := benchmarks.Rows()
		if err != nil {
			fail(err)
		}
		*rows = n
	}
	variants := benchmarks.Variants
	if *variant != "all" {
		variants = strings.Split(*variant, ",")
	}
	for _, v := range variants {
		start := time.Now()
		p, err := benchmarks.Ensure(v, *rows)
		if err != nil {
			fail(err)
		}
		report(v, *rows, p, start)
	}
	if *peers {
		for _, format := range benchmarks.PeerFormats {
			start := time.Now()
			p, err := benchmarks.EnsurePeer(format, *rows)
			if err != nil {
				fail(err)
			}
			report(format, *rows, p, start)
		}
	}
}

func report(what string, rows int, p string, start time.Time) {
	st, err := os.Stat(p)
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s\t%d\t%d\t%s\n", what, rows, st.Size(), p)
	fmt.Fprintf(os.Stderr, "gen: %s %d rows: %d bytes in %v\n", what, rows, st.Size(), time.Since(start).Round(time.Millisecond))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
