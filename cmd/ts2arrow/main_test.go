package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
	"github.com/tsarrow/tsarrow/tsfile"
)

const interop = "../../../shared/interop/"

func needInterop(t *testing.T) {
	if _, err := os.Stat(interop + "manifest.json"); err != nil {
		need.Skipf(t, "shared/interop is not beside the checkout")
	}
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

type manifest struct {
	Files []struct {
		Path      string `json:"path"`
		Structure struct {
			Chunks int `json:"chunks"`
			Pages  int `json:"pages"`
		} `json:"structure"`
		Tables []struct {
			Name    string `json:"name"`
			Columns []struct {
				Name        string `json:"name"`
				Category    string `json:"category"`
				Type        string `json:"type"`
				Encoding    string `json:"encoding"`
				Compression string `json:"compression"`
				NullCount   *int64 `json:"null_count"`
			} `json:"columns"`
			Devices []struct {
				Tags []string `json:"tags"`
				Rows int64    `json:"rows"`
			} `json:"devices"`
		} `json:"tables"`
	} `json:"files"`
}

func TestInspectAgreesWithManifest(t *testing.T) {
	needInterop(t)
	var m manifest
	b, err := os.ReadFile(interop + "manifest.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	mf := m.Files[0]
	require.Equal(t, "j01_table_all_types_plain.tsfile", mf.Path)

	code, out, errOut := runCLI("inspect", "--json", interop+mf.Path)
	require.Equal(t, 0, code, errOut)
	var info inspectFile
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	require.Equal(t, 4, info.Version)
	require.Equal(t, "none", info.Encryption)
	require.Equal(t, mf.Structure.Chunks, info.Chunks)
	require.Equal(t, mf.Structure.Pages, info.Pages)
	require.Len(t, info.Tables, 1)
	tbl, want := info.Tables[0], mf.Tables[0]
	require.Equal(t, want.Name, tbl.Name)
	require.Equal(t, "table", tbl.Model)
	require.Len(t, tbl.Columns, len(want.Columns))
	for i, c := range want.Columns {
		require.Equal(t, inspectColumn{c.Name, c.Category, c.Type, c.Encoding, c.Compression}, tbl.Columns[i])
	}
	require.Len(t, tbl.Devices, len(want.Devices))
	nulls := map[string]int64{}
	for i, d := range want.Devices {
		got := tbl.Devices[i]
		require.True(t, got.Aligned)
		require.Equal(t, d.Rows, got.Rows)
		require.Len(t, got.Segments, 1+len(d.Tags))
		for j, tag := range d.Tags {
			require.Equal(t, tag, *got.Segments[j+1])
		}
		for _, s := range got.Series {
			if s.Measurement == "(time)" {
				require.Equal(t, "TS_2DIFF", s.Encoding)
				require.Equal(t, d.Rows, s.Values)
				continue
			}
			require.NotNil(t, s.NullCount)
			nulls[s.Measurement] += *s.NullCount
		}
	}
	for _, c := range want.Columns {
		if c.NullCount != nil {
			require.Equal(t, *c.NullCount, nulls[c.Name], c.Name)
		}
	}

	// The text form names the same things.
	code, out, _ = runCLI("inspect", interop+mf.Path)
	require.Equal(t, 0, code)
	for _, s := range []string{"version:     4", "table weather (table model, 3 devices)", "device weather.north.s01 (aligned, 300 rows)", "c_timestamp", "TIMESTAMP"} {
		require.Contains(t, out, s)
	}
}

// readCSV parses a (possibly gzipped) CSV into its header and rows keyed by
// the given columns.
func readCSV(t *testing.T, path string, key ...string) ([]string, map[string]map[string]string) {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	var r io.Reader = fh
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(fh)
		require.NoError(t, err)
		r = gz
	}
	recs, err := csv.NewReader(r).ReadAll()
	require.NoError(t, err)
	header := recs[0]
	rows := map[string]map[string]string{}
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range header {
			row[h] = rec[i]
		}
		var k []string
		for _, c := range key {
			k = append(k, row[c])
		}
		ks := strings.Join(k, "\x00")
		require.NotContains(t, rows, ks, "duplicate key")
		rows[ks] = row
	}
	return header, rows
}

