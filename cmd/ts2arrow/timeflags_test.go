package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTimeRangeFlags: every spelling of a bound selects the rows of the
// instant it names, against a filter of the whole sample's epoch rows
// (the sample's rows run from 1700000000000 to 1700000499000 ms, one a
// second, all on 2023-11-14 UTC).
func TestTimeRangeFlags(t *testing.T) {
	all := sampleRows(t)
	between := func(lo, hi int64) []string {
		return filterCSV(all, func(c []string) bool {
			v, err := strconv.ParseInt(c[0], 10, 64)
			require.NoError(t, err)
			return v >= lo && v <= hi
		})
	}
	const at = 1700000100000 // 2023-11-14T22:15:00Z
	for _, c := range []struct {
		start, end string
		lo, hi     int64
	}{
		{"1700000100000", "1700000100000", at, at},
		{"2023-11-14 22:15:00", "2023-11-14 22:15:00", at, at},
		{"2023-11-14T22:15:00", "2023-11-14T22:15:00Z", at, at},
		{"2023-11-15T06:15:00+08:00", "2023-11-14T17:15:00-05:00", at, at},
		{"2023-11-14 22:15", "2023-11-14T22:15:02.000Z", at, at + 2000},
		// A fraction between two rows: the start rounds up, the end down.
		{"2023-11-14T22:14:59.0005Z", "2023-11-14T22:15:01.9995Z", at - 1000 + 1, at + 1000},
		// A date as --end includes its whole day; as --start, from its
		// first instant.
		{"2023-11-14", "2023-11-14", 0, 1<<63 - 1},
		{"", "2023-11-14", 0, 1<<63 - 1},
		{"2023-11-15", "", 1<<63 - 1, 1<<63 - 1},
		{"", "2023-11-13", -1, -1},
		{"2023-11-14T22:21:39Z", "2023-11-15", 1700000499000, 1700000499000},
	} {
		args := []string{}
		if c.start != "" {
			args = append(args, "--start", c.start)
		}
		if c.end != "" {
			args = append(args, "--end", c.end)
		}
		want := between(c.lo, c.hi)
		require.Equal(t, want, convertCSV(t, append([]string{sample}, args...)...), "convert %v", args)
		if len(want) > 1 {
			require.Less(t, len(want), len(all)+1)
		}

		// head: the first rows of the same range.
		code, out, stderr := runCLI(append([]string{"head", sample, "-n", "4", "--time-format", "epoch", "--width", "0"}, args...)...)
		require.Equal(t, 0, code, stderr)
		_, rows := parseHead(t, out)
		require.Len(t, rows, min(4, len(want)-1), "head %v", args)
		for i, r := range rows {
			require.Equal(t, strings.Split(want[1+i], ",")[0], r[0], "head %v row %d", args, i)
		}
	}
}

// TestTimeRangeFlagErrors: a bound that is no accepted form is a usage
// error of one line that names the flag and lists the forms.
func TestTimeRangeFlagErrors(t *testing.T) {
	for _, cmd := range []string{"convert", "head"} {
		for _, c := range []struct{ flag, value, want string }{
			{"--start", "yesterday", `--start: not a time: "yesterday"`},
			{"--end", "2023-11-14T", `--end: not a time: "2023-11-14T"`},
			{"--end", "2023-02-30", `day out of range`},
			{"--start", "14/11/2023", `--start: not a time`},
		} {
			args := []string{cmd, sample, c.flag, c.value}
			if cmd == "convert" {
				args = append(args, "--format", "csv", "-o", "-")
			}
			code, out, stderr := runCLI(args...)
			require.Equal(t, 2, code, "%v: %s", args, stderr)
			require.Empty(t, out)
			require.Contains(t, stderr, c.want, "%v", args)
			require.Contains(t, stderr, "2023-11-14T22:15:00 or 2023-11-14 22:15:00", "%v", args)
			require.Contains(t, stderr, "no zone means UTC", "%v", args)
			require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		}
		code, _, stderr := runCLI(cmd, sample, "--start", "2023-11-14T22:15:00Z", "--end", "2023-11-14T22:14:59Z", "-o", "-", "--format", "csv")
		if cmd == "head" {
			code, _, stderr = runCLI(cmd, sample, "--start", "2023-11-14T22:15:00Z", "--end", "2023-11-14T22:14:59Z")
		}
		require.Equal(t, 2, code)
		require.Contains(t, stderr, "--start is after --end")
	}
	// --help says which zone, that --end is inclusive and what a date is.
	for _, cmd := range []string{"convert", "head"} {
		_, out, stderr := runCLI(cmd, "--help")
		help := strings.Join(strings.Fields(out+stderr), " ")
		for _, s := range []string{"inclusive", "a time without a zone is UTC", "A date as --start is its first instant",
			"as --end the whole day is included", "--time-format"} {
			require.Contains(t, help, s, "%s --help", cmd)
		}
	}
}

