package flight

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// This file serves IoTDB data directories: a directory under the root
// (or the root itself) holding sequence/ or unsequence/ is one dataset
// whose TsFiles, with their .resource and mods files, are read through
// package dataset as the IoTDB server answers them, instead of each
// *.tsfile on its own (which would bring deleted points back and show
// overwritten ones twice). Its tables are flights of their own:
//
//	[table]       when the root itself is a data directory
//	[dir, table]  for the data directory dir (relative to the root)
//
// and a command query names the directory in "files" (alone), or names no
// files when the root is a data directory. A ticket carries a digest of
// the versions (path, size, modification time) of every data file,
// resource and mods file the flight was planned on; DoGet refuses it with
// FAILED_PRECONDITION once any of them changed, rather than serve rows of
// another snapshot, or of two.

// rootDir is the key of the dataset of the root itself.
const rootDir = "."

// isDataDir reports whether dir is an IoTDB data directory: it holds a
// sequence or unsequence folder. Symbolic links do not count, as
// dataset.Discover does not follow them either.
func isDataDir(dir string) bool {
	for _, sp := range []string{"sequence", "unsequence"} {
		if st, err := os.Lstat(filepath.Join(dir, sp)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// dsEntry is one open data directory.
type dsEntry struct {
	rel    string // slash-separated, relative to the root; rootDir for the root
	ds     *dataset.Dataset
	tables []dataset.Table
	// probe is the stat of every data file and companion of the layout
	// when the dataset was opened, relative to the directory, sorted by
	// path: a later probe that differs means the snapshot is out of date.
	probe []dataset.FileVersion
	// digest identifies probe and the dataset's own Versions; tickets
	// carry it.
	digest string
	// spans are, by table, the time ranges its rows lie in (see
	// tableSpans), for cutting its flights into endpoints.
	spans map[string][]span
	// warnings and rules are the dataset's, relative to the root.
	warnings, rules []string

	refs   atomic.Int64 // streams using ds, plus one while in the catalog
	closed atomic.Bool
}

func (e *dsEntry) acquire() { e.refs.Add(1) }

// release unpins e, closing the dataset when it has left the catalog and
// no stream uses it.
func (e *dsEntry) release() {
	if e.refs.Add(-1) == 0 && e.closed.CompareAndSwap(false, true) {
		e.ds.Close()
	}
}

// name is how messages call the directory.
func (e *dsEntry) name() string { return dirName(e.rel) }

func dirName(rel string) string {
	if rel == rootDir {
		return "the data directory at the root"
	}
	return "data directory " + rel
}

// table finds the table of a query: q.Table in q.Database, or alone when
// no other database holds a table of that name. IoTDB never reads two
// databases as one table, so a name several hold is an error naming them.
func (e *dsEntry) table(q *Query) (*dataset.Table, error) {
	var match []*dataset.Table
	for i := range e.tables {
		t := &e.tables[i]
		switch {
		case q.Database != "":
			if t.Database == q.Database && t.Name == q.Table {
				return t, nil
			}
		case t.Ref == q.Table:
			return t, nil
		case t.Name == q.Table:
			match = append(match, t)
		}
	}
	if len(match) == 0 {
		if q.Database != "" {
			return nil, fmt.Errorf("%w: %s has no table %q in database %q", errNotFound, e.name(), q.Table, q.Database)
		}
		return nil, fmt.Errorf("%w: %s has no table %q", errNotFound, e.name(), q.Table)
	}
	var paths []string
	for _, t := range match {
		paths = append(paths, datasetPath(e.rel, t))
	}
	return nil, fmt.Errorf("%w: %s holds table %q in several databases, which IoTDB never reads as one table: ask for %s", errBadQuery, e.name(), q.Table, strings.Join(paths, " or "))
}

// isDatabase reports whether the data directory holds table-model tables
// of database db.
func (e *dsEntry) isDatabase(db string) bool {
	return slices.ContainsFunc(e.tables, func(t dataset.Table) bool { return t.Database == db })
}

// dirPath is the directory of a data directory's key.
func (c *catalog) dirPath(rel string) (string, error) {
	if rel == rootDir {
		return c.top(), nil
	}
	return c.resolve(rel)
}

// probeDir discovers the layout under dir and stats every data file and
// companion, paths relative to dir, sorted. A file that vanishes between
// the two is an error: the directory is changing. A data file without a
// resource is left out with its companions: it is the file IoTDB is
// writing, which grows all the time and which the reader skips (its
// points are in IoTDB's write-ahead log) until its resource appears.
func (c *catalog) probeDir(dir string) (*dataset.Layout, []dataset.FileVersion, error) {
	l, err := dataset.DiscoverFS(c.fsys, dir)
	if err != nil {
		return nil, nil, err
	}
	var vs []dataset.FileVersion
	for _, f := range l.Files {
		if f.Space != dataset.Unknown && f.Resource == "" {
			continue
		}
		for _, p := range []string{f.Path, f.Resource, f.ModsV1, f.ModsV2} {
			if p == "" {
				continue
			}
			st, err := c.statPath(p)
			if err != nil {
				return nil, nil, err
			}
			vs = append(vs, dataset.FileVersion{Path: relTo(dir, p), Size: st.Size(), ModTime: st.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(vs, func(a, b dataset.FileVersion) int { return strings.Compare(a.Path, b.Path) })
	return l, vs, nil
}

// relTo returns p relative to dir, slash-separated, or p when it is not
// under dir. Versions are compared relative to the directory so that
// servers sharing a root at different mount points (Options.Advertise)
// agree on a ticket's digest.
func relTo(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(p)
}

// versionsDigest hashes the versions of a snapshot: those probed, and
// those the dataset reports it read (Dataset.Versions), so that a change
// to any file either knows of gives another digest.
func versionsDigest(dir string, probe, read []dataset.FileVersion) string {
	all := slices.Clone(probe)
	for _, v := range read {
		v.Path = relTo(dir, v.Path)
		all = append(all, v)
	}
	slices.SortFunc(all, func(a, b dataset.FileVersion) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Size, b.Size); c != 0 {
			return c
		}
		return cmp.Compare(a.ModTime, b.ModTime)
	})
	all = slices.Compact(all)
	h := sha256.New()
	for _, v := range all {
		h.Write([]byte(v.Path))
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, v.Size, 10))
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, v.ModTime, 10))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// errNotDataDir reports a directory that is no longer a data directory;
// it wraps fs.ErrNotExist so that the catalog drops it silently.
var errNotDataDir = fmt.Errorf("no longer holds sequence or unsequence: %w", fs.ErrNotExist)

// openAttempts bounds how often openDataset starts over on a directory
// that changes while it is opened.
const openAttempts = 3

// openDataset opens the data directory rel. The layout is probed before
// and after opening: a directory that changed in between (a flush or a
// compaction) is opened again, so that the snapshot and its digest
// describe one state of the directory.
func (c *catalog) openDataset(rel string) (*dsEntry, error) {
	dir, err := c.dirPath(rel)
	if err != nil {
		return nil, err
	}
	for range openAttempts {
		if !c.isDataDir(dir) {
			return nil, errNotDataDir
		}
		l, before, err := c.probeDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // a file went away meanwhile
			}
			return nil, err
		}
		ropt := c.ropt
		ds, err := dataset.OpenLayout(l, &dataset.Options{Read: &ropt, ModsV1: c.modsV1, FS: c.fsys, Mods: &dataset.ModsOptions{MaxSize: c.maxMods}})
		if err != nil {
			if errors.Is(err, dataset.ErrChanged) || errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		_, after, err := c.probeDir(dir)
		if err != nil || !slices.Equal(before, after) {
			ds.Close()
			continue
		}
		tables, err := ds.Tables()
		if err != nil {
			ds.Close()
			if errors.Is(err, dataset.ErrChanged) {
				continue
			}
			return nil, err
		}
		e := &dsEntry{rel: rel, ds: ds, tables: tables, probe: before, digest: versionsDigest(dir, before, ds.Versions()),
			spans: c.tableSpans(l)}
		for _, w := range ds.Warnings() {
			e.warnings = append(e.warnings, c.relMsg(w))
		}
		for _, r := range ds.Rules() {
			e.rules = append(e.rules, c.relMsg(r))
		}
		e.refs.Store(1)
		return e, nil
	}
	return nil, fmt.Errorf("it kept changing while it was opened (%d attempts); it will be tried again at the next rescan or request", openAttempts)
}

// logOpened says that a data directory is served and which IoTDB rules
// its reader applies, and logs the warnings of a newly opened entry that
// the entry it replaces (nil for none) did not have: a live directory is
// opened again at every change, which is logged at debug level only, and
// the file IoTDB is writing would be reported each time.
func (c *catalog) logOpened(old, e *dsEntry) {
	level := slog.LevelInfo
	msg := "data directory served as resolved tables"
	if old != nil {
		level, msg = slog.LevelDebug, "data directory changed, opened again"
	}
	names := make([]string, len(e.tables))
	for i, t := range e.tables {
		names[i] = t.Name
	}
	c.log.Log(context.Background(), level, msg, "dir", e.rel, "tables", strings.Join(names, ","),
		"rules", strings.Join(e.rules, "; "))
	for _, w := range e.warnings {
		if old == nil || !slices.Contains(old.warnings, w) {
			c.log.Warn("data directory read with a warning", "dir", e.rel, "warning", w)
		}
	}
}

// relMsg strips the root from a message bound for a client or a log, so
// that it names files relative to the root only.
func (c *catalog) relMsg(msg string) string {
	return strings.ReplaceAll(msg, c.root+string(filepath.Separator), "")
}

// scanDatasets brings the data directories found by a rescan up to date:
// it returns those to (re)install, having opened the new ones and those
// whose probe changed; the ones that fail go to failed.
func (c *catalog) scanDatasets(ctx context.Context, dirs map[string]bool, failed map[string]string) map[string]*dsEntry {
	opened := map[string]*dsEntry{}
	rels := make([]string, 0, len(dirs))
	for rel := range dirs {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		if ctx.Err() != nil {
			break
		}
		c.mu.RLock()
		e := c.dsets[rel]
		c.mu.RUnlock()
		if e != nil {
			if dir, err := c.dirPath(rel); err == nil {
				if _, vs, err := c.probeDir(dir); err == nil && slices.Equal(vs, e.probe) {
					continue
				}
			}
		}
		ne, err := c.openDataset(rel)
		if err != nil {
			failed[rel] = err.Error()
			continue
		}
		c.logOpened(e, ne)
		opened[rel] = ne
	}
	return opened
}

// installDatasets replaces the data directories of the catalog with those
// a rescan found; c.mu is held.
func (c *catalog) installDatasets(dirs map[string]bool, opened map[string]*dsEntry, failed map[string]string) {
	for rel, e := range c.dsets {
		_, bad := failed[rel]
		if !dirs[rel] || opened[rel] != nil || bad {
			delete(c.dsets, rel)
			e.release()
		}
	}
	for rel, e := range opened {
		c.dsets[rel] = e
	}
	c.dirs = dirs
}

// refreshDataset brings the entry of rel up to date with the disk, as
// refresh does for a file: a directory whose probe changed is opened
// again, one that no longer opens leaves the catalog (and is tried again
// by the next call, so that a directory caught changing while it was
// opened does not wait for the rescan timer). It costs a walk of the
// directory and a stat per file.
func (c *catalog) refreshDataset(rel string) {
	c.mu.RLock()
	e, known := c.dsets[rel], c.dirs[rel]
	c.mu.RUnlock()
	if e == nil && !known || e != nil && c.datasetCurrent(e) {
		return
	}
	c.reload.Lock()
	defer c.reload.Unlock()
	c.mu.RLock()
	cur := c.dsets[rel]
	c.mu.RUnlock()
	if cur != e || e != nil && c.datasetCurrent(e) {
		return // replaced meanwhile, or changed back
	}
	ne, err := c.openDataset(rel)
	c.mu.Lock()
	if c.dsets[rel] == e {
		if e != nil {
			delete(c.dsets, rel)
			e.release()
		}
		switch {
		case ne != nil:
			c.logOpened(e, ne)
			c.dsets[rel] = ne
			delete(c.problems, rel)
			ne = nil
		case errors.Is(err, fs.ErrNotExist):
			// Gone, or no longer a data directory: copy, since datasetFor
			// reads the map it took without the lock.
			dirs := maps.Clone(c.dirs)
			delete(dirs, rel)
			c.dirs = dirs
			delete(c.problems, rel)
		default:
			if c.problems[rel] != err.Error() {
				c.log.Warn("data directory not served", "dir", rel, "error", c.relMsg(err.Error()))
			}
			c.problems[rel] = err.Error()
		}
	}
	c.mu.Unlock()
	if ne != nil {
		ne.release()
	}
}

// datasetCurrent reports whether e's snapshot still matches the disk.
func (c *catalog) datasetCurrent(e *dsEntry) bool {
	dir, err := c.dirPath(e.rel)
	if err != nil || !c.isDataDir(dir) {
		return false
	}
	_, vs, err := c.probeDir(dir)
	return err == nil && slices.Equal(vs, e.probe)
}

// getDataset pins the entry of the data directory rel, brought up to date
// with the disk, or reports why it is not served.
func (c *catalog) getDataset(rel string) (*dsEntry, error) {
	c.refreshDataset(rel)
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.dsets[rel]
	if !ok {
		if msg, bad := c.problems[rel]; bad {
			return nil, fmt.Errorf("%w: %s cannot be read: %s", errUnavailable, dirName(rel), c.relMsg(msg))
		}
		return nil, fmt.Errorf("%w: no %s under the root", errNotFound, dirName(rel))
	}
	e.acquire()
	return e, nil
}

// datasetSnapshot pins every data directory, brought up to date with the
// disk (those that did not open are tried again), in path order; the
// caller releases them.
func (c *catalog) datasetSnapshot() []*dsEntry {
	c.mu.RLock()
	dirs := slices.Sorted(maps.Keys(c.dirs))
	c.mu.RUnlock()
	for _, rel := range dirs {
		c.refreshDataset(rel)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*dsEntry, 0, len(c.dsets))
	for _, e := range c.dsets {
		e.acquire()
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *dsEntry) int { return strings.Compare(a.rel, b.rel) })
	return out
}

// DataDirs returns the data directories served, relative to the root
// ("." for the root itself), sorted.
func (c *catalog) DataDirs() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.dsets))
	for rel := range c.dsets {
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// datasetFor finds the data directory a query reads, if any: the one its
// files name (alone), or the root when the root is a data directory and
// the query names no files. ok is false for a query of plain TsFiles.
func (c *catalog) datasetFor(q *Query) (e *dsEntry, ok bool, err error) {
	c.mu.RLock()
	dirs := c.dirs
	c.mu.RUnlock()
	rel := ""
	if len(q.Files) == 0 {
		if !dirs[rootDir] {
			return nil, false, nil
		}
		rel = rootDir
	}
	if len(q.Files) == 1 && !dirs[q.Files[0]] && q.Database == "" && dirs[rootDir] && !strings.Contains(q.Files[0], "/") {
		// [database, table] of the data directory at the root.
		if e, err := c.getDataset(rootDir); err == nil {
			if e.isDatabase(q.Files[0]) {
				q.Database, q.Files = q.Files[0], nil
				return e, true, nil
			}
			e.release()
		}
	}
	for _, f := range q.Files {
		if dirs[f] {
			if len(q.Files) > 1 {
				return nil, true, fmt.Errorf("%w: %s is read on its own, as resolved tables: name it alone in files", errBadQuery, dirName(f))
			}
			rel = f
			continue
		}
		// A file of a data directory is not served on its own: its rows
		// alone are not what IoTDB answers.
		for d := range dirs {
			if d == rootDir || strings.HasPrefix(f, d+"/") {
				return nil, true, fmt.Errorf("%w: %s is a file of %s, which is served as resolved tables only: ask for %s", errNotFound, f, dirName(d), datasetPath(d, &dataset.Table{Name: q.Table, Ref: q.Table}))
			}
		}
	}
	if rel == "" {
		return nil, false, nil
	}
	e, err = c.getDataset(rel)
	return e, true, err
}

// datasetPath spells the path descriptor of a data directory's table.
func datasetPath(rel string, t *dataset.Table) string {
	desc, _ := datasetDescriptor(rel, t)
	quoted := make([]string, len(desc.Path))
	for i, p := range desc.Path {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// datasetDescriptor is the path descriptor ListFlights gives a data
// directory's table, and the query it stands for: [table] or [dir,
// table], with the database before the table ([database, table], [dir,
// database, table]) when several databases hold a table of that name.
func datasetDescriptor(rel string, t *dataset.Table) (*arrowflight.FlightDescriptor, *Query) {
	var path []string
	q := &Query{Table: t.Name}
	if rel != rootDir {
		path = append(path, rel)
		q.Files = []string{rel}
	}
	if t.Ref != t.Name {
		path = append(path, t.Database)
		q.Database = t.Database
	}
	path = append(path, t.Name)
	return &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: path}, q
}

// datasetGrant is what a ticket of a data directory's table reads: the
// directory, and the digest of the versions of its files the flight was
// planned on.
type datasetGrant struct {
	Dir      string `json:"dir"`
	Versions string `json:"v"`
}

// datasetMeta is the app_metadata of a data directory's endpoint.
type datasetMeta struct {
	DataDir string `json:"data_directory"`
	Files   int    `json:"files"`
	// Start and End bound the times the endpoint reads, when the flight
	// is cut by time.
	Start *int64 `json:"start,omitempty"`
	End   *int64 `json:"end,omitempty"`
}

// planDataset resolves q against a data directory: the table's schema
// under the query's projection and filters, and one endpoint whose
// ticket is bound to the versions of the directory's files.
func (s *Server) planDataset(q *Query, e *dsEntry) (*flightPlan, error) {
	opts, err := q.options(s.opts.TimeUnit.Unit())
	if err != nil {
		return nil, err
	}
	tbl, err := e.table(q)
	if err != nil {
		return nil, err
	}
	if q.Columns != nil {
		full, err := e.ds.Schema(tbl.Ref, &arrowconv.Options{TimeUnit: opts.TimeUnit})
		if err != nil {
			return nil, s.datasetErr(e, err)
		}
		if err := checkColumns(full, q.Columns); err != nil {
			return nil, fmt.Errorf("%w: %s: table %q has %v", errBadQuery, e.name(), q.Table, err)
		}
	}
	// A reader is made and dropped, so that options the table cannot
	// take (a Where on a column that is not a TAG) fail here, as they do
	// for a file, not at DoGet. It reads resources only, no data.
	rdr, err := e.ds.NewReader(tbl.Ref, opts)
	if err != nil {
		if !errors.Is(err, tsfile.ErrCorrupt) && !errors.Is(err, tsfile.ErrUnsupported) &&
			!errors.Is(err, dataset.ErrChanged) && !errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w: %v", errBadQuery, err)
		}
		return nil, s.datasetErr(e, err)
	}
	sch := rdr.Schema()
	rdr.Release()
	schema, err := projection(sch, q.Columns)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.name(), err)
	}
	p := &flightPlan{schema: schema, files: tbl.Files, skipped: map[string]string{}, dataDir: e.rel}
	p.grant = grant{Table: tbl.Ref, Tree: tbl.Tree, Columns: q.Columns, Where: q.Where, Limit: q.Limit, Compression: q.Compression,
		Dataset: &datasetGrant{Dir: e.rel, Versions: e.digest}}
	if opts.Time != nil {
		p.grant.Start, p.grant.End = &opts.Time.Start, &opts.Time.End
	}
	if p.grant.Compression == "" {
		p.grant.Compression = s.opts.Compression
	}
	p.rules = e.rules
	if rules, err := e.ds.TableRules(tbl.Ref); err == nil {
		// The files this table's read uses, not the whole directory.
		p.rules = nil
		for _, r := range rules {
			p.rules = append(p.rules, s.cat.relMsg(r))
		}
	}
	// Spans are by table name: those of several databases together still
	// hold every copy of a point in one span.
	p.endpoints = s.datasetEndpoints(e.spans[tbl.Name], opts.Time, q.Limit)
	return p, nil
}

