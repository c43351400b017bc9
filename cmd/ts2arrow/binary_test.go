package main

// End-to-end tests of the built ts2arrow binary: each verb's output and
// exit status, what goes to standard output and what to standard error,
// globs and directories. The signal and terminal tests are in
// binary_unix_test.go. Unlike the in-process tests (runCLI), these run
// the real main: os.Exit codes, os.Stdout and os.Stderr as the pipes a
// shell gives, the signal handlers, and the terminal check of the
// progress bar.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// built is the ts2arrow binary, built once for the package's tests into a
// temporary directory that TestMain removes; the large generated input
// lives there too.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error

	bigOnce sync.Once
	big     string
	bigErr  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// goTool finds the go command that runs the tests: go test puts its own
// GOROOT/bin first on the test binary's PATH (since Go 1.19), so the
// lookup finds that go, not another one the machine has.
func goTool() (string, error) {
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command on PATH: %w", err)
	}
	return p, nil
}

// binDir returns the shared temporary directory of the binary tests.
func binDir(t *testing.T) string {
	t.Helper()
	binary(t)
	return built.dir
}

// binary builds ./cmd/ts2arrow once (go build, as a user would, with
// -tags duckdb_arrow when the tests are built with it) and returns the
// path of the executable.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		gocmd, err := goTool()
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "ts2arrow-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "ts2arrow")
		if runtime.GOOS == "windows" {
			built.path += ".exe"
		}
		build := func(path string, iceberg bool, extra ...string) ([]byte, error) {
			// The binary has what the test binary has: ts2arrow sql
			// with DuckDB. ts2arrow itself is built as users build it,
			// without Iceberg; with the tests built with -tags iceberg,
			// ts2arrow-iceberg is built beside it, which ts2arrow runs
			// for sync and iceberg: inputs (icebergprog.go). The -tags
			// given here replace those of GOFLAGS.
			var tags []string
			if sqlEngineBuilt {
				tags = append(tags, "duckdb_arrow")
			}
			if iceberg {
				tags = append(tags, "iceberg")
			}
			extra = append(extra, "-tags", strings.Join(tags, ","))
			cmd := exec.Command(gocmd, append(append([]string{"build"}, extra...), "-o", path, ".")...)
			return cmd.CombinedOutput()
		}
		buildBoth := func(extra ...string) ([]byte, error) {
			out, err := build(built.path, false, extra...)
			if err != nil || !icebergBuilt {
				return out, err
			}
			return build(filepath.Join(built.dir, icebergProgram+filepath.Ext(built.path)), true, extra...)
		}
		// Stamped with the commit where the checkout allows (go's own
		// default may leave it out, as a machine's GOFLAGS may), so that
		// version and the two programs' build check see a real one.
		out, err := buildBoth("-buildvcs=true")
		if err != nil && bytes.Contains(out, []byte("buildvcs")) {
			// A checkout whose VCS tool is missing or refuses the
			// directory: build without the revision stamp.
			out, err = buildBoth("-buildvcs=false")
		}
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// binResult is what one run of the binary did.
type binResult struct {
	code           int
	stdout, stderr string
}

// runBin runs the binary with args, standard output and standard error
// going to separate pipes (never a terminal), and returns its exit status.
func runBin(t *testing.T, args ...string) binResult {
	t.Helper()
	return runBinEnv(t, nil, args...)
}

// runBinEnv is runBin with extra environment variables (KEY=value).
func runBinEnv(t *testing.T, env []string, args ...string) binResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := binResult{stdout: o.String(), stderr: e.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		r.code = ee.ExitCode()
	default:
		t.Fatalf("ts2arrow %s: %v\nstderr: %s", strings.Join(args, " "), err, e.String())
	}
	return r
}

