package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// sampleRows is the CSV of the whole sample, header first, times as
// epoch integers (easy to compare and filter).
func sampleRows(t *testing.T) []string {
	t.Helper()
	code, out, errOut := runCLI("convert", sample, "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Equal(t, 0, code, errOut)
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// convertCSV is the CSV convert writes with args, times as epoch integers.
func convertCSV(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"convert", "--format", "csv", "--time-format", "epoch", "-o", "-"}, args...)...)
	require.Equal(t, 0, code, errOut)
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// filterCSV keeps the header and the rows keep accepts (cells split on
// commas: the sample's filtered columns hold none).
func filterCSV(lines []string, keep func(cells []string) bool) []string {
	out := []string{lines[0]}
	for _, l := range lines[1:] {
		if keep(strings.Split(l, ",")) {
			out = append(out, l)
		}
	}
	return out
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.WriteFile(dst, b, 0o644))
}

func TestConvertManyInputs(t *testing.T) {
	all := sampleRows(t)
	dir := t.TempDir()
	copyFile(t, sample, filepath.Join(dir, "a.tsfile"))
	copyFile(t, sample, filepath.Join(dir, "sub", "b.tsfile"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a tsfile"), 0o644))
	twice := append(append([]string{}, all...), all[1:]...)

	// A directory: every *.tsfile under it, in path order.
	require.Equal(t, twice, convertCSV(t, dir))
	// A glob, and a file named twice counts once.
	require.Equal(t, twice, convertCSV(t, filepath.Join(dir, "*.tsfile"), filepath.Join(dir, "sub", "*.tsfile"), filepath.Join(dir, "a.tsfile")))
	code, _, errOut := runCLI("convert", filepath.Join(dir, "*.nope"), "-o", "-", "--format", "csv")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "matches no file")
	code, _, errOut = runCLI("convert", t.TempDir(), "-o", "-", "--format", "csv")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "holds no *.tsfile")

	// Inputs whose schemas differ: the first difference, and no output.
	tree := quirkyFile(t) // a tree-model file: time, device, s
	out := filepath.Join(dir, "mixed.parquet")
	code, _, errOut = runCLI("convert", filepath.Join(dir, "a.tsfile"), tree, "--lenient", "-o", out)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, `column 2 is "region"`)
	require.Contains(t, errOut, `"device"`)
	require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	require.NoFileExists(t, out)
}

func TestConvertQuery(t *testing.T) {
	all := sampleRows(t)
	// 1700000100000 ms is 2023-11-14T22:15:00Z.
	start, end := "2023-11-14T22:15:00Z", "1700000199000"
	inRange := func(c []string) bool { return c[0] >= "1700000100000" && c[0] <= "1700000199000" }
	require.Equal(t, filterCSV(all, inRange), convertCSV(t, sample, "--start", start, "--end", end))
	require.Equal(t, filterCSV(all, func(c []string) bool { return c[1] == "north" }), convertCSV(t, sample, "--where", "region=north"))
	require.Equal(t, filterCSV(all, func(c []string) bool { return c[1] == "north" && c[2] == "s02" }),
		convertCSV(t, sample, "--where", "region=north", "--where", "station=s02"))
	require.Equal(t, filterCSV(all, func(c []string) bool { return c[1] == "south" }), convertCSV(t, sample, "--device", "weather.south.s01"))
	require.Equal(t, []string{all[0]}, convertCSV(t, sample, "--device", "weather.nowhere"))

	// --columns keeps time and the named columns, in the order named.
	got := convertCSV(t, sample, "--columns", "pressure,region", "--start", "1700000000000", "--end", "1700000000000")
	want := []string{"time,pressure,region"}
	for _, l := range filterCSV(all, func(c []string) bool { return c[0] == "1700000000000" })[1:] {
		c := strings.Split(l, ",")
		want = append(want, c[0]+","+c[5]+","+c[1])
	}
	require.Len(t, want, 4)
	require.Equal(t, want, got)
	code, _, errOut := runCLI("convert", sample, "--columns", "nope", "-o", "-", "--format", "csv")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "nope")
}

func TestConvertJSONL(t *testing.T) {
	code, out, errOut := runCLI("convert", sample, "--format", "jsonl", "-o", "-", "--columns", "temperature,note")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 1500)
	var row map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &row))
	// Timestamps are ISO 8601 strings by default.
	require.Equal(t, map[string]any{"time": "2023-11-14T22:13:20.000Z", "temperature": 22.54, "note": "note 0/0"}, row)
}

// TestReversePath: TsFile -> Parquet -> TsFile and TsFile -> Arrow ->
// TsFile keep every row.
func TestReversePath(t *testing.T) {
	all := sampleRows(t)
	dir := t.TempDir()
	for _, mid := range []string{"s.parquet", "s.arrow", "s.arrows"} {
		p := filepath.Join(dir, mid)
		code, _, errOut := runCLI("convert", sample, "-o", p)
		require.Equal(t, 0, code, errOut)
		back := filepath.Join(dir, mid+".tsfile")
		code, _, errOut = runCLI("convert", p, "-o", back, "--tags", "region,station", "--compression", "zstd")
		require.Equal(t, 0, code, errOut)
		require.Equal(t, all, convertCSV(t, back), mid)
	}
	// TsFile -> TsFile keeps a query's rows.
	sub := filepath.Join(dir, "north.tsfile")
	code, _, errOut := runCLI("convert", sample, "--where", "region=north", "-o", sub)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, filterCSV(all, func(c []string) bool { return c[1] == "north" }), convertCSV(t, sub))

	code, _, errOut = runCLI("convert", filepath.Join(dir, "s.parquet"), "-o", filepath.Join(dir, "x.csv"))
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "converts to tsfile only")
}

