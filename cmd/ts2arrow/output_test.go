package main

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// absSample is the sample's absolute path, for tests that change the
// working directory.
func absSample(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(sample)
	require.NoError(t, err)
	return p
}

// treeOf lists the files under dir, relative and sorted, and "" for an
// empty or missing directory.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	sort.Strings(files)
	return files
}

// namesIn lists the entries of dir.
func namesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

var deviceDataset = []string{
	"table=weather/device=weather.north.s01/part-0.parquet",
	"table=weather/device=weather.north.s02/part-0.parquet",
	"table=weather/device=weather.south.s01/part-0.parquet",
}

var tableDataset = []string{"table=weather/part-0.parquet"}

// TestOutputSpellings: every spelling of OUT writes (and with --force
// replaces) the same place, for a single file and for a dataset, and
// leaves nothing beside it. A trailing slash used to put the temporary
// inside OUT itself: a fresh run failed, and --force deleted the old
// dataset and wrote nothing.
func TestOutputSpellings(t *testing.T) {
	in := absSample(t)
	all, north := sampleRows(t), convertCSV(t, in, "--where", "region=north")
	for _, tc := range []struct {
		name  string
		spell func(root string) string
		file  bool // a spelling a single file may have
	}{
		{"plain", func(string) string { return "out" }, true},
		{"slash", func(string) string { return "out/" }, false},
		{"slashes", func(string) string { return "out//" }, false},
		{"dot-slash", func(string) string { return "./out" }, true},
		{"slash-dot", func(string) string { return "out/." }, false},
		{"dotdot", func(string) string { return "sub/../out" }, true},
		{"absolute", func(root string) string { return filepath.Join(root, "out") }, true},
		{"absolute-slash", func(root string) string { return filepath.Join(root, "out") + "/" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			t.Chdir(root)
			require.NoError(t, os.Mkdir("sub", 0o755))
			out := tc.spell(root)

			// A dataset: fresh, then replaced by another layout.
			code, _, errOut := runCLI("convert", in, "-o", out, "--partition-by", "device")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, deviceDataset, treeOf(t, filepath.Join(root, "out")))
			code, _, errOut = runCLI("convert", in, "-o", out, "--partition-by", "table")
			require.Equal(t, 2, code, errOut)
			require.Contains(t, errOut, "exists; pass --force")
			code, _, errOut = runCLI("convert", in, "-o", out, "--partition-by", "table", "--force")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, tableDataset, treeOf(t, filepath.Join(root, "out")))
			require.ElementsMatch(t, []string{"out", "sub"}, namesIn(t, root))
			require.Empty(t, namesIn(t, filepath.Join(root, "sub")))
			require.NoError(t, os.RemoveAll(filepath.Join(root, "out")))

			// A single file.
			code, _, errOut = runCLI("convert", in, "-o", out, "--format", "csv", "--time-format", "epoch")
			if !tc.file {
				require.Equal(t, 2, code, errOut)
				require.Contains(t, errOut, "names a directory; name the output file")
				require.ElementsMatch(t, []string{"sub"}, namesIn(t, root))
				return
			}
			require.Equal(t, 0, code, errOut)
			require.Equal(t, all, csvLines(t, filepath.Join(root, "out")))
			code, _, errOut = runCLI("convert", in, "-o", out, "--format", "csv", "--time-format", "epoch", "--where", "region=north", "--force")
			require.Equal(t, 0, code, errOut)
			require.Equal(t, north, csvLines(t, filepath.Join(root, "out")))
			require.ElementsMatch(t, []string{"out", "sub"}, namesIn(t, root))
		})
	}
}

