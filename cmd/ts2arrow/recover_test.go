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
		{[]string{"convert", notTs, "--recover", "--partition-by", "table", "-o", filepath.Join(dir, "y")}, 2, "does not combine with --partition-by"},
	} {
		code, _, errOut := runCLI(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.msg, "%v", tc.args)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "%v: %s", tc.args, errOut)
	}
	require.NoFileExists(t, filepath.Join(dir, "y.tsfile"))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// quirkyFile is a valid tree-model file whose absent Bloom filter is
// written as four zero bytes, as some writers do.
func quirkyFile(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{NoBloomFilter: true})
	require.NoError(t, err)
	v := tsfile.NewValues(tsfile.Int64, 3)
	v.Int64s = []int64{7, 8, 9}
	require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg.d1"), []tsfile.NonAlignedSeries{{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Int64}, Times: []int64{1, 2, 3}, Values: v}}))
	require.NoError(t, w.Close())
	b := buf.Bytes()
	l := int(b[len(b)-10])<<24 | int(b[len(b)-9])<<16 | int(b[len(b)-8])<<8 | int(b[len(b)-7])
	meta := append([]byte(nil), b[len(b)-10-l:len(b)-10]...)
	// meta_offset, then Bloom byte_length 0 and property_count 3 (zigzag 6).
	i := bytes.LastIndex(meta, []byte{0, 6, 24, 'e', 'n', 'c', 'r', 'y', 'p', 't'})
	require.Positive(t, i)
	meta = append(append(meta[:i:i], 0, 0, 0, 0), meta[i+1:]...)
	out := append(append([]byte(nil), b[:len(b)-10-l]...), meta...)
	out = append(out, byte(len(meta)>>24), byte(len(meta)>>16), byte(len(meta)>>8), byte(len(meta)))
	out = append(out, "TsFile"...)
	path := filepath.Join(t.TempDir(), "quirky.tsfile")
	require.NoError(t, os.WriteFile(path, out, 0o644))
	return path
}

func TestLenientFlag(t *testing.T) {
	in := quirkyFile(t)
	out := filepath.Join(t.TempDir(), "x.csv")
	code, _, errOut := runCLI("convert", "--time-format", "epoch", in, "-o", out)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "TsFileMetadata")
	require.NoFileExists(t, out)

	code, _, errOut = runCLI("convert", "--time-format", "epoch", in, "--lenient", "-o", out)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "warning: TsFileMetadata at offset")
	require.Contains(t, errOut, "four zero bytes")
	require.Equal(t, []string{"time,device,s", "1,root.sg.d1,7", "2,root.sg.d1,8", "3,root.sg.d1,9"}, csvLines(t, out))

	code, stdout, errOut := runCLI("inspect", in, "--lenient")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdout, "warning:     TsFileMetadata at offset")
}

// A --recover conversion that matches nothing still names what the
// recovered file holds, read through the scan the conversion ran, which is
// reported once.
func TestRecoverZeroRowsHints(t *testing.T) {
	broken, _, _ := cutSample(t)
	out := filepath.Join(t.TempDir(), "x.csv")
	code, _, errOut := runCLI("convert", broken, "--recover", "--schema-from", "../../testdata/sample.tsfile",
		"-o", out, "--where", "region=zz")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1, strings.Count(errOut, "recovered 1 complete chunk groups"), errOut)
	require.Contains(t, errOut, "ts2arrow: wrote 0 rows to "+out+" (no row matched --where region=zz)\n")
	require.Contains(t, errOut, "ts2arrow: region has no value \"zz\" in the inputs; values include: ")
}

// TestNoTablesIsADataCondition: a file without tables is not a usage
// mistake (issue 29): exit 1, and under --recover the message says what
// --schema-from would do.
func TestNoTablesIsADataCondition(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile("../../testdata/sample.tsfile")
	require.NoError(t, err)
	head := filepath.Join(dir, "head.tsfile")
	require.NoError(t, os.WriteFile(head, sample[:12], 0o644))
	code, _, errOut := runCLI("convert", head, "--recover", "-o", filepath.Join(dir, "x.csv"))
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "the file has no tables: the recovery scan found no table schema")
	require.Contains(t, errOut, "--schema-from INTACT")
	// With --schema-from the hint is not given (the schemas came from there).
	code, _, errOut = runCLI("convert", head, "--recover", "--schema-from", "../../testdata/sample.tsfile", "-o", filepath.Join(dir, "y.csv"))
	require.NotEqual(t, 2, code, errOut)
	require.NotContains(t, errOut, "--schema-from INTACT")
}

