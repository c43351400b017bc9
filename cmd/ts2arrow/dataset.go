package main

// Dataset mode: convert, head and schema read an IoTDB data directory (or
// TsFiles with mods files beside them) as the IoTDB server answers a query
// on it, through package dataset, instead of unioning every *.tsfile. The
// rules themselves (deletions, which copy of a point wins) live in dataset;
// this file decides when they apply, says so on stderr, and feeds the
// dataset's resolved stream to the same writers and printers as the
// single-file path. --raw keeps the single-file path.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/pflag"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/internal/inputs"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

// rawHelp documents --raw and the detection in the help of convert, head
// and schema.
const rawHelp = `IoTDB data: an INPUT that is an IoTDB data directory (holding sequence/
and unsequence/), a folder inside one (a space, database, region or time
partition), a data file inside one, or TsFiles with X.tsfile.mods or
X.tsfile.mods2 beside them, is read as the IoTDB server answers a query:
the deletions of the mods files applied, and of the copies of a point in
several files the one IoTDB keeps (unsequence over sequence, newer over
older). Standard error says so. --raw reads every *.tsfile as it is
instead: deleted points come back, and overwritten points appear twice.
The same holds in a bucket: s3://bucket/backup/iotdb/ (a prefix holding
sequence/ and unsequence/ objects, or a folder or data file of one) is
read with the .resource and mods objects beside each TsFile, and the
files are named by key in the messages.

IoTDB never merges databases: a table name that several databases hold
(database folders of the data directory) needs --database NAME, or
--table DATABASE.TABLE; without it the command lists the databases and
exits 2.

--mods-v1 says how deletions of IoTDB 1.x .mods files apply: offset (as
1.x: only to the chunks written before the deletion), whole (as 2.x,
which converts .mods to .mods2 and drops the offset: the whole file), or
auto (the default): whole in a data directory IoTDB 2.x wrote to (one
holding a TsFile v4 or a .mods2 file), offset elsewhere.

A mods file is read in a window of 256 KiB (or twice its longest entry)
and its entries merged, as they stream, into one set of time ranges per
deletion target (series pattern, or table, tag predicate and columns):
memory grows with the distinct targets, not with the file. A file larger
than --max-mods-size (default 256MiB; IoTDB settles its mods files past
1 MiB, so a larger one is rare) stops the command; raise the limit to
read it.

Each .resource is checked against its data file's footer before files are
pruned by it: one that leaves out a device the file holds, or cuts its
time range short, stops the command (--lenient reads that file by its own
index instead, with a warning). --trust-resources skips the check for
speed (under 0.1 ms a file): a damaged resource then makes rows go missing
or overwritten values come back, without a word. Symbolic links are
followed; every file left out for a reason other than IoTDB's own
temporaries (a named pipe or device, a broken link or loop, a .tsfile
whose name IoTDB cannot parse) is named in a warning.
`

// datasetFlags are the flags of the commands that read IoTDB data.
type datasetFlags struct {
	database string
	modsV1   string
	trust    bool
	// maxMods is --max-mods-size; 0 (a datasetFlags built by hand) is
	// the default.
	maxMods byteSize
}

// maxModsHelp is the help line of --max-mods-size.
const maxModsHelp = "in IoTDB data, the largest .mods or .mods2 file read, a `SIZE` such as 256MiB or 2GiB (see above)"

// addMaxModsFlag registers --max-mods-size on fs.
func addMaxModsFlag(fs *pflag.FlagSet, p *byteSize) {
	*p = dataset.DefaultMaxModsSize
	fs.Var(p, "max-mods-size", maxModsHelp)
}

// addDatasetFlags registers --database, --mods-v1, --max-mods-size and
// --trust-resources on fs.
func addDatasetFlags(fs *pflag.FlagSet) *datasetFlags {
	f := &datasetFlags{}
	fs.StringVar(&f.database, "database", "", "in IoTDB data, the database of the table to read (see above)")
	fs.StringVar(&f.modsV1, "mods-v1", "auto", "in IoTDB data, how .mods deletions apply: offset, whole or auto (see above)")
	addMaxModsFlag(fs, &f.maxMods)
	fs.BoolVar(&f.trust, "trust-resources", false, "in IoTDB data, prune by each .resource without checking it against its data file (faster; a damaged one goes unnoticed, see above)")
	return f
}

