package objstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gocloud.dev/blob"
)

// listFile lists a file:// store by walking the directory tree itself.
// fileblob's listing pages by the last key of its directory walk, whose
// order is not key order ("a b/x" sorts before "a/x" but is walked after
// it), so a listing of more than one page would skip keys; and one huge
// page costs a huge allocation per call. The entries are those fileblob
// gives: regular files as objects, directories as prefixes under a
// delimiter.
func (s *Store) listFile(prefix, delimiter string, fn func(*blob.ListObject) error) error {
	if delimiter != "" && delimiter != "/" {
		return s.errorf("LIST", prefix, fmt.Errorf("delimiter %q", delimiter))
	}
	dirKey := prefix[:strings.LastIndexByte(prefix, '/')+1] // "" or ending in "/"
	dir := "/" + dirKey
	object := func(key string, info fs.FileInfo) *blob.ListObject {
		return &blob.ListObject{Key: key, Size: info.Size(), ModTime: info.ModTime()}
	}
	if delimiter == "/" {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return s.wrap("LIST", prefix, err)
		}
		var objs []*blob.ListObject
		for _, e := range entries {
			key := dirKey + e.Name()
			if !strings.HasPrefix(key, prefix) {
				continue
			}
			info, err := os.Stat(filepath.Join(dir, e.Name())) // through symlinks
			if err != nil {
				continue // vanished, or a dangling link
			}
			if info.IsDir() {
				objs = append(objs, &blob.ListObject{Key: key + "/", IsDir: true})
			} else if info.Mode().IsRegular() {
				objs = append(objs, object(key, info))
			}
		}
		slices.SortFunc(objs, func(a, b *blob.ListObject) int { return strings.Compare(a.Key, b.Key) })
		for _, o := range objs {
			if err := fn(o); err != nil {
				return err
			}
		}
		return nil
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		key := strings.TrimPrefix(filepath.ToSlash(path), "/")
		if d.IsDir() {
			// Descend only where keys can still have the prefix.
			if k := key + "/"; path != dir && !strings.HasPrefix(k, prefix) && !strings.HasPrefix(prefix, k) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			return nil // vanished, a dangling link, a socket
		}
		return fn(object(key, info))
	})
	if err != nil {
		return s.wrap("LIST", prefix, err)
	}
	return nil
}
