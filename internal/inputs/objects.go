package inputs

// Object URLs (s3://, gs://, az://, azblob://, file://, package objstore)
// as INPUT arguments, by the rules of local paths: a prefix with objects
// below it is a directory, a pattern matches keys as doublestar matches
// paths, and a folder of an IoTDB data directory is told by where its
// keys lie.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/objstore"
)

// IsObjectURL reports whether an input names an object in a bucket (or
// a file:// URL), read through package objstore rather than over HTTP.
func IsObjectURL(s string) bool { return objstore.IsURL(s) }

// isTsFile reports whether a name ends in .tsfile, in any case, as
// TsFilesUnder picks a directory's files.
func isTsFile(name string) bool {
	return strings.EqualFold(path.Ext(name), ".tsfile")
}

// expandObject adds the objects an object URL names, by Expand's rules:
// an existing key is a file, whatever its name holds; a URL ending in /,
// a bucket's root, or a key below which objects lie is a directory (every
// *.tsfile below it, sorted by key); a key with glob characters that is
// no object is a pattern (globObjects).
func expandObject(ctx context.Context, arg string, o *objstore.Options, add func(string)) error {
	store, key, err := objstore.Open(ctx, arg, o)
	if err != nil {
		return err
	}
	defer store.Close()
	if key != "" && !strings.HasSuffix(key, "/") {
		_, err := store.Stat(ctx, key)
		if err == nil {
			add(arg)
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if IsPattern(key) {
			return globObjects(ctx, store, arg, key, add)
		}
		// No such object: a directory if objects lie below it, else the
		// store's error, which names the key.
		objs, lerr := store.List(ctx, key+"/")
		if errors.Is(lerr, fs.ErrNotExist) {
			// A missing bucket: the HEAD's error names the key asked for.
			return err
		}
		if lerr != nil {
			return lerr
		}
		if len(objs) == 0 {
			return err
		}
		return addObjects(store, store.URL(key+"/"), objs, add)
	}
	if IsPattern(key) {
		return globObjects(ctx, store, arg, key, add)
	}
	objs, err := store.List(ctx, key)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		return fmt.Errorf("%s: no object below this prefix: %w", store.URL(key), fs.ErrNotExist)
	}
	return addObjects(store, store.URL(key), objs, add)
}

// addObjects adds the TsFiles among a directory's objects, in key order;
// none is a usage error, as for a local directory.
func addObjects(store *objstore.Store, dir string, objs []objstore.Object, add func(string)) error {
	n := 0
	for _, ob := range sortedObjects(objs) {
		if isTsFile(ob.Key) {
			add(store.URL(ob.Key))
			n++
		}
	}
	if n == 0 {
		return usagef("directory %s holds no *.tsfile", dir)
	}
	return nil
}

// sortedObjects returns objs sorted by key (List promises it; a store
// that breaks the promise must not reorder the rows of a conversion).
func sortedObjects(objs []objstore.Object) []objstore.Object {
	if !sort.SliceIsSorted(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key }) {
		objs = append([]objstore.Object(nil), objs...)
		sort.Slice(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
	}
	return objs
}