// okBin runs the binary and requires exit status 0 and a silent standard
// error (standard error is not a terminal, so no progress bar either).
func okBin(t *testing.T, args ...string) string {
	t.Helper()
	r := runBin(t, args...)
	require.Equal(t, 0, r.code, "ts2arrow %s: %s", strings.Join(args, " "), r.stderr)
	require.Empty(t, r.stderr, "ts2arrow %s", strings.Join(args, " "))
	return r.stdout
}

// lines splits output into lines without the final newline.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// writeSeries writes a table-model TsFile at path: table "m" with a TAG
// column "dev" and FIELD columns v (DOUBLE) and n (INT64), devs devices of
// rows rows each, written in chunk groups of at most group rows. It
// returns the number of rows written.
func writeSeries(path string, devPrefix string, devs, rows, group int) (int, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := tsfile.NewWriter(bw, nil)
	if err != nil {
		return 0, err
	}
	err = w.RegisterTable(tsfile.TableSchema{Name: "m", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Double, Category: tsfile.Field},
		{Name: "n", DataType: tsfile.Int64, Category: tsfile.Field},
	}})
	if err != nil {
		return 0, err
	}
	group = min(group, rows)
	times := make([]int64, group)
	v := tsfile.NewValues(tsfile.Double, group)
	n := tsfile.NewValues(tsfile.Int64, group)
	for d := 0; d < devs; d++ {
		id := tsfile.NewDeviceID("m", fmt.Sprintf("%s%d", devPrefix, d))
		for lo := 0; lo < rows; lo += group {
			k := min(group, rows-lo)
			for i := 0; i < k; i++ {
				r := lo + i
				times[i] = 1_700_000_000_000 + int64(r)*1000
				v.Float64s[i] = float64(r%1000)*0.5 + float64(d)
				n.Int64s[i] = int64(r)
			}
			vv, nn := v, n
			vv.Float64s, nn.Int64s = v.Float64s[:k], n.Int64s[:k]
			err := w.WriteAligned(id, times[:k], []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Double}, Values: vv},
				{SeriesSchema: tsfile.SeriesSchema{Name: "n", DataType: tsfile.Int64}, Values: nn},
			})
			if err != nil {
				return 0, err
			}
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return devs * rows, f.Close()
}

// Sizes of the large input: 8 devices of 500k rows, 4M rows in all, which
// takes about 0.3 s to write and a few seconds to convert to Parquet.
const (
	bigDevices = 8
	bigRowsPer = 500_000
	bigRows    = bigDevices * bigRowsPer
)

// bigFile returns the large table-model input, written once per test run.
func bigFile(t *testing.T) string {
	t.Helper()
	dir := binDir(t)
	built.bigOnce.Do(func() {
		start := time.Now()
		p := filepath.Join(dir, "big.tsfile")
		if _, built.bigErr = writeSeries(p, "d", bigDevices, bigRowsPer, 100_000); built.bigErr == nil {
			built.big = p
		}
		t.Logf("wrote %s (%d rows) in %v", p, bigRows, time.Since(start).Round(time.Millisecond))
	})
	if built.bigErr != nil {
		t.Fatal(built.bigErr)
	}
	return built.big
}

func TestBinaryVersion(t *testing.T) {
	for _, verb := range []string{"version", "--version"} {
		out := okBin(t, verb)
		l := lines(out)
		require.GreaterOrEqual(t, len(l), 3, out)
		require.Regexp(t, `^ts2arrow \S+$`, l[0])
		require.Regexp(t, `^go:\s+go\S* \w+/\w+$`, l[1])
		// A build from a checkout with VCS stamping names the commit;
		// one without (-buildvcs=false, a git worktree) says so.
		require.Regexp(t, `^revision:\s+([0-9a-f]{40}( \(modified\))?|\(unknown commit\))$`, l[2])
		for _, x := range l[3:] {
			require.Regexp(t, `^committed:\s+\S+$`, x)
		}
	}
	r := runBin(t, "version", "extra")
	require.Equal(t, 2, r.code)
	require.Empty(t, r.stdout)
}