// TestTimeFormatFlag: convert's --time-format takes head's names and
// their old aliases, applies to the text formats only, and writes ISO
// 8601 by default in CSV and JSONL alike.
func TestTimeFormatFlag(t *testing.T) {
	first := func(out string) string { return strings.SplitN(out, "\n", 3)[1] }
	for _, c := range []struct {
		args []string
		want string // the start of the first data row
	}{
		{[]string{"--format", "csv"}, "2023-11-14T22:13:20.000Z,north,s01,"},
		{[]string{"--format", "csv", "--time-format", "iso"}, "2023-11-14T22:13:20.000Z,north,s01,"},
		{[]string{"--format", "csv", "--time-format", "rfc3339"}, "2023-11-14T22:13:20.000Z,north,s01,"},
		{[]string{"--format", "csv", "--time-format", "epoch"}, "1700000000000,north,s01,"},
		{[]string{"--format", "csv", "--time-format", "raw"}, "1700000000000,north,s01,"},
		{[]string{"--format", "csv", "--time-unit", "us"}, "1970-01-20T16:13:20.000000Z,north,s01,"},
		{[]string{"--format", "csv", "--time-unit", "ns"}, "1970-01-01T00:28:20.000000000Z,north,s01,"},
		// No fraction digits in s; the sample's values read as seconds are
		// past 9999, written in ISO 8601's expanded, signed form (Go's
		// time package agrees on 55840-11-08T22:13:20Z).
		{[]string{"--format", "csv", "--time-unit", "s", "--columns", "count"}, "+55840-11-08T22:13:20Z,0"},
		{[]string{"--format", "jsonl", "--columns", "seen"}, `{"time":"2023-11-14T22:13:20.000Z","seen":"2023-11-14T22:13:19.880Z"}`},
		{[]string{"--format", "jsonl", "--columns", "seen", "--time-format", "epoch"}, `{"time":1700000000000,"seen":1699999999880}`},
	} {
		code, out, stderr := runCLI(append([]string{"convert", sample, "-o", "-"}, c.args...)...)
		require.Equal(t, 0, code, "%v: %s", c.args, stderr)
		if strings.HasPrefix(c.want, "{") {
			out = "\n" + out // JSONL has no header
		}
		require.True(t, strings.HasPrefix(first(out), c.want), "%v: %q", c.args, first(out))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "-", "--format", "csv", "--time-format", "unix"}, `unknown --time-format "unix" (want iso or epoch; rfc3339 and raw are accepted for them)`},
		{[]string{"-o", "-", "--format", "arrows", "--time-format", "epoch"}, "--time-format applies to csv and jsonl output only"},
		{[]string{"-o", "-", "--format", "parquet", "--time-format", "iso"}, "--time-format applies to csv and jsonl output only"},
	} {
		code, out, stderr := runCLI(append([]string{"convert", sample}, c.args...)...)
		require.Equal(t, 2, code, "%v: %s", c.args, stderr)
		require.Empty(t, out)
		require.Contains(t, stderr, c.want)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
}
