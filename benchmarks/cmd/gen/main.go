// Command gen writes the generated benchmark tables into the cache
// directory ($TSARROW_BENCH_DIR, default $TMPDIR/tsarrow-bench) unless they
// are there already, and prints one line per file: variant, rows, bytes,
// path.
//
//	go run ./benchmarks/cmd/gen [-rows N] [-variant default|plain|all]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tsarrow/tsarrow/benchmarks"
)

func main() {
	rows := flag.Int("rows", 0, "rows of the table (default $TSARROW_BENCH_ROWS or 10,000,000)")
	variant := flag.String("variant", "all", "default, plain or all")
	flag.Parse()
	if *rows == 0 {
		n, err := benchmarks.Rows()
		if err != nil {
			fail(err)
		}
		*rows = n
	}
	variants := benchmarks.Variants
	if *variant != "all" {
		variants = []string{*variant}
	}
	for _, v := range variants {
		start := time.Now()
		p, err := benchmarks.Ensure(v, *rows)
		if err != nil {
			fail(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			fail(err)
		}
		fmt.Printf("%s\t%d\t%d\t%s\n", v, *rows, st.Size(), p)
		fmt.Fprintf(os.Stderr, "gen: %s %d rows: %d bytes in %v\n", v, *rows, st.Size(), time.Since(start).Round(time.Millisecond))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