// span is a time range holding rows of a table, both ends included, and
// the size of the data files whose rows it holds.
type span struct{ lo, hi, bytes int64 }

// tableSpans reads the resources of a layout's files and returns, by
// table, the time ranges of its devices in each file merged into disjoint
// spans in time order. All the copies of a point lie in one span (each
// copy lies within its file's range for the device), so the spans can be
// read as separate streams, each resolving its own points. Files of one
// time partition overlap and merge into one span; files of different
// partitions do not. Nothing is returned when a range is unknown: a file
// without a resource (loose, or one whose resource the reader rebuilds
// from its index), a device still open (its end time unset), a resource
// that does not parse. Tables
// are told by a device's first segment, as the reader tells them.
func (c *catalog) tableSpans(l *dataset.Layout) map[string][]span {
	out := map[string][]span{}
	for _, f := range l.Files {
		if f.Resource == "" {
			// A loose file, or a data file whose resource the reader
			// rebuilds from its index (or leaves out, when incomplete):
			// its range is not known here.
			return nil
		}
		r, err := dataset.ReadResourceFS(c.fsys, f.Resource)
		if err != nil {
			return nil
		}
		var size int64
		if st, err := c.statPath(f.Path); err == nil {
			size = st.Size()
		}
		file := map[string]span{}
		for _, d := range r.Devices {
			t := d.Device.Table()
			if d.End < d.Start {
				return nil
			}
			sp, seen := file[t]
			if !seen {
				sp = span{lo: d.Start, hi: d.End, bytes: size}
			}
			sp.lo, sp.hi = min(sp.lo, d.Start), max(sp.hi, d.End)
			file[t] = sp
		}
		for t, sp := range file {
			out[t] = append(out[t], sp)
		}
	}
	for t, sps := range out {
		slices.SortFunc(sps, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
		merged := sps[:1]
		for _, sp := range sps[1:] {
			last := &merged[len(merged)-1]
			if sp.lo <= last.hi {
				last.hi = max(last.hi, sp.hi)
				last.bytes += sp.bytes
				continue
			}
			merged = append(merged, sp)
		}
		out[t] = merged
	}
	return out
}

// datasetEndpoints cuts a data directory's flight into endpoints by time:
// consecutive spans until their files exceed Options.PartitionBytes (a
// span larger than that is an endpoint of its own). The endpoints' ranges
// cover the whole time line between them, gaps included, so that no row
// is lost should a resource understate a range; each is intersected with
// the query's. A limit, or spans unknown, give one endpoint.
func (s *Server) datasetEndpoints(spans []span, tr *arrowconv.TimeRange, limit int64) []endpointPlan {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if tr != nil {
		lo, hi = tr.Start, tr.End
	}
	one := []endpointPlan{{rows: -1, bytes: -1}}
	if limit > 0 || len(spans) < 2 {
		return one
	}
	// Cut points: an endpoint starts at each span that begins a group.
	var starts []int64
	var acc int64
	for i, sp := range spans {
		if i > 0 && acc+sp.bytes > s.opts.PartitionBytes {
			starts = append(starts, sp.lo)
			acc = 0
		}
		acc += sp.bytes
	}
	if len(starts) == 0 {
		return one
	}
	var eps []endpointPlan
	from := int64(math.MinInt64)
	for i := 0; i <= len(starts); i++ {
		to := int64(math.MaxInt64)
		if i < len(starts) {
			to = starts[i] - 1
		}
		a, b := max(from, lo), min(to, hi)
		if a <= b {
			eps = append(eps, endpointPlan{rows: -1, bytes: -1, start: &a, end: &b})
		}
		if i < len(starts) {
			from = starts[i]
		}
	}
	if len(eps) == 1 {
		// The query's range lies in one group: its own bounds suffice.
		return one
	}
	return eps
}

// listDatasets sends the flights of every data directory's tables, after
// those of the plain files: [table] for the root, [dir, table] for a
// directory under it. want, when not empty, keeps the tables of that name.
func (s *Server) listDatasets(stream arrowflight.FlightService_ListFlightsServer, want string) error {
	entries := s.cat.datasetSnapshot()
	defer func() {
		for _, e := range entries {
			e.release()
		}
	}()
	for _, e := range entries {
		for _, t := range e.tables {
			if want != "" && t.Name != want {
				continue
			}
			if err := stream.Context().Err(); err != nil {
				return toStatus(err)
			}
			desc, q := datasetDescriptor(e.rel, &t)
			p, err := s.planDataset(q, e)
			if err != nil {
				s.log.Debug("flight not listed", "path", desc.Path, "error", err)
				continue
			}
			fi, err := s.info(desc, p)
			if err != nil {
				return toStatus(err)
			}
			if err := stream.Send(fi); err != nil {
				return err
			}
		}
	}
	return nil
}

// datasetErr phrases an error of a data directory's reader for a client:
// a directory that changed under the read (dataset.ErrChanged) is a stale
// ticket, and every message names files relative to the root.
func (s *Server) datasetErr(e *dsEntry, err error) error {
	if err == nil {
		return nil
	}
	// A file of the snapshot that is gone was removed by a compaction
	// since the snapshot was taken: the directory changed too.
	if errors.Is(err, dataset.ErrChanged) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s changed while it was being read (a flush or a compaction): discard the rows received and call GetFlightInfo again", errStale, e.name())
	}
	return &relError{msg: s.cat.relMsg(err.Error()), err: err}
}

