package flight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// errOutsideRoot reports a path that would leave the served root: an
// absolute path, a ".." element, or a symbolic link pointing outside.
var errOutsideRoot = errors.New("flight: path leaves the root")

// catalog is the set of TsFiles under the root, kept open and shared by
// every stream. A rescan replaces entries whose size, modification time or
// identity changed, and so does every lookup (refresh) for the files it
// touches, so that planning and DoGet never wait for the rescan timer to
// notice a changed file; a replaced entry is closed when its last stream
// ends.
type catalog struct {
	root string // absolute, symlinks resolved; with fsys, the name shown for it
	// fsys, when set, is the file system served (Options.RootFS): paths
	// are names within it, the root ".", and root only names it.
	fsys fs.FS
	ext  string
	ropt tsfile.ReadOptions
	unit arrow.TimeUnit
	log  *slog.Logger
	raw  bool // Options.Raw: data directories are walked like others
	// modsV1 is Options.ModsV1.
	modsV1 dataset.ModsV1Rule
	// maxMods is Options.MaxModsSize.
	maxMods int64

	mu       sync.RWMutex
	reload   sync.Mutex        // serializes refresh, so a changed file is reopened once
	files    map[string]*entry // by slash-separated path relative to root
	problems map[string]string // files that failed to open: path -> error
	// dsets are the IoTDB data directories served as resolved tables
	// (dataset.go), by path relative to root ("." for the root); dirs are
	// those the last rescan found, opened or not. dirs is replaced, never
	// changed in place.
	dsets   map[string]*dsEntry
	dirs    map[string]bool
	scanned time.Time
}

// entry is one open file.
type entry struct {
	rel     string
	size    int64
	modTime time.Time
	info    os.FileInfo // as stat'ed when opened, for os.SameFile
	f       *tsfile.File
	// closer is the open file of an io/fs file system under f, which f
	// does not close (nil on disk: f closes its own).
	closer io.Closer
	// byName is set for a file of an io/fs file system, which tells no
	// file identity: current compares size and modification time only.
	byName bool
	tables []tableInfo

	refs   atomic.Int64 // streams using f, plus one while in the catalog
	closed atomic.Bool
	warned atomic.Int64 // f's warnings logged so far (logWarnings)
}

// tableInfo is one table of a file with its unfiltered plan.
type tableInfo struct {
	name string
	tree bool
	plan *arrowconv.Plan // unfiltered
}

// acquire pins e for a stream.
func (e *entry) acquire() { e.refs.Add(1) }

// release unpins e, closing the file when it has left the catalog and no
// stream uses it.
func (e *entry) release() {
	if e.refs.Add(-1) == 0 && e.closed.CompareAndSwap(false, true) {
		e.f.Close()
		if e.closer != nil {
			e.closer.Close()
		}
	}
}

// fingerprint identifies the version of a file a ticket was planned on.
// It is the size and modification time only, not the file's identity, so
// that servers sharing a root (Options.Advertise) agree on it.
func (e *entry) fingerprint() string {
	return fmt.Sprintf("%d:%d", e.size, e.modTime.UnixNano())
}

// current reports whether st, a stat of e's path now, is the version e
// opened: same size, modification time and file.
func (e *entry) current(st os.FileInfo) bool {
	return st.Size() == e.size && st.ModTime().Equal(e.modTime) && (e.byName || os.SameFile(st, e.info))
}

func (e *entry) table(name string) (*tableInfo, bool) {
	for i := range e.tables {
		if e.tables[i].name == name {
			return &e.tables[i], true
		}
	}
	return nil, false
}