func TestBinaryHelp(t *testing.T) {
	out := okBin(t, "help")
	require.Contains(t, out, "Usage:")
	for _, verb := range []string{"inspect", "schema", "head", "convert", "recover", "version"} {
		require.Contains(t, out, "ts2arrow "+verb)
	}
	for _, verb := range []string{"inspect", "schema", "head", "convert", "recover", "version"} {
		for _, args := range [][]string{{"help", verb}, {verb, "--help"}} {
			r := runBin(t, args...)
			require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
			// The help of a verb may go to either stream; it is there once.
			require.Equal(t, 1, strings.Count(r.stdout+r.stderr, "Usage: ts2arrow "+verb), "%v", args)
		}
	}
	// No arguments at all: the usage, on standard error, status 2.
	r := runBin(t)
	require.Equal(t, 2, r.code)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, "Usage:")
}

func TestBinaryInspect(t *testing.T) {
	out := okBin(t, "inspect", sample)
	require.Contains(t, out, "version:     4")
	require.Contains(t, out, "table weather (table model, 3 devices)")
	require.Contains(t, out, "temperature")

	js := okBin(t, "inspect", "--json", sample)
	var info map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &info), js)
	require.EqualValues(t, 4, info["version"])
	tables, ok := info["tables"].([]any)
	require.True(t, ok, "tables: %v", info["tables"])
	require.Len(t, tables, 1)
	require.Equal(t, "weather", tables[0].(map[string]any)["name"])
}

