package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tsarrow/tsarrow/internal/durable"
	"github.com/tsarrow/tsarrow/objstore"
)

// The rules of output.go in an object store (-o s3://bucket/key, gs://,
// az://, file://), as far as a bucket allows them:
//
//   - One object (convert, recover, sql -o) is streamed through
//     objstore.Writer, which shows nothing at the key until Commit (a
//     multipart upload completed, or one PUT). An error, Ctrl-C or SIGTERM
//     aborts the upload; a process killed outright leaves at most a
//     pending multipart upload, which is never an object at the key (a
//     bucket lifecycle rule, AbortIncompleteMultipartUpload, reclaims it).
//     An existing object is replaced, with --force, only by the Commit:
//     until then it stays whole.
//   - A dataset (--partition-by) is built in a local temporary directory
//     exactly as a local one is, then each part is uploaded to its final
//     key, and the empty object _SUCCESS is written last. The order is what
//     keeps the rule that no command loses data: no final key is written
//     before the whole dataset was written without error (a failure or
//     Ctrl-C during the conversion, which is most of the run, touches
//     nothing in the bucket), and _SUCCESS, the marker Spark's and Hive's
//     committers write and their readers check, says that every part is
//     there. A failure or signal during the upload removes every key
//     written so far and aborts the uploads under way. Only a process
//     killed outright during the upload (kill -9, a lost machine) can leave
//     some parts without _SUCCESS, which the next run with --force removes.
//   - Existing objects at OUT are refused without --force. With --force a
//     file is replaced only by a file (not a prefix holding objects), and a
//     dataset only when every object under the prefix is one ts2arrow
//     writes (the layout of foreignEntry, and _SUCCESS). OUT is never an
//     input, and a dataset's prefix never holds one.

// successName is the marker written last into a dataset in a bucket.
const successName = "_SUCCESS"

// uploadWorkers is how many parts of a dataset are uploaded at once: a
// dataset of many small parts (a device partition each) is bound by
// round trips, not bandwidth.
const uploadWorkers = 4

// objectOutput is an OUT in an object store.
type objectOutput struct {
	store  *objstore.Store
	url    string   // OUT as given, for messages
	key    string   // the object; for a dataset its prefix ("" or ending in "/")
	old    []string // the keys under a dataset's prefix that --force replaces
	stderr io.Writer
}

// uploadTemp is the name the local temporaries of datasets bound for a
// bucket are named after (tempPrefix), in the temporary directory, so that
// removeStaleTemps finds those of a killed process.
func uploadTemp() string {
	return filepath.Join(os.TempDir(), "ts2arrow-upload")
}

// checkObjectOutput is checkOutput for an object URL: it opens the store
// and lists what is at OUT (one listing, which also fails early, in one
// line, on wrong credentials or a missing bucket, before any conversion
// work is done).
func checkObjectOutput(out string, kind outKind, force bool, inputs []string, opts *objstore.Options, stderr io.Writer) (*output, error) {
	ctx := context.Background()
	if kind == outFile && strings.HasSuffix(out, "/") {
		return nil, usagef("-o %s names a prefix; name the output object", out)
	}
	st, key, err := objstore.Open(ctx, out, opts)
	if err != nil {
		return nil, usagef("cannot write -o %s: %v", out, err)
	}
	ok := false
	defer func() {
		if !ok {
			st.Close()
		}
	}()
	if kind == outFile && key == "" {
		return nil, usagef("-o %s names a bucket; name the output object (%s/out.parquet)", out, strings.TrimSuffix(out, "/"))
	}
	if kind == outDataset && key != "" && !strings.HasSuffix(key, "/") {
		key += "/"
	}
	o := &output{path: out, kind: kind, obj: &objectOutput{store: st, url: out, key: key, stderr: stderr}}
	base := strings.TrimSuffix(st.URL(""), "/") + "/"
	for _, in := range inputs {
		if !objstore.IsURL(in) {
			continue
		}
		if kind == outFile && in == base+key {
			return nil, usagef("-o %s is the input %s; write to another object (not even --force replaces an input)", out, in)
		}
		if kind == outDataset && strings.HasPrefix(in, base+key) {
			return nil, usagef("refusing to write -o %s: it holds the input %s; name a new prefix", out, in)
		}
	}
	if kind == outDataset {
		removeStaleTemps(uploadTemp(), stderr)
	}
	objs, err := st.List(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		// The bucket is missing: as a missing parent directory.
		return nil, usagef("cannot write -o %s: %v", out, err)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write -o %s: %w", out, err)
	}
	var keys []string
	for _, ob := range objs {
		// A file's listing holds every key it begins: keep itself and
		// the keys of the prefix it names.
		if kind == outDataset || ob.Key == key || strings.HasPrefix(ob.Key, key+"/") {
			keys = append(keys, ob.Key)
		}
	}
	if len(keys) == 0 {
		ok = true
		return o, nil
	}
	if kind == outFile && (len(keys) > 1 || keys[0] != key) {
		return nil, usagef("-o %s is a prefix holding objects (%s); --force replaces an object only by an object (name the output object)", out, base+keys[slices.IndexFunc(keys, func(k string) bool { return k != key })])
	}
	if !force {
		if kind == outDataset {
			return nil, usagef("%s exists (%d objects under it); pass --force to replace a dataset ts2arrow wrote", out, len(keys))
		}
		return nil, usagef("%s exists; pass --force to overwrite it", out)
	}
	if kind == outDataset {
		for _, k := range keys {
			if rel := strings.TrimPrefix(k, key); !oursKey(rel) {
				return nil, usagef("-o %s holds %s, which ts2arrow did not write; --force replaces only a dataset ts2arrow wrote (move it away or name a new prefix)", out, rel)
			}
		}
		o.obj.old = keys
	}
	o.replace = true
	ok = true
	return o, nil
}

