package main

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// The decoder benchmarks of encoding/ name the Go type and the encoding
// (DecodeFloat64Gorilla, DecodeInt32RLE/bitpacked-w12), the decompression
// ones the codec (DecompressLZ4). Each reports MB/s of decoded output, and
// the Memcpy* benchmarks copy buffers of the sizes they decode; the report
// pairs each decoder with the copies of its output size.
var (
	decodeName     = regexp.MustCompile(`^Decode(Int32|Int64|Float32|Float64|Bool|Binary)([A-Za-z0-9]+?)(Random|Walk)?(?:/(.+))?$`)
	decompressName = regexp.MustCompile(`^Decompress([A-Za-z0-9]+)$`)
	plainVsMemcpy  = regexp.MustCompile(`^PlainInt64VsMemcpy/([^/]+)/decode$`)
)

var typeNames = map[string]string{"Int32": "INT32", "Int64": "INT64", "Float32": "FLOAT", "Float64": "DOUBLE", "Bool": "BOOLEAN", "Binary": "TEXT"}

var encodingNames = map[string]string{
	"Plain": "PLAIN", "TS2Diff": "TS_2DIFF", "Gorilla": "GORILLA", "GorillaV1": "GORILLA_V1", "Chimp": "CHIMP",
	"Sprintz": "SPRINTZ", "RLBE": "RLBE", "RLE": "RLE", "ZigZag": "ZIGZAG", "Regular": "REGULAR", "Camel": "CAMEL",
	"Dictionary": "DICTIONARY", "Bitmap": "BITMAP",
}

var shapeNames = map[string]string{"Random": "random bits", "Walk": "unrounded walk"}

// decoderTargets are the targets of the codecs issue, by benchmark name.
var decoderTargets = map[string]struct {
	text string
	ok   func(mbps, xlimit float64) bool
}{
	"DecodeInt64Plain":                {">= 0.5x memcpy", func(_, xl float64) bool { return xl >= 0.5 }},
	"PlainInt64VsMemcpy/32KiB/decode": {">= 0.5x memcpy", func(_, xl float64) bool { return xl >= 0.5 }},
	"DecodeInt64TS2Diff/timestamps":   {">= 2 GB/s", func(v, _ float64) bool { return v >= 2000 }},
	"DecodeFloat64Gorilla":            {">= 800 MB/s", func(v, _ float64) bool { return v >= 800 }},
	"DecodeInt32RLE/bitpacked-w12":    {">= 2 GB/s", func(v, _ float64) bool { return v >= 2000 }},
	"PlainInt64VsMemcpy/8MiB/decode":  {">= 0.5x memcpy", func(_, xl float64) bool { return xl >= 0.5 }},
}

// decoder is one decode benchmark turned into a row's figures.
type decoder struct {
	name, label string
	mbps        float64 // decoded output
	bytes       float64 // decoded bytes per operation
	baseline    string  // a benchmark that is this decoder's own copy baseline, if any
	compression bool
}

// opBytes is the bytes a benchmark processes per operation, from its MB/s
// (b.SetBytes) and ns/op.
func opBytes(r *results, name string) (mbps, bytes float64, ok bool) {
	mbps, ok1 := r.get(name, "MB/s")
	ns, ok2 := r.get(name, "ns/op")
	if !ok1 || !ok2 || mbps <= 0 {
		return 0, 0, false
	}
	return mbps, mbps * ns / 1e3, true
}

