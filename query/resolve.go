//go:build cgo && duckdb_arrow

package query

// Input resolution, as cmd/ts2arrow resolves the INPUT arguments of
// convert: which files the arguments name and whether they are IoTDB data
// come from package internal/inputs, which both use; the tables are then
// opened as convert's pickTable, openReader and the schema check of
// runSingle open them.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/httpfile"
	"github.com/tsarrow/tsarrow/internal/inputs"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

// isURL is package inputs' rule, which the CLI shares.
var isURL = inputs.IsURL

// datasetRoots tells whether files (what inputs.Expand made of args) are
// IoTDB data, as convert's detectDataset does (inputs.Layout): one of them
// lies in a time partition folder of a layout, or has a mods file beside
// it. It returns the roots to open as a dataset (args, globs expanded), or
// nil. IoTDB data in a bucket (object URL args, all of one bucket) is
// read through the bucket's io/fs view, fsys, at its root: the roots are
// then keys, so that the folders above place them as a local path's
// names do.
func (r *resolver) datasetRoots(ctx context.Context, args, files []string, o *objstore.Options) (roots []string, fsys fs.FS, err error) {
	inLayout, withMods, err := inputs.LayoutContext(ctx, files, o)
	if err != nil {
		return nil, nil, fmt.Errorf("query: %w", err)
	}
	if !inLayout && !withMods {
		return nil, nil, nil
	}
	if slices.ContainsFunc(args, inputs.IsObjectURL) {
		return r.objectRoots(ctx, args, o)
	}
	for _, a := range args {
		if inputs.IsURL(a) {
			return nil, nil, fmt.Errorf("query: %s is a URL, and the other inputs are IoTDB data read with their mods files; set Options.Raw to read every file as it is, or query it separately", a)
		}
		if inputs.IsPattern(a) {
			if _, err := os.Stat(a); err != nil {
				m, err := inputs.Glob(a)
				if err != nil {
					return nil, nil, fmt.Errorf("query: %w", err)
				}
				roots = append(roots, m...)
				continue
			}
		}
		roots = append(roots, a)
	}
	return roots, nil, nil
}

// objectRoots are datasetRoots for IoTDB data in a bucket: every arg an
// object URL of one bucket, none a pattern. The store is closed with the
// DB.
func (r *resolver) objectRoots(ctx context.Context, args []string, o *objstore.Options) ([]string, fs.FS, error) {
	var store *objstore.Store
	var roots []string
	for _, a := range args {
		if !inputs.IsObjectURL(a) {
			return nil, nil, fmt.Errorf("query: %s is not in the bucket of the other inputs, which are IoTDB data read with their mods objects; set Options.Raw to read every file as it is, or query it separately", a)
		}
		s, key, err := objstore.Open(ctx, a, o)
		if err != nil {
			return nil, nil, fmt.Errorf("query: %w", err)
		}
		switch {
		case inputs.IsPattern(key):
			s.Close()
			return nil, nil, fmt.Errorf("query: %s is a pattern over IoTDB data in a bucket: name the data directory, or a folder or data file of it, instead", a)
		case store == nil:
			store = s
			r.closers = append(r.closers, store.Close)
		case store.URL("") != s.URL(""):
			s.Close()
			return nil, nil, fmt.Errorf("query: %s is in another bucket than %s; IoTDB data is read from one bucket at a time", a, store.URL(""))
		default:
			s.Close()
		}
		name := strings.TrimSuffix(key, "/")
		if name == "" {
			name = "."
		}
		roots = append(roots, name)
	}
	return roots, store.FS(ctx, ""), nil
}

// counters are a DB's cumulative scan counts (ScanStats), updated by
// concurrent scans.
type counters struct {
	bytes, pages, rows, units, pruned atomic.Int64
}

func (c *counters) snapshot() ScanStats {
	return ScanStats{BytesRead: c.bytes.Load(), PagesDecoded: c.pages.Load(), RowsScanned: c.rows.Load(), Units: c.units.Load(), FilesPruned: c.pruned.Load()}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// resolved is one table of the inputs, ready to become a view.
type resolved struct {
	Table
	scan *scanTable
}

// resolver opens inputs for a DB. Everything it opens is closed by the
// closers it collects.
type resolver struct {
	opts    *Options
	ropts   *tsfile.ReadOptions
	stats   *counters
	closers []func() error
}

func (r *resolver) warn(format string, args ...any) {
	if r.opts.Warn != nil {
		r.opts.Warn(fmt.Sprintf(format, args...))
	}
}

func (r *resolver) close() error {
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		errs = append(errs, r.closers[i]())
	}
	r.closers = nil
	return errors.Join(errs...)
}

