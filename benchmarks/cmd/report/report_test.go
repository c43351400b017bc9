package main

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
)

func parse(t *testing.T, text string) *results {
	t.Helper()
	r := newResults()
	if err := r.read(strings.NewReader(text), false); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRead(t *testing.T) {
	r := parse(t, `goos: linux
cpu: Test CPU @ 1 GHz
load: 1.00 0.50 0.25 (before)
BenchmarkScan/default/workers=1-2   3   700000000 ns/op   1130 MB/s   1.13 decoded-GB/s   12 x-memcpy
BenchmarkScan/default/workers=1-2   3   500000000 ns/op   1580 MB/s   1.58 decoded-GB/s   10 x-memcpy
BenchmarkScan/default/workers=1-2   3   900000000 ns/op   880 MB/s    0.88 decoded-GB/s   11 x-memcpy
BenchmarkBroken   notanumber  1 ns/op
BenchmarkScaling/rows=1000000 1 153156746 ns/op 15.2 file-MB 51.9 peak-RSS-MB 1000000 rows
PASS
load: 2.00 1.00 0.50 (after)
`)
	if r.meta.cpu != "Test CPU @ 1 GHz" {
		t.Errorf("cpu %q", r.meta.cpu)
	}
	if len(r.meta.loads) != 2 || r.meta.loads[1] != "2.00 1.00 0.50 (after)" {
		t.Errorf("loads %q", r.meta.loads)
	}
	for _, c := range []struct {
		name, unit string
		want       float64
	}{
		{"Scan/default/workers=1", "ns/op", 700000000},
		{"Scan/default/workers=1", "decoded-GB/s", 1.13},
		{"Scan/default/workers=1", "x-memcpy", 11},
		{"Scaling/rows=1000000", "peak-RSS-MB", 51.9}, // no -GOMAXPROCS suffix to strip
		{"Scaling/rows=1000000", "rows", 1000000},
	} {
		if got, ok := r.get(c.name, c.unit); !ok || got != c.want {
			t.Errorf("%s %s = %v, %v; want %v", c.name, c.unit, got, ok, c.want)
		}
	}
	if r.count("Scan/default/workers=1") != 3 {
		t.Errorf("count %d", r.count("Scan/default/workers=1"))
	}
	if _, ok := r.m["Broken"]; ok {
		t.Error("a line without an iteration count was read")
	}

	m := newResults()
	if err := m.read(strings.NewReader("mode: full\nrows: 10000000\nnote: scaling at 100000000 rows skipped\nload-before: 1 2 3\n"), true); err != nil {
		t.Fatal(err)
	}
	if m.meta.kv["mode"] != "full" || m.meta.kv["load-before"] != "1 2 3" || len(m.meta.notes) != 1 {
		t.Errorf("meta %v, notes %q", m.meta.kv, m.meta.notes)
	}
}

func TestMedianEven(t *testing.T) {
	if v, ok := median([]float64{4, 1, 3, 2}); !ok || v != 2.5 {
		t.Errorf("median = %v, %v", v, ok)
	}
	if _, ok := median(nil); ok {
		t.Error("median of nothing")
	}
}

// find returns the row of a section with the case, or fails.
func find(t *testing.T, s section, c string) row {
	t.Helper()
	for _, r := range s.Rows {
		if r.Case == c {
			return r
		}
	}
	var cases []string
	for _, r := range s.Rows {
		cases = append(cases, r.Case)
	}
	t.Fatalf("no row %q in %q; have %q", c, s.Title, cases)
	return row{}
}

func TestSections(t *testing.T) {
	tests := []struct {
		name    string
		lines   string
		section func(*results) section
		c       string
		want    row // the fields that are set are compared
	}{
		{
			name: "scan against Parquet and memcpy",
			lines: `BenchmarkScan/default/workers=1-2 2 800000000 ns/op 1.1 decoded-GB/s 14100000 rows/s 15.7 memcpy-GB/s 0.07 x-memcpy
BenchmarkPeerParquetScan/parquet/workers=1-2 2 1600000000 ns/op 0.56 decoded-GB/s 7000000 rows/s 2.05 x-tsarrow 109 file-MB 149 tsfile-MB`,
			section: scanSection,
			c:       "scan default mix, 1 worker",
			want: row{Figure: "1.1 GB/s, 14.1 M rows/s", Peer: "Parquet ZSTD 0.56 GB/s, 7 M rows/s", Ratio: "2.05x Parquet",
				Limit: "memcpy 15.7 GB/s", XLimit: "0.07x", Target: ">= 1 GB/s decoded", Met: "yes"},
		},
		{
			name:    "PLAIN scan under its memcpy target, no peer measured",
			lines:   `BenchmarkScan/plain/workers=1-2 2 400000000 ns/op 2.37 decoded-GB/s 30000000 rows/s 11.5 memcpy-GB/s 0.207 x-memcpy`,
			section: scanSection,
			c:       "scan PLAIN/UNCOMPRESSED, 1 worker",
			want:    row{Peer: "-", Ratio: "-", XLimit: "0.207x", Target: ">= 0.25x memcpy", Met: "**no**"},
		},
		{
			name: "2 workers, interleaved ratio preferred",
			lines: `BenchmarkScan/default/workers=1-2 2 1 ns/op 14100000 rows/s
BenchmarkScan/default/workers=2-2 2 1 ns/op 26300000 rows/s 1.63 x-1worker`,
			section: scanSection,
			c:       "2 workers vs 1, default mix",
			want:    row{Peer: "1 worker, interleaved", Ratio: "1.63x", XLimit: "0.815x", Met: "**no**"},
		},
		{
			name:    "IPC floor is the limit",
			lines:   `BenchmarkPeerIPCScan/plain/workers=2-2 100 10000000 ns/op 8 decoded-GB/s 100000000 rows/s 50000000 tsarrow-ns/op 0.2 x-tsarrow 79 file-MB`,
			section: scanSection,
			c:       "scan PLAIN/UNCOMPRESSED vs the Arrow IPC file, 2 workers",
			want:    row{Figure: "20 M rows/s (interleaved)", Limit: "Arrow IPC read 8 GB/s, 100 M rows/s", XLimit: "0.2x"},
		},
		{
			name: "file sizes",
			lines: `BenchmarkPeerParquetScan/parquet/workers=1-2 2 1 ns/op 100 file-MB 150 tsfile-MB 1 decoded-GB/s 1 x-tsarrow
BenchmarkPeerIPCScan/default/workers=1-2 2 1 ns/op 750 file-MB`,
			section: scanSection,
			c:       "file size, default mix",
			want:    row{Figure: "TsFile 150 MB", Peer: "Parquet ZSTD 100 MB", Ratio: "1.5x Parquet's size", Limit: "Arrow IPC 750 MB", XLimit: "0.2x its size"},
		},
		{
			name:    "resolved dataset read against the plain one",
			lines:   `BenchmarkDataset/rows=10000000-2 3 900000000 ns/op 11000000 rows/s 14000000 plain-rows/s 0.786 x-plain 20000000 files-rows/s 0.55 x-files`,
			section: datasetSection,
			c:       "resolved read, 10M rows in 20 files, 10% rewritten, 1% deleted",
			want: row{Figure: "11 M rows/s", Peer: "plain directory 14 M rows/s, interleaved", Ratio: "0.786x plain",
				Limit: "plain files one by one (arrowconv) 20 M rows/s", XLimit: "0.55x", Target: ">= 0.7x plain rows/s", Met: "yes"},
		},
		{
			name: "resolved dataset read over its memory target",
			lines: `BenchmarkDatasetRSS/resolved/rows=10000000 1 1 ns/op 160 file-MB 160 peak-RSS-MB 9900000 rows
BenchmarkDatasetRSS/plain/rows=10000000 1 1 ns/op 150 file-MB 100 peak-RSS-MB 9900000 rows`,
			section: datasetSection,
			c:       "peak RSS of the resolved read, 10M rows",
			want:    row{Figure: "160 MB", Peer: "plain directory 100 MB", Ratio: "1.6x plain", Target: "<= 1.5x plain", Met: "**no**"},
		},
		{
			name: "resolved dataset read returning other rows than the plain one",
			lines: `BenchmarkDatasetRSS/resolved/rows=1000000 1 1 ns/op 16 file-MB 50 peak-RSS-MB 1000000 rows
BenchmarkDatasetRSS/plain/rows=1000000 1 1 ns/op 15 file-MB 50 peak-RSS-MB 990000 rows`,
			section: datasetSection,
			c:       "peak RSS of the resolved read, 1M rows",
			want:    row{Ratio: "1x plain", Met: "**no** (1000000 rows resolved, 990000 plain)"},
		},
		{
			name:    "Flight load, memory back after it",
			lines:   `BenchmarkFlightLoad/limit=256MiB 1 10294314854 ns/op 32 clients 31.1 idle-RSS-MB 102.7 peak-RSS-MB 2.24 MB-per-stream 36.6 after-RSS-MB 1.178 x-idle-after 4.03 file-MB 250000 rows`,
			section: flightLoadSection,
			c:       "server RSS after the load, budget 256MiB",
			want:    row{Figure: "37 MB", Peer: "idle 31 MB", Ratio: "1.18x idle", Target: "<= 2x idle", Met: "yes"},
		},
		{
			name:    "Flight load, memory not back",
			lines:   `BenchmarkFlightLoad/limit=default 1 8417097560 ns/op 32 clients 32.7 idle-RSS-MB 1260.1 peak-RSS-MB 38.36 MB-per-stream 1262.2 after-RSS-MB 38.600 x-idle-after 4.03 file-MB 250000 rows`,
			section: flightLoadSection,
			c:       "peak server RSS, budget default",
			want:    row{Figure: "1260 MB, 38.4 MB a stream", Peer: "idle 33 MB"},
		},
		{
			name:    "scan team idle within one poller",
			lines:   `BenchmarkTeamIdle-2 400 2614715 ns/op 261.6 cpu-us/pause 169.8 helper-us/pause 750.0 limit-us/pause 1000 pause-us`,
			section: idleSection,
			c:       "scan team of 16 at GOMAXPROCS 16, helpers alive during a pause between jobs",
			want:    row{Figure: "170 µs a pause of 1000 µs", Limit: "one poller: 750 µs", XLimit: "0.226x", Target: "<= one poller", Met: "yes"},
		},
		{
			name:    "scan team idle: every helper polls",
			lines:   `BenchmarkTeamIdle-2 200 5734992 ns/op 493.1 cpu-us/pause 2792 helper-us/pause 750.0 limit-us/pause 1000 pause-us`,
			section: idleSection,
			c:       "scan team of 16 at GOMAXPROCS 16, helpers alive during a pause between jobs",
			want:    row{XLimit: "3.72x", Met: "**no**"},
		},
		{
			name:    "serve's second signal, slow",
			lines:   `BenchmarkServeSecondSignal 1 6200000000 ns/op 306557316 held-ns`,
			section: idleSection,
			c:       "serve: exit after a second SIGTERM, a stream holding the shutdown",
			want:    row{Figure: "6.2 s", Target: "<= 5 s", Met: "**no**"},
		},
		{
			name:    "serve's second signal, not measured",
			lines:   ``,
			section: idleSection,
			c:       "serve: exit after a second SIGTERM, a stream holding the shutdown",
			want:    row{Figure: "not measured", Met: "-"},
		},
		{
			name:    "conversion within 1.3x of pqarrow",
			lines:   `BenchmarkToParquet/plain/workers=2-2 1 6220000000 ns/op 1610000 rows/s 5450000000 pqarrow-ns/op 1.14 x-pqarrow`,
			section: conversionSection,
			c:       "TsFile -> Parquet, PLAIN/UNCOMPRESSED, 2 workers",
			want:    row{Figure: "6.22 s, 1.61 M rows/s", Peer: "pqarrow from memory 5.45 s", Ratio: "1.14x pqarrow time", Met: "yes"},
		},
		{
			name:    "conversion not measured",
			lines:   ``,
			section: conversionSection,
			c:       "TsFile -> Parquet, default mix, 1 worker",
			want:    row{Figure: "not measured", Met: "-"},
		},
		{
			name:    "selective: one device of 1,000",
			lines:   `BenchmarkSelective/default-1000dev/rows=10000000/device=1of1000-2 792 1691105 ns/op 1320025820 full-ns/op 0.001 rows-frac 780.6 x-full`,
			section: selectiveSection,
			c:       "1 device of 1,000, 10M rows",
			want:    row{Figure: "1.69 ms, 0.1% of the rows", Peer: "full scan 1.32 s", Ratio: "781x", Limit: "1000x (1 / rows read)", XLimit: "0.781x", Met: "yes"},
		},
		{
			name:    "selective: 1% time range under target",
			lines:   `BenchmarkSelective/default/rows=10000000/time=1pct-2 8 127398419 ns/op 560506445 full-ns/op 0.01 rows-frac 4.4 x-full`,
			section: selectiveSection,
			c:       "1% time range, 100 devices, 10M rows",
			want:    row{Ratio: "4.4x", Limit: "100x (1 / rows read)", XLimit: "0.044x", Target: ">= 20x full scan", Met: "**no**"},
		},
		{
			name:    "sql: aggregate against DuckDB on Parquet",
			lines:   `BenchmarkSQLAggregate/default/rows=10000000-2 3 400000000 ns/op 25000000 rows/s 360000000 parquet-ns/op 0.9 x-parquet 4000000000 convert-ns/op 10 x-convert 90.1 parquet-MB`,
			section: sqlSection,
			c:       "full-scan aggregate, 10M rows vs DuckDB on Parquet",
			want:    row{Figure: "400 ms, 25 M rows/s", Peer: "DuckDB read_parquet 360 ms (90.1 MB ZSTD)", Ratio: "0.9x Parquet", Met: "yes"},
		},
		{
			name:    "sql: aggregate against convert-then-query, under target",
			lines:   `BenchmarkSQLAggregate/default/rows=10000000-2 3 400000000 ns/op 25000000 rows/s 360000000 parquet-ns/op 0.9 x-parquet 1600000000 convert-ns/op 4 x-convert`,
			section: sqlSection,
			c:       "full-scan aggregate, 10M rows vs convert-then-query",
			want:    row{Peer: "convert + DuckDB 1.6 s", Ratio: "4x convert-then-query", Target: ">= 5x convert-then-query", Met: "**no**"},
		},
		{
			name:    "sql: one device of 1,000",
			lines:   `BenchmarkSQLSelective/default-1000dev/rows=10000000/device=1of1000-2 500 2000000 ns/op 500000000 full-ns/op 0.001 rows-frac 250 x-full 0.5 read-MB 40 pages 60 full-read-MB 3000 full-pages 0.45 convert-read-MB`,
			section: sqlSection,
			c:       "SQL 1 device of 1,000, 10M rows",
			want:    row{Figure: "2 ms, 0.1% of the rows", Peer: "full-scan query 500 ms", Ratio: "250x", Target: ">= 200x full scan", Met: "yes"},
		},
		{
			name:    "sql: bytes read against convert",
			lines:   `BenchmarkSQLSelective/default-1000dev/rows=10000000/device=1of1000-2 500 2000000 ns/op 500000000 full-ns/op 0.001 rows-frac 250 x-full 0.5 read-MB 40 pages 60 full-read-MB 3000 full-pages 0.45 convert-read-MB`,
			section: sqlSection,
			c:       "SQL 1 device of 1,000, 10M rows: bytes read",
			want:    row{Figure: "0.5 MB, 40 pages", Peer: "convert with the same pushdown 0.45 MB", Ratio: "1.11x convert's bytes", Limit: "full scan 60 MB, 3,000 pages", Met: "yes"},
		},
		{
			name:    "sql: bytes read over target, rows scanned",
			lines:   `BenchmarkSQLSelective/default/rows=10000000/time=1pct-2 10 50000000 ns/op 500000000 full-ns/op 0.01 rows-frac 10 x-full 8 read-MB 100000 rows-scanned 60 full-read-MB 10000000 full-rows-scanned 5 convert-read-MB`,
			section: sqlSection,
			c:       "SQL 1% time window, 100 devices, 10M rows: bytes read",
			want:    row{Figure: "8 MB, 100,000 rows scanned", Ratio: "1.6x convert's bytes", Limit: "full scan 60 MB, 10,000,000 rows scanned", XLimit: "0.133x full scan's bytes", Met: "**no**"},
		},
		{
			name:    "sql: 1% window under target",
			lines:   `BenchmarkSQLSelective/default/rows=10000000/time=1pct-2 10 50000000 ns/op 500000000 full-ns/op 0.01 rows-frac 10 x-full 40000000 floor-ns/op`,
			section: sqlSection,
			c:       "SQL 1% time window, 100 devices, 10M rows",
			want:    row{Figure: "50 ms, 1% of the rows (a query reading nothing: 40 ms)", Ratio: "10x", Limit: "100x (1 / rows read)", Target: ">= 20x full scan", Met: "**no**"},
		},
		{
			name:    "sql: Flight SQL",
			lines:   `BenchmarkSQLFlight/default/rows=10000000/time=10pct-2 5 100000000 ns/op 10000000 rows/s 85000000 inprocess-ns/op 0.85 x-inprocess`,
			section: sqlSection,
			c:       "Flight SQL, SELECT * of a 10% time window, 10M rows vs in process",
			want:    row{Figure: "100 ms, 10 M rows/s", Peer: "QueryArrow in process 85 ms", Ratio: "0.85x in-process", Met: "yes"},
		},
		{
			name:    "sql not measured",
			lines:   ``,
			section: sqlSection,
			c:       "Flight SQL over loopback vs the query in process",
			want:    row{Figure: "not measured", Target: ">= 0.8x in-process", Met: "-"},
		},
		{
			name: "flight: both targets",
			lines: `BenchmarkFlightDoGet/default-2 2 1 ns/op 1.2 decoded-GB/s 15000000 rows/s 0.55 x-inprocess
BenchmarkFlightDoGet/plain-2 2 1 ns/op 1.5 decoded-GB/s 19000000 rows/s 0.8 x-inprocess 900 cpu-ms/op 0.7 x-inprocess-cpu`,
			section: flightSection,
			c:       "Flight DoGet, default mix",
			want:    row{Figure: "1.2 GB/s, 15 M rows/s", Ratio: "0.55x in-process", Met: "**no**"},
		},
		{
			name:    "flight: CPU row when measured",
			lines:   `BenchmarkFlightDoGet/plain-2 2 1 ns/op 1.5 decoded-GB/s 19000000 rows/s 0.8 x-inprocess 900 cpu-ms/op 0.7 x-inprocess-cpu`,
			section: flightSection,
			c:       "Flight DoGet, PLAIN/UNCOMPRESSED, CPU time",
			want:    row{Figure: "900 ms CPU a read", Ratio: "0.7x in-process CPU"},
		},
		{
			name:    "flight: parallel endpoints",
			lines:   `BenchmarkFlightDoGetParallel-2 2 1 ns/op 16 endpoints 2 decoded-GB/s 1.6 x-one-endpoint`,
			section: flightSection,
			c:       "Flight DoGet, 8 readers over one flight's endpoints",
			want:    row{Figure: "16 endpoints, 2 GB/s", Ratio: "1.6x one endpoint", Met: "yes"},
		},
		{
			name:    "flight: against the stock client",
			lines:   `BenchmarkFlightDoGet/default-2 2 1 ns/op 1.2 decoded-GB/s 15000000 rows/s 0.48 x-inprocess 1.2 x-stock-client 1.15 x-stock-client-cpu`,
			section: flightSection,
			c:       "Flight DoGet, default mix, stock client",
			want: row{Figure: "stock client 1 GB/s, 0.4x in-process", Peer: "flight.DoGet, interleaved",
				Ratio: "flight.DoGet 1.2x stock", Target: "-", Met: "-"},
		},
		{
			name:    "flight: parallel endpoints against the stock client",
			lines:   `BenchmarkFlightDoGetParallel-2 2 1 ns/op 16 endpoints 2 decoded-GB/s 0.8 x-one-endpoint 1.25 x-stock-client`,
			section: flightSection,
			c:       "Flight DoGet, 8 readers over one flight's endpoints, stock client",
			want:    row{Figure: "stock client 1.6 GB/s, 8 readers", Ratio: "flight.DoGet 1.25x stock", Met: "-"},
		},
		{
			name: "scaling against the next smaller size",
			lines: `BenchmarkScaling/rows=1000000 1 100000000 ns/op 15 file-MB 50 peak-RSS-MB
BenchmarkScaling/rows=1000000 1 120000000 ns/op 15 file-MB 52 peak-RSS-MB
BenchmarkScaling/rows=1000000 1 110000000 ns/op 15 file-MB 51 peak-RSS-MB
BenchmarkScaling/rows=10000000 1 600000000 ns/op 150 file-MB 70 peak-RSS-MB
BenchmarkScaling/rows=100000000 1 7800000000 ns/op 1500 file-MB 90 peak-RSS-MB`,
			section: scalingSection,
			c:       "scan time per row, 100M rows",
			want:    row{Figure: "7.8 s, 78 ns/row", Peer: "10M rows: 60 ns/row", Ratio: "1.3x 10M rows", Met: "**no**"},
		},
		{
			name: "scaling: memory",
			lines: `BenchmarkScaling/rows=1000000 1 100000000 ns/op 15 file-MB 50 peak-RSS-MB
BenchmarkScaling/rows=10000000 1 1000000000 ns/op 150 file-MB 70 peak-RSS-MB`,
			section: scalingSection,
			c:       "peak RSS of the scan, 10M rows (150 MB file)",
			want:    row{Figure: "70 MB", Peer: "1M rows: 50 MB", Ratio: "1.4x 1M rows", Target: "<= 1.5x (flat)", Met: "yes"},
		},
		{
			name:    "scaling: the smallest size is the baseline",
			lines:   `BenchmarkScaling/rows=1000000 1 100000000 ns/op 15 file-MB 50 peak-RSS-MB`,
			section: scalingSection,
			c:       "scan time per row, 1M rows",
			want:    row{Figure: "100 ms, 100 ns/row", Ratio: "-", Target: "baseline", Met: "-"},
		},
		{
			name:    "Page AEAD share",
			lines:   `BenchmarkScanAEAD/default/workers=2-2 3 1 ns/op 1.9 decoded-GB/s 1.1 x-plain 0.0909 aead-share`,
			section: aeadSection,
			c:       "Page AEAD scan, default mix, 2 workers",
			want:    row{Figure: "1.9 GB/s", Ratio: "share 0.091 (1.1x plaintext time)", Met: "yes"},
		},
		{
			name:    "page verification share",
			lines:   `BenchmarkScanVerify/default/workers=1-2 3 1 ns/op 1.2 decoded-GB/s 1.04 x-noverify 0.0385 verify-share`,
			section: verifySection,
			c:       "verified scan, default mix, 1 worker",
			want:    row{Figure: "1.2 GB/s", Ratio: "share 0.038 (1.04x unverified time)", Met: "yes"},
		},
		{
			name:    "peak RSS of a small file is not judged",
			lines:   `BenchmarkPeakRSS/scan/bench-plain-1000000-v1 1 1 ns/op 65 file-MB 52 peak-RSS-MB`,
			section: rssSection,
			c:       "peak RSS, scan, 65 MB file",
			want:    row{Figure: "52 MB", Limit: "file 65 MB", XLimit: "0.8x file", Met: "n/a (small file)"},
		},
		{
			name: "decoder against memcpy of its size",
			lines: `BenchmarkDecodeFloat64Gorilla-2 76761 14812 ns/op 2212.22 MB/s 0 B/op 0 allocs/op
BenchmarkMemcpyGorilla-2 2749231 436.2 ns/op 75117.01 MB/s
BenchmarkMemcpyRLE/8B-2 2796240 402.7 ns/op 81367.92 MB/s
BenchmarkMemcpyRLE/4B-2 8720680 134.2 ns/op 122109.10 MB/s`,
			section: decoderSection,
			c:       "DOUBLE GORILLA",
			want:    row{Figure: "2,212 MB/s", Limit: "memcpy 32 KiB: 78,242 MB/s", XLimit: "0.028x", Target: ">= 800 MB/s", Met: "yes"},
		},
		{
			name: "decoder names: shape and sub-benchmark",
			lines: `BenchmarkDecodeFloat64GorillaRandom-2 36626 32056 ns/op 1022.22 MB/s
BenchmarkDecodeInt32RLE/bitpacked-w12-2 246142 6056 ns/op 2705.45 MB/s
BenchmarkMemcpyRLE/4B-2 8720680 134.2 ns/op 122109.10 MB/s`,
			section: decoderSection,
			c:       "INT32 RLE (bitpacked-w12)",
			want:    row{Limit: "memcpy 16 KiB: 122,109 MB/s", Target: ">= 2 GB/s", Met: "yes"},
		},
		{
			name:    "decoder: GORILLA_V1 is its own encoding",
			lines:   `BenchmarkDecodeFloat64GorillaV1-2 26173 45683 ns/op 717.29 MB/s`,
			section: decoderSection,
			c:       "DOUBLE GORILLA_V1",
			want:    row{Figure: "717 MB/s", Limit: "-"},
		},
		{
			name: "decompression with its ratio",
			lines: `BenchmarkDecompressLZ4-2 58730 18239 ns/op 3593.18 MB/s 2.557 ratio 0 B/op 0 allocs/op
BenchmarkMemcpyCompress-2 1442214 835.0 ns/op 78482.16 MB/s`,
			section: decoderSection,
			c:       "decompress LZ4 (compression ratio 2.6)",
			want:    row{Figure: "3,593 MB/s", Limit: "memcpy 64 KiB: 78,482 MB/s", XLimit: "0.046x"},
		},
		{
			name: "PLAIN against its own copy",
			lines: `BenchmarkPlainInt64VsMemcpy/8MiB/decode-2 1357 856637 ns/op 9792.49 MB/s
BenchmarkPlainInt64VsMemcpy/8MiB/memcpy-2 6058 184960 ns/op 45353.57 MB/s`,
			section: decoderSection,
			c:       "INT64 PLAIN, 8MiB of output",
			want:    row{Limit: "memcpy 8 MiB: 45,354 MB/s", XLimit: "0.216x", Target: ">= 0.5x memcpy", Met: "**no**"},
		},
		{
			name: "object storage scan against local disk, against the GET ceiling",
			lines: `BenchmarkObjectGet/rows=10000000 1 200000000 ns/op 750 MB/s 1500 local-MB/s 0.5 x-local 150 file-MB
BenchmarkObjectScan/lib/rows=10000000 1 600000000 ns/op 400000000 local-ns/op 0.667 x-local 80 peak-RSS-MB 50 local-peak-RSS-MB 1.6 x-local-RSS 150 file-MB 40 requests 151 fetched-MB 148 needed-MB`,
			section: objectSection,
			c:       "scan from S3 vs local disk, library (objstore + scan), 10M rows",
			want: row{Figure: "600 ms, 250 MB/s of file", Peer: "local 400 ms, 375 MB/s", Ratio: "0.667x local",
				Limit: "one GET 750 MB/s", XLimit: "0.333x of it", Target: ">= 0.7x local", Met: "**no**"},
		},
		{
			name:    "object storage peak RSS",
			lines:   `BenchmarkObjectScan/cli/rows=10000000 1 600000000 ns/op 500000000 local-ns/op 0.833 x-local 70 peak-RSS-MB 50 local-peak-RSS-MB 1.4 x-local-RSS 150 file-MB`,
			section: objectSection,
			c:       "peak RSS of the S3 scan vs the local scan, ts2arrow convert, 10M rows",
			want:    row{Figure: "70 MB", Peer: "local 50 MB", Ratio: "1.4x local", Target: "<= 1.5x local", Met: "yes"},
		},
		{
			name:    "object storage requests and bytes",
			lines:   `BenchmarkObjectScan/lib/rows=10000000 1 600000000 ns/op 40 requests 151 fetched-MB 148 needed-MB`,
			section: objectSection,
			c:       "requests and bytes of the S3 scan, library (objstore + scan), 10M rows",
			want:    row{Figure: "40 requests, 151 MB fetched", Peer: "148 MB needed (local ReadAt)", Ratio: "1.02x needed"},
		},
		{
			name:    "object storage time window over its target",
			lines:   `BenchmarkObjectWindow/cli/rows=10000000 1 90000000 ns/op 30000000 local-ns/op 12 requests 9 fetched-MB 150 file-MB 0.06 fetched-frac`,
			section: objectSection,
			c:       "1% time window from S3, ts2arrow convert --start --end, 10M rows",
			want: row{Figure: "90 ms, 12 requests, 9 MB fetched (local 30 ms)", Peer: "file 150 MB", Ratio: "6% of the file",
				Target: "<= 5% of the file fetched", Met: "**no**"},
		},
		{
			name:    "object storage time window fetching the whole file",
			lines:   `BenchmarkObjectWindow/lib/rows=10000000 1 90000000 ns/op 2272 requests 150 fetched-MB 148.9 file-MB 1.007 fetched-frac 19.8 needed-MB`,
			section: objectSection,
			c:       "1% time window from S3, library, 10M rows",
			want:    row{Peer: "file 148.9 MB, 19.8 MB needed (local ReadAt)", Ratio: "101% of the file", Met: "**no**"},
		},
		{
			name: "Iceberg first sync against convert",
			lines: `BenchmarkIcebergSync/convert/rows=10000000 1 8000000000 ns/op 1237500 rows/s 259.1 peak-RSS-MB 5705 cpu-ms
BenchmarkIcebergSync/first/rows=10000000 1 10000000000 ns/op 990000 rows/s 251.4 peak-RSS-MB 9117 cpu-ms 0.8 x-convert 0.6258 x-convert-cpu 31 files-written 0 files-removed`,
			section: syncSection,
			c:       "first sync vs convert to Parquet, 10M rows",
			want: row{Figure: "10 s, 0.99 M rows/s, 251 MB peak, 31 files", Peer: "convert 8 s, 1.24 M rows/s, 259 MB peak",
				Ratio: "0.8x convert (CPU time: 0.626x)", Target: ">= 0.8x convert", Met: "yes"},
		},
		{
			name: "Iceberg syncs after changes, against the first",
			lines: `BenchmarkIcebergSync/convert/rows=2000000 1 4000000000 ns/op 500000 rows/s 200 peak-RSS-MB 2000 cpu-ms
BenchmarkIcebergSync/first/rows=2000000 1 5000000000 ns/op 400000 rows/s 160 peak-RSS-MB 3000 cpu-ms 0.8 x-convert 0.66 x-convert-cpu 31 files-written 0 files-removed
BenchmarkIcebergSync/delete1day/rows=2000000 1 600000000 ns/op 110000 rows/s 150 peak-RSS-MB 300 cpu-ms 0.12 x-first 0.1 x-first-cpu 1 files-written 1 files-removed`,
			section: syncSection,
			c:       "sync after a deletion touching one day of 30, 2M rows",
			want: row{Figure: "600 ms, 66000 rows written, 1 files written, 1 removed", Peer: "first sync 5 s",
				Ratio: "12% of the first (CPU time: 10%)", Target: "<= 10% of the first sync", Met: "**no**"},
		},
		{
			name:    "Iceberg sync not measured",
			lines:   ``,
			section: syncSection,
			c:       "sync after 1% new data",
			want:    row{Figure: "not measured", Met: "-"},
		},
		{
			name:    "object storage not measured",
			lines:   ``,
			section: objectSection,
			c:       "1% time window from S3, library",
			want:    row{Figure: "not measured", Met: "-"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := find(t, tc.section(parse(t, tc.lines)), tc.c)
			check := func(field, got, want string) {
				if want != "" && got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			check("Figure", got.Figure, tc.want.Figure)
			check("Peer", got.Peer, tc.want.Peer)
			check("Ratio", got.Ratio, tc.want.Ratio)
			check("Limit", got.Limit, tc.want.Limit)
			check("XLimit", got.XLimit, tc.want.XLimit)
			check("Target", got.Target, tc.want.Target)
			check("Met", got.Met, tc.want.Met)
		})
	}
}

func TestSelectiveOrder(t *testing.T) {
	s := selectiveSection(parse(t, `BenchmarkSelective/default-1000dev/rows=10000000/device=1of1000-2 9 1 ns/op 1 full-ns/op 0.001 rows-frac 900 x-full
BenchmarkSelective/default-1000dev/rows=10000000/time=1pct-2 9 1 ns/op 1 full-ns/op 0.01 rows-frac 4 x-full
BenchmarkSelective/default/rows=100000000/time=1pct-2 9 1 ns/op 1 full-ns/op 0.01 rows-frac 30 x-full
BenchmarkSelective/default/rows=10000000/time=1pct-2 9 1 ns/op 1 full-ns/op 0.01 rows-frac 4 x-full`))
	var got []string
	for _, r := range s.Rows {
		got = append(got, r.Case+" "+r.Met)
	}
	want := []string{
		"1% time range, 100 devices, 10M rows **no**",
		"1% time range, 100 devices, 100M rows yes",
		"1% time range, 1,000 devices, 10M rows **no**",
		"1 device of 1,000, 10M rows yes",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSizeKey(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{32768, 32768}, {32700, 32768}, {33100, 32768}, {16390, 16384},
		{98304, 98304}, {97900, 98304}, // 96 KiB, not a power of two
		{8388608, 8388608}, {1000, 1000},
	} {
		if got := sizeKey(c.in); got != c.want {
			t.Errorf("sizeKey(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestMarkdownAndChart(t *testing.T) {
	r := parse(t, `cpu: Test CPU @ 1 GHz
BenchmarkScan/default/workers=1-2 2 800000000 ns/op 1.1 decoded-GB/s 14100000 rows/s 15.7 memcpy-GB/s 0.07 x-memcpy
BenchmarkPeerParquetScan/parquet/workers=1-2 2 1600000000 ns/op 0.56 decoded-GB/s 7000000 rows/s 2.05 x-tsarrow
BenchmarkSelective/default-1000dev/rows=10000000/device=1of1000-2 792 1691105 ns/op 1320025820 full-ns/op 0.001 rows-frac 780.6 x-full
BenchmarkDecompressLZMA2-2 1474 829228 ns/op 79.03 MB/s 5.956 ratio
BenchmarkMemcpyCompress-2 1442214 835.0 ns/op 78482.16 MB/s
load: 1.50 1.20 1.00 (before)
load: 2.50 2.20 2.00 (after)`)
	if err := r.read(strings.NewReader("mode: full\nrows: 10000000\ncount: 3\ncores: 2\nmemory: 23.5 GiB\ngo: go1.26.8\nnote: scaling at 100000000 rows skipped\nothers-cpu: 30 of 600 core-seconds (5% of the machine)\n"), true); err != nil {
		t.Fatal(err)
	}
	secs := sections(r)
	var md bytes.Buffer
	writeMarkdown(&md, r, secs, "results.png")
	text := md.String()
	for _, want := range []string{
		"`benchmarks/run`, mode full, 10,000,000-row tables, count 3",
		"Test CPU @ 1 GHz, 2 cores, 23.5 GiB memory; go1.26.8.",
		"before the run: 1.50 1.20 1.00 (before); after: 2.50 2.20 2.00 (after)",
		"Note: scaling at 100000000 rows skipped.",
		"Other processes used 30 of 600 core-seconds (5% of the machine) of CPU time",
		"![Ratios of every table, log scale](results.png)",
		"| case | tsarrow | peer | ratio | limit | x limit | target | met |",
		"| scan default mix, 1 worker | 1.1 GB/s, 14.1 M rows/s | Parquet ZSTD 0.56 GB/s, 7 M rows/s | 2.05x Parquet |",
		"| 1 device of 1,000, 10M rows |",
		"Targets met: 2 of 2 measured.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("markdown lacks %q:\n%s", want, text)
		}
	}

	var img bytes.Buffer
	if err := writeChart(&img, secs, "test"); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width < 500 || cfg.Height < 150 {
		t.Errorf("chart is %dx%d", cfg.Width, cfg.Height)
	}
	if n := len(chartPoints(secs)); n != 3 {
		t.Errorf("%d chart lines, want 3 (scan, device lookup, LZMA2)", n)
	}
	if err := writeChart(&img, sections(newResults()), "empty"); err == nil {
		t.Error("a chart of nothing did not fail")
	}
}

func TestLogTicks(t *testing.T) {
	ts := logTicks(0.01, 10)
	if ts[0].Value != 0.01 || ts[len(ts)-1].Value != 10 {
		t.Errorf("ticks %v", ts)
	}
	labelled := 0
	for _, tk := range ts {
		if tk.Label != "" {
			labelled++
		}
	}
	if labelled != len(ts) {
		t.Errorf("%d of %d ticks labelled in three decades", labelled, len(ts))
	}
}