// options returns the dataset options the flags ask for.
func (f *datasetFlags) options(ropts *tsfile.ReadOptions) (*dataset.Options, error) {
	o := &dataset.Options{Read: ropts}
	if f == nil {
		return o, nil
	}
	o.TrustResources = f.trust
	if f.maxMods < 0 {
		return nil, usagef("--max-mods-size must not be negative")
	}
	if f.maxMods > 0 {
		o.Mods = &dataset.ModsOptions{MaxSize: int64(f.maxMods)}
	}
	switch f.modsV1 {
	case "", "auto":
	case "offset":
		o.ModsV1 = dataset.ModsV1Offset
	case "whole":
		o.ModsV1 = dataset.ModsV1Whole
	default:
		return nil, usagef("unknown --mods-v1 %q (want offset, whole or auto)", f.modsV1)
	}
	return o, nil
}

// datasetInput is what detectDatasetWith found: the roots to open as one
// dataset and how to name them on stderr.
type datasetInput struct {
	roots []string // directories and files as given (globs expanded)
	what  string   // "DIR is an IoTDB data directory"
	dirs  []string // directories no output may be written into

	// IoTDB data in a bucket (dataset_objects.go): roots are then keys
	// within fsys, the bucket's root, and urls the arguments as given.
	fsys  fs.FS
	store *objstore.Store
	urls  []string
}

// close releases the store of object inputs.
func (d *datasetInput) close() {
	if d != nil && d.store != nil {
		d.store.Close()
		d.store = nil
	}
}

// detectDatasetWith tells whether the inputs of a command are IoTDB data, to
// be read as IoTDB does: pos are the INPUT arguments, files what
// expandInputs made of them. It returns nil when they are not, and a usage
// error for inputs that cannot be read together with such data (URLs, Arrow
// and Parquet files).
//
// The inputs are IoTDB data when one of their data files lies in an IoTDB
// layout (in {sequence|unsequence}/{database}/{region}/{partition}/, as
// dataset.Discover places files) or has a mods file beside it. Looking at
// the files rather than the arguments also catches a glob over partition
// folders and a directory above the data directory.
//
// Object URLs are opened with o (nil for the defaults): IoTDB data in a
// bucket (told from the keys and the mods objects beside them, as locally
// from the paths) is read through the bucket's io/fs view. ctx bounds the
// requests of every read of the dataset, not only of the detection. The
// caller closes the datasetInput.
func detectDatasetWith(ctx context.Context, pos, files []string, o *objstore.Options) (*datasetInput, error) {
	inLayout, withMods, err := inputs.LayoutContext(ctx, files, o)
	if err != nil {
		return nil, err
	}
	if !inLayout && !withMods {
		return nil, nil
	}
	d := &datasetInput{}
	if slices.ContainsFunc(pos, inputs.IsObjectURL) {
		if err := objectDataset(ctx, d, pos, o); err != nil {
			return nil, err
		}
		d.what = describeObjectInputs(d, inLayout)
		return d, nil
	}
	for _, a := range pos {
		if isURL(a) {
			return nil, usagef("%s is a URL, and the other inputs are IoTDB data read with their mods files; pass --raw to read every file as it is, or convert it separately", a)
		}
		if isPattern(a) {
			if _, err := os.Stat(a); err != nil {
				m, err := globPaths(a)
				if err != nil {
					return nil, err
				}
				d.roots = append(d.roots, m...)
				continue
			}
		}
		d.roots = append(d.roots, a)
	}
	for _, r := range d.roots {
		st, err := os.Stat(r)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() && !strings.HasSuffix(r, dataset.TsFileSuffix) {
			return nil, usagef("%s is not a TsFile, and the other inputs are IoTDB data read with their mods files; pass --raw to read every file as it is, or convert it separately", r)
		}
		dir := r
		if st.IsDir() {
			d.dirs = append(d.dirs, r)
		} else {
			dir = filepath.Dir(r)
		}
		// The whole data directory above a folder or file of a layout.
		if space, _, ok := spaceFolder(dir); ok {
			d.dirs = append(d.dirs, filepath.Dir(space))
		}
	}
	d.what = describeInputs(d.roots, inLayout)
	return d, nil
}

