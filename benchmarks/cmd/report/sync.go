package main

import "fmt"

// syncSection is issue 41's case: `ts2arrow sync` of the generated data
// directory (its rows spread over 30 days) into an Iceberg table, against
// `ts2arrow convert` of the same directory to Parquet, then the cost of
// the syncs after 1% new data and after a deletion touching one day, as
// shares of the first sync (benchmarks/cmd/syncbench).
func syncSection(r *results) section {
	s := section{Title: "15. Iceberg sync: ts2arrow sync against convert, and incremental syncs"}
	s.Note = "`benchmarks/cmd/syncbench`: the resolved data directory of section 9 with its rows spread over 30 days, " +
		"copied; child processes, wall time and ru_maxrss. **first** is `ts2arrow sync DIR --catalog sqlite:... " +
		"--warehouse ... --to iot.readings` into a new table (day(time) partitions, format v2), against `ts2arrow " +
		"convert DIR -o x.parquet` (rounds alternating which goes first); the ratio is convert's time over the sync's. " +
		"**1% new data** is a sync after new sequence files holding 1% more rows, later than every row; **one-day " +
		"deletion** a sync after a DELETE of an hour of day 15 appended to the .mods2 of every file it touches; both " +
		"as a share of the first sync's time (median). The targets are judged on wall time; the ratios of CPU time (user + " +
		"system) are beside them, steadier on a loaded machine."
	first := r.names("IcebergSync/first/")
	if len(first) == 0 {
		s.Rows = append(s.Rows, missing("first sync vs convert to Parquet", ">= 0.8x convert"),
			missing("sync after 1% new data", "<= 5% of the first sync"),
			missing("sync after a deletion touching one day of 30", "<= 10% of the first sync"))
		return s
	}
	for _, name := range first {
		sfx := rowsSuffix(name)
		conv := "IcebergSync/convert/" + name[len("IcebergSync/first/"):]
		c := "first sync vs convert to Parquet" + sfx
		if !r.has(name, "ns/op", "rows/s", "x-convert") || !r.has(conv, "ns/op", "rows/s") {
			s.Rows = append(s.Rows, missing(c, ">= 0.8x convert"))
			continue
		}
		ns, _ := r.get(name, "ns/op")
		rps, _ := r.get(name, "rows/s")
		xc, _ := r.get(name, "x-convert")
		cns, _ := r.get(conv, "ns/op")
		crps, _ := r.get(conv, "rows/s")
		fig := fmt.Sprintf("%s, %s", duration(ns), mrows(rps))
		if rss, ok := r.get(name, "peak-RSS-MB"); ok {
			fig += fmt.Sprintf(", %.0f MB peak", rss)
		}
		if w, ok := r.get(name, "files-written"); ok {
			fig += fmt.Sprintf(", %.0f files", w)
		}
		peer := fmt.Sprintf("convert %s, %s", duration(cns), mrows(crps))
		if rss, ok := r.get(conv, "peak-RSS-MB"); ok {
			peer += fmt.Sprintf(", %.0f MB peak", rss)
		}
		ratio := x(xc) + " convert"
		if xcpu, ok := r.get(name, "x-convert-cpu"); ok {
			ratio += fmt.Sprintf(" (CPU time: %s)", x(xcpu))
		}
		s.Rows = append(s.Rows, row{Case: c, Figure: fig, Peer: peer, Ratio: ratio, Limit: "-", XLimit: "-",
			Target: ">= 0.8x convert", Met: met(xc >= 0.8), peerX: xc})
		for _, inc := range []struct {
			what, label string
			target      float64
		}{{"append1pct", "sync after 1% new data", 0.05}, {"delete1day", "sync after a deletion touching one day of 30", 0.10}} {
			n := "IcebergSync/" + inc.what + "/" + name[len("IcebergSync/first/"):]
			c := inc.label + sfx
			tgt := fmt.Sprintf("<= %.0f%% of the first sync", inc.target*100)
			if !r.has(n, "ns/op", "x-first") {
				s.Rows = append(s.Rows, missing(c, tgt))
				continue
			}
			ins, _ := r.get(n, "ns/op")
			xf, _ := r.get(n, "x-first")
			fig := duration(ins)
			if rows, ok := r.get(n, "rows/s"); ok {
				fig += fmt.Sprintf(", %.0f rows written", rows*ins/1e9)
			}
			if w, ok := r.get(n, "files-written"); ok {
				rm, _ := r.get(n, "files-removed")
				fig += fmt.Sprintf(", %.0f files written, %.0f removed", w, rm)
			}
			ratio := pct(xf) + " of the first"
			if xcpu, ok := r.get(n, "x-first-cpu"); ok {
				ratio += fmt.Sprintf(" (CPU time: %s)", pct(xcpu))
			}
			s.Rows = append(s.Rows, row{Case: c, Figure: fig, Peer: "first sync " + duration(ns), Ratio: ratio,
				Limit: "-", XLimit: "-", Target: tgt, Met: met(xf <= inc.target)})
		}
	}
	return s
}