// resolve turns inputs into tables: IoTDB data through package dataset,
// other files grouped by table name.
func (r *resolver) resolve(ctx context.Context, args []string) ([]*resolved, error) {
	if len(args) == 0 {
		return nil, errors.New("query: no inputs")
	}
	if ice, rest := splitIceberg(args); len(ice) > 0 {
		var out []*resolved
		for _, in := range ice {
			rt, err := r.resolveIceberg(ctx, in)
			if err != nil {
				return nil, err
			}
			out = append(out, rt)
		}
		if len(rest) > 0 {
			more, err := r.resolve(ctx, rest)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
		return out, nil
	}
	files, err := inputs.ExpandContext(ctx, args, r.opts.Objects)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if !r.opts.Raw {
		roots, fsys, err := r.datasetRoots(ctx, args, files, r.opts.Objects)
		if err != nil {
			return nil, err
		}
		if roots != nil {
			return r.resolveDataset(roots, fsys)
		}
	}
	return r.resolveFiles(ctx, files)
}

// openedFile is one input file, open for the DB's lifetime.
type openedFile struct {
	name string
	f    *tsfile.File
}

// openFile opens a local path or URL as a TsFile, counting its reads.
func (r *resolver) openFile(ctx context.Context, name string) (*openedFile, error) {
	var ra io.ReaderAt
	var size int64
	if inputs.IsObjectURL(name) {
		of, err := r.openObject(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		ra, size = of, of.Size()
	} else if isURL(name) {
		hf, err := httpfile.Open(ctx, name, &httpfile.Options{Client: r.opts.HTTP})
		if err != nil {
			var nr *httpfile.NoRangesError
			if errors.As(err, &nr) {
				return nil, fmt.Errorf("query: %s: the server does not serve byte ranges (it %s); download the file and query its path", name, nr.Why)
			}
			return nil, fmt.Errorf("query: %s: %w", name, err)
		}
		ra, size = hf, hf.Size()
	} else {
		// Stat first: opening a named pipe waits for a writer.
		if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("query: %s: not a regular file (mode %s); not opened", name, st.Mode().Type())
		}
		fh, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		st, err := fh.Stat()
		if err != nil {
			fh.Close()
			return nil, fmt.Errorf("query: %w", err)
		}
		r.closers = append(r.closers, fh.Close)
		ra, size = fh, st.Size()
	}
	f, err := tsfile.Open(&countingReaderAt{r: ra, n: &r.stats.bytes}, size, r.ropts)
	if err != nil {
		return nil, fmt.Errorf("query: %s: %w", name, err)
	}
	for _, w := range f.Warnings() {
		r.warn("%s: warning: %s", name, w)
	}
	return &openedFile{name: name, f: f}, nil
}

// openObject opens an object URL for range reads (package objstore); the
// file and its store are closed with the DB.
func (r *resolver) openObject(ctx context.Context, url string) (*objstore.File, error) {
	store, key, err := objstore.Open(ctx, url, r.opts.Objects)
	if err != nil {
		return nil, err
	}
	f, err := store.OpenFile(ctx, key)
	if err != nil {
		store.Close()
		return nil, err
	}
	r.closers = append(r.closers, store.Close, f.Close)
	return f, nil
}

// fileSchema returns the Arrow schema convert gives table t of f (a
// table-model table or a tree table), and whether it is a tree table.
func fileSchema(f *tsfile.File, t string, unit arrowconv.TimeUnit) (*arrow.Schema, bool, error) {
	o := &arrowconv.Options{TimeUnit: unit}
	if _, ok := f.SchemaOf(t); ok {
		sc, err := arrowconv.TableArrowSchema(f, t, o)
		return sc, false, err
	}
	sc, err := arrowconv.TreeArrowSchema(f, t, o)
	return sc, true, err
}

// resolveFiles groups files by table name: each name is one table whose
// files are read one after another, as convert --table NAME reads them.
// Files whose schema of a table differs from the first file's are not
// read together: the table is left out with a warning naming the first
// difference, as convert refuses such inputs.
func (r *resolver) resolveFiles(ctx context.Context, names []string) ([]*resolved, error) {
	type group struct {
		schema *arrow.Schema
		tree   bool
		files  []*openedFile
		bad    error
	}
	groups := map[string]*group{}
	var order []string
	for _, name := range names {
		of, err := r.openFile(ctx, name)
		if err != nil {
			return nil, err
		}
		for _, t := range of.f.Tables() {
			sc, tree, err := fileSchema(of.f, t, r.opts.TimeUnit)
			if err != nil {
				return nil, fmt.Errorf("query: %s: table %s: %w", name, t, err)
			}
			g := groups[t]
			if g == nil {
				g = &group{schema: sc, tree: tree}
				groups[t] = g
				order = append(order, t)
			} else if g.bad == nil {
				if err := schemaMismatch(g.schema, sc, g.files[0].name, name); err != nil {
					g.bad = err
				}
			}
			g.files = append(g.files, of)
		}
	}
	var out []*resolved
	for _, t := range order {
		g := groups[t]
		if g.bad != nil {
			r.warn("table %s left out: %v", t, g.bad)
			continue
		}
		var inputs []string
		for _, f := range g.files {
			inputs = append(inputs, f.name)
		}
		rt := &resolved{Table: tableOf("main", t, g.schema, inputs)}
		var tfs []*tsfile.File
		for _, f := range g.files {
			tfs = append(tfs, f.f)
		}
		epoch, err := epochFields(g.schema, t, func() ([]*tsfile.File, error) { return tfs, nil })
		if err != nil {
			return nil, fmt.Errorf("query: table %s: %w", t, err)
		}
		rt.setEpoch(epoch, r)
		rt.scan = filesScan(rt.Table, g.tree, g.files, r.stats)
		rt.scan.Epoch = epoch
		out = append(out, rt)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("query: the inputs have no table to query")
	}
	return out, nil
}

// schemaMismatch names the first difference between two files' schemas of
// a table, as convert's schemaMismatch does.
func schemaMismatch(first, other *arrow.Schema, firstName, otherName string) error {
	a, b := first.Fields(), other.Fields()
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			return fmt.Errorf("%s has an extra column %q (%s) that %s lacks; query them separately", otherName, b[i].Name, b[i].Type, firstName)
		case i >= len(b):
			return fmt.Errorf("%s lacks column %q (%s) of %s; query them separately", otherName, a[i].Name, a[i].Type, firstName)
		case a[i].Name != b[i].Name || !arrow.TypeEqual(a[i].Type, b[i].Type) || a[i].Nullable != b[i].Nullable:
			return fmt.Errorf("column %d is %q %s in %s but %q %s in %s; the schemas of a table's files must agree", i+1, a[i].Name, a[i].Type, firstName, b[i].Name, b[i].Type, otherName)
		}
	}
	return nil
}