// decoders finds the decode and decompression benchmarks among the results.
func decoders(r *results) []decoder {
	var out []decoder
	for name := range r.m {
		mbps, n, ok := opBytes(r, name)
		if !ok {
			continue
		}
		d := decoder{name: name, mbps: mbps, bytes: n}
		switch {
		case decodeName.MatchString(name):
			m := decodeName.FindStringSubmatch(name)
			enc, ok := encodingNames[m[2]]
			if !ok {
				enc = strings.ToUpper(m[2])
			}
			d.label = typeNames[m[1]] + " " + enc
			var shape []string
			if m[3] != "" {
				shape = append(shape, shapeNames[m[3]])
			}
			if m[4] != "" {
				shape = append(shape, m[4])
			}
			if len(shape) > 0 {
				d.label += " (" + strings.Join(shape, ", ") + ")"
			}
		case decompressName.MatchString(name):
			d.label = "decompress " + strings.ToUpper(decompressName.FindStringSubmatch(name)[1])
			d.compression = true
			if ratio, ok := r.get(name, "ratio"); ok {
				d.label += fmt.Sprintf(" (compression ratio %.2g)", ratio)
			}
		case plainVsMemcpy.MatchString(name):
			size := plainVsMemcpy.FindStringSubmatch(name)[1]
			d.label = "INT64 PLAIN, " + size + " of output"
			d.baseline = "PlainInt64VsMemcpy/" + size + "/memcpy"
		case name == "AppendBinaryPlain" || strings.HasPrefix(name, "AppendBinaryPlain/"):
			d.label = "TEXT PLAIN"
			if _, shape, ok := strings.Cut(name, "/"); ok {
				d.label += " (" + shape + ")"
			}
		default:
			continue
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].compression != out[j].compression {
			return !out[i].compression
		}
		if out[i].label != out[j].label {
			return out[i].label < out[j].label
		}
		return out[i].name < out[j].name
	})
	return out
}

// memcpyBaselines returns the copy rate (median MB/s over every Memcpy
// benchmark of that size) by bytes per operation.
func memcpyBaselines(r *results) map[float64]float64 {
	by := map[float64][]float64{}
	for name := range r.m {
		if !strings.HasPrefix(name, "Memcpy") {
			continue
		}
		if mbps, n, ok := opBytes(r, name); ok {
			k := sizeKey(n)
			by[k] = append(by[k], mbps)
		}
	}
	out := map[float64]float64{}
	for k, vs := range by {
		out[k], _ = median(vs)
	}
	return out
}

// sizeKey rounds a byte count derived from printed figures (a few
// significant digits) to the power of two or the multiple of 1 KiB it is
// within 2% of, so that a decoder and the copies of its size meet.
func sizeKey(n float64) float64 {
	if n <= 0 {
		return 0
	}
	p := math.Exp2(math.Round(math.Log2(n)))
	if math.Abs(n-p) <= 0.02*p {
		return p
	}
	if n >= 1024 {
		k := math.Round(n/1024) * 1024
		if math.Abs(n-k) <= 0.02*n {
			return k
		}
	}
	return math.Round(n)
}

func sizeLabel(n float64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.3g MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.3g KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f B", n)
}

// decoderSection is case 1: decode throughput per (type, encoding) and
// per compression, against a memcpy of the same output size.
func decoderSection(r *results) section {
	s := section{Title: "1. Decoders: throughput per (type, encoding) and per compression, against memcpy of the same size"}
	base := memcpyBaselines(r)
	for _, d := range decoders(r) {
		row := row{Case: d.label, Figure: mbs(d.mbps), Peer: "-", Ratio: "-", Limit: "-", XLimit: "-", Target: "-", Met: "-"}
		limit, ok := base[sizeKey(d.bytes)]
		if d.baseline != "" {
			limit, ok = r.get(d.baseline, "MB/s")
		}
		if ok && limit > 0 {
			row.Limit = fmt.Sprintf("memcpy %s: %s", sizeLabel(sizeKey(d.bytes)), mbs(limit))
			row.limitX = d.mbps / limit
			row.XLimit = x(row.limitX)
		}
		if t, ok := decoderTargets[d.name]; ok && t.ok != nil {
			row.Target = t.text
			row.Met = met(t.ok(d.mbps, row.limitX))
		}
		s.Rows = append(s.Rows, row)
	}
	if len(s.Rows) == 0 {
		s.Rows = append(s.Rows, missing("decoders (encoding/ benchmarks)", "-"))
	}
	s.Note = "`go test -bench 'Decode|Decompress|Memcpy|AppendBinaryPlain' ./encoding/`: one page of 4,096 values (32 KiB of INT64/DOUBLE " +
		"output) or a 64 KiB page for the codecs, MB/s of decoded output, against the `Memcpy*` benchmarks that copy " +
		"the same number of bytes (the median of those of that size): the machine's limit for producing that output. " +
		"The bitmap/ benchmarks run too; their raw output is beside the others."
	return s
}

// mbs formats MB/s as an integer with thousands separators.
func mbs(v float64) string {
	return thousands3(fmt.Sprintf("%.0f", v)) + " MB/s"
}