// relError is an error whose message was rewritten (to hide the server's
// paths) but which still matches what it wraps.
type relError struct {
	msg string
	err error
}

func (r *relError) Error() string { return r.msg }
func (r *relError) Unwrap() error { return r.err }

// testHookDatasetChecked, when set by a test before the server starts,
// runs once DoGet has found a data directory's versions those of the
// ticket, before it reads.
var testHookDatasetChecked func(dir string)

// pumpDataset streams a data directory's resolved table, as pump does the
// parts of files. The directory is checked first: if any of its files'
// versions differ from those the ticket was planned on, nothing is sent.
func (s *Server) pumpDataset(ctx context.Context, g *grant, out grpc.ServerStream, st *streamStats) (err error) {
	e, err := s.cat.getDataset(g.Dataset.Dir)
	if err != nil {
		if errors.Is(err, errNotFound) {
			return fmt.Errorf("%w: %s is no longer served (removed since the flight was planned); call GetFlightInfo again", errStale, dirName(g.Dataset.Dir))
		}
		return err
	}
	defer e.release()
	if e.digest != g.Dataset.Versions {
		return fmt.Errorf("%w: %s changed since the flight was planned (files added, removed or rewritten, or deletions recorded); call GetFlightInfo again", errStale, e.name())
	}
	if testHookDatasetChecked != nil {
		testHookDatasetChecked(e.rel)
	}
	opts := arrowconv.Options{
		BatchSize: s.opts.BatchSize, Workers: s.opts.Workers,
		TimeUnit: s.opts.TimeUnit,
		Columns:  g.Columns, Where: g.Where, Limit: g.Limit,
	}
	if g.Start != nil && g.End != nil {
		opts.Time = &arrowconv.TimeRange{Start: *g.Start, End: *g.End}
	}
	// A resolved read has no one file's statistics to plan from: its
	// share is sized by the schema's widths, the row count unknown.
	width, cols := 64.0, 8
	if sch, err := e.ds.Schema(g.Table, &arrowconv.Options{TimeUnit: opts.TimeUnit, Columns: g.Columns}); err == nil {
		width, cols = schemaWidth(sch), len(sch.Fields())
	}
	share, batch := s.sizeStream(g.Limit, width, cols)
	adm, err := s.admit(ctx, st, share, batch)
	if err != nil {
		return err
	}
	defer adm.release()
	meter := adm.meter
	opts.Allocator, opts.BatchSize = meter, adm.batch
	rdr, err := e.ds.NewReader(g.Table, &opts)
	if err != nil {
		return s.datasetErr(e, err)
	}
	defer rdr.Release()
	schema, err := projection(rdr.Schema(), g.Columns)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errStale, e.name(), err)
	}
	w := newBatchWriter(ctx, out, st, &s.holds, meter, func(a memory.Allocator) []ipc.Option {
		return s.ipcOptions(schema, g, a)
	})
	w.maxBytes = s.opts.MaxBatchBytes
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = s.copyBatches(ctx, w, rdr, st, meter)
	if err != nil {
		return s.datasetErr(e, err)
	}
	rs := rdr.Stats()
	s.log.Debug("data directory read", "dir", e.rel, "table", g.Table,
		slog.Int("files_read", rs.FilesRead), slog.Int("files_pruned", rs.FilesPruned),
		slog.Int64("rows_read", rs.RowsRead), slog.Int64("rows_out", rs.RowsOut),
		slog.Int64("rows_deleted", rs.RowsDeleted), slog.Int64("rows_overwritten", rs.RowsOverwritten),
		slog.Int64("rows_merged", rs.RowsMerged))
	return nil
}

