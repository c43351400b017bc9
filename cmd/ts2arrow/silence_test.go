package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestMisspeltColumnsListTheColumns: a --columns or --where name that is
// not there is a usage error naming the ones that are, the same for
// convert, head and schema.
func TestMisspeltColumnsListTheColumns(t *testing.T) {
	needInterop(t)
	cols := "(columns: time, region, station, temperature, humidity, pressure, count, ok, note, label, raw, day, seen)\n"
	tags := "; it takes a TAG column: region, station\n"
	tree := filepath.Join(interop, "j10_tree_nonaligned.tsfile")
	out := filepath.Join(t.TempDir(), "out.csv")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"convert", sample, "-o", out, "--columns", "bogus"}, `ts2arrow: no column "bogus" ` + cols},
		{[]string{"convert", sample, "-o", "-", "--format", "csv", "--columns", "temperature,bogus"}, `ts2arrow: no column "bogus" ` + cols},
		{[]string{"convert", sample, "-o", out, "--where", "bogus=1"}, `ts2arrow: --where bogus=1: no column "bogus"` + tags},
		{[]string{"convert", sample, "-o", out, "--where", "region=north", "--where", "temperature=1"}, "ts2arrow: --where temperature=1: temperature is not a TAG column" + tags},
		{[]string{"convert", tree, "-o", out, "--where", "region=1"}, `ts2arrow: --where region=1: no column "region"; a tree-model file filters on its device column only (--where device=PATH)` + "\n"},
		{[]string{"convert", tree, "-o", out, "--columns", "s_nope"}, `ts2arrow: no column "s_nope" (columns: time, device, s_bool,`},
		{[]string{"head", sample, "--columns", "bogus"}, `ts2arrow: no column "bogus" ` + cols},
		{[]string{"schema", sample, "--columns", "bogus"}, `ts2arrow: no column "bogus" ` + cols},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		require.Equal(t, 2, code, "%v: %s", tc.args, stderr)
		require.Empty(t, stdout, "%v", tc.args)
		require.True(t, strings.HasPrefix(stderr, tc.stderr), "%v:\n got %q\nwant %q", tc.args, stderr, tc.stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		require.NoFileExists(t, out)
	}
}

// TestTruncatedFilePointsAtRecover: a file cut short (a writer that never
// finished) fails with the format error and what to do about it, for every
// command that opens it, and the suggested command works.
func TestTruncatedFilePointsAtRecover(t *testing.T) {
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut short.tsfile")
	require.NoError(t, os.WriteFile(cut, data[:len(data)*2/3], 0o644))
	hint := `; "ts2arrow recover '` + cut + `' -o FIXED" can salvage its complete chunk groups` + "\n"
	for _, args := range [][]string{
		{"inspect", cut},
		{"inspect", "--json", cut},
		{"schema", cut},
		{"head", cut},
		{"convert", cut, "-o", filepath.Join(dir, "out.csv")},
	} {
		code, stdout, stderr := runCLI(args...)
		require.Equal(t, 1, code, "%v: %s", args, stderr)
		require.Empty(t, stdout, "%v", args)
		require.True(t, strings.HasPrefix(stderr, "ts2arrow: "+cut+": file tail: tail magic is "), "%v: %s", args, stderr)
		require.True(t, strings.HasSuffix(stderr, hint), "%v:\n got %q\nwant suffix %q", args, stderr, hint)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	// Several files: the hint is on the damaged one's line.
	code, _, stderr := runCLI("inspect", sample, cut)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, hint)

	fixed := filepath.Join(dir, "fixed.tsfile")
	code, _, stderr = runCLI("recover", cut, "-o", fixed)
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, fixed)

	// Damage other than a missing end gets no such hint.
	bad := filepath.Join(dir, "bad.tsfile")
	b := append([]byte(nil), data...)
	b[0] = 'X'
	require.NoError(t, os.WriteFile(bad, b, 0o644))
	code, _, stderr = runCLI("inspect", bad)
	require.Equal(t, 1, code)
	require.NotContains(t, stderr, "recover")
}

