package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// cutSample writes testdata/sample.tsfile cut in the middle of its second
// chunk group and returns the path and the groups of the intact file.
func cutSample(t *testing.T) (path string, full *tsfile.Recovery, cut int64) {
	t.Helper()
	b, err := os.ReadFile("../../testdata/sample.tsfile")
	require.NoError(t, err)
	full, err = tsfile.Recover(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(full.Groups), 2)
	g := full.Groups[1]
	cut = (g.Offset + g.End) / 2
	path = filepath.Join(t.TempDir(), "broken.tsfile")
	require.NoError(t, os.WriteFile(path, b[:cut], 0o644))
	return path, full, cut
}

func csvLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestRecoverCommand(t *testing.T) {
	broken, full, cut := cutSample(t)
	dir := t.TempDir()

	// The broken file does not open without recovery: one line, exit 1.
	code, _, errOut := runCLI("convert", broken, "-o", filepath.Join(dir, "x.csv"))
	require.Equal(t, 1, code)
	require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	require.Contains(t, errOut, "tail magic")
	require.NoFileExists(t, filepath.Join(dir, "x.csv"))

	fixed := filepath.Join(dir, "fixed.tsfile")
	code, _, errOut = runCLI("recover", broken, "-o", fixed, "--schema-from", "../../testdata/sample.tsfile")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "recovered 1 complete chunk groups")
	require.Contains(t, errOut, "from offset "+itoa(full.Groups[1].Offset))
	require.Contains(t, errOut, "dropped "+itoa(cut-full.Groups[1].Offset)+" bytes")

	// The rebuilt file converts; its rows are exactly the first group's
	// rows of the intact file, in the same table schema.
	code, _, errOut = runCLI("convert", fixed, "-o", filepath.Join(dir, "fixed.csv"))
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI("convert", "../../testdata/sample.tsfile", "-o", filepath.Join(dir, "all.csv"))
	require.Equal(t, 0, code, errOut)
	got, all := csvLines(t, filepath.Join(dir, "fixed.csv")), csvLines(t, filepath.Join(dir, "all.csv"))
	require.Equal(t, int(full.Groups[0].Rows)+1, len(got))
	require.Equal(t, all[:len(got)], got, "the sample's first device comes first in both")

	// convert --recover gives the same rows without writing a fixed file.
	code, _, errOut = runCLI("convert", broken, "--recover", "--schema-from", "../../testdata/sample.tsfile", "-o", filepath.Join(dir, "direct.csv"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "recovered 1 complete chunk groups")
	require.Equal(t, got, csvLines(t, filepath.Join(dir, "direct.csv")))

	// Without the schemas the devices come back as the tree model.
	code, _, errOut = runCLI("convert", broken, "--recover", "-o", filepath.Join(dir, "tree.csv"))
	require.Equal(t, 0, code, errOut)
	tree := csvLines(t, filepath.Join(dir, "tree.csv"))
	require.Len(t, tree, len(got))
	require.True(t, strings.HasPrefix(tree[0], "time,device,"), tree[0])

	// A complete file recovers to the same rows.
	code, _, errOut = runCLI("recover", "../../testdata/sample.tsfile", "-o", filepath.Join(dir, "copy.tsfile"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "the file is complete")
	code, _, errOut = runCLI("convert", filepath.Join(dir, "copy.tsfile"), "-o", filepath.Join(dir, "copy.csv"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, all, csvLines(t, filepath.Join(dir, "copy.csv")))
}

func TestRecoverCommandErrors(t *testing.T) {
	dir := t.TempDir()
	notTs := filepath.Join(dir, "x.tsfile")
	require.NoError(t, os.WriteFile(notTs, []byte("hello, world"), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"recover"}, 2, "one input"},
		{[]string{"recover", notTs}, 2, "needs -o"},
		{[]string{"recover", notTs, "-o", filepath.Join(dir, "y.tsfile")}, 1, "head magic"},
		{[]string{"recover", filepath.Join(dir, "missing.tsfile"), "-o", filepath.Join(dir, "y.tsfile")}, 1, "no such file"},
		{[]string{"convert", notTs, "--schema-from", notTs, "-o", filepath.Join(dir, "y.csv")}, 2, "--recover only"},
	} {
		code, _, errOut := runCLI(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.msg, "%v", tc.args)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "%v: %s", tc.args, errOut)
	}
	require.NoFileExists(t, filepath.Join(dir, "y.tsfile"))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
