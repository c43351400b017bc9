//go:build unix

package dataset

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestDiscoverLinksAndSpecialFiles: in a copy of the sample data
// directory, files and folders moved elsewhere and linked back read as
// before, and every file left out is named with its reason; named pipes
// and devices are never opened (a pipe would block the read).
func TestDiscoverLinksAndSpecialFiles(t *testing.T) {
	want, _, err := readAllRows(sampleDir, nil)
	require.NoError(t, err)
	const (
		p0   = "sequence/weather/1/0"
		seq2 = p0 + "/1767268800000-2-0-0.tsfile"
	)
	// moveAndLink moves rel out of the directory and links it back.
	moveAndLink := func(t *testing.T, root, rel string) {
		from := filepath.Join(root, rel)
		to := filepath.Join(t.TempDir(), filepath.Base(rel))
		require.NoError(t, os.Rename(from, to))
		require.NoError(t, os.Symlink(to, from))
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string)
		// sameRows: the rows are the sample's; else they differ (the
		// deletions of a mods file left out, under Lenient).
		sameRows bool
		lenient  bool
		errText  string   // the open fails saying so
		warnings []string // each is in one of the warnings, which are that many
	}{
		{name: "linked partition folder", sameRows: true, setup: func(t *testing.T, root string) {
			moveAndLink(t, root, "sequence/weather/1/1")
		}},
		{name: "linked space folder", sameRows: true, setup: func(t *testing.T, root string) {
			moveAndLink(t, root, "unsequence")
		}},
		{name: "linked data file", sameRows: true, setup: func(t *testing.T, root string) {
			moveAndLink(t, root, seq2)
		}},
		{name: "linked data file, resource and mods", sameRows: true, setup: func(t *testing.T, root string) {
			for _, suf := range []string{"", ResourceSuffix, ModsV2Suffix} {
				moveAndLink(t, root, seq2+suf)
			}
		}},
		{name: "linked by a relative path", sameRows: true, setup: func(t *testing.T, root string) {
			from := filepath.Join(root, "sequence/weather/1/1")
			require.NoError(t, os.Rename(from, filepath.Join(root, "sequence/weather/1/elsewhere")))
			require.NoError(t, os.Symlink("elsewhere", from))
		}, warnings: []string{"elsewhere: skipped: the same folder as"}},
		{name: "loop", sameRows: true, setup: func(t *testing.T, root string) {
			require.NoError(t, os.Symlink("..", filepath.Join(root, p0, "up")))
		}, warnings: []string{"/up: skipped: symbolic link loop"}},
		{name: "folder linked twice", sameRows: true, setup: func(t *testing.T, root string) {
			require.NoError(t, os.Symlink("1", filepath.Join(root, "sequence/weather/1/7")))
		}, warnings: []string{"sequence/weather/1/1 (through a symbolic link), read once there"}},
		{name: "data file linked twice", sameRows: true, setup: func(t *testing.T, root string) {
			require.NoError(t, os.Symlink(filepath.Join(root, seq2), filepath.Join(root, p0, "1767268800000-2-0-0.tsfile.copy")))
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sequence/weather/1/5"), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(root, seq2), filepath.Join(root, "sequence/weather/1/5/1767268800000-2-0-0.tsfile")))
		}, warnings: []string{
			".tsfile.copy: skipped: not a data file",
			"weather/1/5/1767268800000-2-0-0.tsfile: skipped: the same file as",
		}},
		{name: "broken link", sameRows: true, setup: func(t *testing.T, root string) {
			require.NoError(t, os.Symlink("/nonexistent/9-9-0-0.tsfile", filepath.Join(root, p0, "1767400000000-9-0-0.tsfile")))
		}, warnings: []string{"1767400000000-9-0-0.tsfile: skipped: broken symbolic link (its target does not exist)"}},
		{name: "named pipe as a data file", sameRows: true, setup: func(t *testing.T, root string) {
			require.NoError(t, syscall.Mkfifo(filepath.Join(root, p0, "1767400000000-9-0-0.tsfile"), 0o644))
		}, warnings: []string{"1767400000000-9-0-0.tsfile: skipped: a named pipe (FIFO), not a regular file; never opened"}},
		{name: "named pipe as a resource", sameRows: true, setup: func(t *testing.T, root string) {
			// Read by its own index, as IoTDB rebuilds a missing resource.
			require.NoError(t, os.Remove(filepath.Join(root, seq2+ResourceSuffix)))
			require.NoError(t, syscall.Mkfifo(filepath.Join(root, seq2+ResourceSuffix), 0o644))
		}, warnings: []string{".tsfile.resource: skipped: a named pipe (FIFO)"}},
		{name: "named pipe as a mods file", setup: func(t *testing.T, root string) {
			require.NoError(t, os.Remove(filepath.Join(root, seq2+ModsV2Suffix)))
			require.NoError(t, syscall.Mkfifo(filepath.Join(root, seq2+ModsV2Suffix), 0o644))
		}, errText: ".tsfile.mods2 is a named pipe (FIFO) beside the data file 1767268800000-2-0-0.tsfile: its deletions cannot be read"},
		{name: "named pipe as a mods file, lenient", lenient: true, setup: func(t *testing.T, root string) {
			require.NoError(t, os.Remove(filepath.Join(root, seq2+ModsV2Suffix)))
			require.NoError(t, syscall.Mkfifo(filepath.Join(root, seq2+ModsV2Suffix), 0o644))
		}, warnings: []string{".tsfile.mods2: skipped: a named pipe (FIFO), not a regular file; never opened; its deletions are not applied"}},
		{name: "/dev/zero as a mods file", setup: func(t *testing.T, root string) {
			require.NoError(t, os.Remove(filepath.Join(root, seq2+ModsV2Suffix)))
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, seq2+ModsV2Suffix)))
		}, errText: ".tsfile.mods2 is a character device beside the data file"},
		{name: "name IoTDB cannot parse", sameRows: true, setup: func(t *testing.T, root string) {
			b, err := os.ReadFile(filepath.Join(root, seq2))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(root, p0, "backup.tsfile"), b, 0o644))
		}, warnings: []string{"backup.tsfile\" has 1 of the 4 fields time-version-inner-cross: IoTDB could not order its points against the other files'"}},
		{name: "data file outside a partition folder", sameRows: true, setup: func(t *testing.T, root string) {
			b, err := os.ReadFile(filepath.Join(root, seq2))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(root, "sequence/weather/1767268800000-2-0-0.tsfile"), b, 0o644))
		}, warnings: []string{"weather/1767268800000-2-0-0.tsfile: skipped: not in a {database}/{region}/{partition} folder of sequence"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "data")
			copyTree(t, sampleDir, root)
			tc.setup(t, root)
			o := &Options{}
			if tc.lenient {
				o.Read = &tsfile.ReadOptions{Lenient: true}
			}
			rows, ws, err := readAllRows(root, o)
			if tc.errText != "" {
				require.ErrorContains(t, err, tc.errText)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.sameRows, sameRows(rows, want), "rows:\n%s", rows)
			// The sample's own warning-free read: only the expected ones.
			got := ws
			require.Len(t, got, len(tc.warnings), "%q", got)
			for _, w := range tc.warnings {
				found := false
				for _, g := range got {
					found = found || strings.Contains(g, w)
				}
				require.True(t, found, "no warning holds %q: %q", w, got)
			}
		})
	}
}

