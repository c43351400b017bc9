package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// row is one line of a table: the case, tsarrow's figure, the peer's
// figure and the ratio of the two, the machine's limit and the ratio to
// it, and the target with whether it was met. peerX and limitX are the
// same ratios as numbers for the chart, oriented so that more is better
// for tsarrow (speed over the peer's, speed over the limit's); 0 means
// none.
type row struct {
	Case, Figure, Peer, Ratio, Limit, XLimit, Target, Met string
	peerX, limitX                                         float64
}

// section is one table of RESULTS.md: a case of the issue.
type section struct {
	Title string
	Note  string
	Rows  []row
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

func x(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0fx", v)
	case v >= 0.1:
		return fmt.Sprintf("%.3gx", v)
	default:
		return fmt.Sprintf("%.2gx", v)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// duration formats nanoseconds.
func duration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	default:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
}

// scanVariants pairs each variant of the generated table with its Parquet
// peer.
var scanVariants = []struct{ variant, label, peer, peerLabel string }{
	{"default", "default mix", "parquet", "Parquet ZSTD"},
	{"plain", "PLAIN/UNCOMPRESSED", "parquet-none", "Parquet uncompressed"},
}

// scanSection is case 2: TsFile -> arrow.Record against Parquet (pqarrow)
// and the Arrow IPC floor, beside memcpy, with the file sizes.
func scanSection(r *results) section {
	s := section{Title: "2. Scan: TsFile -> arrow.Record, against Parquet (pqarrow) and the Arrow IPC file"}
	for _, v := range scanVariants {
		for _, w := range []int{1, 2} {
			name := fmt.Sprintf("Scan/%s/workers=%d", v.variant, w)
			c := fmt.Sprintf("scan %s, %d worker%s", v.label, w, plural(w))
			target := ">= 0.25x memcpy"
			if v.variant == "default" {
				target = ">= 1 GB/s decoded"
			}
			if !r.has(name, "decoded-GB/s", "memcpy-GB/s", "x-memcpy") {
				s.Rows = append(s.Rows, missing(c, target))
				continue
			}
			dec, _ := r.get(name, "decoded-GB/s")
			mc, _ := r.get(name, "memcpy-GB/s")
			xm, _ := r.get(name, "x-memcpy")
			rs, _ := r.get(name, "rows/s")
			ok := xm >= 0.25
			if v.variant == "default" {
				ok = dec >= 1
			}
			row := row{Case: c, Figure: gb(dec) + ", " + mrows(rs), Peer: "-", Ratio: "-",
				Limit: "memcpy " + gb(mc), XLimit: x(xm), Target: target, Met: met(ok), limitX: xm}
			peer := fmt.Sprintf("PeerParquetScan/%s/workers=%d", v.peer, w)
			if r.has(peer, "decoded-GB/s", "x-tsarrow") {
				pg, _ := r.get(peer, "decoded-GB/s")
				pr, _ := r.get(peer, "rows/s")
				xp, _ := r.get(peer, "x-tsarrow")
				row.Peer = fmt.Sprintf("%s %s, %s", v.peerLabel, gb(pg), mrows(pr))
				row.Ratio = x(xp) + " Parquet"
				row.peerX = xp
			}
			s.Rows = append(s.Rows, row)
		}
	}
	for _, v := range scanVariants {
		c := "2 workers vs 1, " + v.label
		one, ok1 := r.get("Scan/"+v.variant+"/workers=1", "rows/s")
		two, ok2 := r.get("Scan/"+v.variant+"/workers=2", "rows/s")
		if !ok1 || !ok2 {
			s.Rows = append(s.Rows, missing(c, ">= 1.7x"))
			continue
		}
		// Prefer the interleaved ratio of the 2-worker benchmark.
		xw, ok := r.get("Scan/"+v.variant+"/workers=2", "x-1worker")
		peer := "1 worker " + mrows(one)
		if ok {
			peer = "1 worker, interleaved"
		} else {
			xw = two / one
		}
		s.Rows = append(s.Rows, row{Case: c, Figure: "2 workers " + mrows(two), Peer: peer, Ratio: x(xw),
			Limit: "2 cores: 2x", XLimit: x(xw / 2), Target: ">= 1.7x", Met: met(xw >= 1.7), peerX: xw, limitX: xw / 2})
	}
	for _, v := range scanVariants {
		for _, w := range []int{1, 2} {
			name := fmt.Sprintf("PeerIPCScan/%s/workers=%d", v.variant, w)
			c := fmt.Sprintf("scan %s vs the Arrow IPC file, %d worker%s", v.label, w, plural(w))
			if !r.has(name, "decoded-GB/s", "x-tsarrow", "tsarrow-ns/op", "rows/s") {
				s.Rows = append(s.Rows, missing(c, "-"))
				continue
			}
			ig, _ := r.get(name, "decoded-GB/s")
			ir, _ := r.get(name, "rows/s")
			ns, _ := r.get(name, "ns/op")
			tns, _ := r.get(name, "tsarrow-ns/op")
			xi, _ := r.get(name, "x-tsarrow")
			rows := ir * ns / 1e9
			s.Rows = append(s.Rows, row{Case: c, Figure: mrows(rows/tns*1e9) + " (interleaved)", Peer: "-", Ratio: "-",
				Limit: fmt.Sprintf("Arrow IPC read %s, %s", gb(ig), mrows(ir)), XLimit: x(xi), Target: "-", Met: "-", limitX: xi})
		}
	}
	ipc, okIPC := r.get("PeerIPCScan/default/workers=1", "file-MB")
	for _, v := range scanVariants {
		c := "file size, " + v.label
		name := "PeerParquetScan/" + v.peer + "/workers=1"
		if !r.has(name, "file-MB", "tsfile-MB") {
			s.Rows = append(s.Rows, missing(c, "-"))
			continue
		}
		pq, _ := r.get(name, "file-MB")
		ts, _ := r.get(name, "tsfile-MB")
		row := row{Case: c, Figure: fmt.Sprintf("TsFile %.4g MB", ts), Peer: fmt.Sprintf("%s %.4g MB", v.peerLabel, pq),
			Ratio: x(ts/pq) + " Parquet's size", Limit: "-", XLimit: "-", Target: "-", Met: "-"}
		if okIPC {
			row.Limit = fmt.Sprintf("Arrow IPC %.4g MB", ipc)
			row.XLimit = x(ts/ipc) + " its size"
		}
		s.Rows = append(s.Rows, row)
	}
	s.Note = "tsarrow: `BenchmarkScan` (`tsfile.OpenFile`, `arrowconv.NewTableReader`, `Next` to the end), " +
		"decoded GB/s counting the Arrow buffers the batches reference; limit: a memcpy of that many bytes " +
		"timed between the scans. Peer: `BenchmarkPeerParquetScan`, pqarrow reading the same rows from a Parquet " +
		"file written once by `export.WriteParquet` (ZSTD against the default mix, uncompressed against PLAIN), " +
		"with the TsFile scan interleaved: the ratio is TsFile's speed over Parquet's. `BenchmarkPeerIPCScan` " +
		"reads an uncompressed Arrow IPC file (nothing to decode: the floor of any format) with the TsFile scan interleaved."
	return s
}

// conversionSection is case 3: TsFile -> Parquet against pqarrow writing
// the same records from memory.
func conversionSection(r *results) section {
	s := section{Title: "3. TsFile -> Parquet, against arrow-go writing the same records from memory"}
	for _, v := range []struct{ variant, label string }{{"default", "default mix"}, {"plain", "PLAIN/UNCOMPRESSED"}} {
		for _, w := range []int{1, 2} {
			name := fmt.Sprintf("ToParquet/%s/workers=%d", v.variant, w)
			c := fmt.Sprintf("TsFile -> Parquet, %s, %d worker%s", v.label, w, plural(w))
			target := "<= 1.3x pqarrow time"
			if !r.has(name, "ns/op", "pqarrow-ns/op") {
				s.Rows = append(s.Rows, missing(c, target))
				continue
			}
			ns, _ := r.get(name, "ns/op")
			base, _ := r.get(name, "pqarrow-ns/op")
			rs, _ := r.get(name, "rows/s")
			xt := ns / base
			s.Rows = append(s.Rows, row{Case: c, Figure: duration(ns) + ", " + mrows(rs),
				Peer: "pqarrow from memory " + duration(base), Ratio: x(xt) + " pqarrow time",
				Limit: "-", XLimit: "-", Target: target, Met: met(xt <= 1.3), peerX: base / ns})
		}
	}
	s.Note = "`BenchmarkToParquet`: `export.WriteParquet` of the TsFile (ZSTD, row groups of 1,048,576 rows) to a " +
		"counting discard writer; between its iterations pqarrow writes the same records, decoded beforehand and " +
		"held in memory, with the same settings."
	return s
}

// selectiveSection is case 4: pushdown against a full scan.
func selectiveSection(r *results) section {
	s := section{Title: "4. Selective reads, against a full scan of the same file"}
	type read struct {
		name, c      string
		device, ndev int // device: 0 for a time range, 1 for one device
		rows         int
	}
	var reads []read
	for _, name := range r.names("Selective/") {
		parts := strings.Split(strings.TrimPrefix(name, "Selective/"), "/")
		if len(parts) < 2 {
			continue
		}
		rd := read{name: name, ndev: 100}
		if strings.HasSuffix(parts[0], "-1000dev") {
			rd.ndev = 1000
		}
		what := parts[len(parts)-1]
		size := ""
		if len(parts) == 3 {
			if n, err := strconv.Atoi(strings.TrimPrefix(parts[1], "rows=")); err == nil {
				rd.rows, size = n, ", "+rowsLabel(n)
			}
		}
		switch {
		case strings.HasPrefix(what, "time="):
			pct := strings.TrimSuffix(strings.TrimPrefix(what, "time="), "pct")
			rd.c = fmt.Sprintf("%s%% time range, %s devices%s", pct, thousands3(strconv.Itoa(rd.ndev)), size)
		case strings.HasPrefix(what, "device="):
			n, of, _ := strings.Cut(strings.TrimPrefix(what, "device="), "of")
			rd.device = 1
			rd.c = fmt.Sprintf("%s device of %s%s", n, thousands3(of), size)
		default:
			rd.c = what + size
		}
		reads = append(reads, rd)
	}
	sort.SliceStable(reads, func(i, j int) bool {
		a, b := reads[i], reads[j]
		if a.device != b.device {
			return a.device < b.device
		}
		if a.ndev != b.ndev {
			return a.ndev < b.ndev
		}
		return a.rows < b.rows
	})
	if len(reads) == 0 {
		s.Rows = append(s.Rows, missing("selective reads", ">= 20x full scan"))
	}
	for _, rd := range reads {
		target := ">= 20x full scan"
		if !r.has(rd.name, "x-full", "rows-frac", "full-ns/op") {
			s.Rows = append(s.Rows, missing(rd.c, target))
			continue
		}
		ns, _ := r.get(rd.name, "ns/op")
		full, _ := r.get(rd.name, "full-ns/op")
		xf, _ := r.get(rd.name, "x-full")
		frac, _ := r.get(rd.name, "rows-frac")
		ideal := 1 / frac
		s.Rows = append(s.Rows, row{Case: rd.c, Figure: fmt.Sprintf("%s, %.2g%% of the rows", duration(ns), 100*frac),
			Peer: "full scan " + duration(full), Ratio: x(xf), Limit: x(ideal) + " (1 / rows read)",
			XLimit: x(xf / ideal), Target: target, Met: met(xf >= 20), peerX: xf, limitX: xf / ideal})
	}
	s.Note = "`BenchmarkSelective`: `arrowconv.Options{Time: ...}` (a window of 1% of every device's span) and " +
		"`Options{Devices: [one]}` on the default mix, timed against full scans of the same file interleaved with " +
		"them. The 100-device table holds each device's rows in chunk groups of up to 100,000 rows, pages of " +
		"8,192 rows (at 10M rows a page is 8% of a device's rows, so a 1% window cannot skip more than about " +
		"12/13 of the data); the 1,000-device twin writes chunk groups of 1,000 rows a device, as a database " +
		"flushing 1,000 devices does. The limit is the speedup if time were proportional to the rows returned."
	return s
}

// flightSection is case 5: Flight DoGet over loopback against the same
// scan in process.
func flightSection(r *results) section {
	s := section{Title: "5. Arrow Flight DoGet over loopback, against in-process conversion"}
	for _, v := range scanVariants {
		name := "FlightDoGet/" + v.variant
		c := "Flight DoGet, " + v.label
		target := ">= 1 GB/s and >= 0.6x in-process"
		if !r.has(name, "decoded-GB/s", "x-inprocess") {
			s.Rows = append(s.Rows, missing(c, target))
			continue
		}
		dec, _ := r.get(name, "decoded-GB/s")
		rs, _ := r.get(name, "rows/s")
		xi, _ := r.get(name, "x-inprocess")
		s.Rows = append(s.Rows, row{Case: c, Figure: gb(dec) + ", " + mrows(rs), Peer: "in-process scan, interleaved",
			Ratio: x(xi) + " in-process", Limit: "-", XLimit: "-", Target: target, Met: met(dec >= 1 && xi >= 0.6), peerX: xi})
		if r.has(name, "x-inprocess-cpu", "cpu-ms/op") {
			cpu, _ := r.get(name, "cpu-ms/op")
			xc, _ := r.get(name, "x-inprocess-cpu")
			s.Rows = append(s.Rows, row{Case: c + ", CPU time", Figure: fmt.Sprintf("%.4g ms CPU a read", cpu),
				Peer: "in-process scan's CPU time", Ratio: x(xc) + " in-process CPU", Limit: "-", XLimit: "-",
				Target: "-", Met: "-", peerX: xc})
		}
		if xs, _ := r.get(name, "x-stock-client"); xs > 0 {
			s.Rows = append(s.Rows, stockRow(c, fmt.Sprintf("%s, %s in-process", gb(dec/xs), x(xi/xs)), xs))
		}
	}
	name := "FlightDoGetParallel"
	c := "Flight DoGet, 8 readers over one flight's endpoints"
	if !r.has(name, "x-one-endpoint") {
		s.Rows = append(s.Rows, missing(c, ">= 1.5x one endpoint"))
	} else {
		dec, _ := r.get(name, "decoded-GB/s")
		eps, _ := r.get(name, "endpoints")
		xo, _ := r.get(name, "x-one-endpoint")
		s.Rows = append(s.Rows, row{Case: c, Figure: fmt.Sprintf("%.0f endpoints, %s", eps, gb(dec)),
			Peer: "one endpoint, interleaved", Ratio: x(xo) + " one endpoint", Limit: "-", XLimit: "-",
			Target: ">= 1.5x one endpoint", Met: met(xo >= 1.5), peerX: xo})
		if xs, _ := r.get(name, "x-stock-client"); xs > 0 {
			s.Rows = append(s.Rows, stockRow(c, gb(dec/xs)+", 8 readers", xs))
		}
	}
	s.Note = "`BenchmarkFlightDoGet` and `BenchmarkFlightDoGetParallel` (see the Flight section of benchmarks/README.md): " +
		"arrow-go's Flight client reads the generated file through `flight.DoGet` from a `flight.Server` on 127.0.0.1 " +
		"in the same process, with an in-process `arrowconv` scan of the same file (or a one-endpoint read) and the " +
		"same read with the stock client (arrow-go's `DoGet` and `NewRecordReader`) between the timed reads."
	return s
}

// stockRow compares flight.DoGet with the stock arrow-go client, read
// interleaved with it: xs is flight.DoGet's speed over the stock client's,
// and figure the stock client's own.
func stockRow(c, figure string, xs float64) row {
	return row{Case: c + ", stock client", Figure: "stock client " + figure, Peer: "flight.DoGet, interleaved",
		Ratio: "flight.DoGet " + x(xs) + " stock", Limit: "-", XLimit: "-", Target: "-", Met: "-", peerX: xs}
}

// scalingSection is case 6: scan time and peak RSS of the default mix at
// growing row counts, each against the smallest.
func scalingSection(r *results) section {
	s := section{Title: "6. Scaling: scan time and peak RSS by row count"}
	type point struct {
		rows          int
		ns, rss, file float64
	}
	var pts []point
	for _, name := range r.names("Scaling/rows=") {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "Scaling/rows="))
		if err != nil || !r.has(name, "ns/op", "peak-RSS-MB") {
			continue
		}
		ns, _ := r.get(name, "ns/op")
		rss, _ := r.get(name, "peak-RSS-MB")
		file, _ := r.get(name, "file-MB")
		pts = append(pts, point{n, ns, rss, file})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].rows < pts[j].rows })
	if len(pts) == 0 {
		s.Rows = append(s.Rows, missing("scan time and peak RSS", "linear time, flat memory"))
		return s
	}
	perRow := func(p point) float64 { return p.ns / float64(p.rows) }
	for i, p := range pts {
		pl := rowsLabel(p.rows)
		tr := row{Case: "scan time per row, " + pl, Figure: fmt.Sprintf("%s, %.3g ns/row", duration(p.ns), perRow(p)),
			Peer: "-", Ratio: "-", Limit: "-", XLimit: "-", Target: "baseline", Met: "-"}
		mr := row{Case: fmt.Sprintf("peak RSS of the scan, %s (%.4g MB file)", pl, p.file), Figure: fmt.Sprintf("%.0f MB", p.rss),
			Peer: "-", Ratio: "-", Limit: "-", XLimit: "-", Target: "baseline", Met: "-"}
		if i > 0 {
			// Each size against the next smaller one: the smallest run
			// carries fixed costs (start-up, the first batches' buffers)
			// that would make every larger one look better than linear.
			prev := pts[i-1]
			bl := rowsLabel(prev.rows)
			xt := perRow(p) / perRow(prev)
			tr.Peer, tr.Ratio, tr.Target, tr.Met, tr.peerX = fmt.Sprintf("%s: %.3g ns/row", bl, perRow(prev)), x(xt)+" "+bl, "<= 1.25x (linear)", met(xt <= 1.25), 1/xt
			xr := p.rss / prev.rss
			mr.Peer, mr.Ratio, mr.Target, mr.Met, mr.peerX = fmt.Sprintf("%s: %.0f MB", bl, prev.rss), x(xr)+" "+bl, "<= 1.5x (flat)", met(xr <= 1.5), 1/xr
		}
		s.Rows = append(s.Rows, tr, mr)
	}
	s.Note = "`benchmarks/cmd/rss -mode scan` on the default mix, one process per run, round after round over the " +
		"sizes: the time from opening the file to the last batch, and the process's peak resident set (VmHWM). Each " +
		"size is set against the next smaller one: time per row should stay the same (linear time) and so should " +
		"memory (flat)."
	return s
}