// globPrefix is the part of a key pattern before its first glob
// character, cut after its last /: every key the pattern matches starts
// with it, so only that prefix is listed.
func globPrefix(pattern string) string {
	i := strings.IndexAny(pattern, `*?[{\`)
	if i < 0 {
		i = len(pattern)
	}
	return pattern[:strings.LastIndex(pattern[:i], "/")+1]
}

// globObjects adds the objects a key pattern matches, in the order Expand
// gives the same names on a local disk, where Glob matches files and
// directories alike: a key the pattern matches is added whatever its
// name, a "directory" it matches (a key prefix ending before a /) gives
// the TsFiles below it, and the matches come in the sorted order of the
// names matched, a directory's files in key order at its place. So
// s3://b/d/* picks what d/* picks on disk: d's objects and the TsFiles of
// its subfolders. (objstore.Glob matches objects alone, and would leave
// the subfolders out.)
func globObjects(ctx context.Context, store *objstore.Store, arg, pattern string, add func(string)) error {
	if !doublestar.ValidatePattern(pattern) {
		return usagef("bad pattern %q: %v", arg, doublestar.ErrBadPattern)
	}
	objs, err := store.List(ctx, globPrefix(pattern))
	if err != nil {
		return err
	}
	type match struct{ by, key string }
	var ms []match
	for _, ob := range objs {
		k := ob.Key
		by := ""
		if isTsFile(k) {
			// The outermost folder matched comes first among the names
			// matched, and brings k in.
			for i := 0; i < len(k); i++ {
				if k[i] == '/' && i > 0 {
					if ok, _ := doublestar.Match(pattern, k[:i]); ok {
						by = k[:i]
						break
					}
				}
			}
		}
		if by == "" {
			if ok, _ := doublestar.Match(pattern, k); ok {
				by = k
			}
		}
		if by != "" {
			ms = append(ms, match{by, k})
		}
	}
	if len(ms) == 0 {
		return usagef("pattern %q matches no file", arg)
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].by != ms[j].by {
			return ms[i].by < ms[j].by
		}
		return ms[i].key < ms[j].key
	})
	for _, m := range ms {
		add(store.URL(m.key))
	}
	return nil
}

// objectSpaceFolder is SpaceFolder for the folder of a key: the names of
// the folders between the nearest folder named sequence or unsequence and
// the key's own folder, outermost first.
func objectSpaceFolder(key string) (names []string, ok bool) {
	parts := strings.Split(key, "/")
	parts = parts[:len(parts)-1] // the folders
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "sequence" || parts[i] == "unsequence" {
			return parts[i+1:], true
		}
	}
	return nil, false
}

// LayoutContext is Layout for files that may be object URLs (as
// ExpandContext gives them): an object is in a layout when its key lies
// in a time partition folder ({sequence|unsequence}/{database}/{region}/
// {partition}/), and has mods when a .mods or .mods2 object lies beside
// it. Object folders are listed once each (a folder below one already
// listed is not listed again); local files are looked at as Layout
// does, and http(s) URLs are neither. This is what tells an IoTDB data
// directory in a bucket: package dataset then reads it through
// objstore.Store.FS.
func LayoutContext(ctx context.Context, files []string, o *objstore.Options) (inLayout, withMods bool, err error) {
	var local []string
	// The folders whose mods files are to be looked for, per bucket URL.
	type folder struct {
		store string // the URL of the bucket's root
		dir   string // the key prefix, ending in /
	}
	var need []folder
	wanted := map[folder][]string{} // the data keys of each folder
	for _, f := range files {
		if !IsObjectURL(f) {
			local = append(local, f)
			continue
		}
		if !strings.HasSuffix(f, dataset.TsFileSuffix) {
			continue
		}
		store, key, err := objstore.Open(ctx, f, o)
		if err != nil {
			return false, false, err
		}
		root := store.URL("")
		store.Close()
		if names, ok := objectSpaceFolder(key); ok && len(names) == 3 {
			inLayout = true
			continue
		}
		fo := folder{root, key[:strings.LastIndex(key, "/")+1]}
		if wanted[fo] == nil {
			need = append(need, fo)
		}
		wanted[fo] = append(wanted[fo], key)
	}
	l, m := Layout(local)
	inLayout, withMods = inLayout || l, m
	if inLayout || withMods || len(need) == 0 {
		return inLayout, withMods, nil
	}
	// List the outermost folders of each bucket; their listings cover the
	// folders below them.
	sort.Slice(need, func(i, j int) bool {
		if need[i].store != need[j].store {
			return need[i].store < need[j].store
		}
		return need[i].dir < need[j].dir
	})
	keys := map[string]bool{} // store URL + key of every object listed
	listed := ""
	lastStore := ""
	for _, fo := range need {
		if fo.store == lastStore && listed != "" && strings.HasPrefix(fo.dir, listed) {
			continue
		}
		store, _, err := objstore.Open(ctx, fo.store, o)
		if err != nil {
			return false, false, err
		}
		objs, err := store.List(ctx, fo.dir)
		store.Close()
		if err != nil {
			return false, false, err
		}
		for _, ob := range objs {
			keys[fo.store+ob.Key] = true
		}
		listed, lastStore = fo.dir, fo.store
	}
	for _, fo := range need {
		for _, k := range wanted[fo] {
			if keys[fo.store+k+dataset.ModsV1Suffix] || keys[fo.store+k+dataset.ModsV2Suffix] {
				return false, true, nil
			}
		}
	}
	return false, false, nil
}

// IsObjectDataDir is IsDataDir for a prefix of a bucket: whether a
// folder named sequence or unsequence lies directly below it (a key
// prefix with objects under it, asked through store.FS, which lists one
// level). prefix is a key prefix, "" for the bucket's root.
func IsObjectDataDir(ctx context.Context, store *objstore.Store, prefix string) (bool, error) {
	fsys := store.FS(ctx, strings.TrimSuffix(prefix, "/"))
	for _, sp := range []string{"sequence", "unsequence"} {
		st, err := fs.Stat(fsys, sp)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, err
		}
		if st.IsDir() {
			return true, nil
		}
	}
	return false, nil
}