// describeInputs names the inputs for the note on stderr.
func describeInputs(roots []string, layout bool) string {
	if len(roots) != 1 {
		if layout {
			return "the inputs are IoTDB data"
		}
		return "the inputs have mods files beside them"
	}
	r := roots[0]
	st, err := os.Stat(r)
	switch {
	case err != nil:
	case !st.IsDir() && layout:
		return r + " is a data file of an IoTDB data directory"
	case !st.IsDir():
		return r + " has a mods file beside it"
	case isDataDir(r):
		return r + " is an IoTDB data directory"
	}
	if space, names, ok := spaceFolder(r); ok {
		sp := filepath.Base(space)
		switch len(names) {
		case 0:
			return r + " is the " + sp + " space of an IoTDB data directory"
		case 1:
			return fmt.Sprintf("%s is database %s (%s) of an IoTDB data directory", r, names[0], sp)
		case 2:
			return fmt.Sprintf("%s is region %s of database %s (%s) of an IoTDB data directory", r, names[1], names[0], sp)
		case 3:
			return fmt.Sprintf("%s is time partition %s of region %s of database %s (%s) of an IoTDB data directory", r, names[2], names[1], names[0], sp)
		}
		return r + " is inside an IoTDB data directory"
	}
	if layout {
		return r + " holds IoTDB data"
	}
	return r + " holds TsFiles with mods files beside them"
}

// isDataDir and spaceFolder are package inputs' rules.
var (
	isDataDir   = inputs.IsDataDir
	spaceFolder = inputs.SpaceFolder
)

// resolved is an opened dataset and the table a command reads.
type resolved struct {
	in    *datasetInput
	ds    *dataset.Dataset
	dsOpt *dataset.Options
	ropts *tsfile.ReadOptions
	// table is the table's Ref, what names it to the dataset ("" for
	// every table of tables, under --partition-by).
	table string
	tree  bool
	// tables are the tables --database leaves (all without it).
	tables []dataset.Table
}

// openDataset opens the inputs as a dataset and picks the table: --table
// (in --database), or the only one. every (--partition-by) takes several
// tables without --table: each gets its partition. A table name several
// databases hold is a usage error that lists them: IoTDB never reads
// databases as one table.
func openDataset(in *datasetInput, ropts *tsfile.ReadOptions, table string, every bool, flags *datasetFlags) (*resolved, error) {
	dso, err := flags.options(ropts)
	if err != nil {
		return nil, err
	}
	dso.FS = in.fsys
	ds, err := dataset.Open(in.roots, dso)
	if err != nil {
		in.close()
		return nil, datasetError(err)
	}
	r, err := pickTable(ds, table, every, flags)
	if err != nil {
		ds.Close()
		return nil, err
	}
	r.in, r.ds, r.dsOpt, r.ropts = in, ds, dso, ropts
	return r, nil
}