func rowsLabel(n int) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM rows", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dk rows", n/1e3)
	}
	return fmt.Sprintf("%d rows", n)
}

// aeadSection is the Page AEAD scan against the plaintext one.
func aeadSection(r *results) section {
	s := section{Title: "7. Page AEAD: encrypted scan against the plaintext file"}
	for _, v := range scanVariants {
		for _, w := range []int{1, 2} {
			name := fmt.Sprintf("ScanAEAD/%s/workers=%d", v.variant, w)
			c := fmt.Sprintf("Page AEAD scan, %s, %d worker%s", v.label, w, plural(w))
			target := "AES-GCM share <= 0.15"
			if !r.has(name, "aead-share", "x-plain") {
				s.Rows = append(s.Rows, missing(c, target))
				continue
			}
			dec, _ := r.get(name, "decoded-GB/s")
			share, _ := r.get(name, "aead-share")
			xp, _ := r.get(name, "x-plain")
			s.Rows = append(s.Rows, row{Case: c, Figure: gb(dec), Peer: "plaintext scan, interleaved",
				Ratio: fmt.Sprintf("share %.3f (%s plaintext time)", share, x(xp)), Limit: "-", XLimit: "-",
				Target: target, Met: met(share <= 0.15), peerX: 1 / xp})
		}
	}
	s.Note = "`BenchmarkScanAEAD`: each variant's Page AEAD twin (AES-256-GCM pages, chunk proofs) with the " +
		"plaintext file scanned between its iterations; the share is the part of the encrypted scan's time that " +
		"decryption adds (1 - plaintext/encrypted)."
	return s
}

