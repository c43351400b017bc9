package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tsarrow/tsarrow/httpfile"
	"github.com/tsarrow/tsarrow/tsfile"
)

// isURL reports whether an input names a remote file.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// expandInputs turns the INPUT arguments of a command into the files they
// name, in order: a URL as it is, a directory as every *.tsfile under it
// (recursively, sorted), a pattern with glob characters as its matches
// (sorted), anything else as a file. A directory or pattern that names no
// file is an error, as is a path that does not exist; a file named twice
// is read once.
func expandInputs(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, a := range args {
		if isURL(a) {
			add(a)
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			if _, err := os.Stat(a); err != nil {
				m, err := filepath.Glob(a)
				if err != nil {
					return nil, usagef("bad pattern %q: %v", a, err)
				}
				if len(m) == 0 {
					return nil, usagef("%s matches no file", a)
				}
				sort.Strings(m)
				for _, p := range m {
					st, err := os.Stat(p)
					if err != nil {
						return nil, err
					}
					if st.IsDir() {
						files, err := tsfilesUnder(p)
						if err != nil {
							return nil, err
						}
						for _, f := range files {
							add(f)
						}
					} else {
						add(p)
					}
				}
				continue
			}
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			add(a)
			continue
		}
		files, err := tsfilesUnder(a)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, usagef("directory %s holds no *.tsfile", a)
		}
		for _, f := range files {
			add(f)
		}
	}
	return out, nil
}

// tsfilesUnder lists the *.tsfile files under dir, sorted by path.
func tsfilesUnder(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".tsfile") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// input is an opened TsFile and what reading it has cost.
type input struct {
	name   string
	file   *tsfile.File
	remote *httpfile.File // nil for a local file
	close  func() error
}

// openInput opens a local path or an http(s) URL as a TsFile. A remote
// file is read through range requests: the footer first, then only what
// the command asks for.
func openInput(ctx context.Context, name string, ropts *tsfile.ReadOptions) (*input, error) {
	return openInputCounted(ctx, name, ropts, nil)
}

// openInputCounted is openInput counting the bytes read into prog.
func openInputCounted(ctx context.Context, name string, ropts *tsfile.ReadOptions, prog *progress) (*input, error) {
	var ra io.ReaderAt
	var size int64
	in := &input{name: name}
	if isURL(name) {
		hf, err := httpfile.Open(ctx, name, nil)
		if err != nil {
			return nil, &fileError{name, err}
		}
		ra, size, in.remote, in.close = hf, hf.Size(), hf, func() error { return nil }
	} else {
		fh, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		st, err := fh.Stat()
		if err != nil {
			fh.Close()
			return nil, err
		}
		ra, size, in.close = fh, st.Size(), fh.Close
	}
	if prog != nil {
		ra = &countingReaderAt{r: ra, p: prog}
	}
	f, err := tsfile.Open(ra, size, ropts)
	if err != nil {
		in.close()
		return nil, &fileError{name, err}
	}
	in.file = f
	return in, nil
}

// inputSize returns the length of a local file, and 0 for a remote one,
// whose size the progress bar learns as it is opened.
func inputSize(name string) int64 {
	if isURL(name) {
		return 0
	}
	st, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return st.Size()
}

// fetched describes the bytes a remote input has cost, for --verbose.
func (in *input) fetched() string {
	if in.remote == nil {
		return ""
	}
	st := in.remote.Stats()
	return fmt.Sprintf("%s: fetched %d of %d bytes in %d range requests", in.name, st.Bytes, in.remote.Size(), st.Requests)
}