// DataDirs returns the IoTDB data directories served as resolved tables,
// relative to the root ("." when the root is one), in path order.
func (s *Server) DataDirs() []string { return s.cat.DataDirs() }

// enclosingDataDir returns the IoTDB data directory root lies inside (in
// its sequence or unsequence folder), or "". Such a root is served file by
// file, which shows deleted and overwritten points: NewServer warns.
func enclosingDataDir(root string) string {
	for d := root; ; {
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		if b := filepath.Base(d); (b == "sequence" || b == "unsequence") && isDataDir(parent) {
			return parent
		}
		d = parent
	}
}

// checkPutTarget refuses a DoPut into an IoTDB data directory: its files
// belong to the IoTDB server (a file added there would change what it and
// this server answer), and a file written there would not be served as a
// file of its own anyway. A path through a folder named sequence or
// unsequence is refused too, since it would make its parent one.
func (c *catalog) checkPutTarget(rel string) error {
	els := strings.Split(rel, "/")
	dir := c.root
	for i, el := range els[:len(els)-1] {
		if el == "sequence" || el == "unsequence" {
			return fmt.Errorf("%w: %s goes through a %s folder, which would make %s an IoTDB data directory; DoPut writes plain TsFiles only", errDisabled, rel, el, dirName(parentRel(els[:i])))
		}
		if isDataDir(dir) {
			return fmt.Errorf("%w: %s lies in %s, whose files IoTDB owns; DoPut writes outside data directories only", errDisabled, rel, dirName(parentRel(els[:i])))
		}
		dir = filepath.Join(dir, el)
	}
	if isDataDir(dir) {
		return fmt.Errorf("%w: %s lies in %s, whose files IoTDB owns; DoPut writes outside data directories only", errDisabled, rel, dirName(parentRel(els[:len(els)-1])))
	}
	return nil
}

// parentRel joins path elements into a catalog key ("." for none).
func parentRel(els []string) string {
	if len(els) == 0 {
		return rootDir
	}
	return strings.Join(els, "/")
}
