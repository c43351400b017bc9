// Package durable publishes files so that a power loss cannot take back
// what a command reported as written.
//
// Writing a temporary file, syncing it and renaming it into place makes an
// output whole at every moment, but not durable: the rename changes a
// directory, and until that directory is synced the file system may lose the
// new entry (fsync(2): "Calling fsync() does not necessarily ensure that the
// entry in the directory containing the file has also reached disk. For that
// an explicit fsync() on a file descriptor for the directory is also
// needed."). Every step here syncs the directories it changed before it
// returns: Rename and Link the directories of both names, MkdirAll the
// parent of every directory it created, SyncTree every directory of a tree
// built before it is renamed into place.
//
// Where a directory cannot be synced the step does what well-known code
// does (syndtr/goleveldb's leveldb/storage/file_storage_{unix,windows}.go,
// PostgreSQL's fsync_fname): on Windows, where a directory cannot be opened
// for flushing and NTFS journals renames itself, SyncDir does nothing;
// elsewhere it ignores EINVAL, which Linux returns for file systems that do
// not implement fsync on a directory, and errors.ErrUnsupported (ENOTSUP,
// EOPNOTSUPP, ENOSYS), which some network and FUSE file systems return.
// Every other error is returned.
package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
)

// Step is one step the package has taken, as a test watching with Watch
// sees it.
type Step struct {
	// Op is "sync" (a file's data), "syncdir", "rename" or "link".
	Op string
	// Path is the file or directory synced, or the new name of a rename
	// or link.
	Path string
	// From is the old name of a rename or link.
	From string
}

// String renders a step as "op path" (with "from -> " for a rename or
// link), for test failure messages.
func (s Step) String() string {
	if s.From != "" {
		return s.Op + " " + s.From + " -> " + s.Path
	}
	return s.Op + " " + s.Path
}

// watcher is the one place tests hook in: since an fsync cannot be
// observed from outside, a test records the steps in the order they
// completed and checks that each directory was synced after the rename
// that changed it. It is an atomic pointer because a server publishes
// from its handler goroutines while the test reads.
var watcher atomic.Pointer[func(Step)]

// Watch makes fn see every step completed from now on (one at a time only:
// a later Watch replaces it) and returns the function that stops it. It
// is for tests: nothing else calls it.
func Watch(fn func(Step)) (stop func()) {
	watcher.Store(&fn)
	return func() { watcher.Store(nil) }
}

func note(s Step) {
	if fn := watcher.Load(); fn != nil {
		(*fn)(s)
	}
}

// SyncFile syncs f's data and metadata (its size, its mode) to stable
// storage. A temporary file must be synced before it is renamed into
// place: otherwise a power loss may leave the new name pointing at an
// empty or partial file.
func SyncFile(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	note(Step{Op: "sync", Path: f.Name()})
	return nil
}

// SyncDir syncs the directory dir, so that the entries added, renamed or
// removed in it reach stable storage. Where that is not supported (see the
// package comment) it does nothing.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil && !unsupported(err) {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	note(Step{Op: "syncdir", Path: dir})
	return nil
}

// unsupported reports whether err from syncing a directory says only that
// the file system does not sync directories.
func unsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported)
}

// Rename renames oldpath to newpath, then syncs the directory of newpath
// and, when it is another one, that of oldpath. oldpath, if it is a file
// written just now, must have been synced (SyncFile) before.
//
// When the rename succeeded but a sync did not, the error says so: the
// file is at newpath, but a power loss may still take it back.
func Rename(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	note(Step{Op: "rename", Path: newpath, From: oldpath})
	return syncBoth(oldpath, newpath)
}

// Link makes newpath a hard link to oldpath (failing when newpath exists,
// which makes it a publish that never replaces), then syncs the
// directories as Rename does.
func Link(oldpath, newpath string) error {
	if err := os.Link(oldpath, newpath); err != nil {
		return err
	}
	note(Step{Op: "link", Path: newpath, From: oldpath})
	return syncBoth(oldpath, newpath)
}

// syncBoth syncs the directories of both names of a rename or link, the
// new one first: that is the one the caller reports as written.
func syncBoth(oldpath, newpath string) error {
	newDir, oldDir := filepath.Dir(newpath), filepath.Dir(oldpath)
	if err := SyncDir(newDir); err != nil {
		return fmt.Errorf("%s is in place, but not yet durable: %w", newpath, err)
	}
	if filepath.Clean(oldDir) != filepath.Clean(newDir) {
		if err := SyncDir(oldDir); err != nil {
			return fmt.Errorf("%s is in place, but not yet durable: %w", newpath, err)
		}
	}
	return nil
}

// MkdirAll is os.MkdirAll, then syncs the parent of every directory it
// created (top down), so that a file published into dir later does not
// hang from a directory entry that a power loss can take back.
//
// A directory another process creates at the same moment may be taken for
// one that existed already and not be synced here; that process syncs it.
func MkdirAll(dir string, perm fs.FileMode) error {
	var made []string // deepest first
	for p := filepath.Clean(dir); ; {
		if _, err := os.Stat(p); err == nil {
			break
		}
		made = append(made, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	for i := len(made) - 1; i >= 0; i-- {
		if err := SyncDir(filepath.Dir(made[i])); err != nil {
			return err
		}
	}
	return nil
}

// SyncTree syncs every directory under root, root included, deepest
// first: a directory output built in a temporary directory calls it before
// renaming the tree into place, so that each entry made in it (part files,
// partition directories made by MkdirAll) is durable once the rename is.
// Symbolic links are not followed.
func SyncTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("syncing %s: %w", root, err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := SyncDir(dirs[i]); err != nil {
			return err
		}
	}
	return nil
}
