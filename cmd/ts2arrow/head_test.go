package main

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// parseHead splits head's output into its header and rows, cutting each
// line at the columns its rule of dashes marks (in terminal columns, so
// wide characters count twice).
func parseHead(t *testing.T, out string) (header []string, rows [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 2, out)
	type span struct{ from, to int }
	var spans []span
	for i, c := range lines[1] {
		switch {
		case c == '-' && (i == 0 || lines[1][i-1] == ' '):
			spans = append(spans, span{i, i + 1})
		case c == '-':
			spans[len(spans)-1].to = i + 1
		default:
			require.Equal(t, ' ', c, "the rule is dashes and blanks")
		}
	}
	cut := func(line string) []string {
		cells := make([]strings.Builder, len(spans))
		col := 0
		for _, r := range line {
			for j, s := range spans {
				if col >= s.from && col < s.to {
					cells[j].WriteRune(r)
				}
			}
			col += runeWidth(r)
		}
		out := make([]string, len(cells))
		for j := range cells {
			out[j] = strings.TrimSpace(cells[j].String())
		}
		return out
	}
	header = cut(lines[0])
	for _, l := range lines[2:] {
		rows = append(rows, cut(l))
	}
	return header, rows
}

// csvHead reads the header and first n rows of a (possibly gzipped) CSV.
func csvHead(t *testing.T, path string, n int) ([]string, [][]string) {
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
	cr := csv.NewReader(r)
	header, err := cr.Read()
	require.NoError(t, err)
	var rows [][]string
	for range n {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		rows = append(rows, rec)
	}
	return header, rows
}

// tsfileTypes maps column names to their TsFile types, from schema --json.
func tsfileTypes(t *testing.T, path string) map[string]string {
	t.Helper()
	code, out, stderr := runCLI("schema", path, "--json")
	require.Equal(t, 0, code, stderr)
	var sc schemaJSON
	require.NoError(t, json.Unmarshal([]byte(out), &sc))
	types := map[string]string{}
	for _, f := range sc.Fields {
		types[f.Name] = f.Metadata["tsfile.type"]
	}
	return types
}

// requireHeadMatchesCSV checks head's cells against CSV rows: NULL is an
// empty CSV cell, floats compare by value, strings as head escapes them.
func requireHeadMatchesCSV(t *testing.T, types map[string]string, header []string, want, got [][]string) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		for j, w := range want[i] {
			g := got[i][j]
			if g == nullCell {
				g = ""
			}
			typ := types[header[j]]
			if typ == "TEXT" || typ == "STRING" {
				w = strings.TrimSpace(escapeCell(w))
			}
			require.True(t, sameCell(typ, w, g), "row %d column %s: want %q got %q", i, header[j], w, g)
		}
	}
}

func TestHeadSample(t *testing.T) {
	code, out, stderr := runCLI("head", sample, "-n", "5", "--time-format", "raw", "--width", "0")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	require.Len(t, strings.Split(strings.TrimSuffix(out, "\n"), "\n"), 2+5)
	header, rows := parseHead(t, out)

	csvPath := filepath.Join(t.TempDir(), "s.csv")
	code, _, stderr = runCLI("convert", sample, "--time-format", "epoch", "-o", csvPath)
	require.Equal(t, 0, code, stderr)
	wantHeader, want := csvHead(t, csvPath, 5)
	require.Equal(t, wantHeader, header)
	requireHeadMatchesCSV(t, tsfileTypes(t, sample), header, want, rows)
	require.Contains(t, out, " "+nullCell+" ", "the sample has nulls in its first rows")

	// By default the timestamps are RFC 3339 in UTC, with the digits of
	// the unit.
	code, out, stderr = runCLI("head", sample, "-n", "5")
	require.Equal(t, 0, code, stderr)
	_, rfc := parseHead(t, out)
	for i, row := range rfc {
		tm, err := time.Parse(time.RFC3339Nano, row[0])
		require.NoError(t, err)
		require.Len(t, row[0], len("2023-11-14T22:13:20.000Z"))
		require.Equal(t, rows[i][0], strconv.FormatInt(tm.UnixMilli(), 10))
		if rows[i][len(row)-1] != nullCell {
			seen, err := time.Parse(time.RFC3339Nano, row[len(row)-1])
			require.NoError(t, err, "TIMESTAMP fields too")
			require.Equal(t, rows[i][len(row)-1], strconv.FormatInt(seen.UnixMilli(), 10))
		}
	}
	require.True(t, strings.HasPrefix(out, "time                      region  station  temperature  humidity  pressure  count  ok     note      label   raw       day         seen\n"+
		"------------------------  ------  -------  -----------  --------  --------  -----  -----  --------  ------  --------  ----------  ------------------------\n"+
		"2023-11-14T22:13:20.000Z  north   s01            22.54      23.6       988      0  false  note 0/0  stormy  0x00009e  2024-01-01  2023-11-14T22:13:19.880Z\n"), out)

	code, out, _ = runCLI("head", sample, "-n", "1", "--time-unit", "us", "--columns", "temperature")
	require.Equal(t, 0, code)
	require.Equal(t, "time                         temperature\n---------------------------  -----------\n1970-01-20T16:13:20.000000Z        22.54\n", out)

	// The default is 20 rows.
	code, out, _ = runCLI("head", sample)
	require.Equal(t, 0, code)
	require.Len(t, strings.Split(strings.TrimSuffix(out, "\n"), "\n"), 2+20)

	// -n 0 prints the header alone; -n past the end prints every row.
	code, out, _ = runCLI("head", sample, "-n", "0", "--columns", "ok")
	require.Equal(t, 0, code)
	require.Equal(t, "time  ok\n----  --\n", out)
	code, out, _ = runCLI("head", sample, "-n", "100000", "--columns", "ok")
	require.Equal(t, 0, code)
	require.Len(t, strings.Split(strings.TrimSuffix(out, "\n"), "\n"), 2+1500)
}

