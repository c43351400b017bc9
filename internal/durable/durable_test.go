package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// record watches the steps until the test ends.
func record(t *testing.T) *[]Step {
	t.Helper()
	var steps []Step
	stop := Watch(func(s Step) { steps = append(steps, s) })
	t.Cleanup(stop)
	return &steps
}

func skipWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("directories are not synced on Windows")
	}
}

func TestRenameSyncsBothDirectoriesAfterTheRename(t *testing.T) {
	skipWindows(t)
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		from, to string
		op       func(string, string) error
		opName   string
		want     []string // the directories synced, in order
	}{
		{"rename in one directory", filepath.Join(a, ".tmp"), filepath.Join(a, "out"), Rename, "rename", []string{a}},
		{"rename across directories", filepath.Join(a, ".tmp2"), filepath.Join(b, "out"), Rename, "rename", []string{b, a}},
		{"link", filepath.Join(a, ".tmp3"), filepath.Join(b, "linked"), Link, "link", []string{b, a}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(c.from, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			steps := record(t)
			if err := c.op(c.from, c.to); err != nil {
				t.Fatal(err)
			}
			want := []Step{{Op: c.opName, Path: c.to, From: c.from}}
			for _, d := range c.want {
				want = append(want, Step{Op: "syncdir", Path: d})
			}
			if !slices.Equal(*steps, want) {
				t.Errorf("steps %v, want %v", *steps, want)
			}
			if _, err := os.Stat(c.to); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRenameFailureSyncsNothing(t *testing.T) {
	dir := t.TempDir()
	steps := record(t)
	if err := Rename(filepath.Join(dir, "missing"), filepath.Join(dir, "out")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v, want ErrNotExist", err)
	}
	if len(*steps) != 0 {
		t.Errorf("steps %v after a failed rename", *steps)
	}
}

func TestSyncFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	steps := record(t)
	if err := SyncFile(f); err != nil {
		t.Fatal(err)
	}
	if want := []Step{{Op: "sync", Path: f.Name()}}; !slices.Equal(*steps, want) {
		t.Errorf("steps %v, want %v", *steps, want)
	}
	f.Close()
	if err := SyncFile(f); err == nil {
		t.Error("SyncFile of a closed file succeeded")
	}
}

func TestMkdirAllSyncsTheParentOfEveryDirectoryItMade(t *testing.T) {
	skipWindows(t)
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	steps := record(t)
	deep := filepath.Join(root, "x", "y", "z", "w")
	if err := MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// x existed: its parent root is not synced; y, z and w were made.
	want := []Step{
		{Op: "syncdir", Path: filepath.Join(root, "x")},
		{Op: "syncdir", Path: filepath.Join(root, "x", "y")},
		{Op: "syncdir", Path: filepath.Join(root, "x", "y", "z")},
	}
	if !slices.Equal(*steps, want) {
		t.Errorf("steps %v, want %v", *steps, want)
	}
	*steps = nil
	if err := MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if len(*steps) != 0 {
		t.Errorf("MkdirAll of an existing directory synced %v", *steps)
	}
}

func TestSyncTreeSyncsEveryDirectoryDeepestFirst(t *testing.T) {
	skipWindows(t)
	root := t.TempDir()
	for _, d := range []string{"t=a/d=1", "t=a/d=2", "t=b"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "t=b", "part-0"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	steps := record(t)
	if err := SyncTree(root); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range *steps {
		if s.Op != "syncdir" {
			t.Errorf("step %v", s)
		}
		rel, _ := filepath.Rel(root, s.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"t=b", "t=a/d=2", "t=a/d=1", "t=a", "."}
	if !slices.Equal(got, want) {
		t.Errorf("synced %v, want %v", got, want)
	}
}

func TestSyncDirErrors(t *testing.T) {
	skipWindows(t)
	err := SyncDir(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "syncing directory") {
		t.Errorf("SyncDir of a missing directory: %v", err)
	}
}

func TestUnsupported(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&fs.PathError{Op: "sync", Path: "/d", Err: syscall.EINVAL}, true},
		{&fs.PathError{Op: "sync", Path: "/d", Err: syscall.ENOTSUP}, true},
		{&fs.PathError{Op: "sync", Path: "/d", Err: syscall.EOPNOTSUPP}, true},
		{&fs.PathError{Op: "sync", Path: "/d", Err: syscall.EIO}, false},
		{&fs.PathError{Op: "sync", Path: "/d", Err: syscall.ENOSPC}, false},
		{os.ErrClosed, false},
	} {
		if got := unsupported(c.err); got != c.want {
			t.Errorf("unsupported(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