// verifySection is the scan with page verification against the one
// without (issue 29).
func verifySection(r *results) section {
	s := section{Title: "11. Page verification: scan with and without checking pages against their statistics"}
	for _, v := range scanVariants {
		for _, w := range []int{1, 2} {
			name := fmt.Sprintf("ScanVerify/%s/workers=%d", v.variant, w)
			c := fmt.Sprintf("verified scan, %s, %d worker%s", v.label, w, plural(w))
			target := "-"
			if v.variant == "default" {
				target = "verify share <= 0.05"
			}
			if !r.has(name, "verify-share", "x-noverify") {
				s.Rows = append(s.Rows, missing(c, target))
				continue
			}
			dec, _ := r.get(name, "decoded-GB/s")
			share, _ := r.get(name, "verify-share")
			xn, _ := r.get(name, "x-noverify")
			ok := "-"
			if v.variant == "default" {
				ok = met(share <= 0.05)
			}
			s.Rows = append(s.Rows, row{Case: c, Figure: gb(dec), Peer: "--no-verify scan, alternating",
				Ratio: fmt.Sprintf("share %.3f (%s unverified time)", share, x(xn)), Limit: "-", XLimit: "-",
				Target: target, Met: ok, peerX: 1 / xn})
		}
	}
	s.Note = "`BenchmarkScanVerify`: each iteration scans with verification (timed) and with `NoVerify`, in " +
		"alternating order; the share is the part of the verified scan's time the check adds (1 - 1/median " +
		"ratio). PLAIN pages get every check, the other encodings the fast one (count, first, last, sum)."
	return s
}