// pickTable chooses the table of a command among the dataset's.
func pickTable(ds *dataset.Dataset, table string, every bool, flags *datasetFlags) (*resolved, error) {
	tables, err := ds.Tables()
	if err != nil {
		return nil, datasetError(err)
	}
	refs := func(ts []dataset.Table) string {
		var names []string
		for _, t := range ts {
			names = append(names, t.Ref)
		}
		return strings.Join(names, ", ")
	}
	// why says, when no file is left to read, what left each one out.
	why := func() string {
		ws := ds.Warnings()
		if len(tables) > 0 || len(ws) == 0 {
			return ""
		}
		more := ""
		if len(ws) > 1 {
			more = fmt.Sprintf(" (and %d more warnings)", len(ws)-1)
		}
		return ": " + ws[0] + more
	}
	all := tables
	if db := databaseOf(flags); db != "" {
		var in []dataset.Table
		var dbs []string
		for _, t := range tables {
			if t.Database != "" && !slices.Contains(dbs, t.Database) {
				dbs = append(dbs, t.Database)
			}
			// A tree-model root lies in the database its path starts with.
			if t.Database == db || t.Tree && (t.Name == db || strings.HasPrefix(t.Name, db+".")) {
				in = append(in, t)
			}
		}
		if len(in) == 0 {
			slices.Sort(dbs)
			return nil, usagef("no database %q in the inputs (databases: %s)%s", db, strings.Join(dbs, ", "), why())
		}
		tables = in
	}
	r := &resolved{tables: tables}
	switch {
	case table != "":
		var match []dataset.Table
		for _, t := range tables {
			if t.Name == table || t.Ref == table || t.Database != "" && t.Database+"."+t.Name == table {
				match = append(match, t)
			}
		}
		switch len(match) {
		case 0:
			return nil, usagef("no table %q in the inputs (tables: %s)%s", table, refs(all), why())
		case 1:
		default:
			var dbs []string
			for _, t := range match {
				dbs = append(dbs, cmp.Or(t.Database, "(files outside a data directory)"))
			}
			return nil, usagef("table %q is in databases %s, which IoTDB never reads as one table; pick one with --database (or --table DATABASE.%s)", table, strings.Join(dbs, ", "), table)
		}
		r.table, r.tree, r.tables = match[0].Ref, match[0].Tree, match[:1]
	case len(tables) == 1:
		r.table, r.tree = tables[0].Ref, tables[0].Tree
	case len(tables) == 0:
		// The note is not printed yet: say why files were left out.
		if w := why(); w != "" {
			return nil, usagef("the inputs have no tables%s", w)
		}
		return nil, usagef("the inputs have no tables")
	case every:
	default:
		if !slices.ContainsFunc(tables, func(u dataset.Table) bool { return u.Name != tables[0].Name }) {
			var dbs []string
			for _, t := range tables {
				dbs = append(dbs, cmp.Or(t.Database, "(files outside a data directory)"))
			}
			return nil, usagef("table %q is in databases %s, which IoTDB never reads as one table; pick one with --database", tables[0].Name, strings.Join(dbs, ", "))
		}
		return nil, usagef("the inputs have several tables; pick one with --table (tables: %s)", refs(tables))
	}
	return r, nil
}

// databaseOf returns --database, "" without the flags.
func databaseOf(f *datasetFlags) string {
	if f == nil {
		return ""
	}
	return f.database
}

// close releases the dataset's files.
func (r *resolved) close() {
	r.ds.Close()
	r.in.close()
}

// note says on stderr which rules apply, then the dataset's rules and
// warnings. quiet leaves the warnings alone.
func (r *resolved) note(stderr io.Writer, quiet bool) {
	if !quiet {
		// The counts of files and deletions are Rules' first lines.
		fmt.Fprintf(stderr, "ts2arrow: %s: returning rows as IoTDB does (deletions applied, unsequence over sequence, newer over older); --raw reads every file as it is%s\n", r.in.what, r.in.objectNote())
		rules := r.ds.Rules()
		if r.table != "" {
			// The files the read uses, not the whole directory.
			if tr, err := r.ds.TableRules(r.table); err == nil {
				rules = tr
			}
		}
		for _, l := range rules {
			fmt.Fprintf(stderr, "ts2arrow: %s\n", l)
		}
		if r.tree {
			if all, err := r.ds.Tables(); err == nil {
				var names []string
				tree := map[string]bool{}
				for _, t := range all {
					names = append(names, t.Ref)
					tree[t.Ref] = t.Tree
				}
				if n := treeTableNote(r.table, names, func(t string) bool { return tree[t] }); n != "" {
					fmt.Fprintf(stderr, "ts2arrow: %s\n", n)
				}
			}
		}
	}
	for _, w := range r.ds.Warnings() {
		fmt.Fprintf(stderr, "ts2arrow: warning: %s\n", oneLine(fmt.Sprint(w)))
	}
}

