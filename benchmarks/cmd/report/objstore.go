package main

import (
	"fmt"
	"strings"
)

// objectSection is issue 39's case: the generated default mix read from
// an S3-compatible server (versitygw, posix backend) on loopback against
// the same read from local disk, by the CLI and by the library, a 1% time
// window's fetched bytes, and the peak RSS of both
// (benchmarks/cmd/objscan).
func objectSection(r *results) section {
	s := section{Title: "14. Object storage: reading from an S3 server on loopback, against local disk"}
	s.Note = "`benchmarks/cmd/objscan`: versitygw (posix backend) on 127.0.0.1 serves the generated default mix, uploaded " +
		"once; each round reads it from there and from local disk in child processes, alternating which goes first: " +
		"**cli** is `ts2arrow convert s3://bench/... --format arrows -o -` (output to /dev/null; `AWS_ENDPOINT_URL` and " +
		"the key variables set, as a user does) against the same command on the local path, wall time and the child's " +
		"ru_maxrss; **lib** is `objscan -read` in a child process (`objstore.Open`, `Store.OpenFile`, `tsfile.Open` on " +
		"the object, the arrowconv scan) against `tsfile.Open` of the local file, its VmHWM and objstore's `Stats`. " +
		"Bytes needed are what the local scan's ReadAt calls asked for. The CLI's requests and bytes are counted by " +
		"a proxy in front of the server. The window is 1% of every device's span (as section 4). The limit is one " +
		"GET of the whole object with the AWS SDK (the server's loopback throughput), against a read of the local " +
		"file from the page cache; the 8 MiB ranges read it 1, 2, 4 and 8 at a time."
	get := "ObjectGet/"
	var getName string
	for _, n := range r.names(get) {
		if !strings.HasPrefix(n, get+"ranges=") {
			getName = n
		}
	}
	getMBps, haveGet := r.get(getName, "MB/s")
	limit := func(fileMB, ns float64) (string, string, float64) {
		if !haveGet || ns <= 0 {
			return "-", "-", 0
		}
		speed := fileMB / (ns / 1e9)
		return fmt.Sprintf("one GET %.0f MB/s", getMBps), x(speed/getMBps) + " of it", speed / getMBps
	}
	for _, kind := range []struct{ name, label string }{{"cli", "ts2arrow convert"}, {"lib", "library (objstore + scan)"}} {
		names := r.names("ObjectScan/" + kind.name + "/")
		c := "scan from S3 vs local disk, " + kind.label
		cr := "peak RSS of the S3 scan vs the local scan, " + kind.label
		if len(names) == 0 {
			s.Rows = append(s.Rows, missing(c, ">= 0.7x local"), missing(cr, "<= 1.5x local"))
			continue
		}
		for _, name := range names {
			c, cr := c+rowsSuffix(name), cr+rowsSuffix(name)
			if !r.has(name, "ns/op", "local-ns/op", "x-local", "file-MB") {
				s.Rows = append(s.Rows, missing(c, ">= 0.7x local"))
			} else {
				ns, _ := r.get(name, "ns/op")
				lns, _ := r.get(name, "local-ns/op")
				xl, _ := r.get(name, "x-local")
				file, _ := r.get(name, "file-MB")
				lim, xlim, limX := limit(file, ns)
				s.Rows = append(s.Rows, row{Case: c,
					Figure: fmt.Sprintf("%s, %.0f MB/s of file", duration(ns), file/(ns/1e9)),
					Peer:   fmt.Sprintf("local %s, %.0f MB/s", duration(lns), file/(lns/1e9)),
					Ratio:  x(xl) + " local", Limit: lim, XLimit: xlim,
					Target: ">= 0.7x local", Met: met(xl >= 0.7), peerX: xl, limitX: limX})
			}
			if r.has(name, "requests", "fetched-MB", "needed-MB") {
				req, _ := r.get(name, "requests")
				got, _ := r.get(name, "fetched-MB")
				need, _ := r.get(name, "needed-MB")
				rw := row{Case: "requests and bytes of the S3 scan, " + kind.label + rowsSuffix(name),
					Figure: fmt.Sprintf("%.0f requests, %.4g MB fetched", req, got),
					Peer:   fmt.Sprintf("%.4g MB needed (local ReadAt)", need), Ratio: "-", Limit: "-", XLimit: "-",
					Target: "-", Met: "-"}
				if need > 0 {
					rw.Ratio = x(got/need) + " needed"
				}
				s.Rows = append(s.Rows, rw)
			}
			if r.has(name, "cpu-ms", "server-cpu-ms", "local-cpu-ms") {
				cpu, _ := r.get(name, "cpu-ms")
				srv, _ := r.get(name, "server-cpu-ms")
				lcpu, _ := r.get(name, "local-cpu-ms")
				rw := row{Case: "CPU time of the S3 scan, " + kind.label + rowsSuffix(name),
					Figure: fmt.Sprintf("ours %.0f ms + versitygw %.0f ms", cpu, srv), Peer: fmt.Sprintf("local %.0f ms", lcpu),
					Ratio: "-", Limit: "-", XLimit: "-", Target: "-", Met: "-"}
				if lcpu > 0 {
					rw.Ratio = x((cpu+srv)/lcpu) + " local CPU"
				}
				s.Rows = append(s.Rows, rw)
			}
			if !r.has(name, "peak-RSS-MB", "local-peak-RSS-MB", "x-local-RSS") {
				s.Rows = append(s.Rows, missing(cr, "<= 1.5x local"))
				continue
			}
			rss, _ := r.get(name, "peak-RSS-MB")
			lrss, _ := r.get(name, "local-peak-RSS-MB")
			xr, _ := r.get(name, "x-local-RSS")
			s.Rows = append(s.Rows, row{Case: cr, Figure: fmt.Sprintf("%.0f MB", rss), Peer: fmt.Sprintf("local %.0f MB", lrss),
				Ratio: x(xr) + " local", Limit: "-", XLimit: "-", Target: "<= 1.5x local", Met: met(xr <= 1.5), peerX: 1 / xr})
		}
	}
	for _, kind := range []struct{ name, label string }{{"cli", "ts2arrow convert"}, {"lib", "library"}} {
		for _, name := range r.names("ObjectCount/" + kind.name + "/scan/") {
			if !r.has(name, "requests", "fetched-MB", "file-MB") {
				continue
			}
			req, _ := r.get(name, "requests")
			got, _ := r.get(name, "fetched-MB")
			file, _ := r.get(name, "file-MB")
			fig := fmt.Sprintf("%.0f requests, %.4g MB fetched", req, got)
			if r.has(name, "median-get-KB", "max-get-KB", "max-inflight") {
				med, _ := r.get(name, "median-get-KB")
				top, _ := r.get(name, "max-get-KB")
				in, _ := r.get(name, "max-inflight")
				fig += fmt.Sprintf("; GETs of %.4g KB median, %.4g KB at most, %.0f at once at most", med, top, in)
			}
			s.Rows = append(s.Rows, row{Case: "requests of the S3 scan through a counting proxy, " + kind.label + rowsSuffix(name),
				Figure: fig, Peer: fmt.Sprintf("file %.4g MB", file),
				Ratio: x(got/file) + " the file", Limit: "-", XLimit: "-", Target: "-", Met: "-"})
		}
	}
	for _, kind := range []struct{ name, label string }{{"cli", "ts2arrow convert --start --end"}, {"lib", "library"}} {
		names := r.names("ObjectWindow/" + kind.name + "/")
		c := "1% time window from S3, " + kind.label
		if len(names) == 0 {
			s.Rows = append(s.Rows, missing(c, "<= 5% of the file fetched"))
			continue
		}
		for _, name := range names {
			c := c + rowsSuffix(name)
			if !r.has(name, "ns/op", "requests", "fetched-MB", "file-MB", "fetched-frac") {
				s.Rows = append(s.Rows, missing(c, "<= 5% of the file fetched"))
				continue
			}
			ns, _ := r.get(name, "ns/op")
			req, _ := r.get(name, "requests")
			got, _ := r.get(name, "fetched-MB")
			file, _ := r.get(name, "file-MB")
			frac, _ := r.get(name, "fetched-frac")
			peer := fmt.Sprintf("file %.4g MB", file)
			if need, ok := r.get(name, "needed-MB"); ok {
				peer += fmt.Sprintf(", %.3g MB needed (local ReadAt)", need)
			}
			fig := fmt.Sprintf("%s, %.0f requests, %.3g MB fetched", duration(ns), req, got)
			if lns, ok := r.get(name, "local-ns/op"); ok {
				fig += fmt.Sprintf(" (local %s)", duration(lns))
			}
			s.Rows = append(s.Rows, row{Case: c, Figure: fig, Peer: peer, Ratio: pct(frac) + " of the file",
				Limit: "-", XLimit: "-", Target: "<= 5% of the file fetched", Met: met(frac <= 0.05)})
		}
	}
	if haveGet {
		lm, _ := r.get(getName, "local-MB/s")
		var ranges []string
		for _, conc := range []int{1, 2, 4, 8} {
			for _, n := range r.names(fmt.Sprintf("%sranges=8MiB/conc=%d/", get, conc)) {
				if v, ok := r.get(n, "MB/s"); ok {
					ranges = append(ranges, fmt.Sprintf("%d: %.0f", conc, v))
				}
			}
		}
		lim := "-"
		if len(ranges) > 0 {
			lim = "8 MiB ranges, MB/s at a time " + strings.Join(ranges, ", ")
		}
		fig := fmt.Sprintf("%.0f MB/s", getMBps)
		if srv, ok := r.get(getName, "server-cpu-ms"); ok {
			fig += fmt.Sprintf(", versitygw %.0f ms CPU", srv)
		}
		s.Rows = append(s.Rows, row{Case: "one GET of the whole object (loopback ceiling)" + rowsSuffix(getName),
			Figure: fig, Peer: fmt.Sprintf("local read %.0f MB/s", lm),
			Ratio: x(getMBps/lm) + " local read", Limit: lim, XLimit: "-", Target: "-", Met: "-"})
	}
	return s
}

// pct formats a fraction as a percentage, without exponents.
func pct(f float64) string {
	if f >= 0.1 {
		return fmt.Sprintf("%.0f%%", 100*f)
	}
	return fmt.Sprintf("%.2g%%", 100*f)
}
