package benchmarks

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// BenchmarkSelective reads part of a generated table with pushdown and
// times it against full scans of the same file:
//
//   - default/rows=N/time=1pct: arrowconv.Options.Time set to 1% of every
//     device's span (1% of the rows) on the default mix, at the configured
//     row count and at every count in $TSARROW_SELECTIVE_ROWS
//     (space-separated; benchmarks/run's full mode adds 100,000,000, the
//     scaling file, where a device holds 1M rows, 123 pages a column);
//   - default-1000dev/rows=N/time=1pct: the same window on the
//     many-devices twin (ManyDevices devices, chunk groups of
//     ManyDevicesGroupRows rows a device);
//   - default-1000dev/rows=N/device=1of1000: Options.Devices set to one
//     device of the twin (0.1% of the rows).
//
// Between the timed iterations, outside the timer, it scans the whole
// file with the same options otherwise, so x-full (the full scan's time
// over the selective read's) compares reads that met the same machine
// noise; the target is at least 20. It also reports the fraction of the
// rows the read returned (rows-frac) and full-ns/op.
func BenchmarkSelective(b *testing.B) {
	rows, err := Rows()
	if err != nil {
		b.Fatal(err)
	}
	sizes := []int{rows}
	for _, f := range strings.Fields(os.Getenv("TSARROW_SELECTIVE_ROWS")) {
		n, err := strconv.Atoi(f)
		if err != nil || n < ManyDevices {
			b.Fatalf("TSARROW_SELECTIVE_ROWS: %q is not a row count of at least %d", f, ManyDevices)
		}
		if n != rows {
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("%s/rows=%d/time=1pct", VariantDefault, n), func(b *testing.B) {
			benchSelective(b, VariantDefault, n, &arrowconv.Options{Time: SelectiveWindow(Devices, n)})
		})
	}
	many := VariantDefault + ManyDevicesSuffix
	b.Run(fmt.Sprintf("%s/rows=%d/time=1pct", many, rows), func(b *testing.B) {
		benchSelective(b, many, rows, &arrowconv.Options{Time: SelectiveWindow(ManyDevices, rows)})
	})
	b.Run(fmt.Sprintf("%s/rows=%d/device=1of%d", many, rows, ManyDevices), func(b *testing.B) {
		benchSelective(b, many, rows, &arrowconv.Options{Devices: []tsfile.DeviceID{DeviceIDOf(ManyDevices, SelectiveDevice)}})
	})
}

func benchSelective(b *testing.B, variant string, want int, o *arrowconv.Options) {
	path, err := Ensure(variant, want)
	if err != nil {
		b.Fatal(err)
	}
	var got int64
	var full time.Duration
	fulls := 0
	b.ReportAllocs()
	for b.Loop() {
		rows, _, err := scanFile(path, o)
		if err != nil {
			b.Fatal(err)
		}
		got = rows
		// A full scan takes as long as dozens of selective reads: one runs
		// whenever the full scans so far took less time than the selective
		// reads, and at least twice, so both spread over the same period.
		if fulls < 2 || full < b.Elapsed() {
			b.StopTimer()
			start := time.Now()
			n, _, err := scanFile(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			full += time.Since(start)
			fulls++
			if n != int64(want) {
				b.Fatalf("full scan read %d rows, want %d", n, want)
			}
			b.StartTimer()
		}
	}
	frac := float64(got) / float64(want)
	if got == 0 || frac > 0.02 {
		b.Fatalf("selective read returned %d of %d rows", got, want)
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	fullPerOp := full.Seconds() / float64(fulls)
	b.ReportMetric(frac, "rows-frac")
	b.ReportMetric(fullPerOp*1e9, "full-ns/op")
	b.ReportMetric(fullPerOp/perOp, "x-full")
}