// permCases are the files TestPermissionDenied makes unreadable, one
// copy of the sample directory each.
var permCases = []struct {
	name  string
	rel   string // under the data directory; mode 000
	trust bool
}{
	{"data file, checked at open", "sequence/weather/1/0/1767268800000-2-0-0.tsfile", false},
	{"data file, read trusted", "sequence/weather/1/0/1767268800000-2-0-0.tsfile", true},
	{"mods file", "sequence/weather/1/0/1767268800000-2-0-0.tsfile.mods2", false},
	{"resource", "sequence/weather/1/0/1767268800000-2-0-0.tsfile.resource", false},
	{"partition folder", "sequence/weather/1/1", false},
}

// TestPermissionDenied: a data file, companion or folder this user may not
// read is reported as such, with what to do, and not as the directory
// changing under the read (ErrChanged). Run as root, who reads anything,
// the test runs itself again as user nobody.
func TestPermissionDenied(t *testing.T) {
	base := os.Getenv("TSARROW_PERMISSION_DIR")
	if base == "" {
		base = t.TempDir()
		for i, tc := range permCases {
			d := filepath.Join(base, fmt.Sprint(i))
			copyTree(t, sampleDir, d)
			p := filepath.Join(d, tc.rel)
			require.NoError(t, os.Chmod(p, 0))
			t.Cleanup(func() { os.Chmod(p, 0o755) })
		}
		if os.Geteuid() == 0 {
			asNobody(t, base)
			return
		}
	}
	for i, tc := range permCases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAllRows(filepath.Join(base, fmt.Sprint(i)), &Options{TrustResources: tc.trust})
			require.Error(t, err)
			require.NotErrorIs(t, err, ErrChanged)
			require.ErrorContains(t, err, filepath.Join(base, fmt.Sprint(i), tc.rel)+": permission denied: this user may not")
		})
	}
}

// asNobody runs TestPermissionDenied again as user nobody, on a copy of
// the test binary beside base, every folder up to base made reachable and
// every file readable but those of permCases (mode 000, owned by root).
func asNobody(t *testing.T, base string) {
	t.Helper()
	// The test's own folder is opened to others; a folder above it that
	// nobody cannot pass is left alone, and the test skipped.
	require.NoError(t, os.Chmod(filepath.Dir(base), 0o755))
	for p := filepath.Dir(filepath.Dir(base)); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		require.NoError(t, err)
		if st.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s is not searchable by others, so user nobody cannot reach the test's files", p)
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	locked := map[string]bool{}
	for i, tc := range permCases {
		locked[filepath.Join(base, fmt.Sprint(i), tc.rel)] = true
	}
	require.NoError(t, filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case locked[p] && e.IsDir():
			return filepath.SkipDir
		case locked[p]:
			return nil
		case e.IsDir():
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o644)
	}))
	bin := filepath.Join(base, "dataset.test")
	b, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, b, 0o755))
	cmd := exec.Command(bin, "-test.run", "^TestPermissionDenied$", "-test.v")
	cmd.Dir = base
	cmd.Env = append(os.Environ(), "TSARROW_PERMISSION_DIR="+base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestPermissionDenied/partition_folder")
}

// TestDiscoverRootsTwice: a folder or file named by two roots, once as a
// relative path, is listed once and without a warning (one reached again
// through a link is named: TestDiscoverLinksAndSpecialFiles).
func TestDiscoverRootsTwice(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	copyTree(t, sampleDir, root)
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, filepath.Join(root, "sequence", "weather"))
	require.NoError(t, err)
	file := filepath.Join(root, "sequence/weather/1/0/1767268800000-2-0-0.tsfile")
	l, err := Discover(root, rel+string(filepath.Separator), file)
	require.NoError(t, err)
	require.Len(t, l.Files, 5)
	for _, s := range l.Skipped {
		require.False(t, s.Unusual, "%+v", s)
	}
}
