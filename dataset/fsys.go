package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// fileSystem is where Discover and a Dataset find files: the operating
// system (osFS, paths as the system spells them, links resolved) or an
// io/fs file system (ioFS, slash names relative to it, as a bucket's
// objstore.FS gives them). Every stat, listing and open of the package
// goes through one, so that a data directory in a bucket is read by the
// same code, decision for decision, as one on disk.
type fileSystem interface {
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// Open opens a file for reading; Discover's callers stat it first,
	// so that a named pipe is never opened.
	Open(name string) (file, error)

	Join(elem ...string) string
	Dir(name string) string
	Base(name string) string
	// Abs is the name of p that compares equal for every spelling of it.
	Abs(p string) (string, error)
	// RealPath is Abs with every symbolic link resolved, where the file
	// system can tell them.
	RealPath(p string) (string, error)
	// OpenMayBlock reports whether opening a special file (a named pipe)
	// may block, so that a file is stat'ed before it is opened.
	OpenMayBlock() bool
}

// file is an open data file or companion: read whole (companions) or at
// offsets (data files, through tsfile.Open).
type file interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// fsOf returns the fileSystem of fsys: the operating system when nil.
func fsOf(fsys fs.FS) fileSystem {
	if fsys == nil {
		return osFS{}
	}
	return ioFS{fsys}
}

// osFS is the operating system's file system: what the package did before
// Options.FS, unchanged.
type osFS struct{}

func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (osFS) Open(name string) (file, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err // a nil *os.File in a file would not compare nil
	}
	return f, nil
}
func (osFS) OpenMayBlock() bool         { return true }
func (osFS) Join(elem ...string) string { return filepath.Join(elem...) }
func (osFS) Dir(name string) string     { return filepath.Dir(name) }
func (osFS) Base(name string) string    { return filepath.Base(name) }
func (osFS) Abs(p string) (string, error) {
	return filepath.Abs(p)
}
func (osFS) RealPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// ioFS is an io/fs file system. Names are slash paths relative to its
// root ("." is the root). Links are whatever its Stat follows; a name is
// its own real path, so a folder reached twice through links would be
// walked twice (an object store has no links; os.DirFS stops a link loop
// with the system's ELOOP error).
type ioFS struct{ fsys fs.FS }

// ErrNoReaderAt reports a file of an Options.FS that cannot be read at
// offsets: a data file is read by ranges, never whole.
var ErrNoReaderAt = errors.New("dataset: file of the FS does not implement io.ReaderAt")

func (f ioFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(f.fsys, name) }
func (f ioFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.fsys, name) }
func (f ioFS) Open(name string) (file, error) {
	g, err := f.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	ff, ok := g.(file)
	if !ok {
		g.Close()
		return nil, fmt.Errorf("%s: %w", name, ErrNoReaderAt)
	}
	return ff, nil
}
func (ioFS) OpenMayBlock() bool         { return false }
func (ioFS) Join(elem ...string) string { return path.Join(elem...) }
func (ioFS) Dir(name string) string     { return path.Dir(name) }
func (ioFS) Base(name string) string    { return path.Base(name) }
func (ioFS) Abs(p string) (string, error) {
	return path.Clean(p), nil
}
func (ioFS) RealPath(p string) (string, error) { return path.Clean(p), nil }

// checkRoot refuses a root an io/fs file system cannot name (an absolute
// path, "..", a trailing slash is cleaned away).
func checkRoot(fsys fileSystem, root string) (string, error) {
	if _, ok := fsys.(ioFS); !ok {
		return root, nil
	}
	r := path.Clean(root)
	if root == "" || !fs.ValidPath(r) {
		return "", fmt.Errorf("dataset: %q is not a name within the file system (slash-separated, relative, \".\" for its root): %w", root, fs.ErrInvalid)
	}
	return r, nil
}