// TestRecoverDamagedCompleteFile is issue 35's reproduction: four 0xff
// bytes at offset 3800 of the sample (inside a page of the first group)
// left the footer intact, and recover wrote a file with no data and said
// "nothing lost", exit 0. Now it keeps the other groups, names the one it
// dropped with its rows, and exits 3.
func TestRecoverDamagedCompleteFile(t *testing.T) {
	b, err := os.ReadFile("../../testdata/sample.tsfile")
	require.NoError(t, err)
	copy(b[3800:], []byte{0xff, 0xff, 0xff, 0xff})
	dir := t.TempDir()
	flip := filepath.Join(dir, "flip.tsfile")
	require.NoError(t, os.WriteFile(flip, b, 0o644))
	fixed := filepath.Join(dir, "fixed.tsfile")
	code, _, errOut := runCLI("recover", flip, "-o", fixed)
	require.Equal(t, exitPartial, code, errOut)
	require.NotContains(t, errOut, "nothing lost")
	require.Contains(t, errOut, "recovered 5 chunk groups, 1250 of the 1500 rows its index counts; dropped 1 chunk groups, 250 rows")
	require.Regexp(t, `dropped the chunk group of weather\.north\.s01 at offsets \[7, \d+\) \(250 rows, 11 chunks\): .*offset 37\d\d`, errOut)
	require.Contains(t, errOut, "wrote "+fixed)

	// The rebuilt file holds the sample's rows but those of that group:
	// 1,250 rows, each a row of the sample.
	code, out, errOut := runCLI("convert", fixed, "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	code, all, errOut := runCLI("convert", "../../testdata/sample.tsfile", "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	want := map[string]bool{}
	for _, l := range strings.Split(all, "\n") {
		want[l] = true
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 1251)
	for _, l := range lines {
		require.True(t, want[l], "row %q is not in the sample", l)
	}

	// The help documents the exit status.
	_, help, _ := runCLI("recover", "--help")
	require.Contains(t, help, "3 when FIXED was written but complete chunk")
}

// TestRecoverValidCPPFiles: files of the C++ writer, whose layouts only the
// read path knows, are complete when they read whole: recover copies them
// (issue 35: such a file became a 40-byte file and "nothing lost"). One
// that reads only under --lenient says so, drops what the scan cannot
// read and exits 3; with --lenient it is copied whole.
func TestRecoverValidCPPFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file    string
		lenient bool // needs --lenient to read
		rows    int
	}{
		{"../../testdata/cpp-aligned/aligned.tsfile", false, 23},
		{"../../testdata/cpp-aligned/lost.tsfile", true, 23},
		{"../../testdata/cpp-codec/codec.tsfile", true, 36},
	} {
		fixed := filepath.Join(dir, filepath.Base(tc.file))
		code, _, errOut := runCLI("recover", tc.file, "-o", fixed, "--force")
		if tc.lenient {
			require.Equal(t, exitPartial, code, errOut)
			require.Contains(t, errOut, "the file does not read whole: ")
			require.Contains(t, errOut, "--lenient")
			require.NotContains(t, errOut, "nothing lost")
			code, _, errOut = runCLI("recover", tc.file, "-o", fixed, "--force", "--lenient")
		}
		require.Equal(t, 0, code, "%s: %s", tc.file, errOut)
		require.Contains(t, errOut, "the file is complete; "+strconv.Itoa(tc.rows)+" rows, nothing lost", tc.file)
		want, err := os.ReadFile(tc.file)
		require.NoError(t, err)
		got, err := os.ReadFile(fixed)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "%s: FIXED is not a copy", tc.file)
	}
}