func TestForce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.csv")
	require.NoError(t, os.WriteFile(out, []byte("keep me"), 0o644))
	code, _, errOut := runCLI("convert", "--time-format", "epoch", sample, "-o", out)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "exists; pass --force")
	b, _ := os.ReadFile(out)
	require.Equal(t, "keep me", string(b))
	code, _, errOut = runCLI("convert", "--time-format", "epoch", sample, "-o", out, "--force")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, sampleRows(t), csvLines(t, out))
}

func TestPartitionByDevice(t *testing.T) {
	all := sampleRows(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	copyFile(t, sample, filepath.Join(in, "1.tsfile"))
	copyFile(t, sample, filepath.Join(in, "2.tsfile"))
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI("convert", in, "-o", out, "--partition-by", "device", "--format", "csv", "--time-format", "epoch")
	require.Equal(t, 0, code, errOut)
	var files []string
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			files = append(files, rel)
		}
		return err
	}))
	require.Equal(t, []string{
		"table=weather/device=weather.north.s01/part-0.csv", "table=weather/device=weather.north.s01/part-1.csv",
		"table=weather/device=weather.north.s02/part-0.csv", "table=weather/device=weather.north.s02/part-1.csv",
		"table=weather/device=weather.south.s01/part-0.csv", "table=weather/device=weather.south.s01/part-1.csv",
	}, files)
	got := csvLines(t, filepath.Join(out, "table=weather/device=weather.north.s02/part-1.csv"))
	require.Equal(t, filterCSV(all, func(c []string) bool { return c[1] == "north" && c[2] == "s02" }), got)

	// The directory exists now: refused without --force.
	code, _, errOut = runCLI("convert", in, "-o", out, "--partition-by", "table")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--force")
	code, _, errOut = runCLI("convert", in, "-o", out, "--partition-by", "table", "--force")
	require.Equal(t, 0, code, errOut)
	entries, err := os.ReadDir(filepath.Join(out, "table=weather"))
	require.NoError(t, err)
	require.Len(t, entries, 2)
	require.Equal(t, "part-0.parquet", entries[0].Name())
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".out.tsarrow-*"))
	require.Empty(t, leftovers)
}

func TestHiveEscape(t *testing.T) {
	for in, want := range map[string]string{
		"root.sg.d1": "root.sg.d1",
		"a/b=c%d":    "a%2Fb%3Dc%25d",
		"":           "__HIVE_DEFAULT_PARTITION__",
		"x y:z":      "x y%3Az",
	} {
		require.Equal(t, want, hiveEscape(in), in)
	}
}

// wideFile writes a table of 20 devices x 8 DOUBLE columns x 5000 rows.
func wideFile(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	cols := []tsfile.Column{{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag}}
	for c := 0; c < 8; c++ {
		cols = append(cols, tsfile.Column{Name: fmt.Sprintf("c%d", c), DataType: tsfile.Double, Category: tsfile.Field})
	}
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "wide", Columns: cols}))
	const rows = 5000
	times := make([]int64, rows)
	for i := range times {
		times[i] = int64(i) * 1000
	}
	for d := 0; d < 20; d++ {
		var ac []tsfile.AlignedColumn
		for c := 0; c < 8; c++ {
			v := tsfile.NewValues(tsfile.Double, rows)
			for i := range v.Float64s {
				v.Float64s[i] = float64(d*1000+c) + float64(i)*0.37
			}
			ac = append(ac, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: fmt.Sprintf("c%d", c), DataType: tsfile.Double}, Values: v})
		}
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("wide", fmt.Sprintf("d%02d", d)), times, ac))
	}
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), "wide.tsfile")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// TestRemoteInput converts files served over HTTP: the same rows as from
// disk, and a one-column query reads a fraction of the file.
func TestRemoteInput(t *testing.T) {
	wide := wideFile(t)
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := map[string]string{"/sample.tsfile": sample, "/wide.tsfile": wide}[r.URL.Path]
		data, err := os.ReadFile(name)
		if name == "" || err != nil {
			http.NotFound(w, r)
			return
		}
		cw := &countWriter{ResponseWriter: w, n: &served}
		http.ServeContent(cw, r, r.URL.Path, time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	require.Equal(t, sampleRows(t), convertCSV(t, srv.URL+"/sample.tsfile"))

	st, err := os.Stat(wide)
	require.NoError(t, err)
	served.Store(0)
	out := filepath.Join(t.TempDir(), "one.csv")
	code, _, errOut := runCLI("convert", "--time-format", "epoch", srv.URL+"/wide.tsfile", "--columns", "c5", "-o", out, "--verbose")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "range requests")
	require.Equal(t, convertCSV(t, wide, "--columns", "c5"), csvLines(t, out))
	t.Logf("one of 8 columns of a %d-byte file: %d bytes served", st.Size(), served.Load())
	require.Less(t, served.Load(), st.Size()/4)

	code, _, errOut = runCLI("convert", srv.URL+"/missing", "-o", "-", "--format", "csv")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "404")
}

type countWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.ResponseWriter.Write(p)
}