// rssSection is peak memory converting and scanning the ~1 GB file.
func rssSection(r *results) section {
	s := section{Title: "8. Peak RSS converting a large file"}
	names := r.names("PeakRSS/")
	if len(names) == 0 {
		s.Rows = append(s.Rows, missing("peak RSS, TsFile -> Parquet of a 1 GB file", "<= 300 MB"))
		return s
	}
	for _, n := range names {
		rss, _ := r.get(n, "peak-RSS-MB")
		file, _ := r.get(n, "file-MB")
		mode := strings.SplitN(strings.TrimPrefix(n, "PeakRSS/"), "/", 2)[0]
		label := map[string]string{"cli": "ts2arrow convert to Parquet (child process)", "parquet": "TsFile -> Parquet in process", "scan": "scan"}[mode]
		if label == "" {
			label = mode
		}
		c := fmt.Sprintf("peak RSS, %s, %.0f MB file", label, file)
		ok := rss <= 300
		m := met(ok)
		if file < 900 {
			m = "n/a (small file)"
			if !ok {
				m = "**no** (small file)"
			}
		}
		s.Rows = append(s.Rows, row{Case: c, Figure: fmt.Sprintf("%.0f MB", rss), Peer: "-", Ratio: "-",
			Limit: fmt.Sprintf("file %.0f MB", file), XLimit: x(rss/file) + " file", Target: "<= 300 MB at 1 GB", Met: m})
	}
	s.Note = "`benchmarks/cmd/rss` on the PLAIN variant (about 65 bytes a row): VmHWM at the end of a conversion or " +
		"scan in process, or `ru_maxrss` of a `ts2arrow convert` child."
	return s
}