// tableOf fills a Table from its Arrow schema.
func tableOf(schema, name string, sc *arrow.Schema, inputs []string) Table {
	// The time column is found by its TIME category, not its name: a
	// table whose schema records a TIME column "id" has its time there,
	// and a FIELD named "time" beside it is no time column.
	t := Table{Schema: schema, Name: name, Arrow: sc, Time: arrowconv.TimeColumn, Unit: arrow.Millisecond, Inputs: inputs}
	if i, ok := arrowconv.TimeField(sc); ok {
		t.Time = sc.Field(i).Name
		if ts, ok := sc.Field(i).Type.(*arrow.TimestampType); ok {
			t.Unit = ts.Unit
		}
	}
	for _, f := range sc.Fields() {
		switch c, _ := f.Metadata.GetValue(arrowconv.MetaCategory); c {
		case "TAG", "DEVICE":
			t.Tags = append(t.Tags, f.Name)
		}
	}
	return t
}

// resolveDataset opens IoTDB data as package dataset resolves it: each
// table of a database is a table of the DuckDB schema of that name; tree
// roots and loose files' tables are in main.
func (r *resolver) resolveDataset(roots []string, fsys fs.FS) ([]*resolved, error) {
	dso := r.opts.Dataset
	dso.Read = r.ropts
	if fsys != nil {
		dso.FS = fsys
	}
	dso.ReadBytes = &r.stats.bytes
	ds, err := dataset.Open(roots, &dso)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	r.closers = append(r.closers, ds.Close)
	for _, w := range ds.Warnings() {
		r.warn("%s", w)
	}
	tables, err := ds.Tables()
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if len(tables) == 0 {
		return nil, fmt.Errorf("query: the inputs have no tables")
	}
	var out []*resolved
	for _, t := range tables {
		sc, err := ds.Schema(t.Ref, &arrowconv.Options{TimeUnit: r.opts.TimeUnit})
		if err != nil {
			return nil, fmt.Errorf("query: table %s: %w", t.Ref, err)
		}
		schema, name := "main", t.Name
		if t.Database != "" {
			schema = t.Database
		} else if t.Ref != t.Name {
			// A loose file's table whose name a database also holds.
			name = t.Ref
		}
		rt := &resolved{Table: tableOf(schema, name, sc, roots)}
		epoch, err := epochFields(sc, t.Name, func() ([]*tsfile.File, error) { return ds.Files(t.Ref) })
		if err != nil {
			return nil, fmt.Errorf("query: table %s: %w", t.Ref, err)
		}
		rt.setEpoch(epoch, r)
		rt.scan = datasetScan(rt.Table, t.Ref, t.Tree, ds, r.stats)
		rt.scan.Epoch = epoch
		out = append(out, rt)
	}
	return out, nil
}

