package main

import (
	"bufio"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// results holds, per benchmark name (without "Benchmark" and the
// -GOMAXPROCS suffix) and unit, every value read, and the run's
// description lines.
type results struct {
	m    map[string]map[string][]float64
	meta meta
}

// meta is what the raw files say about the run beside the figures.
type meta struct {
	cpu   string            // go test's "cpu:" line
	loads []string          // "load: ..." lines benchmarks/run writes before and after a step
	kv    map[string]string // "key: value" lines of the meta file
	notes []string          // its "note: ..." lines, in order
}

func newResults() *results {
	return &results{m: map[string]map[string][]float64{}, meta: meta{kv: map[string]string{}}}
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// read adds the benchmark lines of a go test -bench output (or of the
// lines benchmarks/cmd/rss prints) to r: a name starting with Benchmark,
// an iteration count, then value-unit pairs. Other lines are skipped,
// except "cpu: ..." and "load: ...", kept for the header, and "key: value"
// lines of a meta file, which go to meta.kv when isMeta is set.
func (r *results) read(in io.Reader, isMeta bool) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "cpu:"); ok && r.meta.cpu == "" {
			r.meta.cpu = strings.TrimSpace(rest)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "load:"); ok {
			r.meta.loads = append(r.meta.loads, strings.TrimSpace(rest))
			continue
		}
		if isMeta {
			if k, v, ok := strings.Cut(line, ":"); ok {
				k, v = strings.TrimSpace(k), strings.TrimSpace(v)
				if k == "note" {
					r.meta.notes = append(r.meta.notes, v)
				} else {
					r.meta.kv[k] = v
				}
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue
		}
		name := procSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		m := r.m[name]
		if m == nil {
			m = map[string][]float64{}
			r.m[name] = m
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
func (r *results) get(name, unit string) (float64, bool) {
	return median(r.m[name][unit])
}

// has reports whether every metric was measured for the benchmark.
func (r *results) has(name string, units ...string) bool {
	for _, u := range units {
		if len(r.m[name][u]) == 0 {
			return false
		}
	}
	return true
}

// count is how many runs of a benchmark were read.
func (r *results) count(name string) int { return len(r.m[name]["ns/op"]) }

// names returns the benchmark names with a prefix, sorted.
func (r *results) names(prefix string) []string {
	var out []string
	for n := range r.m {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func median(vs []float64) (float64, bool) {
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