// datasetSection is issue 28's case: an IoTDB data directory read as the
// server answers it (unsequence files rewriting 10% of the rows, mods2
// deleting 1%), against the same rows in files that overlap nothing and
// have no mods, read the same way.
func datasetSection(r *results) section {
	s := section{Title: "9. IoTDB data directory: resolved read, against the same rows without overwrites or deletions"}
	const speedTarget, rssTarget = ">= 0.7x plain rows/s", "<= 1.5x plain"
	sizeOf := func(name, prefix string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimPrefix(name, prefix))
		return n, err == nil
	}
	reads := r.names("Dataset/rows=")
	if len(reads) == 0 {
		s.Rows = append(s.Rows, missing("resolved read, 20 files, 10% rewritten, 1% deleted", speedTarget))
	}
	for _, name := range reads {
		n, ok := sizeOf(name, "Dataset/rows=")
		if !ok {
			continue
		}
		c := fmt.Sprintf("resolved read, %s in 20 files, 10%% rewritten, 1%% deleted", rowsLabel(n))
		if !r.has(name, "rows/s", "plain-rows/s", "x-plain") {
			s.Rows = append(s.Rows, missing(c, speedTarget))
			continue
		}
		rs, _ := r.get(name, "rows/s")
		prs, _ := r.get(name, "plain-rows/s")
		xp, _ := r.get(name, "x-plain")
		row := row{Case: c, Figure: mrows(rs), Peer: "plain directory " + mrows(prs) + ", interleaved",
			Ratio: x(xp) + " plain", Limit: "-", XLimit: "-", Target: speedTarget, Met: met(xp >= 0.7), peerX: xp}
		if r.has(name, "files-rows/s", "x-files") {
			frs, _ := r.get(name, "files-rows/s")
			xf, _ := r.get(name, "x-files")
			row.Limit, row.XLimit, row.limitX = "plain files one by one (arrowconv) "+mrows(frs), x(xf), xf
		}
		s.Rows = append(s.Rows, row)
	}
	rss := r.names("DatasetRSS/resolved/rows=")
	if len(rss) == 0 {
		s.Rows = append(s.Rows, missing("peak RSS of the resolved read", rssTarget))
	}
	for _, name := range rss {
		n, ok := sizeOf(name, "DatasetRSS/resolved/rows=")
		if !ok {
			continue
		}
		c := "peak RSS of the resolved read, " + rowsLabel(n)
		plain := fmt.Sprintf("DatasetRSS/plain/rows=%d", n)
		if !r.has(name, "peak-RSS-MB") || !r.has(plain, "peak-RSS-MB") {
			s.Rows = append(s.Rows, missing(c, rssTarget))
			continue
		}
		res, _ := r.get(name, "peak-RSS-MB")
		pl, _ := r.get(plain, "peak-RSS-MB")
		xr := res / pl
		row := row{Case: c, Figure: fmt.Sprintf("%.0f MB", res), Peer: fmt.Sprintf("plain directory %.0f MB", pl),
			Ratio: x(xr) + " plain", Limit: "-", XLimit: "-", Target: rssTarget, Met: met(xr <= 1.5), peerX: 1 / xr}
		// Both processes must have returned the same rows, or the
		// memory compares different work.
		if rr, _ := r.get(name, "rows"); rr != 0 {
			if pr, _ := r.get(plain, "rows"); pr != rr {
				row.Met = fmt.Sprintf("**no** (%.0f rows resolved, %.0f plain)", rr, pr)
			}
		}
		if mb, ok := r.get(name, "file-MB"); ok {
			row.Limit = fmt.Sprintf("data files %.4g MB", mb)
			row.XLimit = x(res/mb) + " files"
		}
		s.Rows = append(s.Rows, row)
	}
	s.Note = "`BenchmarkDataset`: `dataset.Open` and `NewReader(table, nil)` read to the end on the generated IoTDB " +
		"data directory (18 sequence files, 2 unsequence files rewriting 10% of the rows, 90% of them in spans and " +
		"10% as single points, mods2 entries deleting 1% of the rows and a column), with the plain directory (the " +
		"same resolved rows in 20 files that overlap nothing, without mods) read the same way between its " +
		"iterations, and those files read one by one with `arrowconv` (the limit column). Each read's rows are " +
		"checked against the generator's digest first. Peak RSS: `benchmarks/cmd/rss -mode dataset`, one process " +
		"per read, alternating."
	return s
}