// oursKey reports whether rel, a key relative to a dataset's prefix, is
// one that ts2arrow writes there: _SUCCESS, a part file of the layout
// (every prefix of it a directory of the layout), or an empty "directory"
// object (a key ending in "/", which consoles and some tools create) of
// the layout.
func oursKey(rel string) bool {
	if rel == successName || rel == "" {
		return true
	}
	dir := strings.HasSuffix(rel, "/")
	parts := strings.Split(strings.TrimSuffix(rel, "/"), "/")
	for i := range parts {
		if parts[i] == "" || !inLayout(parts[:i+1], dir || i < len(parts)-1) {
			return false
		}
	}
	return true
}

// isDirObject reports whether key is an empty "directory" object (a key
// ending in "/", which consoles and some tools create). Those of a
// dataset's layout are ours for --force, but never removed: they hold no
// rows, and some stores (a file system behind an S3 API) keep them as
// long as the directory has objects.
func isDirObject(key string) bool { return strings.HasSuffix(key, "/") }

// ctxWriter fails its writes once ctx is cancelled, with the signal's
// error (or the cancellation's cause), so that an upload stops at its next
// write.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w *ctxWriter) Write(p []byte) (int, error) {
	if err := stopped(w.ctx); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}

// stopped is the error of work that ctx stopped, nil while it runs: the
// signal's (interruptedBy), else ctx's cause.
func stopped(ctx context.Context) error {
	c := context.Cause(ctx)
	if c == nil {
		return nil
	}
	var ie *interruptError
	if errors.As(c, &ie) {
		return ie
	}
	return c
}

// write uploads what fn writes to the object, committing it only when fn
// and every write succeeded; otherwise (and when ctx is cancelled) the
// upload is aborted and the key keeps what it held.
func (oo *objectOutput) write(ctx context.Context, fn func(io.Writer) error) error {
	// The upload's requests run on a context that a signal does not
	// cancel: the writes stop through ctxWriter, and Abort must still
	// be able to tell the store to drop the parts uploaded.
	w, err := oo.store.Create(context.WithoutCancel(ctx), oo.key)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(&ctxWriter{ctx: ctx, w: w}, 1<<16)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = stopped(ctx)
	}
	if err != nil {
		if aerr := w.Abort(); aerr != nil {
			fmt.Fprintf(oo.stderr, "ts2arrow: warning: %s\n", oneLine(fmt.Sprintf("cannot abort the upload to %s: %v", oo.url, aerr)))
		}
		return err
	}
	return w.Commit()
}