// epochFields marks the TIMESTAMP fields of sc (unit s or ms; never the
// time column) that DuckDB cannot see as TIMESTAMP WITH TIME ZONE: the
// statistics of some series of the column, in the files of table, hold a
// value beyond ±2^63 µs once scaled. Such a column is read as BIGINT,
// the values as stored, rather than refused or wrapped (a TIMESTAMP_MS
// column would hold them, but DuckDB 2.0 invalidates the whole database
// when such a value is cast to µs: docs/dev-notes-sql.md). files is
// called only when sc has such a column, so tables without one open no
// metadata. A series whose name matches no column (or that a column
// cannot be told from) marks every candidate column: the statistics are
// a bound, never a guess.
func epochFields(sc *arrow.Schema, table string, files func() ([]*tsfile.File, error)) ([]bool, error) {
	var lim int64
	cand := map[string]int{}
	for i, f := range sc.Fields() {
		t, ok := f.Type.(*arrow.TimestampType)
		if !ok || isTimeColumn(f) {
			continue
		}
		switch t.Unit {
		case arrow.Second:
			lim = math.MaxInt64 / 1_000_000
		case arrow.Millisecond:
			lim = math.MaxInt64 / 1000
		default:
			continue // µs is DuckDB's own unit; ns is TIMESTAMP_NS
		}
		cand[f.Name] = i
	}
	if len(cand) == 0 {
		return nil, nil
	}
	tfs, err := files()
	if err != nil {
		return nil, err
	}
	var epoch []bool
	mark := func(i int) {
		if epoch == nil {
			epoch = make([]bool, sc.NumFields())
		}
		epoch[i] = true
	}
	for _, f := range tfs {
		devs, err := f.Devices(table)
		if err != nil {
			return nil, err
		}
		for _, dev := range devs {
			series, err := f.Series(dev)
			if err != nil {
				return nil, err
			}
			for _, ts := range series {
				st := &ts.Statistics
				if ts.DataType != tsfile.Timestamp || st.Count == 0 || (st.MinInt >= -lim && st.MaxInt <= lim) {
					continue
				}
				if i, ok := cand[ts.Measurement]; ok {
					mark(i)
					continue
				}
				for _, i := range cand {
					mark(i)
				}
			}
		}
	}
	return epoch, nil
}

// setEpoch records the epoch columns in the Table and warns of them.
func (rt *resolved) setEpoch(epoch []bool, r *resolver) {
	for i, e := range epoch {
		if e {
			rt.Epoch = append(rt.Epoch, rt.Arrow.Field(i).Name)
		}
	}
	if len(rt.Epoch) > 0 {
		r.warn("table %s: TIMESTAMP column(s) %s hold values beyond DuckDB's timestamp range (about ±292,000 years): read as BIGINT, epoch %s", rt.Name, strings.Join(rt.Epoch, ", "), unitName(rt.Unit))
	}
}

// unitName names a unit as --time-unit does.
func unitName(u arrow.TimeUnit) string {
	return map[arrow.TimeUnit]string{arrow.Second: "s", arrow.Millisecond: "ms", arrow.Microsecond: "us", arrow.Nanosecond: "ns"}[u]
}