func newCatalog(root string, fsys fs.FS, ext string, ropt tsfile.ReadOptions, unit arrow.TimeUnit, log *slog.Logger) (*catalog, error) {
	if fsys != nil {
		if err := checkRootFS(fsys, root); err != nil {
			return nil, err
		}
		return &catalog{root: root, fsys: fsys, ext: ext, ropt: ropt, unit: unit, log: log, files: map[string]*entry{}, problems: map[string]string{}, dsets: map[string]*dsEntry{}}, nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("flight: root %s: %w", root, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("flight: root %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("flight: root %s: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("flight: root %s is not a directory", root)
	}
	return &catalog{root: abs, ext: ext, ropt: ropt, unit: unit, log: log, files: map[string]*entry{}, problems: map[string]string{}, dsets: map[string]*dsEntry{}}, nil
}

// rescan walks the root, opening new and changed files and dropping
// vanished ones. Files that fail to open are recorded in problems and
// logged once per version; they never stop the scan. A directory holding
// sequence or unsequence is an IoTDB data directory: it is opened as a
// dataset (dataset.go), not walked for files.
func (c *catalog) rescan(ctx context.Context) error {
	seen := map[string]os.FileInfo{}
	failed := map[string]string{} // problems found by the walk or on opening
	dirs := map[string]bool{}     // data directories
	top := c.top()
	err := c.walk(func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top {
				return err
			}
			rel, _ := c.relOf(p)
			failed[rel] = err.Error()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != top && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // temp files of DoPut, editors, VCS
			}
			if !c.raw && c.isDataDir(p) {
				rel := rootDir
				if p != top {
					r, err := c.relOf(p)
					if err != nil {
						return nil
					}
					rel = r
				}
				dirs[rel] = true
				return filepath.SkipDir // its files are read through it
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(d.Name()), c.ext) || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, err := c.relOf(p)
		if err != nil {
			return nil
		}
		// Symbolic links are followed only while they stay under the
		// root, so a link cannot publish a file from elsewhere.
		if _, err := c.resolve(rel); err != nil {
			failed[rel] = err.Error()
			return nil
		}
		st, err := c.statPath(p)
		if err != nil || !st.Mode().IsRegular() {
			return nil
		}
		seen[rel] = st
		return nil
	})
	if err != nil {
		return fmt.Errorf("flight: scanning %s: %w", c.root, err)
	}

	c.mu.RLock()
	var open []string
	for rel, st := range seen {
		e, ok := c.files[rel]
		if !ok || !e.current(st) {
			open = append(open, rel)
		}
	}
	c.mu.RUnlock()
	slices.Sort(open)

	opened := map[string]*entry{}
	for _, rel := range open {
		e, err := c.open(rel)
		if err != nil {
			failed[rel] = err.Error()
			continue
		}
		opened[rel] = e
	}

	dsOpened := c.scanDatasets(ctx, dirs, failed)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.installDatasets(dirs, dsOpened, failed)
	for rel, e := range c.files {
		if _, ok := seen[rel]; !ok || opened[rel] != nil {
			delete(c.files, rel)
			e.release()
		}
	}
	for rel, e := range opened {
		c.files[rel] = e
		delete(c.problems, rel)
	}
	for rel := range c.problems {
		if _, ok := failed[rel]; !ok {
			delete(c.problems, rel)
		}
	}
	for rel, msg := range failed {
		if c.problems[rel] != msg {
			if dirs[rel] {
				c.log.Warn("data directory not served", "dir", rel, "error", c.relMsg(msg))
			} else {
				c.log.Warn("tsfile not served", "file", rel, "error", msg)
			}
		}
		c.problems[rel] = msg
		if e, ok := c.files[rel]; ok {
			// The file changed into something unreadable: stop serving the
			// old version, whose bytes are gone.
			delete(c.files, rel)
			e.release()
		}
	}
	c.scanned = time.Now()
	return nil
}

// open opens one file and plans each of its tables without filters.
func (c *catalog) open(rel string) (*entry, error) {
	p, err := c.resolve(rel)
	if err != nil {
		return nil, err
	}
	st, err := c.statPath(p)
	if err != nil {
		return nil, err
	}
	f, closer, err := c.openTsFile(p, st)
	if err != nil {
		return nil, err
	}
	e := &entry{rel: rel, size: st.Size(), modTime: st.ModTime(), info: st, f: f, closer: closer, byName: c.fsys != nil}
	e.refs.Store(1)
	if f.Size() != st.Size() {
		e.release()
		return nil, fmt.Errorf("changed while opening (%d bytes, then %d)", st.Size(), f.Size())
	}
	opts := &arrowconv.Options{TimeUnit: arrowconv.TimeUnitOf(c.unit)}
	for _, t := range f.Tables() {
		ti := tableInfo{name: t}
		var pl *arrowconv.Plan
		if _, ok := f.SchemaOf(t); ok {
			pl, err = arrowconv.PlanTable(f, t, opts)
		} else {
			ti.tree = true
			pl, err = arrowconv.PlanTree(f, t, opts)
		}
		if err != nil {
			e.release()
			return nil, fmt.Errorf("table %q: %w", t, err)
		}
		ti.plan = pl
		e.tables = append(e.tables, ti)
	}
	return e, nil
}

// resolve maps a client-supplied relative path to a file path under the
// root, refusing anything that could leave it.
func (c *catalog) resolve(rel string) (string, error) {
	if err := checkRel(rel); err != nil {
		return "", err
	}
	if c.fsys != nil {
		return rel, nil // no links to leave it by
	}
	p := filepath.Join(c.root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A path that does not exist yet (DoPut) must still have its
			// existing parent directories inside the root.
			dir, derr := filepath.EvalSymlinks(filepath.Dir(p))
			if derr != nil {
				return "", err
			}
			if !within(c.root, dir) {
				return "", fmt.Errorf("%w: %s", errOutsideRoot, rel)
			}
			return p, nil
		}
		return "", err
	}
	if !within(c.root, real) {
		return "", fmt.Errorf("%w: %s", errOutsideRoot, rel)
	}
	return real, nil
}