// TestForceReplacesOnlyOurs: --force replaces a file by a file and a
// dataset ts2arrow wrote by a dataset, and refuses everything else
// without touching it, naming what is in the way.
func TestForceReplacesOnlyOurs(t *testing.T) {
	in := absSample(t)
	dir := t.TempDir()
	keep := []byte("my notes\n")

	// A directory of the user's: its first foreign file is named.
	mine := filepath.Join(dir, "mydir")
	require.NoError(t, os.MkdirAll(filepath.Join(mine, "table=weather"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mine, "table=weather", "part-0.parquet"), []byte("PAR1"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(mine, "notes.txt"), keep, 0o644))
	code, _, errOut := runCLI("convert", in, "-o", mine, "--partition-by", "device", "--force")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "holds notes.txt, which ts2arrow did not write")
	require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	require.Equal(t, []string{"notes.txt", "table=weather/part-0.parquet"}, treeOf(t, mine))
	require.Equal(t, []string{"mydir"}, namesIn(t, dir))

	// A dataset of ours with a foreign file deep inside.
	ds := filepath.Join(dir, "ds")
	code, _, errOut = runCLI("convert", in, "-o", ds, "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	extra := filepath.Join(ds, "table=weather", "device=weather.north.s01", "keep.me")
	require.NoError(t, os.WriteFile(extra, keep, 0o644))
	code, _, errOut = runCLI("convert", in, "-o", ds, "--partition-by", "table", "--force")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, filepath.Join("table=weather", "device=weather.north.s01", "keep.me"))
	require.FileExists(t, extra)
	require.NoError(t, os.Remove(extra))
	// Without it, it is ours again.
	code, _, errOut = runCLI("convert", in, "-o", ds, "--partition-by", "table", "--force")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, tableDataset, treeOf(t, ds))

	// A file in the place of a dataset, a directory in the place of a
	// file: refused whatever their content.
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, keep, 0o644))
	code, _, errOut = runCLI("convert", in, "-o", file, "--partition-by", "device", "--force")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "is a file; --partition-by writes a directory")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, keep, b)
	for _, target := range []string{ds, mine, filepath.Join(dir, "empty.csv")} {
		require.NoError(t, os.MkdirAll(target, 0o755))
		before := treeOf(t, target)
		code, _, errOut = runCLI("convert", in, "-o", target, "--format", "csv", "--force")
		require.Equal(t, 2, code, errOut)
		require.Contains(t, errOut, "is a directory; --force replaces a file only by a file")
		require.Equal(t, before, treeOf(t, target))
	}

	// Symbolic links: a dangling one exists; one to a dataset is not
	// followed.
	dangling := filepath.Join(dir, "dangling.csv")
	require.NoError(t, os.Symlink("nowhere", dangling))
	code, _, errOut = runCLI("convert", in, "-o", dangling)
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "exists; pass --force")
	code, _, errOut = runCLI("convert", in, "-o", dangling, "--force")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "is not a regular file")
	dslink := filepath.Join(dir, "dslink")
	require.NoError(t, os.Symlink("ds", dslink))
	code, _, errOut = runCLI("convert", in, "-o", dslink, "--partition-by", "device", "--force")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "is a symbolic link")
	require.Equal(t, tableDataset, treeOf(t, ds))

	// OUT's parent must be a directory that exists.
	for path, msg := range map[string]string{
		filepath.Join(dir, "nowhere", "x.csv"): "directory " + filepath.Join(dir, "nowhere") + " does not exist",
		filepath.Join(file, "x.csv"):           file + " is not a directory",
	} {
		code, _, errOut = runCLI("convert", in, "-o", path)
		require.Equal(t, 2, code, errOut)
		require.Contains(t, errOut, "cannot write -o "+path+": "+msg)
	}
	require.ElementsMatch(t, []string{"mydir", "ds", "file", "empty.csv", "dangling.csv", "dslink"}, namesIn(t, dir))
}

// TestForceRefusesPlaces: directories no output may replace, even empty
// of anything but a dataset's layout and with --force.
func TestForceRefusesPlaces(t *testing.T) {
	in := absSample(t)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	work := filepath.Join(home, "work")
	require.NoError(t, os.MkdirAll(work, 0o755))
	t.Setenv("HOME", home)
	t.Chdir(work)
	inputs := filepath.Join(root, "inputs")
	copyFile(t, in, filepath.Join(inputs, "table=weather", "part-0.parquet.tsfile"))
	for _, tc := range []struct {
		out, why string
	}{
		{".", "it is the current directory"},
		{"./", "it is the current directory"},
		{work, "it is the current directory"},
		{"..", "it holds the current directory"},
		{"../..", "it holds the current directory"},
		{"/", "it is the root directory"},
		{home, "it holds the current directory"},
		{inputs, "it holds the input"},
	} {
		for _, kind := range [][]string{{"--partition-by", "device"}, {"--format", "csv"}} {
			args := append([]string{"convert", filepath.Join(inputs, "table=weather", "part-0.parquet.tsfile"), "-o", tc.out, "--force"}, kind...)
			code, _, errOut := runCLI(args...)
			require.Equal(t, 2, code, "%v: %s", args, errOut)
			require.Contains(t, errOut, "refusing to write -o "+tc.out+": "+tc.why, args)
		}
	}
	// The home directory itself, from elsewhere.
	t.Chdir(root)
	code, _, errOut := runCLI("convert", in, "-o", "home", "--partition-by", "device", "--force")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "it is your home directory")
	require.Equal(t, []string{"home", "inputs"}, namesIn(t, root))
	require.Equal(t, []string{"work"}, namesIn(t, home))
	require.Equal(t, []string{"table=weather/part-0.parquet.tsfile"}, treeOf(t, inputs))
}

