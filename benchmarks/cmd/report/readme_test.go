package main

import (
	"os"
	"strings"
	"testing"
)

// TestDocPerformanceTable: the performance table of docs/benchmarks.md is
// exactly what the committed RESULTS.md gives (see readme.go), so no
// figure in it can drift from the run it cites.
func TestDocPerformanceTable(t *testing.T) {
	results, err := os.ReadFile("../../RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := readmeTable(string(results))
	if err != nil {
		t.Fatal(err)
	}
	got, err := currentReadmeTable(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("docs/benchmarks.md's performance table, line %d:\n got  %s\n want %s", i+1, g, w)
				break
			}
		}
		t.Errorf("docs/benchmarks.md's performance table differs from benchmarks/RESULTS.md's figures; rewrite it with: cd benchmarks && go run ./cmd/report -doc ../docs/benchmarks.md -from RESULTS.md")
	}
}

func TestReadmeTable(t *testing.T) {
	results := "# Benchmark results\n\nRun: `benchmarks/run`, mode full; commit abc; Test CPU, 2 cores, 24 GiB memory; go1.26.\n\n" +
		"## 1. Decoders\n\n| case | tsarrow | peer | ratio | limit | x limit | target | met |\n| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n" +
		"| INT64 PLAIN | 39,526 MB/s | - | - | memcpy 32 KiB: 40,149 MB/s | 0.984x | >= 0.5x memcpy | yes |\n\n" +
		"## 2. Scan\n\n| case | tsarrow | peer | ratio | limit | x limit | target | met |\n| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n" +
		"| scan default mix, 1 worker | 1.11 GB/s | Parquet ZSTD 0.657 GB/s | 1.75x Parquet | memcpy 7.15 GB/s | 0.157x | >= 1 GB/s decoded | yes |\n" +
		"| file size, default mix | TsFile 148.9 MB | Parquet ZSTD 117.3 MB | 1.27x Parquet's size | Arrow IPC 792.2 MB | 0.188x its size | - | - |\n" +
		"| peak RSS, scan, 1069 MB file | 53 MB | - | - | file 1069 MB | 0.049x file | <= 300 MB at 1 GB | **no** |\n\n" +
		"Targets met: 1 of 3 measured.\n"
	got, err := readmeTable(results)
	if err != nil {
		t.Fatal(err)
	}
	want := readmeBegin + "\n" +
		"From [benchmarks/RESULTS.md](../benchmarks/RESULTS.md), run: `benchmarks/run`, mode full; commit abc; Test CPU, 2 cores, 24 GiB memory; go1.26.\n\n" +
		"| case | tsarrow | against | target | met |\n| --- | --- | --- | --- | --- |\n" +
		"| scan default mix, 1 worker | 1.11 GB/s | 1.75x Parquet (Parquet ZSTD 0.657 GB/s) | >= 1 GB/s decoded | yes |\n" +
		"| peak RSS, scan, 1069 MB file | 53 MB | 0.049x file (file 1069 MB) | <= 300 MB at 1 GB | **no** |\n\n" +
		"Targets met: 1 of 3 measured.\n" + readmeEnd
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	readme := "# x\n\nbefore\n" + readmeBegin + "\nold\n" + readmeEnd + "\nafter\n"
	out, err := replaceReadmeTable(readme, got)
	if err != nil {
		t.Fatal(err)
	}
	if out != "# x\n\nbefore\n"+got+"\nafter\n" {
		t.Errorf("replaced:\n%s", out)
	}
	if _, err := replaceReadmeTable("no markers", got); err == nil {
		t.Error("a README without markers was accepted")
	}
	if _, err := readmeTable("# not results\n"); err == nil {
		t.Error("a text without a Run line or rows was accepted")
	}
}