// datasetError gives an error of the dataset the remedy a CLI user can
// act on.
func datasetError(err error) error {
	if errors.Is(err, dataset.ErrChanged) {
		return fmt.Errorf("%w; IoTDB flushed or compacted files during the read: run the command again, or read a copy of the directory (or stop IoTDB first)", err)
	}
	return err
}

// checkQuery checks --columns and --where against the table's full
// schema, as openProjected does for a file.
func (r *resolved) checkQuery(o *arrowconv.Options) error {
	if len(o.Columns) == 0 && len(o.Where) == 0 {
		return nil
	}
	all := *o
	all.Columns, all.Where = nil, nil
	sc, err := r.ds.Schema(r.table, &all)
	if err != nil {
		return datasetError(err)
	}
	return checkColumns(sc, o.Columns, o.Where)
}

// schema returns the table's schema for the query.
func (r *resolved) schema(o *arrowconv.Options) (*arrow.Schema, error) {
	if err := r.checkQuery(o); err != nil {
		return nil, err
	}
	sc, err := r.ds.Schema(r.table, o)
	if err != nil {
		return nil, datasetError(err)
	}
	return sc, nil
}

// reader opens the resolved stream of the table for the query.
func (r *resolved) reader(o *arrowconv.Options) (*dataset.Reader, error) {
	if err := r.checkQuery(o); err != nil {
		return nil, err
	}
	rdr, err := r.ds.NewReader(r.table, o)
	if err != nil {
		return nil, datasetError(err)
	}
	return rdr, nil
}

// devices lists the devices of the dataset's files by table, sorted: from
// each file's .resource, else (a loose file) from the file's own index.
// The map is keyed by the tables' Refs.
func (r *resolved) devices() (map[string][]tsfile.DeviceID, error) {
	out := map[string][]tsfile.DeviceID{}
	for _, t := range r.tables {
		var err error
		if out[t.Ref], err = r.ds.Devices(t.Ref); err != nil {
			return nil, datasetError(err)
		}
	}
	return out, nil
}

// query returns the job's query for the dataset: --device names resolved
// against its devices (a name none holds matches nothing), as queryFor
// does for a file.
func (r *resolved) query(base arrowconv.Options, names []string) (*arrowconv.Options, error) {
	q := base
	if len(names) == 0 {
		return &q, nil
	}
	byTable, err := r.devices()
	if err != nil {
		return nil, err
	}
	q.Devices = []tsfile.DeviceID{}
	for t, devs := range byTable {
		// With no table picked (--partition-by), a name may be a
		// device of any table, as it is over files.
		if r.table != "" && t != r.table {
			continue
		}
		for _, d := range devs {
			if slices.Contains(names, d.String()) || slices.Contains(names, d.TreePath()) {
				q.Devices = append(q.Devices, d)
			}
		}
	}
	if len(q.Devices) == 0 {
		q.Devices = []tsfile.DeviceID{tsfile.NewDeviceID("\x00no such device")}
	}
	return &q, nil
}

// statsLine describes what a reader did, for --verbose.
func statsLine(st dataset.ReadStats) string {
	return fmt.Sprintf("files: %d read, %d pruned by their resources; rows: %d read, %d written, %d filtered out by deletions (and %d cells), %d overwritten, %d merged by time; what deletions cover is skipped unread (inspect counts it)",
		st.FilesRead, st.FilesPruned, st.RowsRead, st.RowsOut, st.RowsDeleted+st.RowsDropped, st.CellsDeleted, st.RowsOverwritten, st.RowsMerged)
}

