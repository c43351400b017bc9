package main

import (
	"fmt"
	"sort"
	"strings"
)

// sqlSection is issue 38's case: SQL over the generated tables with the
// query package (DuckDB), against DuckDB over the same rows as ZSTD
// Parquet, against converting first, pushdown against the full query, and
// Flight SQL over loopback against the query in process
// (benchmarks/sql).
func sqlSection(r *results) section {
	s := section{Title: "13. SQL (DuckDB over TsFiles), against DuckDB over Parquet and convert-then-query"}
	aggs := r.names("SQLAggregate/")
	if len(aggs) == 0 {
		s.Rows = append(s.Rows, missing("full-scan aggregate vs DuckDB on Parquet", ">= 0.8x DuckDB on Parquet"),
			missing("full-scan aggregate vs convert-then-query", ">= 5x convert-then-query"))
	}
	for _, name := range aggs {
		size := rowsSuffix(name)
		c := "full-scan aggregate" + size
		if !r.has(name, "ns/op", "parquet-ns/op", "x-parquet", "convert-ns/op", "x-convert") {
			s.Rows = append(s.Rows, missing(c+" vs DuckDB on Parquet", ">= 0.8x DuckDB on Parquet"),
				missing(c+" vs convert-then-query", ">= 5x convert-then-query"))
			continue
		}
		ns, _ := r.get(name, "ns/op")
		rs, _ := r.get(name, "rows/s")
		pns, _ := r.get(name, "parquet-ns/op")
		xp, _ := r.get(name, "x-parquet")
		cns, _ := r.get(name, "convert-ns/op")
		xc, _ := r.get(name, "x-convert")
		fig := duration(ns) + ", " + mrows(rs)
		peer := "DuckDB read_parquet " + duration(pns)
		if mb, ok := r.get(name, "parquet-MB"); ok {
			peer += fmt.Sprintf(" (%.4g MB ZSTD)", mb)
		}
		s.Rows = append(s.Rows,
			row{Case: c + " vs DuckDB on Parquet", Figure: fig, Peer: peer, Ratio: x(xp) + " Parquet",
				Limit: "-", XLimit: "-", Target: ">= 0.8x DuckDB on Parquet", Met: met(xp >= 0.8), peerX: xp},
			row{Case: c + " vs convert-then-query", Figure: fig, Peer: "convert + DuckDB " + duration(cns),
				Ratio: x(xc) + " convert-then-query", Limit: "-", XLimit: "-", Target: ">= 5x convert-then-query",
				Met: met(xc >= 5), peerX: xc})
	}
	sels := r.names("SQLSelective/")
	// Time windows before devices, 100 devices before 1,000, as section 4.
	sort.SliceStable(sels, func(i, j int) bool {
		key := func(n string) (bool, bool) { return strings.Contains(n, "/device="), strings.Contains(n, "-1000dev/") }
		di, mi := key(sels[i])
		dj, mj := key(sels[j])
		if di != dj {
			return !di
		}
		return !mi && mj
	})
	if len(sels) == 0 {
		s.Rows = append(s.Rows, missing("1% time window vs the full-scan query", ">= 20x full scan"),
			missing("one device of 1,000 vs the full-scan query", ">= 200x full scan"))
	}
	for _, name := range sels {
		what := name[strings.LastIndex(name, "/")+1:]
		ndev := "100"
		if strings.Contains(name, "-1000dev/") {
			ndev = "1,000"
		}
		c, target, want := "", ">= 20x full scan", 20.0
		switch {
		case strings.HasPrefix(what, "time="):
			pct := strings.TrimSuffix(strings.TrimPrefix(what, "time="), "pct")
			c = fmt.Sprintf("%s%% time window, %s devices%s", pct, ndev, rowsSuffix(name))
		case strings.HasPrefix(what, "device="):
			n, of, _ := strings.Cut(strings.TrimPrefix(what, "device="), "of")
			c = fmt.Sprintf("%s device of %s%s", n, thousands3(of), rowsSuffix(name))
			target, want = ">= 200x full scan", 200
		default:
			c = what + rowsSuffix(name)
		}
		c = "SQL " + c
		if !r.has(name, "ns/op", "full-ns/op", "x-full", "rows-frac") {
			s.Rows = append(s.Rows, missing(c, target))
			continue
		}
		ns, _ := r.get(name, "ns/op")
		full, _ := r.get(name, "full-ns/op")
		xf, _ := r.get(name, "x-full")
		frac, _ := r.get(name, "rows-frac")
		ideal := 1 / frac
		fig := fmt.Sprintf("%s, %.2g%% of the rows", duration(ns), 100*frac)
		if fl, ok := r.get(name, "floor-ns/op"); ok {
			// What any query over the table costs, however little it reads.
			fig += fmt.Sprintf(" (a query reading nothing: %s)", duration(fl))
		}
		s.Rows = append(s.Rows, row{Case: c, Figure: fig,
			Peer: "full-scan query " + duration(full), Ratio: x(xf), Limit: x(ideal) + " (1 / rows read)",
			XLimit: x(xf / ideal), Target: target, Met: met(xf >= want), peerX: xf, limitX: xf / ideal})
		if r.has(name, "read-MB", "full-read-MB", "convert-read-MB") {
			rd, _ := r.get(name, "read-MB")
			fr, _ := r.get(name, "full-read-MB")
			cr, _ := r.get(name, "convert-read-MB")
			// pages and rows: whichever the query package counted.
			extra := func(unit, what string) string {
				if v, ok := r.get(name, unit); ok {
					return fmt.Sprintf(", %s %s", thousands3(fmt.Sprintf("%.0f", v)), what)
				}
				return ""
			}
			rw := row{Case: c + ": bytes read", Figure: fmt.Sprintf("%.3g MB", rd) + extra("pages", "pages") + extra("rows-scanned", "rows scanned"),
				Peer: fmt.Sprintf("convert with the same pushdown %.3g MB", cr) + extra("convert-pages", "pages"), Ratio: "-",
				Limit: fmt.Sprintf("full scan %.3g MB", fr) + extra("full-pages", "pages") + extra("full-rows-scanned", "rows scanned"), XLimit: "-",
				Target: "about convert's (<= 1.25x its bytes)", Met: "-"}
			if rd > 0 && cr > 0 {
				xr := rd / cr
				rw.Ratio, rw.Met, rw.peerX = x(xr)+" convert's bytes", met(xr <= 1.25), 1/xr
			} else {
				rw.Met = "not counted"
			}
			if fr > 0 && rd > 0 {
				rw.XLimit, rw.limitX = x(rd/fr)+" full scan's bytes", fr/rd
			}
			s.Rows = append(s.Rows, rw)
		}
	}
	flights := r.names("SQLFlight/")
	if len(flights) == 0 {
		s.Rows = append(s.Rows, missing("Flight SQL over loopback vs the query in process", ">= 0.8x in-process"))
	}
	for _, name := range flights {
		c := "Flight SQL " + strings.TrimPrefix(name, "SQLFlight/")
		if what := name[strings.LastIndex(name, "/")+1:]; strings.HasPrefix(what, "time=") {
			c = fmt.Sprintf("Flight SQL, SELECT * of a %s%% time window%s", strings.TrimSuffix(strings.TrimPrefix(what, "time="), "pct"), rowsSuffix(name))
		}
		c += " vs in process"
		if !r.has(name, "ns/op", "inprocess-ns/op", "x-inprocess") {
			s.Rows = append(s.Rows, missing(c, ">= 0.8x in-process"))
			continue
		}
		ns, _ := r.get(name, "ns/op")
		ins, _ := r.get(name, "inprocess-ns/op")
		xi, _ := r.get(name, "x-inprocess")
		fig := duration(ns)
		if rs, ok := r.get(name, "rows/s"); ok {
			fig += ", " + mrows(rs)
		}
		s.Rows = append(s.Rows, row{Case: c, Figure: fig, Peer: "QueryArrow in process " + duration(ins),
			Ratio: x(xi) + " in-process", Limit: "-", XLimit: "-", Target: ">= 0.8x in-process", Met: met(xi >= 0.8), peerX: xi})
	}
	s.Note = "`benchmarks/sql` (tag `duckdb_arrow`): `query.Open` on the generated file and `QueryArrow` of " +
		"`SELECT device_id, count(*), avg(temperature), max(pressure) FROM bench GROUP BY ALL`, the result drained. " +
		"`BenchmarkSQLAggregate` runs between its iterations the same query in a plain DuckDB on the ZSTD Parquet " +
		"peer file (written once by `export.WriteParquet`, as `ts2arrow convert` writes it; `read_parquet`) and " +
		"convert-then-query (the TsFile converted to ZSTD Parquet by our exporter, then queried by DuckDB, timed " +
		"together), after checking both answer the same. `BenchmarkSQLSelective` adds `WHERE time >= ... AND time < ...` " +
		"(1% of every device's span) or `WHERE device_id = ...` and runs the full query between its iterations; " +
		"bytes read (and rows scanned) are the query package's Stats for one query, against `arrowconv` with the same " +
		"window or device and the query's columns (bytes through a counting reader). `BenchmarkSQLFlight` reads the " +
		"result of a query over arrow-go's Flight SQL client from the flight package's Flight SQL service on " +
		"127.0.0.1, with `QueryArrow` of the same query in process between its iterations."
	return s
}

// rowsSuffix returns ", 10M rows" for a benchmark name holding rows=N,
// and "" for one without.
func rowsSuffix(name string) string {
	for _, p := range strings.Split(name, "/") {
		if v, ok := strings.CutPrefix(p, "rows="); ok {
			var n int
			if _, err := fmt.Sscanf(v, "%d", &n); err == nil {
				return ", " + rowsLabel(n)
			}
		}
	}
	return ""
}
