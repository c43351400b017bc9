package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