// checkDatasetOutput refuses an OUT inside a directory of the dataset (or
// the data directory around it): checkOutput only guards the inputs
// themselves, and a file written into a data directory is one IoTDB, and
// the next read of it, would find there.
func checkDatasetOutput(out string, in *datasetInput) error {
	if objstore.IsURL(out) {
		// Only data in a bucket can hold an object OUT.
		for _, d := range in.dirs {
			if objstore.IsURL(d) && strings.HasPrefix(out, strings.TrimSuffix(d, "/")+"/") {
				return usagef("refusing to write -o %s: it is inside %s, which the inputs are read from; write the output elsewhere", out, d)
			}
		}
		return nil
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	for _, d := range in.dirs {
		st, err := os.Stat(d)
		if err != nil {
			continue
		}
		parent := filepath.Dir(abs)
		if same(st, abs) || same(st, parent) || ancestorOf(st, parent) {
			return usagef("refusing to write -o %s: it is inside %s, which the inputs are read from; write the output elsewhere", out, d)
		}
	}
	return nil
}

// runDataset converts the resolved rows of the dataset.
func (j *convertJob) runDataset(ctx context.Context, r *resolved, stdout, stderr io.Writer) error {
	q, err := r.query(j.query, j.devices)
	if err != nil {
		return err
	}
	prog := newProgress(stderr, !j.quiet && j.out != "-" && isTerminal(stderr), 0, 0)
	if j.partitionBy != "" {
		return j.runDatasetPartitioned(ctx, r, q, prog, stderr)
	}
	rdr, err := r.reader(q)
	if err != nil {
		return err
	}
	chain := singleChain(ctx, rdr, prog)
	defer chain.Release()
	err = j.writeChain(chain, stdout)
	prog.finish(err == nil)
	if err != nil {
		return datasetError(chain.wrap(err))
	}
	st := rdr.Stats()
	j.reportDataset(ctx, chain.rows, 1, st, func() bool { return r.deletedAny(q, []string{r.table}) }, stderr)
	return nil
}

// deletedAny reads the query again with every deleted row decoded
// (dataset.Options.CountDeletions: a read skips what deletions cover,
// uncounted) and reports whether deletions removed rows it matched. Only
// asked when nothing came out, so it reads little.
func (r *resolved) deletedAny(o *arrowconv.Options, tables []string) bool {
	dso := *r.dsOpt
	dso.CountDeletions = true
	ds, err := dataset.Open(r.in.roots, &dso)
	if err != nil {
		return false
	}
	defer ds.Close()
	for _, t := range tables {
		rd, err := ds.NewReader(t, o)
		if err != nil {
			continue
		}
		for rd.Next() {
		}
		st := rd.Stats()
		rd.Release()
		if st.RowsDeleted+st.RowsDropped > 0 {
			return true
		}
	}
	return false
}

// singleChain wraps one reader for the writers: progress, Ctrl-C.
func singleChain(ctx context.Context, rdr array.RecordReader, prog *progress) *chainReader {
	return &chainReader{ctx: ctx, schema: rdr.Schema(), prog: prog, next: func(k int) (*input, array.RecordReader, error) {
		if k > 0 {
			return nil, nil, nil
		}
		return nil, rdr, nil
	}, done: func(*input) {}}
}

// reportDataset ends a conversion: with no row, what reportEmpty says and
// how many rows deletions removed; with --verbose, what was read.
func (j *convertJob) reportDataset(ctx context.Context, rows int64, parts int, st dataset.ReadStats, deleted func() bool, stderr io.Writer) {
	switch {
	case rows == 0:
		j.reportEmpty(ctx, stderr)
		if deleted() {
			fmt.Fprintf(stderr, "ts2arrow: the mods files deleted the rows the query matched; --raw reads them as the files hold them\n")
		}
	case j.verbose && j.partitionBy != "":
		fmt.Fprintf(stderr, "ts2arrow: wrote %d rows in %d parts under %s\n", rows, parts, j.out)
	case j.verbose:
		fmt.Fprintf(stderr, "ts2arrow: wrote %d rows to %s\n", rows, j.out)
	}
	if j.verbose {
		fmt.Fprintf(stderr, "ts2arrow: %s\n", statsLine(st))
	}
}

// runDatasetPartitioned writes one part per table (and device) of the
// resolved rows into a Hive-style directory, as runPartitioned does per
// input file: here the dataset is one stream, so each partition gets one
// part.
func (j *convertJob) runDatasetPartitioned(ctx context.Context, r *resolved, q *arrowconv.Options, prog *progress, stderr io.Writer) error {
	tmp, err := j.dst.tempDir()
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	j.stderr = stderr
	tables := r.tables
	var byTable map[string][]tsfile.DeviceID
	if j.part.device {
		if byTable, err = r.devices(); err != nil {
			return err
		}
	}
	if j.part.device {
		for _, t := range tables {
			j.devWarn.note(stderr, j.partitionBy, t.Ref, keptDevices(byTable[t.Ref], q))
		}
	}
	var rows int64
	var parts int
	var st dataset.ReadStats
	write := func(table string, o *arrowconv.Options, dir string) error {
		n, s, err := j.writeDatasetPart(ctx, r, table, o, dir, prog)
		rows += n
		if n > 0 {
			parts++
		}
		st.Add(s)
		return err
	}
	// writeTimes writes the rows of o under dir: one part, or one per
	// time partition its rows reach.
	writeTimes := func(tr *resolved, o *arrowconv.Options, dir string) error {
		if j.part.period == "" {
			return write(tr.table, o, dir)
		}
		ws := newWindowSet(j.part, j.query.TimeUnit.Unit(), o.Time)
		rdr, err := tr.reader(timeOnly(o))
		if err != nil {
			return err
		}
		if err := ws.scan(ctx, rdr); err != nil {
			return datasetError(err)
		}
		for _, w := range ws.windows() {
			if err := write(tr.table, windowQuery(o, w), filepath.Join(dir, filepath.FromSlash(w.dir))); err != nil {
				return err
			}
		}
		return nil
	}
	for _, t := range tables {
		tr := &resolved{in: r.in, ds: r.ds, dsOpt: r.dsOpt, ropts: r.ropts, table: t.Ref, tree: t.Tree, tables: []dataset.Table{t}}
		// A table of several databases is table=DATABASE.TABLE.
		tdir := filepath.Join(tmp, "table="+hiveEscape(t.Ref))
		if !j.part.device {
			if err := writeTimes(tr, q, tdir); err != nil {
				prog.finish(false)
				return err
			}
			continue
		}
		var cols []string
		if t.Tree {
			// The device is the partition: the column moves into the
			// path, where Spark and DuckDB expect it.
			if cols, err = tr.withoutDevice(q); err != nil {
				prog.finish(false)
				return err
			}
		}
		for _, d := range keptDevices(byTable[t.Ref], q) {
			dq := *q
			dq.Devices = []tsfile.DeviceID{d}
			if t.Tree {
				dq.Columns = cols
			}
			if err := writeTimes(tr, &dq, filepath.Join(tdir, "device="+hiveEscape(d.String()))); err != nil {
				prog.finish(false)
				return err
			}
		}
	}
	prog.finish(true)
	pruneEmptyDirs(tmp)
	if err := j.dst.commitDir(ctx, tmp); err != nil {
		return err
	}
	ok = true
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Ref
	}
	j.reportDataset(ctx, rows, parts, st, func() bool { return r.deletedAny(q, names) }, stderr)
	return nil
}