// TestOutputIsAnInput: OUT may not be an input, whatever its spelling and
// even with --force: it is read while OUT is written.
func TestOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	ts := filepath.Join(dir, "x.tsfile")
	copyFile(t, sample, ts)
	pq := filepath.Join(dir, "x.parquet")
	code, _, errOut := runCLI("convert", sample, "-o", pq)
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.Symlink("x.tsfile", filepath.Join(dir, "link.tsfile")))
	require.NoError(t, os.Link(ts, filepath.Join(dir, "hard.tsfile")))
	tsBytes, err := os.ReadFile(ts)
	require.NoError(t, err)
	pqBytes, err := os.ReadFile(pq)
	require.NoError(t, err)
	for _, args := range [][]string{
		{"convert", ts, "-o", ts, "--force"},
		{"convert", ts, "-o", filepath.Join(dir, "sub", "..", "x.tsfile"), "--force"},
		{"convert", ts, "-o", filepath.Join(dir, "link.tsfile"), "--force"},
		{"convert", filepath.Join(dir, "link.tsfile"), "-o", ts, "--force"},
		{"convert", ts, "-o", filepath.Join(dir, "hard.tsfile"), "--force"},
		{"convert", sample, dir, "-o", ts, "--force"},
		{"convert", pq, "-o", pq, "--format", "tsfile", "--force"},
		{"convert", pq, "-o", pq, "--format", "tsfile"},
		{"recover", ts, "-o", ts, "--force"},
		{"recover", ts, "-o", ts},
		{"recover", ts, "-o", filepath.Join(dir, "link.tsfile"), "--force"},
		{"recover", sample, "-o", ts, "--schema-from", filepath.Join(dir, "hard.tsfile"), "--force"},
	} {
		code, _, errOut := runCLI(args...)
		require.Equal(t, 2, code, "%v: %s", args, errOut)
		require.Contains(t, errOut, "is the input", args)
		require.Contains(t, errOut, "not even --force replaces an input", args)
	}
	b, err := os.ReadFile(ts)
	require.NoError(t, err)
	require.Equal(t, tsBytes, b)
	b, err = os.ReadFile(pq)
	require.NoError(t, err)
	require.Equal(t, pqBytes, b)
	require.ElementsMatch(t, []string{"x.tsfile", "x.parquet", "link.tsfile", "hard.tsfile"}, namesIn(t, dir))
}

// TestRecoverForce: recover refuses an existing FIXED unless --force.
func TestRecoverForce(t *testing.T) {
	broken, _, _ := cutSample(t)
	fixed := filepath.Join(t.TempDir(), "fixed.tsfile")
	require.NoError(t, os.WriteFile(fixed, []byte("keep me"), 0o644))
	code, _, errOut := runCLI("recover", broken, "-o", fixed)
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "exists; pass --force")
	b, err := os.ReadFile(fixed)
	require.NoError(t, err)
	require.Equal(t, "keep me", string(b))
	code, _, errOut = runCLI("recover", broken, "-o", fixed, "--force")
	require.Equal(t, 0, code, errOut)
	b, err = os.ReadFile(fixed)
	require.NoError(t, err)
	require.Equal(t, "TsFile", string(b[:6]))
	code, _, errOut = runCLI("recover", broken, "-o", filepath.Dir(fixed), "--force")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "is a directory")
}

// TestDatasetSwapFails: when the new dataset cannot take the old one's
// place, the old one is put back whole and no temporary is left.
func TestDatasetSwapFails(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI("convert", sample, "-o", out, "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	defer func(r func(string, string) error) { renameDir = r }(renameDir)
	renameDir = func(string, string) error { return errors.New("the disk said no") }
	code, _, errOut = runCLI("convert", sample, "-o", out, "--partition-by", "table", "--force")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "the disk said no")
	require.Equal(t, deviceDataset, treeOf(t, out))
	require.Equal(t, []string{"out"}, namesIn(t, dir))
}
