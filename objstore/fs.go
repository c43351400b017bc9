package objstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"
)

// FS returns the bucket as an io/fs file system under prefix (names are
// slash paths relative to prefix; "." is prefix itself): fs.StatFS and
// fs.ReadDirFS, directories being key prefixes listed with delimiter "/"
// and pagination. Open returns an fs.File that also implements io.ReaderAt
// (range reads as OpenFile) and whose Stat gives Size and ModTime. ctx
// bounds every request.
func (s *Store) FS(ctx context.Context, prefix string) fs.FS {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &storeFS{s: s, ctx: ctx, prefix: prefix}
}

// storeFS is the fs.FS of Store.FS.
type storeFS struct {
	s      *Store
	ctx    context.Context
	prefix string // "" or ending in "/"
}

var (
	_ fs.StatFS    = (*storeFS)(nil)
	_ fs.ReadDirFS = (*storeFS)(nil)
)

// key returns the key of a file name, or the prefix of a directory name
// (with its trailing "/"; "" for the root of a bucket).
func (f *storeFS) key(name string) string {
	if name == "." {
		return f.prefix
	}
	return f.prefix + name
}

// Open opens a file (an object) or a directory (a prefix with objects
// under it) for reading.
func (f *storeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &fsDir{f: f, name: name}, nil
	}
	a, err := f.s.b.Attributes(f.ctx, f.key(name))
	if err == nil {
		file := f.s.newFile(f.ctx, f.key(name), a.Size, a.ETag, a.ModTime, 1)
		file.generation = versionOf(a)
		return &fsFile{File: file, name: path.Base(name)}, nil
	}
	if err := f.isDir(name, err); err != nil {
		return nil, err
	}
	return &fsDir{f: f, name: name}, nil
}

// Stat describes a file or directory.
func (f *storeFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return dirInfo("."), nil
	}
	a, err := f.s.b.Attributes(f.ctx, f.key(name))
	if err == nil {
		return fileInfo{name: path.Base(name), size: a.Size, mod: a.ModTime}, nil
	}
	if err := f.isDir(name, err); err != nil {
		return nil, err
	}
	return dirInfo(path.Base(name)), nil
}

// isDir returns nil if name is a directory: a prefix with an object under
// it. headErr is the failed HEAD of name as a key, returned (wrapped) when
// it was not for want of an object.
func (f *storeFS) isDir(name string, headErr error) error {
	key := f.key(name)
	if !errors.Is(f.s.wrap("HEAD", key, headErr), fs.ErrNotExist) {
		return f.s.wrap("HEAD", key, headErr)
	}
	page, _, err := f.s.b.ListPage(f.ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: key + "/", Delimiter: "/"})
	if err != nil {
		return f.s.wrap("LIST", key+"/", err)
	}
	if len(page) == 0 {
		return &opError{op: "HEAD", url: f.s.URL(key), detail: "no such object or prefix", kind: fs.ErrNotExist, err: headErr}
	}
	return nil
}

// ReadDir lists a directory's entries sorted by name: objects directly
// under its prefix and the next level of prefixes as directories.
func (f *storeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	dir := f.key(name)
	if name != "." {
		dir += "/"
	}
	var out []fs.DirEntry
	err := f.s.listPages(f.ctx, dir, "/", func(o *blob.ListObject) error {
		base := strings.TrimSuffix(strings.TrimPrefix(o.Key, dir), "/")
		if base == "" || !fs.ValidPath(base) {
			// The directory's own marker object ("dir/"), or a key
			// no path names (an empty segment: "a//b").
			return nil
		}
		if o.IsDir {
			out = append(out, fs.FileInfoToDirEntry(dirInfo(base)))
		} else {
			out = append(out, fs.FileInfoToDirEntry(fileInfo{name: base, size: o.Size, mod: o.ModTime}))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 && name != "." {
		if _, err := f.Stat(name); err != nil {
			return nil, err
		}
		return nil, &opError{op: "LIST", url: f.s.URL(dir), detail: "not a directory", kind: fs.ErrInvalid}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	// A key "x" and a prefix "x/" both exist: keep both, as the store
	// does; fs.WalkDir visits both.
	return out, nil
}

// fileInfo describes an object.
type fileInfo struct {
	name string
	size int64
	mod  time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return i.mod }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

// dirInfo describes a prefix.
type dirInfo string

func (i dirInfo) Name() string       { return string(i) }
func (i dirInfo) Size() int64        { return 0 }
func (i dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (i dirInfo) ModTime() time.Time { return time.Time{} }
func (i dirInfo) IsDir() bool        { return true }
func (i dirInfo) Sys() any           { return nil }

// fsFile is an object opened through FS: a File with a read offset.
type fsFile struct {
	*File
	name string
	off  int64
}

var (
	_ io.ReaderAt = (*fsFile)(nil)
	_ io.Seeker   = (*fsFile)(nil)
)

func (f *fsFile) Stat() (fs.FileInfo, error) {
	return fileInfo{name: f.name, size: f.size, mod: f.modTime}, nil
}

func (f *fsFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (f *fsFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.size
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: fs.ErrInvalid}
	}
	f.off = offset
	return offset, nil
}

// fsDir is a directory opened through FS.
type fsDir struct {
	f       *storeFS
	name    string
	entries []fs.DirEntry // nil until the first ReadDir
	read    bool
}

func (d *fsDir) Stat() (fs.FileInfo, error) { return dirInfo(path.Base(d.name)), nil }
func (d *fsDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *fsDir) Close() error { return nil }

// ReadDir returns the next n entries (all remaining for n <= 0), as
// fs.ReadDirFile specifies.
func (d *fsDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		es, err := d.f.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = es, true
	}
	if n <= 0 {
		es := d.entries
		d.entries = nil
		return es, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(d.entries))
	es := d.entries[:k]
	d.entries = d.entries[k:]
	return es, nil
}