// keptDevices returns the devices of devs that the query's --device names
// keep.
func keptDevices(devs []tsfile.DeviceID, q *arrowconv.Options) []tsfile.DeviceID {
	if q.Devices == nil {
		return devs
	}
	var out []tsfile.DeviceID
	for _, d := range devs {
		if containsDevice(q.Devices, d) {
			out = append(out, d)
		}
	}
	return out
}

// withoutDevice returns the columns of a tree-model query without the
// device column.
func (r *resolved) withoutDevice(q *arrowconv.Options) ([]string, error) {
	names := q.Columns
	if names == nil {
		sc, err := r.schema(q)
		if err != nil {
			return nil, err
		}
		for _, f := range sc.Fields() {
			names = append(names, f.Name)
		}
	}
	out := []string{}
	for _, n := range names {
		if n != arrowconv.DeviceColumn && n != arrowconv.TimeColumn {
			out = append(out, n)
		}
	}
	return out, nil
}

// writeDatasetPart writes the resolved rows of a table for a query as
// part-0 of dir; a part that would hold no rows is not written.
func (j *convertJob) writeDatasetPart(ctx context.Context, r *resolved, table string, q *arrowconv.Options, dir string, prog *progress) (int64, dataset.ReadStats, error) {
	tr := &resolved{in: r.in, ds: r.ds, dsOpt: r.dsOpt, ropts: r.ropts, table: table}
	rdr, err := tr.reader(q)
	if err != nil {
		return 0, dataset.ReadStats{}, err
	}
	if j.part.period != "" {
		j.warnKeyClash(j.stderr, rdr.Schema(), table)
	}
	chain := singleChain(ctx, rdr, prog)
	defer chain.Release()
	if err := os.MkdirAll(dir, 0o777); err != nil { // less the umask, as mkdir -p
		return 0, rdr.Stats(), err
	}
	path := filepath.Join(dir, "part-0"+formatExt[j.format])
	// os.Rename: commitDir syncs the tree's directories before publishing it.
	err = writeSynced(path, os.Rename, func(w io.Writer) error { return writeFormat(w, j.format, chain, j.wopts) })
	if err != nil {
		return chain.rows, rdr.Stats(), datasetError(chain.wrap(err))
	}
	if chain.rows == 0 {
		os.Remove(path)
	}
	return chain.rows, rdr.Stats(), nil
}