// TestInspectGoesOnPastAMissingFile: a FILE that does not exist is
// reported in its place, and the others are still printed; exit status 1.
func TestInspectGoesOnPastAMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.tsfile")
	code, stdout, stderr := runCLI("inspect", sample, missing)
	require.Equal(t, 1, code, stderr)
	require.True(t, strings.HasPrefix(stdout, "file:        "+sample+"\n"), stdout)
	require.Equal(t, "ts2arrow: "+missing+": no such file or directory\nts2arrow: 1 of 2 files could not be inspected\n", stderr)

	// The other order, and a pattern that matches nothing, alike.
	code, stdout2, stderr := runCLI("inspect", missing, filepath.Join(filepath.Dir(missing), "*.nope"), sample)
	require.Equal(t, 1, code, stderr)
	require.Equal(t, stdout, stdout2)
	require.Contains(t, stderr, "matches no file")
	require.Contains(t, stderr, "2 of 3 files could not be inspected")

	// --json: the missing file keeps its place as {file, error}.
	code, stdout, stderr = runCLI("inspect", "--json", missing, sample)
	require.Equal(t, 1, code, stderr)
	var infos []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &infos), stdout)
	require.Len(t, infos, 2)
	require.Equal(t, map[string]any{"file": missing, "error": "no such file or directory"}, infos[0])
	require.Equal(t, sample, infos[1]["file"])
	require.Contains(t, stderr, "no such file")
}

// TestZeroRowsSaySo: a query that matches nothing still exits 0 (it is
// not an error), but says on standard error that it wrote no rows, which
// filters matched nothing, and which device or tag value is not in the
// inputs at all, with some that are; --quiet does not hide it.
func TestZeroRowsSaySo(t *testing.T) {
	dir := t.TempDir()
	many := filepath.Join(dir, "many.tsfile")
	_, err := writeSeries(many, "d", 8, 10, 10)
	require.NoError(t, err)
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"convert", sample, "-o", out("a.csv"), "--where", "region=zz"},
			"ts2arrow: wrote 0 rows to " + out("a.csv") + " (no row matched --where region=zz)\n" +
				"ts2arrow: region has no value \"zz\" in the inputs; values include: north, south\n"},
		{[]string{"convert", sample, "-o", out("b.parquet"), "--start", "2030-01-01", "--quiet"},
			"ts2arrow: wrote 0 rows to " + out("b.parquet") + " (no row matched --start 2030-01-01)\n" +
				"ts2arrow: the inputs' times span 2023-11-14T22:13:20.000Z .. 2023-11-14T22:21:39.000Z (1700000000000 .. 1700000499000 in ms)\n"},
		{[]string{"convert", many, "-o", "-", "--format", "csv", "--device", "nosuch", "--verbose"},
			"ts2arrow: reading " + many + "\n" +
				"ts2arrow: wrote 0 rows to standard output (no row matched --device nosuch)\n" +
				"ts2arrow: no device \"nosuch\" in the inputs; devices include: m.d0, m.d1, m.d2, m.d3, m.d4 (and 3 more)\n"},
		// Each term exists, only not together: no value is missing.
		{[]string{"convert", sample, "-o", "-", "--format", "jsonl", "--where", "region=south", "--where", "station=s02"},
			"ts2arrow: wrote 0 rows to standard output (no row matched --where region=south --where station=s02)\n"},
		{[]string{"convert", sample, sample, "-o", out("p"), "--partition-by", "device", "--where", "station=s9", "--end", "2024-01-01"},
			"ts2arrow: wrote 0 rows to " + out("p") + " (no row matched --where station=s9 --end 2024-01-01)\n" +
				"ts2arrow: station has no value \"s9\" in the inputs; values include: s01, s02\n"},
		{[]string{"convert", sample, "-o", out("c.csv"), "--where", "region=north", "--start", "1700000000000", "--end", "1700000000000"}, ""},
		// IS NULL matched nothing, but a null is no value to list; the
		// escaped \\N asks for the value \N, which is missing.
		{[]string{"convert", sample, "-o", out("d.csv"), "--where", `station=\N`},
			"ts2arrow: wrote 0 rows to " + out("d.csv") + " (no row matched --where 'station=\\N')\n"},
		{[]string{"convert", sample, "-o", out("e.csv"), "--where", `station=\\N`},
			"ts2arrow: wrote 0 rows to " + out("e.csv") + " (no row matched --where 'station=\\\\N')\n" +
				"ts2arrow: station has no value \"\\\\N\" in the inputs; values include: s01, s02\n"},
	} {
		code, _, stderr := runCLI(tc.args...)
		require.Equal(t, 0, code, "%v: %s", tc.args, stderr)
		require.Equal(t, tc.stderr, stderr, "%v", tc.args)
	}
	require.FileExists(t, out("a.csv"))
	require.DirExists(t, out("p"))
	// No partition directory is left without a part in it.
	ents, err := os.ReadDir(out("p"))
	require.NoError(t, err)
	require.Empty(t, ents)
}