// flightLoadSection is issue 29's case: 32 clients reading a 4 MB file 5
// times each at once from a `ts2arrow serve` child (benchmarks/cmd/flightload),
// at the default memory budget and at a small one.
func flightLoadSection(r *results) section {
	s := section{Title: "10. Flight server under load: 32 clients, 5 reads each of a 4 MB file"}
	const backTarget = "<= 2x idle"
	names := r.names("FlightLoad/")
	if len(names) == 0 {
		s.Rows = append(s.Rows, missing("server RSS after the load", backTarget))
	}
	for _, n := range names {
		if !r.has(n, "peak-RSS-MB", "idle-RSS-MB", "MB-per-stream", "x-idle-after") {
			s.Rows = append(s.Rows, missing(n, backTarget))
			continue
		}
		label := "budget " + strings.TrimPrefix(strings.TrimPrefix(n, "FlightLoad/"), "limit=")
		idle, _ := r.get(n, "idle-RSS-MB")
		peak, _ := r.get(n, "peak-RSS-MB")
		per, _ := r.get(n, "MB-per-stream")
		after, _ := r.get(n, "after-RSS-MB")
		xa, _ := r.get(n, "x-idle-after")
		ns, _ := r.get(n, "ns/op")
		s.Rows = append(s.Rows,
			row{Case: "peak server RSS, " + label, Figure: fmt.Sprintf("%.0f MB, %.3g MB a stream", peak, per),
				Peer: fmt.Sprintf("idle %.0f MB", idle), Ratio: x(peak/idle) + " idle", Limit: "-", XLimit: "-",
				Target: "-", Met: "-"},
			row{Case: "server RSS after the load, " + label, Figure: fmt.Sprintf("%.0f MB", after),
				Peer: fmt.Sprintf("idle %.0f MB", idle), Ratio: x(xa) + " idle", Limit: "-", XLimit: "-",
				Target: backTarget, Met: met(xa <= 2)},
			row{Case: "load duration, " + label, Figure: duration(ns), Peer: "-", Ratio: "-", Limit: "-", XLimit: "-",
				Target: "-", Met: "-"})
	}
	s.Note = "`benchmarks/cmd/flightload`: `ts2arrow serve` runs as a child on a root holding the 250,000-row " +
		"default-mix file (4 MB); 32 arrow-go Flight clients, each on its own connection, read its table 5 times " +
		"each, all at once, while the child's VmRSS is sampled every 5 ms (peak: the larger of that and VmHWM). " +
		"Idle is its RSS once started, before any stream; after is its RSS 30 s (10 s with --quick) after the " +
		"last stream ended. A stream is (peak - idle) / 32."
	return s
}

