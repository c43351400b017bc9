//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/durable"
)

// The tests of this file check issue 36 point 5: an output the CLI
// reports as written survives a power loss. An fsync cannot be observed
// from outside, so they watch the steps of internal/durable in the order
// they completed and check, for each output, that what was renamed into
// place had been synced before the rename, and that the directory the
// rename changed was synced after it. (Unix only: Windows does not sync
// directories.)

// stepLog records the durable steps of one test.
type stepLog struct {
	mu    sync.Mutex
	steps []durable.Step
}

func watchSteps(t *testing.T) *stepLog {
	t.Helper()
	l := &stepLog{}
	stop := durable.Watch(func(s durable.Step) {
		l.mu.Lock()
		l.steps = append(l.steps, s)
		l.mu.Unlock()
	})
	t.Cleanup(stop)
	return l
}

func (l *stepLog) get() []durable.Step {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.steps)
}

// find returns the index of the last step of op on path before end, or -1.
func find(steps []durable.Step, op, path string, end int) int {
	for i := min(end, len(steps)) - 1; i >= 0; i-- {
		if steps[i].Op == op && steps[i].Path == path {
			return i
		}
	}
	return -1
}

// requirePublished checks that out was put in place by a rename (or link)
// whose old name was synced before it, and that out's directory was synced
// after it; it returns the rename's step.
func requirePublished(t *testing.T, steps []durable.Step, op, out string) (int, durable.Step) {
	t.Helper()
	i := find(steps, op, out, len(steps))
	require.GreaterOrEqual(t, i, 0, "no %s to %s in %v", op, out, steps)
	after := steps[i+1:]
	require.GreaterOrEqual(t, find(after, "syncdir", filepath.Dir(out), len(after)), 0,
		"the directory of %s is not synced after the %s: %v", out, op, steps)
	return i, steps[i]
}

// requireFileDurable checks a file output: its temporary was synced, then
// renamed to out, then out's directory synced.
func requireFileDurable(t *testing.T, steps []durable.Step, out string) {
	t.Helper()
	i, s := requirePublished(t, steps, "rename", out)
	require.GreaterOrEqual(t, find(steps, "sync", s.From, i), 0,
		"the temporary %s is not synced before its rename to %s: %v", s.From, out, steps)
}

// requireDatasetDurable checks a directory output: every part file was
// synced, every directory of the tree was synced after the parts written
// into it and before the tree was renamed to out, and out's directory was
// synced after that.
func requireDatasetDurable(t *testing.T, steps []durable.Step, out string) {
	t.Helper()
	i, s := requirePublished(t, steps, "rename", out)
	tmp := s.From
	dirs, files := 0, 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, err := filepath.Rel(out, p)
		require.NoError(t, err)
		was := filepath.Join(tmp, rel) // its name while the tree was built
		if d.IsDir() {
			dirs++
			j := find(steps, "syncdir", was, i)
			require.GreaterOrEqual(t, j, 0, "directory %s (%s) not synced before the tree's rename: %v", rel, was, steps)
			for k, st := range steps[:i] {
				if st.Op == "sync" && filepath.Dir(st.Path) == was {
					require.Greater(t, j, k, "directory %s synced before %v", rel, st)
				}
			}
			return nil
		}
		// A part is renamed within the tree with os.Rename (the tree's
		// directories are synced once, above), so the step to see is the
		// sync of its temporary, before its directory's sync.
		files++
		j := find(steps, "syncdir", filepath.Dir(was), i)
		k := slices.IndexFunc(steps[:max(j, 0)], func(st durable.Step) bool {
			return st.Op == "sync" && filepath.Dir(st.Path) == filepath.Dir(was) &&
				strings.HasPrefix(filepath.Base(st.Path), tempPrefix(was))
		})
		require.GreaterOrEqual(t, k, 0, "part %s not synced before its directory: %v", rel, steps)
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, dirs, 1, "the dataset has no partition directory")
	require.Greater(t, files, 0, "the dataset has no part")
}

func TestFileOutputsAreDurable(t *testing.T) {
	dir := t.TempDir()
	parquet := filepath.Join(dir, "x.parquet")
	broken, _, _ := cutSample(t)
	cases := []struct {
		name string
		args []string
		out  string
	}{
		{"convert to parquet", []string{"convert", sample, "-o", parquet}, parquet},
		{"convert to csv", []string{"convert", sample, "-o", filepath.Join(dir, "x.csv")}, filepath.Join(dir, "x.csv")},
		{"convert over a file", []string{"convert", sample, "-o", filepath.Join(dir, "x.csv"), "--force", "--format", "jsonl"}, filepath.Join(dir, "x.csv")},
		{"reverse to TsFile", []string{"convert", parquet, "-o", filepath.Join(dir, "back.tsfile")}, filepath.Join(dir, "back.tsfile")},
		{"recover", []string{"recover", broken, "-o", filepath.Join(dir, "fixed.tsfile")}, filepath.Join(dir, "fixed.tsfile")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := watchSteps(t)
			code, _, errOut := runCLI(c.args...)
			require.Equal(t, 0, code, errOut)
			require.FileExists(t, c.out)
			requireFileDurable(t, log.get(), c.out)
		})
	}
}

func TestDatasetOutputsAreDurable(t *testing.T) {
	root := iotdbDir(t)
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
	}{
		{"files by device", []string{"convert", sample, "--partition-by", "device"}},
		{"files by table", []string{"convert", sample, "--partition-by", "table", "--format", "csv"}},
		{"IoTDB data by device", []string{"convert", root, "--partition-by", "device", "--format", "csv"}},
		{"IoTDB data by table", []string{"convert", root, "--partition-by", "table"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "ds"+strconv.Itoa(i))
			log := watchSteps(t)
			code, _, errOut := runCLI(append(c.args, "-o", out, "--quiet")...)
			require.Equal(t, 0, code, errOut)
			requireDatasetDurable(t, log.get(), out)
		})
	}
}

// TestReplacedDatasetIsDurable: --force over a dataset renames the old one
// aside and syncs that before the new one takes its place, so that after
// a power loss OUT is one of the two whole, or the old one is aside where
// the next run restores it.
func TestReplacedDatasetIsDurable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runCLI("convert", sample, "-o", out, "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	log := watchSteps(t)
	code, _, errOut = runCLI("convert", sample, "-o", out, "--partition-by", "table", "--force")
	require.Equal(t, 0, code, errOut)
	steps := log.get()
	requireDatasetDurable(t, steps, out)
	i := find(steps, "rename", out, len(steps))
	aside := -1
	for k, s := range steps[:i] {
		if s.Op == "rename" && s.From == out {
			aside = k
		}
	}
	require.GreaterOrEqual(t, aside, 0, "the old dataset was not renamed aside: %v", steps)
	sync := find(steps[:i], "syncdir", filepath.Dir(out), i)
	require.Greater(t, sync, aside, "the rename aside is not synced before the new dataset's rename: %v", steps)
}

// TestRestoredAsideIsDurable: the next run putting back a dataset that a
// killed run left aside syncs the directory after the rename.
func TestRestoredAsideIsDurable(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI("convert", sample, "-o", out, "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	aside := filepath.Join(dir, ".out.tsarrow-old-"+strconv.Itoa(deadPid(t))+"-5")
	require.NoError(t, os.Rename(out, aside))
	log := watchSteps(t)
	code, _, errOut = runCLI("convert", sample, "-o", out, "--partition-by", "table")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "restored "+out)
	_, s := requirePublished(t, log.get(), "rename", out)
	require.Equal(t, aside, s.From)
}
