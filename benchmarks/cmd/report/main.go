// Command report reads benchmark output (go test -bench lines, and the
// lines of benchmarks/cmd/rss) and writes RESULTS.md: one table per case
// of the benchmark issue, each row giving the case, tsarrow's figure, the
// peer's figure and the ratio, the machine's limit and the ratio to it,
// and the target with whether it was met; with -png, a chart of the same
// ratios. With -count > 1 each metric is the median of its runs.
//
//	cd benchmarks && go run ./cmd/report [-o RESULTS.md] [-png chart.png] [-meta META] FILE...
//	cd benchmarks && go run ./cmd/report -doc ../docs/benchmarks.md -from RESULTS.md
//
// benchmarks/run calls it at the end of a run; it reads files the run
// kept, so it can be rerun on them after a change to the report alone.
// With -doc it writes the performance table of docs/benchmarks.md
// (between its markers, see readme.go) from a RESULTS.md instead, which a
// full run does after writing benchmarks/RESULTS.md.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("o", "", "write the markdown here (default: standard output)")
	png := flag.String("png", "", "also draw the ratios as a PNG chart in this file")
	metaPath := flag.String("meta", "", "a file of \"key: value\" lines describing the run (mode, rows, count, date, commit, ...)")
	readme := flag.String("doc", "", "rewrite the performance table of this page (docs/benchmarks.md) from the RESULTS.md -from names, and nothing else")
	from := flag.String("from", "RESULTS.md", "with -doc: the RESULTS.md to take the figures from")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: report [-o RESULTS.md] [-png chart.png] [-meta META] FILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *readme != "" {
		if err := writeReadme(*readme, *from); err != nil {
			fail(err)
		}
		return
	}
	r := newResults()
	if *metaPath != "" {
		if err := readFile(r, *metaPath, true); err != nil {
			fail(err)
		}
	}
	for _, p := range flag.Args() {
		if err := readFile(r, p, false); err != nil {
			fail(err)
		}
	}
	secs := sections(r)
	var md bytes.Buffer
	chartName := ""
	if *png != "" {
		chartName = *png
		if *out != "" {
			if rel, err := filepath.Rel(filepath.Dir(*out), *png); err == nil {
				chartName = rel
			}
		}
	}
	writeMarkdown(&md, r, secs, chartName)
	if *out == "" {
		os.Stdout.Write(md.Bytes())
	} else if err := os.WriteFile(*out, md.Bytes(), 0o644); err != nil {
		fail(err)
	}
	if *png != "" {
		var img bytes.Buffer
		if err := writeChart(&img, secs, chartTitle(r)); err != nil {
			fail(fmt.Errorf("chart: %w", err))
		}
		if err := os.WriteFile(*png, img.Bytes(), 0o644); err != nil {
			fail(err)
		}
	}
}

