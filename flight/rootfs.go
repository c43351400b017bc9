package flight

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/tsarrow/tsarrow/tsfile"
)

// The catalog reads the root on disk (Options.Root, walked by path, links
// resolved and kept inside it) or an io/fs file system (Options.RootFS,
// such as a bucket's objstore.FS, walked by name). The methods below are
// the only places the two differ: each takes and gives the path of a file
// as the catalog's file system spells it (c.top() for the root).

// top is the path of the root in the catalog's file system.
func (c *catalog) top() string {
	if c.fsys != nil {
		return rootDir
	}
	return c.root
}

// walk walks the root in lexical order, as filepath.WalkDir does.
func (c *catalog) walk(fn fs.WalkDirFunc) error {
	if c.fsys != nil {
		return fs.WalkDir(c.fsys, rootDir, fn)
	}
	return filepath.WalkDir(c.root, fn)
}

// relOf returns the catalog key (slash-separated, relative to the root) of
// a path walk gave.
func (c *catalog) relOf(p string) (string, error) {
	if c.fsys != nil {
		return p, nil
	}
	r, err := filepath.Rel(c.root, p)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(r), nil
}

// statPath stats a path of the catalog's file system, following links.
func (c *catalog) statPath(p string) (fs.FileInfo, error) {
	if c.fsys != nil {
		return fs.Stat(c.fsys, p)
	}
	return os.Stat(p)
}

// isDataDir reports whether dir is an IoTDB data directory: it holds a
// sequence or unsequence folder. Symbolic links do not count on disk, as
// dataset.Discover does not follow them either; an io/fs file system
// tells no links (a bucket has none).
func (c *catalog) isDataDir(dir string) bool {
	if c.fsys == nil {
		return isDataDir(dir)
	}
	for _, sp := range []string{"sequence", "unsequence"} {
		if st, err := fs.Stat(c.fsys, path.Join(dir, sp)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// errNoReaderAt reports a file of Options.RootFS that cannot be read at
// offsets.
var errNoReaderAt = errors.New("the file system's files do not implement io.ReaderAt, which reading a TsFile needs")

// openTsFile opens the TsFile at p, whose stat is st; the closer, when not
// nil, is the open file of an io/fs file system, for the entry to close
// with the TsFile.
func (c *catalog) openTsFile(p string, st fs.FileInfo) (*tsfile.File, io.Closer, error) {
	ropt := c.ropt
	if c.fsys == nil {
		f, err := tsfile.OpenFile(p, &ropt)
		return f, nil, err
	}
	h, err := c.fsys.Open(p)
	if err != nil {
		return nil, nil, err
	}
	ra, ok := h.(io.ReaderAt)
	if !ok {
		h.Close()
		return nil, nil, errNoReaderAt
	}
	f, err := tsfile.Open(ra, st.Size(), &ropt)
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	return f, h, nil
}

// sameFile reports whether two stats of a path are of one file. An io/fs
// file system tells no identity beyond the name: a file replaced under
// its name with the same size and modification time is taken as the same
// (objstore's reads then fail with objstore.ErrChanged on its ETag).
func (c *catalog) sameFile(a, b fs.FileInfo) bool {
	if c.fsys != nil {
		return true
	}
	return os.SameFile(a, b)
}

// checkRootFS checks that the root of fsys is a folder.
func checkRootFS(fsys fs.FS, name string) error {
	st, err := fs.Stat(fsys, rootDir)
	if err != nil {
		return fmt.Errorf("flight: root %s: %w", name, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("flight: root %s is not a directory", name)
	}
	return nil
}
