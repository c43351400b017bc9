//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// deadPid returns the id of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	pid := cmd.ProcessState.Pid()
	require.True(t, processGone(pid), "pid %d was reused at once", pid)
	return pid
}

// TestStaleTemps: a run removes the temporaries beside its OUT that a
// killed process left, says so, and touches nothing else: not those of a
// live process, not near-misses of the pattern, not another OUT's.
func TestStaleTemps(t *testing.T) {
	dir := t.TempDir()
	dead, live := strconv.Itoa(deadPid(t)), strconv.Itoa(os.Getpid())
	stale := []string{
		".x.csv.tsarrow-tmp-" + dead + "-123",
		".out.tsarrow-tmp-" + dead + "-7", // a dataset being built
		".out.tsarrow-old-" + dead + "-8", // a replaced dataset, OUT in place
	}
	kept := []string{
		"x.csv.tsarrow-tmp-" + dead + "-123",
		".x.csv.tsarrow-tmp-" + live + "-124",
		".x.csv.tmp-125",
		".x.csv.tsarrow-tmp-" + dead + "-12a",
		".x.csv.tsarrow-tmp-" + dead + "-",
		".x.csv.tsarrow-tmp-" + dead + "-1.bak",
		".y.csv.tsarrow-tmp-" + dead + "-1",
		".x.csv.x.tsarrow-tmp-" + dead + "-1",
		".out.tsarrow-tmp-" + live + "-9",
	}
	code, _, errOut := runCLI("convert", sample, "-o", filepath.Join(dir, "out"), "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	for _, n := range append(append([]string{}, stale...), kept...) {
		if strings.HasPrefix(n, ".out.") {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, n, "table=weather"), 0o755))
		} else {
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("half written"), 0o644))
		}
	}
	code, _, errOut = runCLI("convert", sample, "-o", filepath.Join(dir, "x.csv"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "ts2arrow: removed stale temporary file "+filepath.Join(dir, stale[0])+" left by process "+dead+"\n", errOut)

	code, _, errOut = runCLI("convert", sample, "-o", filepath.Join(dir, "out"), "--partition-by", "table", "--force")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "removed stale temporary file "+filepath.Join(dir, stale[1])+" left by process "+dead+"\n")
	require.Contains(t, errOut, "removed stale temporary file "+filepath.Join(dir, stale[2])+" left by process "+dead+"\n")
	require.ElementsMatch(t, append([]string{"x.csv", "out"}, kept...), namesIn(t, dir))
	require.Equal(t, tableDataset, treeOf(t, filepath.Join(dir, "out")))
}

// TestStaleAsideRestored: a process killed between moving the old dataset
// aside and moving the new one in leaves OUT missing; the next run into
// OUT puts the old one back before anything else.
func TestStaleAsideRestored(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI("convert", sample, "-o", out, "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	dead := strconv.Itoa(deadPid(t))
	aside := filepath.Join(dir, ".out.tsarrow-old-"+dead+"-5")
	require.NoError(t, os.Rename(out, aside))
	code, _, errOut = runCLI("convert", sample, "-o", out+"/", "--partition-by", "table")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "ts2arrow: restored "+out+" from "+aside+": process "+dead+" was killed while replacing it\n")
	require.Contains(t, errOut, "exists; pass --force")
	require.Equal(t, deviceDataset, treeOf(t, out))
	require.Equal(t, []string{"out"}, namesIn(t, dir))
}
