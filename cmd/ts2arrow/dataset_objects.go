package main

// IoTDB data in a bucket: an object URL input that is an IoTDB data
// directory (or a folder or data file of one, or TsFiles with mods objects
// beside them) is read as a local one is, through package dataset over
// the bucket's io/fs view (objstore.Store.FS): the same layout rules, the
// .resource and mods objects beside each TsFile, the same merge.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/tsarrow/tsarrow/internal/inputs"
	"github.com/tsarrow/tsarrow/objstore"
)

// objectDataset fills d with the object URL roots of a dataset: all in
// one bucket, read through store.FS at the bucket's root so that the keys
// above a folder (sequence/, the database, the region) place it as a
// local path's names do. roots are the arguments as given; a pattern is
// refused, as its matches would be read as loose roots.
func objectDataset(ctx context.Context, d *datasetInput, roots []string, o *objstore.Options) error {
	var store *objstore.Store
	for _, r := range roots {
		switch {
		case inputs.IsHTTPURL(r):
			return usagef("%s is an http(s) URL and the other inputs are IoTDB data in a bucket, read with their mods objects; pass --raw to read every file as it is, or convert it separately", r)
		case !inputs.IsObjectURL(r):
			return usagef("%s is a local path and the other inputs are IoTDB data in a bucket, read with their mods objects; pass --raw to read every file as it is, or convert it separately", r)
		}
		s, key, err := objstore.Open(ctx, r, o)
		if err != nil {
			return err
		}
		if inputs.IsPattern(key) {
			s.Close()
			return usagef("%s is a pattern over IoTDB data in a bucket: name the data directory, or a folder or data file of it, instead (or pass --raw to read the matching files as they are)", r)
		}
		switch {
		case store == nil:
			store = s
		case store.URL("") != s.URL(""):
			s.Close()
			store.Close()
			return usagef("%s is in another bucket than %s; IoTDB data is read from one bucket at a time", r, store.URL(""))
		default:
			s.Close()
		}
		name := strings.TrimSuffix(key, "/")
		if name == "" {
			name = "."
		}
		d.roots = append(d.roots, name)
		d.urls = append(d.urls, r)
	}
	d.fsys = store.FS(ctx, "")
	d.store = store
	return nil
}

// describeObjectInputs names object URL inputs for the note on stderr, as
// describeInputs names local ones.
func describeObjectInputs(d *datasetInput, layout bool) string {
	if len(d.urls) != 1 {
		if layout {
			return "the inputs are IoTDB data in a bucket"
		}
		return "the inputs have mods objects beside them"
	}
	u, key := d.urls[0], d.roots[0]
	st, err := fs.Stat(d.fsys, key)
	switch {
	case err != nil:
	case !st.IsDir() && layout:
		return u + " is a data file of an IoTDB data directory in a bucket"
	case !st.IsDir():
		return u + " has a mods object beside it"
	}
	prefix := key
	if prefix == "." {
		prefix = ""
	}
	if ok, err := inputs.IsObjectDataDir(context.Background(), d.store, prefix); err == nil && ok {
		return u + " is an IoTDB data directory in a bucket"
	}
	if layout {
		return u + " holds IoTDB data"
	}
	return u + " holds TsFiles with mods objects beside them"
}

// objectNote tells where the keys of the messages that follow lie: the
// dataset names files by key within the bucket.
func (d *datasetInput) objectNote() string {
	if d.store == nil {
		return ""
	}
	return fmt.Sprintf(" (files named by key in %s)", d.store.URL(""))
}

// objectRootFS opens the bucket prefix of serve --root URL as the io/fs
// file system flight.Options.RootFS serves: the prefix is the root (a key
// naming one object is refused, as a local file is). ctx bounds every
// request of the server's life. A prefix with nothing below it yet is
// served, with a warning: the rescan picks up what is written there.
func objectRootFS(ctx context.Context, url string, o *objstore.Options, log *slog.Logger) (fs.FS, func(), error) {
	store, key, err := objstore.Open(ctx, url, o)
	if err != nil {
		return nil, nil, err
	}
	if inputs.IsPattern(key) {
		store.Close()
		return nil, nil, usagef("--root %s: a pattern; name a bucket prefix (a folder) to serve", url)
	}
	prefix := strings.TrimSuffix(key, "/")
	if prefix != "" {
		if _, err := store.Stat(ctx, prefix); err == nil {
			store.Close()
			return nil, nil, &fileError{url, errors.New("is an object, not a prefix (folder) of objects")}
		}
	}
	fsys := store.FS(ctx, prefix)
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	if len(entries) == 0 {
		log.Warn("no object under the root yet; the rescan serves what appears there", "root", url)
	}
	return fsys, func() { store.Close() }, nil
}
