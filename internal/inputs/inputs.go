// Package inputs turns the INPUT arguments of ts2arrow's commands (and
// of package query's Open) into the files they name, and tells whether
// those files are IoTDB data, to be read with their mods files as IoTDB
// reads them. The CLI and the SQL engine resolve inputs by these same
// rules, so `ts2arrow sql x` sees the tables `ts2arrow convert x` writes.
package inputs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/objstore"
)

// ErrUsage marks an error in the arguments themselves (a bad pattern, a
// pattern or directory naming no TsFile), as against one of the file
// system (a path that does not exist, a folder that cannot be read).
var ErrUsage = errors.New("bad input")

// usage is an error of the arguments: its message is the whole text, and
// it matches ErrUsage.
type usage struct{ msg string }

func (e *usage) Error() string        { return e.msg }
func (e *usage) Is(target error) bool { return target == ErrUsage }

func usagef(format string, args ...any) error { return &usage{fmt.Sprintf(format, args...)} }

// IsURL reports whether an input names a remote file: an http(s) URL, or
// an object URL (IsObjectURL).
func IsURL(s string) bool {
	return IsHTTPURL(s) || IsObjectURL(s)
}

// IsHTTPURL reports whether an input is an http(s) URL, read with range
// requests by package httpfile.
func IsHTTPURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// IsPattern reports whether an argument holds glob characters. A path that
// exists is still taken as it is, so a file whose name has a '[' or '{' in
// it can be named.
func IsPattern(a string) bool { return strings.ContainsAny(a, "*?[{") }

// Glob returns the paths matching pattern, sorted and without duplicates.
// A `**` segment matches any number of directories, zero included, as
// bash's globstar, DuckDB and doublestar do ("root/**/*.tsfile" finds
// root/a.tsfile and root/x/y/z/b.tsfile); `{a,b}` matches either.
// (filepath.Glob takes `**` as `*`, one directory level, and would read a
// subset of the files without a word.)
func Glob(pattern string) ([]string, error) {
	m, err := doublestar.FilepathGlob(pattern)
	if err != nil {
		return nil, usagef("bad pattern %q: %v", pattern, err)
	}
	sort.Strings(m)
	return slices.Compact(m), nil
}

// Expand turns arguments into the files they name, in order: an http(s)
// URL as it is, an object URL by ExpandContext's rules, a directory as every *.tsfile under it (recursively, sorted), a
// pattern with glob characters (Glob) as its matches (a directory matched
// as its TsFiles), anything else as a file. A directory or pattern that
// names no file is an ErrUsage error, a path that does not exist the file
// system's error; a file named twice is read once.
func Expand(args []string) ([]string, error) {
	return ExpandContext(context.Background(), args, nil)
}

// ExpandContext is Expand with the context and store options that object
// URLs are listed with (o nil for the defaults). An object URL names, as
// a path does: an object (the key exists) as itself; a URL ending in /, a
// bucket's root or a key prefix with objects below it as a directory
// (every *.tsfile below it, sorted by key); a key with glob characters as
// a pattern over the keys, matched as Glob matches paths (`**` any number
// of folders; a folder matched gives its TsFiles). Names are URLs, as
// objstore.Store.URL spells them. A missing object is the store's error
// (fs.ErrNotExist), which names the URL.
func ExpandContext(ctx context.Context, args []string, o *objstore.Options) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	addDir := func(dir string, mustHold bool) error {
		files, err := TsFilesUnder(dir)
		if err != nil {
			return err
		}
		if mustHold && len(files) == 0 {
			return usagef("directory %s holds no *.tsfile", dir)
		}
		for _, f := range files {
			add(f)
		}
		return nil
	}
	for _, a := range args {
		if IsObjectURL(a) {
			if err := expandObject(ctx, a, o, add); err != nil {
				return nil, err
			}
			continue
		}
		if IsURL(a) {
			add(a)
			continue
		}
		if IsPattern(a) {
			if _, err := os.Stat(a); err != nil {
				m, err := Glob(a)
				if err != nil {
					return nil, err
				}
				if len(m) == 0 {
					return nil, usagef("pattern %q matches no file", a)
				}
				for _, p := range m {
					st, err := os.Stat(p)
					if err != nil {
						return nil, err
					}
					if !st.IsDir() {
						add(p)
					} else if err := addDir(p, false); err != nil {
						return nil, err
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
		if err := addDir(a, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TsFilesUnder lists the *.tsfile files under dir, sorted by path.
func TsFilesUnder(dir string) ([]string, error) {
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

// Layout tells, for the files Expand made of the arguments, whether they
// are IoTDB data: inLayout when one lies in a time partition folder of a
// data directory ({sequence|unsequence}/{database}/{region}/{partition}/,
// where dataset.Discover takes data files), withMods when one has a mods
// file beside it. Looking at the files rather than the arguments also
// catches a glob over partition folders and a directory above the data
// directory. A TsFile that merely lies below a folder named sequence is
// neither.
func Layout(files []string) (inLayout, withMods bool) {
	for _, f := range files {
		if IsURL(f) || !strings.HasSuffix(f, dataset.TsFileSuffix) {
			continue
		}
		if _, names, ok := SpaceFolder(filepath.Dir(f)); ok && len(names) == 3 {
			inLayout = true
		} else if HasMods(f) {
			withMods = true
		}
	}
	return inLayout, withMods
}

// SpaceFolder finds the nearest folder named sequence or unsequence among
// dir and its parents, as dataset.Discover places a folder, and returns it
// with the names of the folders between it and dir (database, region,
// partition, outermost first).
func SpaceFolder(dir string) (space string, names []string, ok bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, false
	}
	for {
		b := filepath.Base(abs)
		if b == "sequence" || b == "unsequence" {
			slices.Reverse(names)
			return abs, names, true
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", nil, false
		}
		names = append(names, b)
		abs = parent
	}
}

// HasMods reports whether a mods file of either version lies beside the
// data file f.
func HasMods(f string) bool {
	for _, suf := range []string{dataset.ModsV1Suffix, dataset.ModsV2Suffix} {
		if st, err := os.Stat(f + suf); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// IsDataDir reports whether dir holds a sequence or unsequence folder.
func IsDataDir(dir string) bool {
	for _, sp := range []string{"sequence", "unsequence"} {
		if st, err := os.Stat(filepath.Join(dir, sp)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}
