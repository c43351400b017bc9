//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestDatasetDirWarnings: convert reads a data directory whose files are
// linked from elsewhere as it reads the files themselves, names every
// unusual file it leaves out on stderr, and stops on a .resource that
// does not cover its data file unless --lenient (the file's own index,
// with a warning) or --trust-resources (unchecked, as documented).
func TestDatasetDirWarnings(t *testing.T) {
	resource := func(devs ...dataset.DeviceTimes) []byte {
		b, err := (&dataset.Resource{IndexType: dataset.IndexArray, Devices: devs}).AppendBinary(nil)
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string)
		args  []string
		code  int
		rows  []string // when code is 0
		// stderr holds each; warnings is how many warning lines it has.
		stderr   []string
		warnings int
	}{
		{name: "links and special files", setup: func(t *testing.T, root string) {
			// The unsequence file and its resource live elsewhere.
			unseq := layoutPath(root, "unsequence", 2, 2)
			for _, suf := range []string{"", dataset.ResourceSuffix} {
				to := filepath.Join(t.TempDir(), filepath.Base(unseq+suf))
				require.NoError(t, os.Rename(unseq+suf, to))
				require.NoError(t, os.Symlink(to, unseq+suf))
			}
			part := filepath.Dir(layoutPath(root, "sequence", 1, 1))
			require.NoError(t, syscall.Mkfifo(filepath.Join(part, "5-5-0-0.tsfile"), 0o644))
			b, err := os.ReadFile(layoutPath(root, "sequence", 1, 1))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(part, "copy.tsfile"), b, 0o644))
			require.NoError(t, os.Symlink("/nonexistent", filepath.Join(part, "9-9-0-0.tsfile")))
		}, rows: resolvedRows, warnings: 3, stderr: []string{
			"ts2arrow: warning: {part}/5-5-0-0.tsfile: skipped: a named pipe (FIFO), not a regular file; never opened\n",
			"ts2arrow: warning: {part}/9-9-0-0.tsfile: skipped: broken symbolic link (its target does not exist); not read\n",
			"ts2arrow: warning: {part}/copy.tsfile: skipped: dataset: not an IoTDB TsFile name",
			"IoTDB could not order its points against the other files' (the time and version in the name decide), so it is not read; rename it as IoTDB names files, or read it alone with --raw\n",
		}},
		{name: "mods file a named pipe", setup: func(t *testing.T, root string) {
			m := layoutPath(root, "sequence", 1, 1) + dataset.ModsV2Suffix
			require.NoError(t, os.Remove(m))
			require.NoError(t, syscall.Mkfifo(m, 0o644))
		}, code: 1, stderr: []string{"1-1-0-0.tsfile.mods2 is a named pipe (FIFO) beside the data file 1-1-0-0.tsfile: its deletions cannot be read, and without them the rows they delete would come back; replace it with the mods file, or read with --lenient"}},
		{name: "resource cut short", setup: func(t *testing.T, root string) {
			// a@2 lies before the start the resource gives: pruned by it,
			// the overwritten a@2=20 would come back.
			p := layoutPath(root, "unsequence", 2, 2) + dataset.ResourceSuffix
			require.NoError(t, os.WriteFile(p, resource(dataset.DeviceTimes{Device: tsfile.NewDeviceID("t", "a"), Start: 3, End: 2}), 0o644))
		}, code: 1, stderr: []string{"2-2-0-0.tsfile.resource does not match the index of its data file: it says device t.a spans [3, 2], but the file holds it over [2, 2]; IoTDB prunes files and devices by the resource"}},
		{name: "resource cut short, lenient", args: []string{"--lenient"}, setup: func(t *testing.T, root string) {
			p := layoutPath(root, "unsequence", 2, 2) + dataset.ResourceSuffix
			require.NoError(t, os.WriteFile(p, resource(dataset.DeviceTimes{Device: tsfile.NewDeviceID("t", "a"), Start: 3, End: 2}), 0o644))
		}, rows: resolvedRows, warnings: 1, stderr: []string{"2-2-0-0.tsfile.resource does not match the index of its data file: it says device t.a spans [3, 2], but the file holds it over [2, 2]; reading "}},
		{name: "resource cut short, trusted", args: []string{"--trust-resources"}, setup: func(t *testing.T, root string) {
			p := layoutPath(root, "unsequence", 2, 2) + dataset.ResourceSuffix
			require.NoError(t, os.WriteFile(p, resource(dataset.DeviceTimes{Device: tsfile.NewDeviceID("t", "a"), Start: 3, End: 2}), 0o644))
		}, rows: []string{"1,a,10", "1,b,100", "2,a,20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := iotdbDir(t)
			tc.setup(t, root)
			part := filepath.Dir(layoutPath(root, "sequence", 1, 1))
			code, out, errOut := runCLI(append([]string{"convert", "--format", "csv", "--time-format", "epoch", "-o", "-", root}, tc.args...)...)
			require.Equal(t, tc.code, code, errOut)
			if code == 0 {
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				rows := slices.Clone(lines[1:])
				slices.Sort(rows)
				require.Equal(t, tc.rows, rows)
				require.Equal(t, tc.warnings, strings.Count(errOut, "ts2arrow: warning: "), errOut)
			}
			for _, s := range tc.stderr {
				require.Contains(t, errOut, strings.ReplaceAll(s, "{part}", part))
			}
			require.NotContains(t, errOut, "flushed or compacted")
		})
	}
}

// TestConvertRawSpecialFile: a named pipe or a device given (or found) as
// a TsFile outside IoTDB data is refused before it is opened, not waited
// on for ever.
func TestConvertRawSpecialFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.tsfile")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(dir, "zero.tsfile")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for _, in := range []string{fifo, zero} {
		code, _, errOut := runCLI("convert", "--format", "csv", "-o", "-", in)
		require.NotEqual(t, 0, code)
		require.Contains(t, errOut, in+": not a regular file (mode ")
	}
}
