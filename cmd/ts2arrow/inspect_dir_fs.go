package main

// Where inspect reads a data directory from: the disk, or a bucket's io/fs
// view (objstore.Store.FS at the bucket's root, names being keys), so that
// a data directory in a bucket is summarised as a local one is.

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tsarrow/tsarrow/tsfile"
)

// dirSource is the file system of an inspected data directory: fsys nil is
// the disk.
type dirSource struct {
	fsys fs.FS
	// url names a key of fsys in what inspect prints (the bucket's URL
	// of it); nil on the disk.
	url func(key string) string
}

func (s dirSource) stat(p string) (fs.FileInfo, error) {
	if s.fsys == nil {
		return os.Stat(p)
	}
	return fs.Stat(s.fsys, p)
}

// open opens a file for reading whole or at offsets.
func (s dirSource) open(p string) (interface {
	io.Reader
	io.ReaderAt
	io.Closer
}, error) {
	if s.fsys == nil {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	f, err := s.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	ra, ok := f.(interface {
		io.Reader
		io.ReaderAt
		io.Closer
	})
	if !ok {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrInvalid}
	}
	return ra, nil
}

// openTsFile opens a TsFile of the directory.
func (s dirSource) openTsFile(p string, ropts *tsfile.ReadOptions) (*tsfile.File, func(), error) {
	if s.fsys == nil {
		f, err := tsfile.OpenFile(p, ropts)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}
	st, err := s.stat(p)
	if err != nil {
		return nil, nil, err
	}
	h, err := s.open(p)
	if err != nil {
		return nil, nil, err
	}
	f, err := tsfile.Open(h, st.Size(), ropts)
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	return f, func() { f.Close(); h.Close() }, nil
}

func (s dirSource) join(elem ...string) string {
	if s.fsys == nil {
		return filepath.Join(elem...)
	}
	return path.Join(elem...)
}

func (s dirSource) dir(p string) string {
	if s.fsys == nil {
		return filepath.Dir(p)
	}
	return path.Dir(p)
}

func (s dirSource) clean(p string) string {
	if s.fsys == nil {
		return filepath.Clean(p)
	}
	return path.Clean(p)
}

// urlPaths renames the files of a summary read from a bucket by their
// URLs (url of a key), as its roots were given, so that what inspect
// prints of a data directory in a bucket is what it prints of a local
// copy but for the names. Free text (warnings, rules) names files by the
// keys under roots: those are renamed too.
func (info *inspectDir) urlPaths(roots []string, url func(key string) string) {
	p := func(s *string) {
		if *s != "" {
			*s = url(*s)
		}
	}
	var text []*regexp.Regexp
	var repl []string
	for _, r := range roots {
		if r == "." {
			continue // keys without a prefix cannot be told in text
		}
		text = append(text, regexp.MustCompile(`(^|[\s(,])`+regexp.QuoteMeta(r+"/")))
		repl = append(repl, "${1}"+strings.ReplaceAll(url(r+"/"), "$", "$$"))
	}
	t := func(s *string) {
		for i, re := range text {
			*s = re.ReplaceAllString(*s, repl[i])
		}
	}
	for i := range info.Partitions {
		pt := &info.Partitions[i]
		for j := range pt.Files {
			f := &pt.Files[j]
			p(&f.Path)
			p(&f.Resource)
			p(&f.ModsV1)
			p(&f.ModsV2)
			t(&f.Error)
		}
		for j := range pt.Overlaps {
			p(&pt.Overlaps[j].Winner)
			p(&pt.Overlaps[j].Loser)
		}
	}
	for i := range info.Mods {
		p(&info.Mods[i].Path)
		p(&info.Mods[i].DataFile)
		t(&info.Mods[i].Error)
	}
	for i := range info.Skipped {
		p(&info.Skipped[i].Path)
	}
	for i := range info.Compactions {
		c := &info.Compactions[i]
		p(&c.Log)
		for j := range c.Sources {
			p(&c.Sources[j].Path)
		}
		for j := range c.Targets {
			p(&c.Targets[j].Path)
		}
	}
	for i := range info.TypeChanges {
		for j := range info.TypeChanges[i].Types {
			p(&info.TypeChanges[i].Types[j].Newest)
		}
	}
	for i := range info.Warnings {
		t(&info.Warnings[i])
	}
	for i := range info.Rules {
		t(&info.Rules[i])
	}
	if info.Effect != nil {
		t(&info.Effect.Error)
	}
}
