// Command report reads benchmark output (go test -bench lines, and the
// BenchmarkPeakRSS lines of benchmarks/cmd/rss) and prints the markdown
// table of the "pages straight into Arrow" targets: case, figure,
// baseline, ratio, target, met. With -count > 1 each metric is the median
// of its runs.
//
//	go run ./benchmarks/cmd/report benchmarks/out/*.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// results holds, per benchmark name (without the -GOMAXPROCS suffix) and
// unit, every value read.
type results map[string]map[string][]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

func (r results) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue
		}
		name := procSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		m := r[name]
		if m == nil {
			m = map[string][]float64{}
			r[name] = m
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			m[f[i+1]] = append(m[f[i+1]], v)
		}
	}
	return sc.Err()
}

// get returns the median of a benchmark's metric.
func (r results) get(name, unit string) (float64, bool) {
	vs := r[name][unit]
	if len(vs) == 0 {
		return 0, false
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

func (r results) count(name string) int { return len(r[name]["ns/op"]) }

// row is one line of the table.
type row struct {
	Case, Figure, Baseline, Ratio, Target, Met string
}

func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func missing(c, target string) row {
	return row{Case: c, Figure: "not measured", Target: target, Met: "-"}
}

func gb(v float64) string { return fmt.Sprintf("%.3g GB/s", v) }

func mrows(v float64) string { return fmt.Sprintf("%.3g M rows/s", v/1e6) }

func scanRows(r results) []row {
	var out []row
	for _, v := range []struct{ variant, label string }{{"plain", "PLAIN/UNCOMPRESSED"}, {"default", "default mix"}} {
		for _, w := range []int{1, 2} {
			name := fmt.Sprintf("Scan/%s/workers=%d", v.variant, w)
			c := fmt.Sprintf("scan %s, %d worker%s", v.label, w, plural(w))
			target := ">= 0.25x memcpy"
			if v.variant == "default" {
				target = ">= 1 GB/s decoded"
			}
			dec, ok1 := r.get(name, "decoded-GB/s")
			mc, ok2 := r.get(name, "memcpy-GB/s")
			x, ok3 := r.get(name, "x-memcpy")
			rs, _ := r.get(name, "rows/s")
			if !ok1 || !ok2 || !ok3 {
				out = append(out, missing(c, target))
				continue
			}
			ok := x >= 0.25
			if v.variant == "default" {
				ok = dec >= 1
			}
			out = append(out, row{c, gb(dec) + ", " + mrows(rs), "memcpy " + gb(mc), fmt.Sprintf("%.3fx memcpy", x), target, met(ok)})
		}
	}
	for _, v := range []struct{ variant, label string }{{"default", "default mix"}, {"plain", "PLAIN/UNCOMPRESSED"}} {
		c := "2 workers vs 1, " + v.label
		one, ok1 := r.get("Scan/"+v.variant+"/workers=1", "rows/s")
		two, ok2 := r.get("Scan/"+v.variant+"/workers=2", "rows/s")
		if !ok1 || !ok2 {
			out = append(out, missing(c, ">= 1.7x"))
			continue
		}
		// Prefer the interleaved ratio of the 2-worker benchmark.
		x, ok := r.get("Scan/"+v.variant+"/workers=2", "x-1worker")
		base := "1 worker " + mrows(one)
		if ok {
			base = "1 worker, interleaved"
		} else {
			x = two / one
		}
		out = append(out, row{c, "2 workers " + mrows(two), base, fmt.Sprintf("%.2fx", x), ">= 1.7x", met(x >= 1.7)})
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func parquetRows(r results) []row {
	var out []row
	for _, v := range []struct{ variant, label string }{{"default", "default mix"}, {"plain", "PLAIN/UNCOMPRESSED"}} {
		for _, w := range []int{1, 2} {
			name := fmt.Sprintf("ToParquet/%s/workers=%d", v.variant, w)
			c := fmt.Sprintf("TsFile -> Parquet, %s, %d worker%s", v.label, w, plural(w))
			target := "<= 1.3x pqarrow"
			ns, ok1 := r.get(name, "ns/op")
			base, ok2 := r.get(name, "pqarrow-ns/op")
			if !ok1 || !ok2 {
				out = append(out, missing(c, target))
				continue
			}
			rs, _ := r.get(name, "rows/s")
			x := ns / base
			out = append(out, row{c, fmt.Sprintf("%.3g s, %s", ns/1e9, mrows(rs)), fmt.Sprintf("pqarrow from memory %.3g s", base/1e9), fmt.Sprintf("%.2fx", x), target, met(x <= 1.3)})
		}
	}
	return out
}

func rssRows(r results) []row {
	var names []string
	for n := range r {
		if strings.HasPrefix(n, "PeakRSS/") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []row{missing("peak RSS, TsFile -> Parquet of a 1 GB file", "<= 300 MB")}
	}
	var out []row
	for _, n := range names {
		rss, _ := r.get(n, "peak-RSS-MB")
		file, _ := r.get(n, "file-MB")
		mode := strings.SplitN(strings.TrimPrefix(n, "PeakRSS/"), "/", 2)[0]
		c := fmt.Sprintf("peak RSS, %s, %.0f MB file", map[string]string{"cli": "ts2arrow convert to Parquet (child process)", "parquet": "TsFile -> Parquet in process", "scan": "scan"}[mode], file)
		target, ok := "<= 300 MB at 1 GB", rss <= 300
		m := met(ok)
		if file < 900 {
			m = "n/a (small file)"
			if !ok {
				m = "**no** (small file)"
			}
		}
		out = append(out, row{c, fmt.Sprintf("%.0f MB", rss), fmt.Sprintf("file %.0f MB", file), fmt.Sprintf("%.2fx file", rss/file), target, m})
	}
	return out
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: report FILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	r := results{}
	for _, p := range flag.Args() {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		err = r.read(f)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", p+":", err)
			os.Exit(1)
		}
	}
	var rows []row
	rows = append(rows, scanRows(r)...)
	rows = append(rows, parquetRows(r)...)
	rows = append(rows, rssRows(r)...)
	fmt.Println("| case | figure | baseline | ratio | target | met |")
	fmt.Println("| --- | ---: | ---: | ---: | --- | --- |")
	for _, x := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", x.Case, x.Figure, x.Baseline, x.Ratio, x.Target, x.Met)
	}
	if n := r.count("Scan/default/workers=1"); n > 0 {
		fmt.Printf("\nMedians of %d run(s); every ratio compares figures measured in the same process run.\n", n)
	}
}