// idleSection holds the timing targets that were once assertions in tests
// (issue 35: no timed assertions in tests): how long the scan team's
// helpers stay alive while their reader is idle (internal/scan
// BenchmarkTeamIdle; TestTeamIdle checks the team's function), and how
// fast a second SIGTERM ends `ts2arrow serve` while a stream holds the
// first one's graceful shutdown (benchmarks/cmd/flightload -second-signal;
// cmd/ts2arrow's TestServeSecondSignal checks that it ends).
func idleSection(r *results) section {
	s := section{Title: "12. Idle cost and shutdown: the scan team between jobs, serve's second signal"}
	const teamName, teamCase = "TeamIdle", "scan team of 16 at GOMAXPROCS 16, helpers alive during a pause between jobs"
	if r.has(teamName, "helper-us/pause", "limit-us/pause") {
		alive, _ := r.get(teamName, "helper-us/pause")
		limit, _ := r.get(teamName, "limit-us/pause")
		pause, _ := r.get(teamName, "pause-us")
		s.Rows = append(s.Rows, row{Case: teamCase,
			Figure: fmt.Sprintf("%.0f µs a pause of %.0f µs", alive, pause), Peer: "-", Ratio: "-",
			Limit: fmt.Sprintf("one poller: %.0f µs", limit), XLimit: x(alive / limit),
			Target: "<= one poller", Met: met(alive <= limit), limitX: limit / alive})
	} else {
		s.Rows = append(s.Rows, missing(teamCase, "<= one poller"))
	}
	const sigName, sigCase, sigTarget = "ServeSecondSignal", "serve: exit after a second SIGTERM, a stream holding the shutdown", "<= 5 s"
	if r.has(sigName, "ns/op") {
		ns, _ := r.get(sigName, "ns/op")
		s.Rows = append(s.Rows, row{Case: sigCase, Figure: duration(ns), Peer: "-", Ratio: "-", Limit: "-", XLimit: "-",
			Target: sigTarget, Met: met(ns <= 5e9)})
	} else {
		s.Rows = append(s.Rows, missing(sigCase, sigTarget))
	}
	s.Note = "`BenchmarkTeamIdle` (internal/scan): a job of 16 indexes on a team of 16 at GOMAXPROCS 16, then a " +
		"pause of twice helperLinger, summing each helper's time alive during it (a polling helper's CPU time on " +
		"a machine of 16 cores); the limit is one poller for helperLinger, with half as much again for late " +
		"sampling. `benchmarks/cmd/flightload -second-signal`: a `ts2arrow serve` child with one DoGet stream " +
		"read no further than its schema gets SIGTERM, then another 300 ms after it says \"shutting down\"; " +
		"the time from the second signal to its exit."
	return s
}

// sections builds every table in RESULTS.md order.
func sections(r *results) []section {
	return []section{
		decoderSection(r),
		scanSection(r),
		conversionSection(r),
		selectiveSection(r),
		flightSection(r),
		scalingSection(r),
		aeadSection(r),
		rssSection(r),
		datasetSection(r),
		flightLoadSection(r),
		verifySection(r),
		idleSection(r),
		sqlSection(r),
		objectSection(r),
		syncSection(r),
	}
}

// isFinite guards the chart against ratios of missing figures.
func isFinite(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