// sameCell compares CSV cells by value: floats bit for bit at the
// precision named by typ.
func sameCell(typ, want, got string) bool {
	if want == got {
		return true
	}
	if want == "" || got == "" {
		return false
	}
	bits := 64
	switch typ {
	case "FLOAT":
		bits = 32
	case "DOUBLE":
	default:
		return false
	}
	parse := func(s string) float64 {
		switch s {
		case "Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		}
		v, err := strconv.ParseFloat(s, bits)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	a, b := parse(want), parse(got)
	if bits == 32 {
		return math.Float32bits(float32(a)) == math.Float32bits(float32(b))
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func TestConvertJ01ToCSV(t *testing.T) {
	needInterop(t)
	out := filepath.Join(t.TempDir(), "j01.csv")
	code, _, errOut := runCLI("convert", "--time-format", "epoch", interop+"j01_table_all_types_plain.tsfile", "-o", out)
	require.Equal(t, 0, code, errOut)
	keys := []string{"time", "region", "station"}
	wantHeader, want := readCSV(t, interop+"j01_table_all_types_plain.expected.csv.gz", keys...)
	gotHeader, got := readCSV(t, out, keys...)
	require.Equal(t, wantHeader, gotHeader)
	require.Len(t, got, len(want))
	types := map[string]string{"c_float": "FLOAT", "c_double": "DOUBLE"}
	for k, w := range want {
		g, ok := got[k]
		require.True(t, ok, "missing row %q", k)
		for col, wv := range w {
			require.True(t, sameCell(types[col], wv, g[col]), "row %q column %s: want %q got %q", k, col, wv, g[col])
		}
	}
}

func TestConvertFormatsAndStdout(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"s.csv", "s.arrow", "s.arrows"} {
		code, _, errOut := runCLI("convert", "../../testdata/sample.tsfile", "-o", filepath.Join(dir, name))
		require.Equal(t, 0, code, errOut)
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Positive(t, st.Size())
	}
	arrowFile, err := os.ReadFile(filepath.Join(dir, "s.arrow"))
	require.NoError(t, err)
	require.Equal(t, "ARROW1", string(arrowFile[:6]))

	code, out, errOut := runCLI("convert", "../../testdata/sample.tsfile", "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	csvFile, err := os.ReadFile(filepath.Join(dir, "s.csv"))
	require.NoError(t, err)
	require.Equal(t, string(csvFile), out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1+1500)
	require.Equal(t, "time,region,station,temperature,humidity,pressure,count,ok,note,label,raw,day,seen", lines[0])
}

func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsfile")
	sample, err := os.ReadFile("../../testdata/sample.tsfile")
	require.NoError(t, err)
	// Break the tail magic: a format error naming the offset.
	b := append([]byte(nil), sample...)
	b[len(b)-1] = 'x'
	require.NoError(t, os.WriteFile(bad, b, 0o644))

	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, "Usage"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"inspect"}, 2, "one FILE"},
		{[]string{"convert", "../../testdata/sample.tsfile"}, 2, "needs -o"},
		{[]string{"convert", "../../testdata/sample.tsfile", "-o", filepath.Join(dir, "x.bin")}, 2, "cannot tell the format"},
		{[]string{"convert", "../../testdata/sample.tsfile", "-o", "-", "--format", "xml"}, 2, "unknown format"},
		{[]string{"convert", "../../testdata/sample.tsfile", "-o", "-", "--format", "csv", "--table", "nope"}, 2, "no table \"nope\""},
		{[]string{"convert", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"inspect", bad}, 1, "ts2arrow: " + bad + ": file tail: tail magic is"},
		{[]string{"inspect", filepath.Join(dir, "missing.tsfile")}, 1, "no such file"},
	} {
		code, _, stderr := runCLI(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.stderr, "%v", tc.args)
		if tc.code == 1 && strings.Contains(tc.stderr, "tail magic") {
			require.Regexp(t, `at offset \d+; "ts2arrow recover .* -o FIXED" can salvage its complete chunk groups\n$`, stderr)
			require.Equal(t, 1, strings.Count(stderr, "\n"))
		}
	}
}