// nonAlignedFile writes a tree-model file of one non-aligned device,
// root.sg.d1, whose series have the given timestamps; each inner list is
// one chunk group's worth.
func nonAlignedFile(t *testing.T, series map[string][][]int64) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	dev := tsfile.ParseTreePath("root.sg.d1")
	names := make([]string, 0, len(series))
	groups := 0
	for n, g := range series {
		names = append(names, n)
		groups = max(groups, len(g))
	}
	sort.Strings(names)
	for g := range groups {
		var ns []tsfile.NonAlignedSeries
		for _, n := range names {
			if g >= len(series[n]) || len(series[n][g]) == 0 {
				continue
			}
			times := series[n][g]
			v := tsfile.NewValues(tsfile.Int64, len(times))
			copy(v.Int64s, times)
			ns = append(ns, tsfile.NonAlignedSeries{SeriesSchema: tsfile.SeriesSchema{Name: n, DataType: tsfile.Int64}, Times: times, Values: v})
		}
		require.NoError(t, w.WriteNonAligned(dev, ns))
	}
	require.NoError(t, w.Close())
	path := filepath.Join(t.TempDir(), "nonaligned.tsfile")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

// convertedRows counts the rows convert makes of each device of a
// tree-model file.
func convertedRows(t *testing.T, path string) map[string]int64 {
	t.Helper()
	rows := map[string]int64{}
	lines := convertCSV(t, path)
	require.True(t, strings.HasPrefix(lines[0], "time,device,"), lines[0])
	for _, l := range lines[1:] {
		rows[strings.SplitN(l, ",", 3)[1]]++
	}
	return rows
}

// TestInspectNonAlignedRows: the rows inspect gives a non-aligned device
// are the rows convert makes of it when the index can tell (series that do
// not overlap in time), and an honest "at least" when it cannot; the JSON
// keeps rows as documented and bounds the count with rows_min and
// rows_max.
func TestInspectNonAlignedRows(t *testing.T) {
	needInterop(t)
	for _, tc := range []struct {
		name     string
		path     string
		text     map[string]string // device -> what the device line says
		min, max map[string]int64
	}{
		{"disjoint series", nonAlignedFile(t, map[string][][]int64{"a": {{1, 2, 3}}, "b": {{10, 11}}}),
			map[string]string{"root.sg.d1": "5 rows"}, map[string]int64{"root.sg.d1": 5}, map[string]int64{"root.sg.d1": 5}},
		{"one series in two chunks", nonAlignedFile(t, map[string][][]int64{"a": {{1, 2}, {5, 6, 7}}}),
			map[string]string{"root.sg.d1": "5 rows"}, map[string]int64{"root.sg.d1": 5}, map[string]int64{"root.sg.d1": 5}},
		{"overlapping series", nonAlignedFile(t, map[string][][]int64{"a": {{1, 2, 3}}, "b": {{2, 3, 4, 5}, {9}}}),
			map[string]string{"root.sg.d1": "at least 5 rows"}, map[string]int64{"root.sg.d1": 5}, map[string]int64{"root.sg.d1": 8}},
		{"j10", interop + "j10_tree_nonaligned.tsfile",
			map[string]string{"root.sg1.d1": "at least 25000 rows", "root.sg1.d2": "at least 1000 rows", "root.sg2.d3": "at least 500 rows"},
			map[string]int64{"root.sg1.d1": 25000, "root.sg1.d2": 1000, "root.sg2.d3": 500},
			map[string]int64{"root.sg1.d1": 225000, "root.sg1.d2": 9000, "root.sg2.d3": 4500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := convertedRows(t, tc.path)
			code, out, stderr := runCLI("inspect", tc.path)
			require.Equal(t, 0, code, stderr)
			for dev, text := range tc.text {
				require.Contains(t, out, "  device "+dev+" (non-aligned, "+text+")\n")
				if !strings.HasPrefix(text, "at least") {
					require.Equal(t, text, fmt.Sprintf("%d rows", got[dev]), "inspect and convert agree on %s", dev)
				}
			}
			info := inspectJSON(t, tc.path)
			for _, tb := range info.Tables {
				for _, d := range tb.Devices {
					require.Equal(t, tc.min[d.Device], d.RowsMin, d.Device)
					require.Equal(t, tc.max[d.Device], d.RowsMax, d.Device)
					require.GreaterOrEqual(t, got[d.Device], d.RowsMin, d.Device)
					require.LessOrEqual(t, got[d.Device], d.RowsMax, d.Device)
					var most int64
					for _, s := range d.Series {
						most = max(most, s.Values)
					}
					require.Equal(t, most, d.Rows, "rows keeps its meaning")
				}
			}
		})
	}
	// An aligned device's bounds are its rows.
	info := inspectJSON(t, sample)
	for _, d := range info.Tables[0].Devices {
		require.Equal(t, []int64{500, 500, 500}, []int64{d.Rows, d.RowsMin, d.RowsMax})
	}
}