// put uploads the local file path to key.
func (oo *objectOutput) put(ctx context.Context, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := oo.store.Create(context.WithoutCancel(ctx), key)
	if err != nil {
		return err
	}
	_, err = io.Copy(&ctxWriter{ctx: ctx, w: w}, f)
	if err == nil {
		err = stopped(ctx)
	}
	if err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// upload publishes the dataset built in the local directory dir under the
// prefix: the parts to their final keys (uploadWorkers at a time), then,
// when it replaces a dataset, the old objects the new one does not
// overwrite are removed, then _SUCCESS is written. A replaced dataset's
// _SUCCESS is removed first, since from the first part uploaded it is no
// longer whole. On failure or a signal, every key written is removed
// again; dir is removed once the dataset is published (the caller removes
// it on failure).
func (oo *objectOutput) upload(ctx context.Context, dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(files)
	// Cleaning up must work after a signal has cancelled ctx.
	bctx := context.WithoutCancel(ctx)
	success := oo.key + successName
	old := map[string]bool{}
	for _, k := range oo.old {
		old[k] = true
	}
	hadSuccess := old[success]
	if hadSuccess {
		if err := oo.store.Delete(bctx, success); err != nil {
			return err
		}
		delete(old, success)
	}
	p := &publish{oo: oo, old: old}
	err = p.parts(ctx, dir, files)
	if err == nil {
		// The old dataset's objects that no new part replaced would
		// otherwise be read with the new ones.
		for _, k := range oo.old {
			if !old[k] || isDirObject(k) { // overwritten by a new part
				continue
			}
			if err = stopped(ctx); err != nil {
				break
			}
			if err = oo.store.Delete(bctx, k); err != nil {
				break
			}
			p.touched = true
			delete(old, k)
		}
	}
	if err == nil {
		err = stopped(ctx)
	}
	if err == nil {
		err = oo.putEmpty(bctx, success)
	}
	if err == nil {
		os.RemoveAll(dir)
		return nil
	}
	p.undo(bctx, hadSuccess)
	return err
}

// putEmpty writes an empty object at key.
func (oo *objectOutput) putEmpty(ctx context.Context, key string) error {
	w, err := oo.store.Create(ctx, key)
	if err != nil {
		return err
	}
	return w.Commit()
}

// publish is the state of one dataset's upload, for undoing it.
type publish struct {
	oo      *objectOutput
	old     map[string]bool // the replaced dataset's keys still there
	mu      sync.Mutex
	written []string // keys committed
	touched bool     // an object of the replaced dataset was overwritten or removed
}

// parts uploads files (slash paths relative to dir) to their keys under
// the prefix, uploadWorkers at a time, stopping at the first error or
// when ctx is cancelled.
func (p *publish) parts(ctx context.Context, dir string, files []string) error {
	uctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range min(uploadWorkers, len(files)) {
		wg.Go(func() {
			for rel := range jobs {
				if uctx.Err() != nil {
					continue
				}
				key := p.oo.key + rel
				if err := p.oo.put(uctx, key, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
					cancel(err)
					continue
				}
				p.mu.Lock()
				p.written = append(p.written, key)
				if p.old[key] {
					p.touched = true
					delete(p.old, key)
				}
				p.mu.Unlock()
			}
		})
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	return stopped(uctx)
}

// undo removes the keys the upload wrote. When it had overwritten or
// removed an object of the dataset it replaces, that dataset is no longer
// whole and its remaining objects are removed too (a reader of the prefix
// would otherwise read part of it as if it were all); when it had not,
// its _SUCCESS is put back. Says so on stderr.
func (p *publish) undo(ctx context.Context, hadSuccess bool) {
	oo := p.oo
	var failed []string
	remove := func(keys []string) {
		for _, k := range keys {
			if err := oo.store.Delete(ctx, k); err != nil && !errors.Is(err, fs.ErrNotExist) {
				failed = append(failed, oo.store.URL(k))
			}
		}
	}
	remove(p.written)
	var rest []string
	if p.touched {
		for k := range p.old {
			if !isDirObject(k) {
				rest = append(rest, k)
			}
		}
		slices.Sort(rest)
		remove(rest)
	}
	switch {
	case len(rest) > 0:
		fmt.Fprintf(oo.stderr, "ts2arrow: the upload failed after overwriting part of the dataset under %s that it replaces; that dataset's other %d objects were removed too, so that no part of it is read as the whole\n", oo.url, len(rest))
	case p.touched:
		fmt.Fprintf(oo.stderr, "ts2arrow: the upload failed after overwriting or removing every object of the dataset under %s that it replaces: nothing is left there\n", oo.url)
	case hadSuccess:
		if err := oo.putEmpty(ctx, oo.key+successName); err != nil {
			fmt.Fprintf(oo.stderr, "ts2arrow: warning: %s\n", oneLine(fmt.Sprintf("the dataset under %s is whole, but its %s could not be put back: %v", oo.url, successName, err)))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(oo.stderr, "ts2arrow: warning: %s\n", oneLine(fmt.Sprintf("could not remove %d objects of the failed upload (the first: %s); a run with --force removes them", len(failed), failed[0])))
	}
}

// localTempDir creates the local directory a dataset bound for a bucket
// is built in.
func localTempDir() (string, error) {
	return durable.MkdirTemp(os.TempDir(), tempPrefix(uploadTemp())+"*")
}