func TestHeadWidth(t *testing.T) {
	code, out, stderr := runCLI("head", sample, "-n", "3", "--width", "6", "--columns", "note,count,raw")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `time                      note    count  raw
------------------------  ------  -----  ------
2023-11-14T22:13:20.000Z  note …      0  0x000…
2023-11-14T22:13:21.000Z  note …   NULL  0x01
2023-11-14T22:13:22.000Z  note …      8  0x020…
`, out, "strings and BLOBs are cut, numbers and times never")
}

func TestHeadInterop(t *testing.T) {
	needInterop(t)
	for _, name := range []string{"j01_table_all_types_plain", "j02_table_multipage_default_encodings", "j10_tree_nonaligned"} {
		t.Run(name, func(t *testing.T) {
			path := interop + name + ".tsfile"
			code, out, stderr := runCLI("head", path, "-n", "5", "--time-format", "raw", "--width", "0")
			require.Equal(t, 0, code, stderr)
			header, rows := parseHead(t, out)
			wantHeader, want := csvHead(t, interop+name+".expected.csv.gz", 5)
			require.Equal(t, wantHeader, header)
			requireHeadMatchesCSV(t, tsfileTypes(t, path), header, want, rows)
		})
	}
	// j01's extreme timestamps still print in RFC 3339.
	code, out, _ := runCLI("head", interop+"j01_table_all_types_plain.tsfile", "-n", "3", "--columns", "c_timestamp")
	require.Equal(t, 0, code)
	_, rows := parseHead(t, out)
	require.Equal(t, []string{"0001-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"}, []string{rows[0][1], rows[1][1], rows[2][1]})
}

func TestHeadTreeModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tree.tsfile")
	writeFile(t, path, func(w *tsfile.Writer) {
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg1", "d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Times: []int64{1, 3}, Values: i64(7, 8)},
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Text}, Times: []int64{2, 3}, Values: tsfile.Values{Type: tsfile.Text, Binaries: [][]byte{[]byte("温度\tx"), []byte("")}}},
		}))
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("root.sg2", "d9"), []int64{5}, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Values: i64(9)},
		}))
	})
	code, out, stderr := runCLI("head", path, "--time-format", "raw")
	require.Equal(t, 0, code, stderr)
	// Wide characters take two columns; a tab is escaped; an empty string
	// is an empty cell and a null is NULL.
	require.Equal(t, `time  device         s2  s1
----  -----------  ----  -------
   1  root.sg1.d1     7  NULL
   2  root.sg1.d1  NULL  温度\tx
   3  root.sg1.d1     8
   5  root.sg2.d9     9  NULL
`, out)
}

func TestHeadRemote(t *testing.T) {
	url, _ := rangeServer(t, sample)
	_, local, _ := runCLI("head", sample, "-n", "7")
	code, remote, stderr := runCLI("head", url, "-n", "7")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, local, remote)

	if _, err := os.Stat(interop + "manifest.json"); err != nil {
		return
	}
	// head stops after its rows: a remote file is mostly not fetched.
	big := interop + "j02_table_multipage_default_encodings.tsfile"
	url, served := rangeServer(t, big)
	code, _, stderr = runCLI("head", url, "-n", "5")
	require.Equal(t, 0, code, stderr)
	st, err := os.Stat(big)
	require.NoError(t, err)
	t.Logf("head -n 5 fetched %d of %d bytes", served.Load(), st.Size())
	require.Less(t, served.Load(), st.Size()/2)
}

func TestHeadUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"head"}, 2, "ts2arrow: head takes one FILE (got 0 arguments)\n"},
		{[]string{"head", sample, sample}, 2, "ts2arrow: head takes one FILE (got 2 arguments)\n"},
		{[]string{"head", sample, "-n", "-1"}, 2, "ts2arrow: -n must not be negative (got -1)\n"},
		{[]string{"head", sample, "-n", "ten"}, 2, "ts2arrow: invalid argument \"ten\" for \"-n, --lines\" flag: must be an integer\n"},
		{[]string{"head", sample, "--width", "1"}, 2, "ts2arrow: --width must be at least 2, or 0 for no limit\n"},
		{[]string{"head", sample, "--time-format", "unix"}, 2, "ts2arrow: unknown --time-format \"unix\" (want iso or epoch; rfc3339 and raw are accepted for them)\n"},
		{[]string{"head", sample, "--time-unit", "h"}, 2, "ts2arrow: unknown --time-unit \"h\" (want s, ms, us or ns)\n"},
		{[]string{"head", sample, "--table", "nope"}, 2, "ts2arrow: no table \"nope\" in the file (tables: weather)\n"},
		{[]string{"head", sample, "--columns", "nope"}, 2, "ts2arrow: no column \"nope\" (columns: time, region"},
		{[]string{"head", "missing.tsfile"}, 1, "missing.tsfile"},
	} {
		code, out, stderr := runCLI(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Empty(t, out, "%v", tc.args)
		require.Contains(t, stderr, tc.stderr, "%v", tc.args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	code, out, stderr := runCLI("head", "--help")
	require.Equal(t, 0, code)
	help := out + stderr
	for _, s := range []string{"Usage: ts2arrow head FILE [-n 20]", "Examples:", "NULL", "--width", "--time-format", "-n, --lines"} {
		require.Contains(t, help, s)
	}
}

// TestHeadFailsOnDamagedData breaks the first time page, which head must
// read, and expects a one-line error naming the file and the offset.
func TestHeadFailsOnDamagedData(t *testing.T) {
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	f, err := tsfile.OpenFile(sample, nil)
	require.NoError(t, err)
	devs, err := f.Devices("weather")
	require.NoError(t, err)
	series, err := f.Series(devs[0])
	require.NoError(t, err)
	c, err := f.ReadChunk(series[0].Chunks[0].Offset)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	copy(data[c.Pages[0].Header.BodyOffset():], []byte{0xff, 0xff, 0xff, 0xff})
	bad := filepath.Join(t.TempDir(), "bad.tsfile")
	require.NoError(t, os.WriteFile(bad, data, 0o644))

	code, out, stderr := runCLI("head", bad, "-n", "3")
	require.Equal(t, 1, code, stderr)
	require.Empty(t, out, "nothing is printed before every row is in")
	require.True(t, strings.HasPrefix(stderr, "ts2arrow: "+bad+": "), stderr)
	require.Regexp(t, `at offset \d+\n$`, stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
}

func TestHeadCells(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"tab\there", `tab\there`},
		{"two\nlines\r", `two\nlines\r`},
		{"esc\x1b[0m", `esc\x1b[0m`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"温度", "温度"},
	} {
		require.Equal(t, tc.want, escapeCell(tc.in), "%q", tc.in)
	}
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"abcdef", 0, "abcdef"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"温度温度", 4, "温…"},
		{"温度温度", 8, "温度温度"},
		{"e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301e\u0301"},
	} {
		got := truncate(tc.in, tc.width)
		require.Equal(t, tc.want, got, "%q %d", tc.in, tc.width)
		if tc.width > 0 {
			require.LessOrEqual(t, textWidth(got), tc.width)
		}
	}
	for _, tc := range []struct {
		v    int64
		unit arrow.TimeUnit
		want string
	}{
		{1700000000000, arrow.Millisecond, "2023-11-14T22:13:20.000Z"},
		{1700000000, arrow.Second, "2023-11-14T22:13:20Z"},
		{1700000000123456, arrow.Microsecond, "2023-11-14T22:13:20.123456Z"},
		{-1, arrow.Nanosecond, "1969-12-31T23:59:59.999999999Z"},
		{-9223372036854775808, arrow.Millisecond, "-292275055-05-16T16:47:04.192Z"}, // expanded year, as Java's Instant
	} {
		require.Equal(t, tc.want, formatTimestamp(tc.v, tc.unit))
	}
	require.Equal(t, "1970-01-01", formatDate(0))
	require.Equal(t, "9999-12-31", formatDate(2932896))
	require.Equal(t, "+10000-01-01", formatDate(2932897))
	require.Equal(t, "Infinity", formatFloat(1/zero(), 64))
	require.Equal(t, "3.4028235e+38", formatFloat(float64(float32(3.4028235e38)), 32))
}

func zero() float64 { return 0 }