// checkRel validates the syntax of a relative path from a client.
func checkRel(rel string) error {
	switch {
	case rel == "":
		return fmt.Errorf("%w: empty file path", errBadQuery)
	case strings.ContainsRune(rel, 0):
		return fmt.Errorf("%w: file path contains NUL", errBadQuery)
	case strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		return fmt.Errorf("%w: %q is absolute", errOutsideRoot, rel)
	case strings.Contains(rel, "\\"):
		return fmt.Errorf("%w: file path %q contains a backslash; use /", errBadQuery, rel)
	}
	for _, el := range strings.Split(rel, "/") {
		if el == ".." {
			return fmt.Errorf("%w: %q has a .. element", errOutsideRoot, rel)
		}
	}
	if path.Clean(rel) != rel {
		return fmt.Errorf("%w: file path %q is not clean (want %q)", errBadQuery, rel, path.Clean(rel))
	}
	return nil
}

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// refresh brings the entries of rels up to date with the disk, as a
// rescan would for them alone: a file whose size, modification time or
// identity changed is reopened, one that vanished or no longer opens
// leaves the catalog. Between rescans a file can be rewritten; without
// this, plans and tickets would go on using the index of its old version,
// whose offsets no longer match the bytes (or, for a file replaced by a
// rename, would serve the old version as if current). It costs a stat per
// file.
func (c *catalog) refresh(rels []string) {
	type cand struct {
		rel string
		e   *entry
	}
	var cands []cand
	c.mu.RLock()
	for _, rel := range rels {
		if e, ok := c.files[rel]; ok {
			cands = append(cands, cand{rel, e})
		}
	}
	c.mu.RUnlock()
	var stale []cand
	for _, cd := range cands {
		if st, err := c.stat(cd.rel); err != nil || !cd.e.current(st) {
			stale = append(stale, cd)
		}
	}
	if len(stale) == 0 {
		return
	}
	c.reload.Lock()
	defer c.reload.Unlock()
	for _, cd := range stale {
		c.mu.RLock()
		e := c.files[cd.rel]
		c.mu.RUnlock()
		if e != cd.e {
			continue // replaced or dropped meanwhile by a rescan
		}
		st, err := c.stat(cd.rel)
		if err == nil && e.current(st) {
			continue // changed back, or a stat that raced with a writer
		}
		var ne *entry
		if err == nil {
			ne, err = c.open(cd.rel)
		}
		c.mu.Lock()
		if c.files[cd.rel] == e {
			delete(c.files, cd.rel)
			e.release()
			switch {
			case ne != nil:
				c.files[cd.rel] = ne
				delete(c.problems, cd.rel)
				ne = nil
			case !errors.Is(err, fs.ErrNotExist):
				if c.problems[cd.rel] != err.Error() {
					c.log.Warn("tsfile not served", "file", cd.rel, "error", err.Error())
				}
				c.problems[cd.rel] = err.Error()
			}
		}
		c.mu.Unlock()
		if ne != nil {
			ne.release() // a rescan got there first
		}
	}
}

// rewritten reports whether the file e has open changed in place (same
// file, other size or modification time), so that its bytes may no longer
// match e's index. A file replaced by a rename, or removed, was not: e's
// open handle still reads the version e indexed.
func (c *catalog) rewritten(e *entry) bool {
	st, err := c.stat(e.rel)
	return err == nil && c.sameFile(st, e.info) && !e.current(st)
}

// stat stats the file at rel, refusing a path that has come to leave the
// root.
func (c *catalog) stat(rel string) (os.FileInfo, error) {
	p, err := c.resolve(rel)
	if err != nil {
		return nil, err
	}
	st, err := c.statPath(p)
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is no longer a regular file", rel)
	}
	return st, err
}

// get pins the entry for rel, brought up to date with the disk, or reports
// why it is not served.
func (c *catalog) get(rel string) (*entry, error) {
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	c.refresh([]string{rel})
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.files[rel]
	if !ok {
		if msg, bad := c.problems[rel]; bad {
			// Clients see paths relative to the root only.
			msg = strings.ReplaceAll(msg, c.root+string(filepath.Separator), "")
			return nil, fmt.Errorf("%w: %s cannot be read: %s", errUnavailable, rel, msg)
		}
		return nil, fmt.Errorf("%w: no file %s under the root", errNotFound, rel)
	}
	e.acquire()
	return e, nil
}

// snapshot pins every entry, brought up to date with the disk, in path
// order; the caller releases them.
func (c *catalog) snapshot() []*entry {
	c.refresh(c.Files())
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*entry, 0, len(c.files))
	for _, e := range c.files {
		e.acquire()
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.rel, b.rel) })
	return out
}

// Files returns the relative paths of the open files, sorted.
func (c *catalog) Files() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.files))
	for rel := range c.files {
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// Problems returns the files under the root that could not be served and
// why, by relative path.
func (c *catalog) Problems() map[string]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make(map[string]string, len(c.problems))
	for k, v := range c.problems {
		out[k] = v
	}
	return out
}

func (c *catalog) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for rel, e := range c.files {
		delete(c.files, rel)
		e.release()
	}
	for rel, e := range c.dsets {
		delete(c.dsets, rel)
		e.release()
	}
}

func releaseAll(es []*entry) {
	for _, e := range es {
		e.release()
	}
}