// checkDatasetFlags refuses --database and --mods-v1 for inputs that are
// not IoTDB data (or under --raw), where they would be ignored.
func checkDatasetFlags(f *datasetFlags, in *datasetInput) error {
	if in != nil {
		return nil
	}
	if f.database != "" {
		return usagef("--database picks a database of IoTDB data; the inputs are plain TsFiles (or --raw is given)")
	}
	if f.modsV1 != "auto" && f.modsV1 != "" {
		return usagef("--mods-v1 applies to IoTDB data read with its mods files; the inputs are plain TsFiles (or --raw is given)")
	}
	if f.maxMods != 0 && f.maxMods != dataset.DefaultMaxModsSize {
		return usagef("--max-mods-size applies to IoTDB data read with its mods files; the inputs are plain TsFiles (or --raw is given)")
	}
	return nil
}

// datasetFor is detectDatasetWith for head and schema: the one FILE argument,
// or nil when it is not IoTDB data (or --raw) and the single-file path
// reads it, with the errors it gives today.
func datasetFor(name string, raw bool, o *objstore.Options) (*datasetInput, error) {
	if raw || inputs.IsHTTPURL(name) {
		return nil, nil
	}
	files, err := expandInputsWith(context.Background(), []string{name}, o)
	if err != nil {
		return nil, nil
	}
	return detectDatasetWith(context.Background(), []string{name}, files, o)
}

// headDataset prints the first rows of the resolved stream.
func headDataset(in *datasetInput, ropts *tsfile.ReadOptions, table string, flags *datasetFlags, opts *arrowconv.Options, n int, raw bool, width int, stdout, stderr io.Writer) error {
	r, err := openDataset(in, ropts, table, false, flags)
	if err != nil {
		return err
	}
	defer r.close()
	r.note(stderr, false)
	rdr, err := r.reader(opts)
	if err != nil {
		return err
	}
	defer rdr.Release()
	return printHead(rdr, n, raw, width, stdout, datasetError)
}

// schemaDataset returns the dataset's unified schema of the table.
func schemaDataset(in *datasetInput, ropts *tsfile.ReadOptions, table string, flags *datasetFlags, opts *arrowconv.Options, stderr io.Writer) (*arrow.Schema, error) {
	r, err := openDataset(in, ropts, table, false, flags)
	if err != nil {
		return nil, err
	}
	defer r.close()
	r.note(stderr, false)
	return r.schema(opts)
}