func TestBinarySchema(t *testing.T) {
	out := okBin(t, "schema", sample)
	l := lines(out)
	require.Regexp(t, `^COLUMN\s+ARROW TYPE`, l[0])
	require.Regexp(t, `^time\s+timestamp\[ms, tz=UTC\]\s+no\s+TIME`, l[1])
	require.Contains(t, out, "tsfile.table = weather")

	var s struct {
		Fields []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"fields"`
	}
	js := okBin(t, "schema", sample, "--json")
	require.NoError(t, json.Unmarshal([]byte(js), &s), js)
	var names []string
	for _, f := range s.Fields {
		names = append(names, f.Name)
	}
	require.Equal(t, strings.Split("time,region,station,temperature,humidity,pressure,count,ok,note,label,raw,day,seen", ","), names)
}

func TestBinaryHead(t *testing.T) {
	l := lines(okBin(t, "head", "-n", "5", sample))
	require.Len(t, l, 2+5) // header, rule, rows
	require.Regexp(t, `^time\s+region\s+station\s+temperature`, l[0])
	require.Regexp(t, `^-+  -+`, l[1])
	require.Regexp(t, `^2023-11-14T22:13:20\.000Z\s+north\s+s01\s+22\.54\s`, l[2])
	require.Len(t, lines(okBin(t, "head", sample, "-n", "1")), 3)
}

// TestBinaryConvertEveryFormat converts the sample to each output format
// and reads every file back: the same rows each time, nothing on either
// stream.
func TestBinaryConvertEveryFormat(t *testing.T) {
	dir := t.TempDir()
	wantCSV := okBin(t, "convert", sample, "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Len(t, lines(wantCSV), 1+1500)
	// The CSV file has the default ISO 8601 times.
	wantISO := okBin(t, "convert", sample, "--format", "csv", "-o", "-")
	require.Len(t, lines(wantISO), 1+1500)
	require.True(t, strings.HasPrefix(lines(wantISO)[1], "2023-11-14T22:13:20.000Z,"), lines(wantISO)[1])
	for _, ext := range []string{"parquet", "arrow", "arrows", "csv", "jsonl", "tsfile"} {
		t.Run(ext, func(t *testing.T) {
			out := filepath.Join(dir, "s."+ext)
			require.Empty(t, okBin(t, "convert", sample, "-o", out))
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			st, err := os.Stat(out)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o666&^currentUmask()), st.Mode().Perm(), "the mode os.Create gives")
			switch ext {
			case "parquet":
				got, _, _ := parquetAsCSV(t, data)
				require.Equal(t, wantCSV, got)
			case "arrow", "arrows":
				require.Equal(t, wantCSV, ipcAsCSV(t, data, ext == "arrows"))
			case "csv":
				require.Equal(t, wantISO, string(data))
			case "jsonl":
				l := lines(string(data))
				require.Len(t, l, 1500)
				for _, x := range l {
					var row map[string]any
					require.NoError(t, json.Unmarshal([]byte(x), &row), x)
					require.Contains(t, row, "time")
				}
			case "tsfile":
				// Back through the binary: the same rows.
				require.Equal(t, wantCSV, okBin(t, "convert", out, "--format", "csv", "--time-format", "epoch", "-o", "-"))
			}
			// Standard output gets the same bytes as the file.
			require.Equal(t, string(data), okBin(t, "convert", sample, "--format", ext, "-o", "-"))
		})
	}
}

func TestBinaryRecover(t *testing.T) {
	broken, full, _ := cutSample(t)
	fixed := filepath.Join(t.TempDir(), "fixed.tsfile")
	r := runBin(t, "recover", broken, "-o", fixed, "--schema-from", sample)
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, "recovered 1 complete chunk groups")
	require.Contains(t, r.stderr, "from offset "+itoa(full.Groups[1].Offset))
	require.Contains(t, r.stderr, "wrote "+fixed)
	got := lines(okBin(t, "convert", fixed, "--format", "csv", "-o", "-"))
	all := lines(okBin(t, "convert", sample, "--format", "csv", "-o", "-"))
	require.Equal(t, all[0], got[0])
	require.Equal(t, int(full.Groups[0].Rows)+1, len(got))
	require.Equal(t, all[:len(got)], got)

	// convert --recover reads the same rows without the fixed copy; what
	// was lost is reported on standard error, the rows go to standard
	// output.
	r = runBin(t, "convert", broken, "--recover", "--schema-from", sample, "--format", "csv", "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "recovered 1 complete chunk groups")
	require.Equal(t, got, lines(r.stdout))
}

// TestBinaryErrors: usage errors exit 2, data and format errors 1, each as
// one line on standard error and nothing on standard output.
func TestBinaryErrors(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(sample)
	require.NoError(t, err)
	corrupt := filepath.Join(dir, "corrupt.tsfile")
	bb := append([]byte(nil), b...)
	bb[len(bb)-1] = 'x' // the tail magic
	require.NoError(t, os.WriteFile(corrupt, bb, 0o644))
	missing := filepath.Join(dir, "missing.tsfile")
	out := filepath.Join(dir, "out.parquet")

	for _, tc := range []struct {
		args []string
		code int
		line string // a regexp the one line must match
	}{
		{[]string{"frobnicate"}, 2, `^ts2arrow: unknown command "frobnicate"`},
		{[]string{"convert", sample, "-o", out, "--bogus"}, 2, `unknown flag: --bogus`},
		{[]string{"inspect", "--bogus", sample}, 2, `unknown flag: --bogus`},
		{[]string{"head", sample, "-n", "many"}, 2, `invalid argument "many" for "-n, --lines" flag`},
		{[]string{"convert", sample}, 2, `^ts2arrow: convert needs -o OUT$`},
		{[]string{"convert", sample, "-o", out, "--format", "xml"}, 2, `unknown format`},
		{[]string{"convert", missing, "-o", out}, 1, `^ts2arrow: .*` + regexp.QuoteMeta(missing) + `.*no such file`},
		{[]string{"inspect", missing}, 1, `^ts2arrow: .*` + regexp.QuoteMeta(missing) + `.*no such file`},
		{[]string{"schema", missing}, 1, regexp.QuoteMeta(missing)},
		{[]string{"head", missing}, 1, regexp.QuoteMeta(missing)},
		{[]string{"convert", corrupt, "-o", out}, 1, `^ts2arrow: ` + regexp.QuoteMeta(corrupt) + `: .*tail magic.* at offset \d+; "ts2arrow recover .* -o FIXED" can salvage its complete chunk groups$`},
		{[]string{"inspect", corrupt}, 1, `^ts2arrow: ` + regexp.QuoteMeta(corrupt) + `: .*tail magic.* at offset \d+; "ts2arrow recover .* -o FIXED" can salvage its complete chunk groups$`},
		{[]string{"head", corrupt}, 1, `^ts2arrow: ` + regexp.QuoteMeta(corrupt) + `: .*at offset \d+; "ts2arrow recover .* -o FIXED" can salvage its complete chunk groups$`},
		{[]string{"schema", corrupt}, 1, `^ts2arrow: ` + regexp.QuoteMeta(corrupt) + `: .*at offset \d+; "ts2arrow recover .* -o FIXED" can salvage its complete chunk groups$`},
	} {
		r := runBin(t, tc.args...)
		require.Equal(t, tc.code, r.code, "%v: %s", tc.args, r.stderr)
		require.Empty(t, r.stdout, "%v", tc.args)
		l := lines(r.stderr)
		if tc.code == 1 {
			// A usage error may be followed by the usage; a data or
			// format error is one line.
			require.Len(t, l, 1, "%v: %q", tc.args, r.stderr)
		}
		require.NotEmpty(t, l, "%v", tc.args)
		require.Regexp(t, tc.line, l[0], "%v", tc.args)
	}
	require.NoFileExists(t, out)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the corrupt input remains")
}

// TestBinaryStreams: data on standard output only, and, with standard
// error not a terminal, no progress output at all, even with a TERM that
// could draw one.
func TestBinaryStreams(t *testing.T) {
	dir := t.TempDir()
	env := []string{"TERM=xterm-256color"}
	r := runBinEnv(t, env, "convert", sample, "-o", "-", "--format", "csv")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stderr)
	require.Len(t, lines(r.stdout), 1501)
	require.Equal(t, "time,region,station,temperature,humidity,pressure,count,ok,note,label,raw,day,seen", lines(r.stdout)[0])

	r = runBinEnv(t, env, "convert", sample, "-o", "-", "--format", "arrows")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stderr)
	require.Equal(t, okBin(t, "convert", sample, "-o", "-", "--format", "csv", "--time-format", "epoch"), ipcAsCSV(t, []byte(r.stdout), true))

	// A file output on a run long enough for the bar to draw many times
	// if it were on.
	big := bigFile(t)
	out := filepath.Join(dir, "big.parquet")
	r = runBinEnv(t, env, "convert", big, "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stdout)
	require.Empty(t, r.stderr)
	require.NotContains(t, r.stderr, "\r")
	st, err := os.Stat(out)
	require.NoError(t, err)
	require.Positive(t, st.Size())

	// --verbose talks on standard error only, still without a bar.
	r = runBinEnv(t, env, "convert", sample, "-o", filepath.Join(dir, "v.parquet"), "--verbose")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, "ts2arrow: reading "+sample)
	require.Contains(t, r.stderr, "wrote 1500 rows to")
	require.NotContains(t, r.stderr, "\r")

	// An error on the way: nothing on standard output.
	r = runBin(t, "convert", sample, "-o", "-", "--format", "csv", "--columns", "nope")
	require.Equal(t, 2, r.code) // a misspelt column is a usage error, as for head
	require.Empty(t, r.stdout)
	require.Len(t, lines(r.stderr), 1)
	require.Contains(t, r.stderr, "nope")
}

// TestBinaryGlobsAndDirectories: a directory is every *.tsfile under it,
// however deep; a quoted glob is expanded by the tool; the rows are the
// sum of the files'.
func TestBinaryGlobsAndDirectories(t *testing.T) {
	root := t.TempDir()
	files := map[string]int{} // path -> rows
	for i, f := range []struct {
		path       string
		devs, rows int
	}{
		{"a.tsfile", 1, 100},
		{"x/b.tsfile", 2, 125},
		{"x/y/c.tsfile", 1, 1000},
		{"x/y/z/d.tsfile", 3, 7},
		{"w/e.tsfile", 1, 40},
	} {
		p := filepath.Join(root, f.path)
		n, err := writeSeries(p, fmt.Sprintf("f%d_", i), f.devs, f.rows, 64)
		require.NoError(t, err)
		files[p] = n
	}
	// Not TsFiles: ignored in a directory.
	require.NoError(t, os.WriteFile(filepath.Join(root, "x", "y", "notes.txt"), []byte("hello"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "x", "a.tsfile.bak"), []byte("old"), 0o644))
	sum := func(paths ...string) int {
		n := 0
		for _, p := range paths {
			n += files[filepath.Join(root, p)]
		}
		return n
	}
	rows := func(args ...string) int {
		t.Helper()
		out := okBin(t, append([]string{"convert", "--format", "csv", "-o", "-"}, args...)...)
		l := lines(out)
		require.Equal(t, "time,dev,v,n", l[0])
		return len(l) - 1
	}
	j := func(p string) string { return filepath.Join(root, p) }
	all := sum("a.tsfile", "x/b.tsfile", "x/y/c.tsfile", "x/y/z/d.tsfile", "w/e.tsfile")
	require.Equal(t, 1000+250+100+21+40, all)
	require.Equal(t, all, rows(root))
	require.Equal(t, sum("x/b.tsfile", "x/y/c.tsfile", "x/y/z/d.tsfile"), rows(j("x")))
	// Quoted globs, each passed as one argument (no shell in between).
	require.Equal(t, sum("x/b.tsfile", "w/e.tsfile"), rows(j("*/*.tsfile")))
	require.Equal(t, sum("x/y/c.tsfile"), rows(j("x/?/*.tsfile")))
	require.Equal(t, sum("a.tsfile", "x/b.tsfile"), rows(j("[a-x].tsfile"), j("x/[b].tsfile")))
	// A glob that matches a directory takes every file under it.
	require.Equal(t, sum("x/b.tsfile", "x/y/c.tsfile", "x/y/z/d.tsfile", "w/e.tsfile"), rows(j("[wx]")))
	// Overlapping inputs: each file once.
	require.Equal(t, all, rows(root, j("x/*.tsfile"), j("a.tsfile")))

	// Into one Parquet file: its row count is the sum too.
	out := filepath.Join(t.TempDir(), "all.parquet")
	require.Empty(t, okBin(t, "convert", j("*"), "-o", out))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	got, _, _ := parquetAsCSV(t, data)
	require.Len(t, lines(got), 1+all)

	r := runBin(t, "convert", j("nothing-*.tsfile"), "-o", "-", "--format", "csv")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "matches no file")
	require.Empty(t, r.stdout)
}

// TestBinaryExistingOutput: an existing OUT is refused (status 2) without
// --force and left byte for byte as it was; nothing else is created.
func TestBinaryExistingOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.parquet")
	precious := []byte("not to be overwritten\x00\x01\x02")
	require.NoError(t, os.WriteFile(out, precious, 0o600))
	r := runBin(t, "convert", sample, "-o", out)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "exists; pass --force")
	require.Empty(t, r.stdout)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, precious, b)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)

	// A partitioned output directory likewise.
	pdir := filepath.Join(dir, "parts")
	require.NoError(t, os.MkdirAll(pdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pdir, "keep"), precious, 0o644))
	r = runBin(t, "convert", sample, "-o", pdir, "--partition-by", "device")
	require.Equal(t, 2, r.code, r.stderr)
	b, err = os.ReadFile(filepath.Join(pdir, "keep"))
	require.NoError(t, err)
	require.Equal(t, precious, b)
	pe, err := os.ReadDir(pdir)
	require.NoError(t, err)
	require.Len(t, pe, 1)

	// --force replaces it.
	require.Empty(t, okBin(t, "convert", sample, "-o", out, "--force"))
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "PAR1", string(b[:4]))
}
