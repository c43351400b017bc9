//go:build iceberg

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// icebergWork syncs testdata/iotdb's weather table into a SQLite catalog
// in a temporary directory, makes it the working directory and returns
// the input that names the table.
func icebergWork(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	t.Chdir(work)
	data, err := filepath.Abs(filepath.Join(cwdAtStart, "../../testdata/iotdb"))
	require.NoError(t, err)
	require.NoError(t, os.CopyFS("iotdb", os.DirFS(data)))
	code, _, stderr := runCLI("sync", "iotdb", "--table", "weather", "--catalog", "sqlite:cat.db", "--warehouse", "lake", "--to", "iot.weather")
	require.Equal(t, 0, code, stderr)
	return "iceberg:sqlite:cat.db#iot.weather"
}

// cwdAtStart is the package directory, before a test changes directory.
var cwdAtStart, _ = os.Getwd()

// TestConvertIceberg: convert of the Iceberg table equals convert of the
// data directory it was synced from, byte for byte in CSV and JSONL,
// with the query flags that apply; --verbose counts the data files the
// scan planned, fewer with a one-day range or a TAG value no file holds.
func TestConvertIceberg(t *testing.T) {
	in := icebergWork(t)
	for _, tc := range []struct {
		name  string
		args  []string
		files string
	}{
		{"all", nil, "2 data files"},
		{"columns", []string{"--columns", "status,region"}, "2 data files"},
		{"one day", []string{"--start", "2026-01-02", "--end", "2026-01-02"}, "1 data files"},
		{"tag", []string{"--where", "region=south"}, "2 data files"},
		{"tag and hours", []string{"--where", "plant=p1", "--start", "2026-01-01T03:00:00Z", "--end", "2026-01-01T07:30:00Z", "--columns", "temperature"}, "1 data files"},
		{"no such tag value", []string{"--where", "region=zzz"}, "0 data files"},
		{"jsonl", []string{"--format", "jsonl", "--where", "region=north"}, "2 data files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			format := []string{"--format", "csv"}
			if strings.Contains(strings.Join(tc.args, " "), "--format") {
				format = nil
			}
			args := append(append([]string{"convert", in, "-o", "-", "--verbose"}, format...), tc.args...)
			code, got, stderr := runCLI(args...)
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stderr, ": "+tc.files+" to read after pruning")
			args = append(append([]string{"convert", "iotdb", "--table", "weather", "-o", "-", "--quiet"}, format...), tc.args...)
			code, want, stderr := runCLI(args...)
			require.Equal(t, 0, code, stderr)
			// The same order too: a table sync wrote holds a file a day,
			// each device by device in time order, and testdata/iotdb's
			// directory reads day-major as well.
			require.Equal(t, want, got)
			if tc.files != "0 data files" {
				require.Greater(t, strings.Count(got, "\n"), 1)
			}
		})
	}
	// A table holds instants: --time-unit is the unit they come in (for a
	// TsFile, the unit its integers are read in).
	code, got, stderr := runCLI("convert", in, "-o", "-", "--format", "csv", "--time-unit", "us", "--columns", "region", "--end", "2026-01-01T00:00:00.000001Z")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "time,region\n2026-01-01T00:00:00.000000Z,north\n2026-01-01T00:00:00.000000Z,south\n", got)
	// Back to TsFile: the table named after the Iceberg table, its TAGs
	// from the column docs; read back, the rows are the directory's.
	code, _, stderr = runCLI("convert", in, "-o", "w.tsfile")
	require.Equal(t, 0, code, stderr)
	code, got, stderr = runCLI("convert", "w.tsfile", "--table", "weather", "-o", "-", "--format", "csv")
	require.Equal(t, 0, code, stderr)
	code, want, stderr := runCLI("convert", "iotdb", "--table", "weather", "-o", "-", "--format", "csv", "--quiet")
	require.Equal(t, 0, code, stderr)
	// A TsFile holds its rows device by device, the directory reads day
	// by day: the same lines in another order.
	sorted := func(s string) []string { l := strings.Split(s, "\n"); slices.Sort(l); return l }
	require.Equal(t, sorted(want), sorted(got))
	code, _, stderr = runCLI("convert", in, "-o", "w.parquet")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runCLI("convert", "iotdb", "--table", "weather", "-o", "d.parquet", "--quiet")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, parquetRows(t, "d.parquet"), parquetRows(t, "w.parquet"))
}

// TestIcebergInputErrors: a bad spelling, a missing table or catalog and
// a flag that does not apply each give one line and the exit status a
// shell expects.
func TestIcebergInputErrors(t *testing.T) {
	in := icebergWork(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"convert", "iceberg:sqlite:cat.db", "-o", "x.csv"}, 2, "want iceberg:CATALOG#NAMESPACE.TABLE"},
		{[]string{"convert", "iceberg:sqlite:cat.db#weather", "-o", "x.csv"}, 2, "no namespace"},
		{[]string{"convert", "iceberg:sqlite:a#b#iot.weather", "-o", "x.csv"}, 2, "more than one '#'"},
		{[]string{"convert", in, "iotdb", "-o", "x.csv"}, 2, "read alone"},
		{[]string{"convert", in, "-o", "x.csv", "--device", "d"}, 2, "--where TAG=VALUE"},
		{[]string{"convert", in, "-o", "x.csv", "--table", "weather"}, 2, "names its table"},
		{[]string{"convert", in, "-o", "x.csv", "--columns", "nope"}, 2, `no column "nope"`},
		{[]string{"convert", in, "-o", "x.csv", "--where", "humidity=1"}, 2, "TAG column"},
		{[]string{"convert", "iceberg:sqlite:cat.db#iot.nothere", "-o", "x.csv"}, 1, "no table iot.nothere"},
		{[]string{"convert", "iceberg:sqlite:none.db#iot.weather", "-o", "x.csv"}, 1, "no such file"},
		{[]string{"convert", in, "-o", "cat.db", "--format", "csv", "--force"}, 2, ""},
	} {
		code, _, stderr := runCLI(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%v: %q", tc.args, stderr)
		require.Contains(t, stderr, tc.want, "%v", tc.args)
	}
	_, err := os.Stat("none.db")
	require.True(t, os.IsNotExist(err), "a read created the missing catalog")
	_, err = os.Stat("x.csv")
	require.True(t, os.IsNotExist(err))
}

// TestIcebergHeadSchema: head and schema read the Iceberg input as they
// read the data directory (TAGs as plain strings: the table stores them
// so).
func TestIcebergHeadSchema(t *testing.T) {
	in := icebergWork(t)
	code, got, stderr := runCLI("head", in, "-n", "4", "--columns", "plant,temperature", "--start", "2026-01-02")
	require.Equal(t, 0, code, stderr)
	code, want, stderr := runCLI("head", "iotdb", "--table", "weather", "-n", "4", "--columns", "plant,temperature", "--start", "2026-01-02")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want, got)

	code, got, stderr = runCLI("schema", in, "--json")
	require.Equal(t, 0, code, stderr)
	code, want, stderr = runCLI("schema", "iotdb", "--table", "weather", "--json")
	require.Equal(t, 0, code, stderr)
	dict := `"dictionary\u003cvalues=utf8, indices=int32, ordered=false\u003e"`
	want = strings.ReplaceAll(want, dict, `"utf8"`)
	want = want[:strings.Index(want, "\n  ]")] // the fields; a table keeps no TsFile schema metadata
	require.True(t, strings.HasPrefix(got, want), "schema\n%s\nwant a prefix\n%s", got, want)

}