func TestFailedConversionLeavesNothing(t *testing.T) {
	// A small batch size makes the reader emit batches before it reaches
	// the broken page.
	dir := t.TempDir()
	sample, err := os.ReadFile("../../testdata/sample.tsfile")
	require.NoError(t, err)
	// Corrupt the time page of the last device so the conversion fails
	// after the first devices' batches were written: its TS_2DIFF block
	// header then declares a negative count.
	f, err := tsfile.Open(bytes.NewReader(sample), int64(len(sample)), nil)
	require.NoError(t, err)
	devs, err := f.Devices("weather")
	require.NoError(t, err)
	series, err := f.Series(devs[len(devs)-1])
	require.NoError(t, err)
	c, err := f.ReadChunk(series[0].Chunks[len(series[0].Chunks)-1].Offset)
	require.NoError(t, err)
	body := c.Pages[len(c.Pages)-1].Header.BodyOffset()
	b := append([]byte(nil), sample...)
	copy(b[body:], []byte{0xff, 0xff, 0xff, 0xff})
	bad := filepath.Join(dir, "late.tsfile")
	require.NoError(t, os.WriteFile(bad, b, 0o644))
	out := filepath.Join(dir, "out.arrow")
	code, _, stderr := runCLI("convert", bad, "-o", out, "--batch-size", "100")
	require.Equal(t, 1, code, stderr)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), "out.arrow", "leftover %s", e.Name())
	}
}

// TestOptionHintNamesFlags checks that a read error a reader option settles
// names the command's flag, not the Go option, as a page decode reports it.
func TestOptionHintNamesFlags(t *testing.T) {
	batch := &arrowconv.OptionError{Problem: "a batch would hold more than 2 GiB of binary values", Option: "BatchSize", Remedy: "smaller"}
	dict := &arrowconv.OptionError{Problem: "the dictionary of a constant column would exceed 2 GiB", Option: "PlainTags", Remedy: "to read them plain"}
	for _, c := range []struct {
		cmd  string
		err  error
		want string
	}{
		{"convert", withFile("in.tsfile", tsfile.CodecError(10, "value page", batch)),
			"ts2arrow: in.tsfile: arrowconv: a batch would hold more than 2 GiB of binary values; pass a smaller --batch-size\n"},
		{"head", withFile("in.tsfile", batch), "ts2arrow: in.tsfile: arrowconv: a batch would hold more than 2 GiB of binary values; pass a smaller -n\n"},
		{"convert", dict, "ts2arrow: arrowconv: the dictionary of a constant column would exceed 2 GiB; select fewer devices with --where or --device\n"},
		{"schema", dict, "ts2arrow: arrowconv: the dictionary of a constant column would exceed 2 GiB; ts2arrow has no flag for this\n"},
	} {
		var stderr bytes.Buffer
		require.Equal(t, 1, report(optionHint(c.cmd, c.err), &stderr))
		require.Equal(t, c.want, stderr.String())
	}
}

// A name read from a damaged file may hold control characters (here a form
// feed where a device name had an 'e': the audit of issue 36 flipped byte
// 1093 of a data file of testdata/iotdb). The error that names it is still
// one line, the character escaped.
func TestErrorOneLineWithControlCharacters(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "iotdb"))))
	p := filepath.Join(root, "sequence", "weather", "1", "0", "1767268800000-2-0-0.tsfile")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[1093] ^= 105
	require.NoError(t, os.WriteFile(p, b, 0o644))
	code, _, stderr := runCLI("convert", root, "--table", "weather", "-o", filepath.Join(t.TempDir(), "out.csv"))
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), "%q", stderr)
	require.Contains(t, stderr, `\f`)
	for _, r := range strings.TrimSuffix(stderr, "\n") {
		require.False(t, r < 0x20 || r == 0x7f, "control character %U in %q", r, stderr)
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"weath\fr.north":     `weath\fr.north`,
		"a\nb\x1b[31mc\x7f":  `a\nb\x1b[31mc\x7f`,
		"südwind, 東京, tab\t": `südwind, 東京, tab\t`,
	} {
		require.Equal(t, want, oneLine(in))
	}
}