// writeReadme rewrites the performance table of the page at path from
// the RESULTS.md at from, through a temporary file renamed over it.
func writeReadme(path, from string) error {
	res, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	block, err := readmeTable(string(res))
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, err := replaceReadmeTable(string(old), block)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readFile(r *results, p string, isMeta bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := r.read(f, isMeta); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

func chartTitle(r *results) string {
	t := "tsarrow against peers and limits"
	if m := r.meta.kv["mode"]; m != "" {
		t += ", benchmarks/run " + m
	}
	if d := r.meta.kv["date"]; d != "" {
		t += ", " + d
	}
	return t
}

// writeMarkdown writes RESULTS.md: how the run was made, the chart, then
// the tables.
func writeMarkdown(w io.Writer, r *results, secs []section, chart string) {
	kv := r.meta.kv
	fmt.Fprintln(w, "# Benchmark results")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "<!-- Written by benchmarks/run (benchmarks/cmd/report); rerun it rather than editing. -->")
	fmt.Fprintln(w)
	var run []string
	if m := kv["mode"]; m != "" {
		desc := "`benchmarks/run"
		if m == "quick" {
			desc += " --quick"
		}
		desc += "`, mode " + m
		if rows := kv["rows"]; rows != "" {
			desc += ", " + thousands3(rows) + "-row tables"
		}
		if c := kv["count"]; c != "" {
			desc += ", count " + c
		}
		run = append(run, desc)
	}
	for _, k := range []string{"date", "commit"} {
		if v := kv[k]; v != "" {
			run = append(run, k+" "+v)
		}
	}
	if r.meta.cpu != "" {
		cpu := r.meta.cpu
		if c := kv["cores"]; c != "" {
			cpu += ", " + c + " cores"
		}
		if m := kv["memory"]; m != "" {
			cpu += ", " + m + " memory"
		}
		run = append(run, cpu)
	}
	if v := kv["go"]; v != "" {
		run = append(run, v)
	}
	if len(run) > 0 {
		fmt.Fprintf(w, "Run: %s.\n", strings.Join(run, "; "))
	}
	before, after := kv["load-before"], kv["load-after"]
	if before == "" && len(r.meta.loads) > 0 {
		before = r.meta.loads[0]
	}
	if after == "" && len(r.meta.loads) > 1 {
		after = r.meta.loads[len(r.meta.loads)-1]
	}
	if before != "" || after != "" {
		fmt.Fprintf(w, "Load average (1, 5, 15 minutes) before the run: %s; after: %s.", orDash(before), orDash(after))
		if e := kv["elapsed"]; e != "" {
			fmt.Fprintf(w, " The run took %s.", e)
		}
		fmt.Fprintln(w)
	}
	if o := kv["others-cpu"]; o != "" {
		fmt.Fprintf(w, "Other processes used %s of CPU time during the run (busy CPU time from /proc/stat less the"+
			" benchmarks' own): the 2-worker figures suffer most when they do.\n", o)
	}
	for _, n := range r.meta.notes {
		fmt.Fprintf(w, "Note: %s.\n", strings.TrimSuffix(n, "."))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Rerun with `benchmarks/run` (the full run, under 30 minutes) or `benchmarks/run --quick` (1M-row tables,"+
		" under 3 minutes); the raw `go test -bench` output, which benchstat reads, is kept in `benchmarks/out/`."+
		" benchmarks/README.md describes every case.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The machines these run on are shared and noisy: absolute figures move by up to 2x between runs. Compare"+
		" the ratios, which set figures measured in the same run, most of them interleaved in one process.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Columns: **tsarrow** is our figure; **peer** the same work done the way a user would otherwise do it;"+
		" **ratio** ours against the peer's (speed, unless it says time or size); **limit** what the machine allows"+
		" for that work (a memcpy of the same output, the Arrow IPC read, the cores); **x limit** ours against that;"+
		" **target** and **met** the targets of the issues.")
	fmt.Fprintln(w)
	if chart != "" {
		fmt.Fprintf(w, "![Ratios of every table, log scale](%s)\n\n", filepath.ToSlash(chart))
	}
	total, ok := 0, 0
	for _, s := range secs {
		fmt.Fprintf(w, "## %s\n\n", s.Title)
		if s.Note != "" {
			fmt.Fprintf(w, "%s\n\n", s.Note)
		}
		fmt.Fprintln(w, "| case | tsarrow | peer | ratio | limit | x limit | target | met |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
		for _, x := range s.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", x.Case, x.Figure, x.Peer, x.Ratio, x.Limit, x.XLimit, x.Target, x.Met)
			switch {
			case x.Met == "yes":
				total, ok = total+1, ok+1
			case strings.HasPrefix(x.Met, "**no**"):
				total++
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Targets met: %d of %d measured.", ok, total)
	if n := r.count("Scan/default/workers=1"); n > 1 {
		fmt.Fprintf(w, " Figures are medians of %d runs.", n)
	}
	fmt.Fprintln(w)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// thousands3 writes a decimal integer with thousands separators.
func thousands3(s string) string {
	if len(s) <= 3 || strings.ContainsFunc(s, func(c rune) bool { return c < '0' || c > '9' }) {
		return s
	}
	head := len(s) % 3
	var b strings.Builder
	if head > 0 {
		b.WriteString(s[:head])
	}
	for i := head; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
