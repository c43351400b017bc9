package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// ErrChanged reports that a data file or one of its companions changed,
// appeared or vanished while a Dataset was being read (a compaction or a
// flush of a live directory). Open the directory again for a new snapshot.
var ErrChanged = errors.New("dataset: data directory changed during the read")

// Options configure Open. The zero value (or nil) selects the defaults.
type Options struct {
	// Read is passed to tsfile.Open for every data file (keys of Page AEAD
	// files, tolerance of damaged ones).
	Read *tsfile.ReadOptions
	// Mods limits the mods files read (DefaultMaxModsSize).
	Mods *ModsOptions
	// CountDeletions makes readers decode the rows deletions cover instead
	// of skipping the chunks and pages they cover, so that
	// ReadStats.RowsDeleted and CellsDeleted count every deleted row and
	// cell (ts2arrow inspect uses it). Reads are slower.
	CountDeletions bool
	// ModsV1 is how the deletions of IoTDB 1.x .mods files apply; the zero
	// value, ModsV1Auto, follows the server version the files show.
	ModsV1 ModsV1Rule
	// TrustResources prunes by every .resource without first checking it
	// against its data file's index. Open then reads no footer, which
	// saves a few milliseconds per data file on a directory of thousands;
	// but a damaged or stale resource then makes a read miss points, or
	// return overwritten ones, without a word. By default Open checks
	// each resource and fails on a mismatch (ErrResourceMismatch), or
	// under Read.Lenient reads that file by its own index with a warning.
	TrustResources bool
	// ReadBytes, when set, counts the bytes read from data files (footers,
	// index and pages), for a caller that reports what a query read
	// (package query's ScanStats).
	ReadBytes *atomic.Int64
	// FS, when set, is the file system every stat, listing and open goes
	// through instead of the operating system's: roots and the paths of a
	// Layout are then slash-separated names within it ("." its root; see
	// DiscoverFS), and files it opens must implement io.ReaderAt, as
	// objstore's do, so that a data directory in a bucket is read by
	// range requests. File versions (size and modification time) are
	// checked as on disk. Its Open must not block on a special file
	// (os.DirFS of a folder holding a named pipe would): files are stat'ed
	// on the open file only, to save a bucket a request per file. Nil is
	// the operating system, whose files are stat'ed before they are
	// opened.
	FS fs.FS
}

// ModsV1Rule tells how the deletions of a v1 (.mods) file apply. IoTDB
// 1.x applies a v1 deletion only to the chunks whose header lies below
// its offset (the chunks written before it); IoTDB 2.x converts a .mods
// file to .mods2 when it loads the data file and drops the offsets, so
// the deletion covers the whole file (TsFileResource.upgradeModFile in
// apache/iotdb iotdb-core/datanode/.../dataregion/tsfile/TsFileResource.java
// writes new TreeDeletionEntry(oldDeletion) for each entry, and
// TreeDeletionEntry keeps only the path and the time range).
type ModsV1Rule uint8

// The rules for v1 deletions.
const (
	// ModsV1Auto applies the 2.x rule (whole file) to a .mods file in a
	// data directory IoTDB 2.x has written to, and the 1.x rule (chunks
	// below the offset) elsewhere. IoTDB 1.x writes TsFile v3 and .mods
	// files only; 2.x writes TsFile v4 and .mods2 files. So a data
	// directory (the folder above sequence/ and unsequence/) holding a
	// TsFile v4 or a .mods2 file among the files read is taken as a 2.x
	// directory; a loose file (outside a layout) as 2.x when it is a
	// TsFile v4. Anything else keeps the 1.x rule: the server that wrote
	// a .mods file was 1.x.
	ModsV1Auto ModsV1Rule = iota
	// ModsV1Offset applies a v1 deletion to the chunks below its offset,
	// as IoTDB 1.x does.
	ModsV1Offset
	// ModsV1Whole applies a v1 deletion to the whole data file, as IoTDB
	// 2.x does after converting the .mods file.
	ModsV1Whole
)

// String returns the name the CLI flag takes: auto, offset or whole.
func (r ModsV1Rule) String() string {
	switch r {
	case ModsV1Auto:
		return "auto"
	case ModsV1Offset:
		return "offset"
	case ModsV1Whole:
		return "whole"
	}
	return fmt.Sprintf("ModsV1Rule(%d)", uint8(r))
}

// Table is a logical table of a Dataset: a table-model table of one
// database (all its devices in the files of that database), or a
// tree-model root, the first segment of its devices' IDs (such as
// "root.sg"), whose devices make one stream with a "device" column, as
// arrowconv.NewTreeReader reads one file.
//
// IoTDB never merges databases: a table name in two databases (two
// database folders of a layout) is two tables, and naming it alone is
// ambiguous (ErrAmbiguousTable). A tree-model root is not split: its
// devices' paths name their database, so devices of two databases never
// hold copies of one point.
type Table struct {
	Name string
	// Database is the database folder holding a table-model table's files
	// in an IoTDB layout; "" for loose files and for tree-model roots.
	Database string
	// Ref is what names the table to NewReader, Schema and Devices: Name,
	// or Database.Name when another database (or a loose file) holds a
	// table of the same name.
	Ref string
	// Tree is true for a tree-model root.
	Tree bool
	// Files is the number of data files holding devices of the table.
	Files int
}

// ErrAmbiguousTable is returned for a table named without its database
// when several databases hold a table of that name.
var ErrAmbiguousTable = errors.New("dataset: table name in several databases")

// ErrNoTable is returned for a table name no data file holds.
var ErrNoTable = errors.New("dataset: no such table")

// tableID is a resolved table: its name in the files and, for a
// table-model table, its database.
type tableID struct {
	db, name string
	tree     bool
}

// FileVersion identifies the content of one file a Dataset read: a data
// file or a companion. A ticket or a cache bound to a Dataset compares
// these to tell whether the directory changed.
type FileVersion struct {
	Path    string
	Size    int64
	ModTime int64 // Unix nanoseconds
}

// Dataset is a snapshot of the data files of an IoTDB data directory (or of
// any list of TsFiles) with their resources and mods, read as logical
// tables whose rows are those the IoTDB server would return: the deletions
// of each file's mods applied to it, and of the copies of a point in several
// files the one of highest Priority kept (cell by cell for aligned rows).
// docs/iotdb-rules.md gives the rules and the IoTDB sources they follow.
//
// Open reads every .resource and mods file. A table's schema is built once
// from the footers of every file holding it, so that it does not depend on
// the query; the data of a file is read only when a query needs it. Files
// stay open until Close. A Dataset is safe for concurrent use by readers;
// each Reader is not.
type Dataset struct {
	layout   *Layout
	opts     Options
	files    []*dataFile
	warnings []string
	versions []FileVersion
	fsys     fileSystem

	mu      sync.Mutex
	schemas map[schemaKey]*tableSchema

	tablesOnce sync.Once
	tables     []Table
	tablesErr  error

	// v1Dirs caches, by data directory, whether IoTDB 2.x wrote to it
	// (ModsV1Auto).
	v1Dirs map[string]bool
}

// dataFile is one data file of the snapshot.
type dataFile struct {
	File
	idx int // position in Dataset.files, the tie-break of equal priorities
	ver FileVersion
	res *Resource // nil for a loose file without one
	// resIdx finds a device in res.Devices by DeviceID.Key; tables are
	// the tables of res.Devices, sorted.
	resIdx map[string]int
	tables []string
	mods   *modsIndex // nil without mods
	// modsPath is the mods file whose deletions apply ("" for none).
	modsPath string
	// v1Whole is set when the deletions of a .mods file apply to the
	// whole file (ModsV1Rule).
	v1Whole bool
	// noResource is set for a complete data file of a layout without its
	// .resource, read by its index as IoTDB rebuilds the resource.
	noResource bool

	mu  sync.Mutex
	tf  *tsfile.File
	osf file
	err error
}

// Open discovers the data files under roots (see Discover) and reads their
// resources and mods.
func Open(roots []string, opts *Options) (*Dataset, error) {
	var fsys fs.FS
	if opts != nil {
		fsys = opts.FS
	}
	l, err := DiscoverFS(fsys, roots...)
	if err != nil {
		return nil, err
	}
	return OpenLayout(l, opts)
}

// OpenLayout opens the files of a layout Discover returned (or one built by
// hand, for a list of files). A loose file needs no resource: its own index
// gives its devices' times. A data file of a layout (a named file below a
// space folder) without its .resource is read the same way when it is
// complete (its tail magic in place): IoTDB rebuilds the resource of such
// a file from the file's index and serves its points
// (AbstractTsFileRecoverPerformer.recoverWithWriter in apache/iotdb
// iotdb-core/datanode/.../dataregion/wal/recover/file/: without a
// .resource it opens a RestorableTsFileIOWriter and, unless the writer
// hasCrashed, calls reconstructResourceFile, which takes each device's
// start and end times from the file, FileLoaderUtils.updateTsFileResource).
// An incomplete one is left out with a warning: the server cuts it to its
// complete chunk groups and replays its write-ahead log, which files alone
// do not give (docs/iotdb-rules.md 7a).
//
// With Options.FS set, the layout's paths are names within it (DiscoverFS
// with the same file system).
func OpenLayout(l *Layout, opts *Options) (*Dataset, error) {
	d := &Dataset{layout: l, schemas: map[schemaKey]*tableSchema{}, v1Dirs: map[string]bool{}}
	if opts != nil {
		d.opts = *opts
	}
	d.fsys = fsOf(d.opts.FS)

	for _, f := range l.Files {
		df := &dataFile{File: f}
		st, err := d.fsys.Stat(f.Path)
		if err != nil {
			return nil, fileError(f.Path, err)
		}
		df.ver = versionOf(f.Path, st)
		if f.Space != Unknown && f.Resource == "" {
			if why := incomplete(d.fsys, f.Path, st.Size()); why != "" {
				d.warnings = append(d.warnings, fmt.Sprintf("%s: no .resource beside it and %s, so IoTDB had not finished it (still written, or left by a crash); skipped, as the server rebuilds it from its write-ahead log, which files alone do not give", f.Path, why))
				continue
			}
			// Complete: IoTDB rebuilds the resource from the file.
			df.noResource = true
		}
		if f.Resource != "" {
			// The version is that of the file read: a stat before the
			// open would cost an object store a request more per file.
			var st fs.FileInfo
			r, err := readResource(d.fsys, f.Resource, &st)
			if st != nil {
				d.versions = append(d.versions, versionOf(f.Resource, st))
			}
			switch {
			case err == nil:
			case !errors.Is(err, tsfile.ErrCorrupt) && !errors.Is(err, tsfile.ErrUnsupported):
				return nil, companionError(f.Resource, err)
			case !d.lenient():
				return nil, fmt.Errorf("%w; move the resource aside (the file's own index is then read, as IoTDB rebuilds a missing resource), or read with --lenient to do so with a warning", err)
			default:
				// As IoTDB rebuilds a resource it cannot use, from the
				// file's own index.
				d.warnings = append(d.warnings, fmt.Sprintf("%v; reading %s by its own index instead (--lenient)", err, f.Path))
			}
			if r != nil && r.ModFile != "" && !isV1ModsName(r.ModFile) {
				return nil, fmt.Errorf("dataset: %s names the shared mods file %s, which this reader does not apply (IoTDB ships with shared mods files switched off); read with --raw to ignore deletions: %w", f.Resource, r.ModFile, tsfile.ErrUnsupported)
			}
			if r != nil {
				df.res = r
				df.setResource(r.Devices)
			}
		}
		switch {
		case f.ModsV2 != "":
			df.modsPath = f.ModsV2
			if f.ModsV1 != "" {
				d.warnings = append(d.warnings, fmt.Sprintf("%s: both %s and %s exist (an upgrade to IoTDB 2.x was interrupted); applying %s, as IoTDB 2.x does", f.Path, ModsV1Suffix, ModsV2Suffix, ModsV2Suffix))
			}
		case f.ModsV1 != "":
			df.modsPath = f.ModsV1
			whole, err := d.modsV1Whole(f)
			if err != nil {
				return nil, err
			}
			df.v1Whole = whole
		}
		if df.modsPath != "" {
			var st fs.FileInfo
			m, warnings, err := readModsIndex(d.fsys, df.modsPath, d.opts.Mods, &st, df.v1Whole)
			if err != nil {
				return nil, companionError(df.modsPath, err)
			}
			for _, w := range warnings {
				d.warnings = append(d.warnings, fmt.Sprintf("%s: %s", df.modsPath, w))
			}
			if m.entries > 0 {
				df.mods = m
			}
			d.versions = append(d.versions, versionOf(df.modsPath, st))
		}
		df.idx = len(d.files)
		d.files = append(d.files, df)
		d.versions = append(d.versions, df.ver)
	}
	taken := make(map[string]bool, len(l.Files))
	for _, f := range l.Files {
		taken[f.Path] = true
	}
	for _, sk := range l.Skipped {
		if sk.Unusual {
			if err := d.unusual(sk, taken); err != nil {
				return nil, err
			}
		}
		if strings.HasSuffix(sk.Path, "-compaction.log") || strings.HasSuffix(sk.Path, ".compaction.log") {
			// docs/iotdb-rules.md 7b: the log is not replayed.
			d.warnings = append(d.warnings, fmt.Sprintf("%s: a compaction is running (or was, when the directory was copied); its log is not replayed, so a target already renamed beside its sources is read with them, their points merged as copies of each other", sk.Path))
		}
		// Table and column renames recorded in filesets/*.sevo leave the
		// older files under the old names; read without them a renamed
		// table would split in two and a renamed column show twice,
		// silently (renames.go, docs/iotdb-rules.md 8).
		if strings.HasSuffix(sk.Path, SevoSuffix) {
			if err := d.renames(sk.Path); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(d.versions, func(i, j int) bool { return d.versions[i].Path < d.versions[j].Path })
	if !d.opts.TrustResources {
		if err := d.checkResources(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Incomplete says why the data file at path, of size bytes, is not a
// complete TsFile (its head or tail magic missing), or "" when it is: the
// test IoTDB's RestorableTsFileIOWriter makes before it rebuilds a missing
// resource from the file (AbstractTsFileRecoverPerformer). OpenLayout
// reads a complete data file without .resource and leaves out an
// incomplete one. A negative size stats the file for it.
func Incomplete(path string, size int64) string {
	return incomplete(osFS{}, path, size)
}

// IncompleteFS is Incomplete for a data file in fsys (the operating
// system when nil), as OpenLayout with Options.FS decides it.
func IncompleteFS(fsys fs.FS, path string, size int64) string {
	return incomplete(fsOf(fsys), path, size)
}

func incomplete(fsys fileSystem, path string, size int64) string {
	const prefix = len(tsfile.Magic) + 1
	if size < 0 {
		st, err := fsys.Stat(path)
		if err != nil {
			return err.Error()
		}
		size = st.Size()
	}
	if size < int64(prefix+len(tsfile.Magic)) {
		return fmt.Sprintf("it is only %d bytes long", size)
	}
	f, err := fsys.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	head := make([]byte, prefix)
	tail := make([]byte, len(tsfile.Magic))
	if _, err := f.ReadAt(head, 0); err != nil {
		return err.Error()
	}
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return err.Error()
	}
	if string(head[:len(tsfile.Magic)]) != tsfile.Magic {
		return "it does not start with the TsFile magic"
	}
	if string(tail) != tsfile.Magic {
		return "it does not end with the TsFile magic (its writer never finished it)"
	}
	return ""
}

// setResource makes devs the devices of df's resource, indexed.
func (df *dataFile) setResource(devs []DeviceTimes) {
	df.res.Devices = devs
	df.resIdx = make(map[string]int, len(devs))
	df.tables = df.tables[:0]
	for j, dt := range devs {
		df.resIdx[dt.Device.Key()] = j
		df.tables = append(df.tables, dt.Device.Table())
	}
	slices.Sort(df.tables)
	df.tables = slices.Compact(df.tables)
}

// unusual warns of a file Discover skipped for a reason IoTDB's own work
// does not explain (Skipped.Unusual). A mods file that is a named pipe or
// a device beside a data file read fails the open unless Lenient: its
// deletions cannot be read, and without them the rows they delete would
// come back. (A broken link to a mods file is a warning: IoTDB too sees no
// mods file there, ModificationFile.exists following the link.)
func (d *Dataset) unusual(sk Skipped, taken map[string]bool) error {
	base := d.fsys.Base(sk.Path)
	data, isCompanion := companionOf(base)
	isMods := strings.HasSuffix(base, ModsV1Suffix) || strings.HasSuffix(base, ModsV2Suffix)
	if isCompanion && isMods && taken[d.fsys.Join(d.fsys.Dir(sk.Path), data)] {
		// Stat, never open: a named pipe would block the open.
		if st, err := d.fsys.Stat(sk.Path); err == nil && !st.Mode().IsRegular() {
			if !d.lenient() {
				return fmt.Errorf("dataset: %s is %s beside the data file %s: its deletions cannot be read, and without them the rows they delete would come back; replace it with the mods file, or read with --lenient to read the data file without them (--raw ignores every mods file): %w", sk.Path, modeName(st.Mode()), data, tsfile.ErrUnsupported)
			}
			d.warnings = append(d.warnings, fmt.Sprintf("%s: skipped: %s; its deletions are not applied, so rows they delete come back (--lenient)", sk.Path, sk.Reason))
			return nil
		}
	}
	d.warnings = append(d.warnings, fmt.Sprintf("%s: skipped: %s", sk.Path, sk.Reason))
	return nil
}

// lenient reports whether the read options ask for a lenient read.
func (d *Dataset) lenient() bool { return d.opts.Read != nil && d.opts.Read.Lenient }

// modsV1Whole tells whether the deletions of f's .mods file apply to the
// whole file (ModsV1Rule).
func (d *Dataset) modsV1Whole(f File) (bool, error) {
	switch d.opts.ModsV1 {
	case ModsV1Offset:
		return false, nil
	case ModsV1Whole:
		return true, nil
	case ModsV1Auto:
	default:
		return false, fmt.Errorf("dataset: unknown ModsV1Rule %d", d.opts.ModsV1)
	}
	if f.Space == Unknown {
		v, err := d.formatVersion(f.Path)
		return v >= tsfile.Version, err
	}
	dir := d.dataDirOf(f.Path)
	if w, ok := d.v1Dirs[dir]; ok {
		return w, nil
	}
	w := false
	for _, g := range d.layout.Files {
		if g.Space != Unknown && g.ModsV2 != "" && d.dataDirOf(g.Path) == dir {
			w = true
			break
		}
	}
	for _, g := range d.layout.Files {
		if w {
			break
		}
		if g.Space == Unknown || d.dataDirOf(g.Path) != dir {
			continue
		}
		v, err := d.formatVersion(g.Path)
		if err != nil {
			return false, err
		}
		w = v >= tsfile.Version
	}
	d.v1Dirs[dir] = w
	return w, nil
}

// ModsV1Whole reports whether the deletions of f's .mods file apply to the
// whole data file (IoTDB 2.x) rather than to the chunks below their
// offsets, as this Dataset applies them (Options.ModsV1; under ModsV1Auto
// by the version its data directory shows). Package icesync keys its
// record of f's deletions by it, so that a rule flip is seen as a change.
func (d *Dataset) ModsV1Whole(f File) (bool, error) { return d.modsV1Whole(f) }

// dataDirOf returns the data directory of a file of a layout: the folder
// above its space folder ({dir}/{space}/{database}/{region}/{partition}/).
func (d *Dataset) dataDirOf(path string) string {
	dir := path
	for range 5 {
		dir = d.fsys.Dir(dir)
	}
	return dir
}

// formatVersion reads the format version byte after a TsFile's head magic;
// 0 for a file too short or without the magic.
func (d *Dataset) formatVersion(path string) (byte, error) {
	f, err := openData(d.fsys, path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, len(tsfile.Magic)+1)
	if n, _ := f.ReadAt(b, 0); n < len(b) || string(b[:len(tsfile.Magic)]) != tsfile.Magic {
		return 0, nil
	}
	return b[len(tsfile.Magic)], nil
}

// versionOf is the version of the file at path that st describes.
func versionOf(path string, st fs.FileInfo) FileVersion {
	return FileVersion{Path: path, Size: st.Size(), ModTime: st.ModTime().UnixNano()}
}

// open opens the data file once, checking that it is the file the snapshot
// saw: a compaction may have replaced or removed it since.
func (d *Dataset) open(df *dataFile) (*tsfile.File, error) {
	df.mu.Lock()
	defer df.mu.Unlock()
	if df.tf != nil || df.err != nil {
		return df.tf, df.err
	}
	osf, err := openVersion(d.fsys, df)
	if err != nil {
		df.err = err
		return nil, df.err
	}
	var ra io.ReaderAt = osf
	if d.opts.ReadBytes != nil {
		ra = &countingReaderAt{r: osf, n: d.opts.ReadBytes}
	}
	tf, err := tsfile.Open(ra, df.ver.Size, d.readOptions())
	if err != nil {
		osf.Close()
		df.err = fmt.Errorf("dataset: %s: %w", df.Path, err)
		return nil, df.err
	}
	df.tf, df.osf = tf, osf
	return tf, nil
}

// openVersion opens df's data file, which must still be the version the
// snapshot saw (its size and modification time): ErrChanged otherwise.
func openVersion(fsys fileSystem, df *dataFile) (file, error) {
	osf, err := openData(fsys, df.Path)
	if err != nil {
		return nil, err
	}
	st, err := osf.Stat()
	if err == nil && (st.Size() != df.ver.Size || st.ModTime().UnixNano() != df.ver.ModTime) {
		err = fmt.Errorf("%w: %s is now %d bytes (modified %s), not the %d bytes it had when the directory was opened", ErrChanged, df.Path, st.Size(), st.ModTime().UTC().Format("15:04:05.000"), df.ver.Size)
	}
	if err != nil {
		osf.Close()
		return nil, err
	}
	return osf, nil
}

// readOptions returns a copy of the Dataset's read options for a file of
// its own (nil for the defaults).
func (d *Dataset) readOptions() *tsfile.ReadOptions {
	if d.opts.Read == nil {
		return nil
	}
	o := *d.opts.Read
	return &o
}

// countingReaderAt adds the bytes read through it to n.
type countingReaderAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n.Add(int64(k))
	return k, err
}

// Layout returns the files the Dataset holds and those Discover skipped.
func (d *Dataset) Layout() *Layout { return d.layout }

// Tables lists the logical tables, sorted by name, then database. Files
// with a resource are listed from it; the others (loose files) are opened.
func (d *Dataset) Tables() ([]Table, error) {
	d.tablesOnce.Do(func() { d.tables, d.tablesErr = d.listTables() })
	return append([]Table(nil), d.tables...), d.tablesErr
}

func (d *Dataset) listTables() ([]Table, error) {
	type key struct{ db, name string }
	byKey := map[key]*Table{}
	names := map[string]bool{}
	tree := map[string]bool{}
	for _, df := range d.files {
		tabs, err := d.tablesOf(df)
		if err != nil {
			return nil, err
		}
		for _, name := range tabs {
			if !names[name] {
				names[name] = true
				if tree[name], err = d.isTree(name); err != nil {
					return nil, err
				}
			}
			k := key{df.Database, name}
			if tree[name] {
				k.db = ""
			}
			t := byKey[k]
			if t == nil {
				t = &Table{Name: name, Database: k.db, Tree: tree[name]}
				byKey[k] = t
			}
			t.Files++
		}
	}
	dbs := map[string]int{}
	for k := range byKey {
		dbs[k.name]++
	}
	out := make([]Table, 0, len(byKey))
	for _, t := range byKey {
		t.Ref = t.Name
		if dbs[t.Name] > 1 {
			t.Ref = t.Database + "." + t.Name
		}
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Database < out[j].Database
	})
	return out, nil
}

// resolve finds the table a name gives: a table's Name when no other
// database holds one of that name, or Database.Name.
func (d *Dataset) resolve(ref string) (tableID, error) {
	tables, err := d.Tables()
	if err != nil {
		return tableID{}, err
	}
	var dbs []string
	var found *Table
	for i := range tables {
		t := &tables[i]
		if t.Name == ref {
			dbs = append(dbs, t.Database)
			found = t
		}
	}
	if len(dbs) == 0 {
		// Database.Name: database names of IoTDB's table model have no
		// dot, so the first dot ends it.
		for i := range tables {
			t := &tables[i]
			if !t.Tree && t.Database != "" && ref == t.Database+"."+t.Name {
				return tableID{db: t.Database, name: t.Name}, nil
			}
		}
		var refs []string
		for _, t := range tables {
			refs = append(refs, t.Ref)
		}
		return tableID{}, fmt.Errorf("%w %q in the data files (tables: %s)", ErrNoTable, ref, strings.Join(refs, ", "))
	}
	if len(dbs) > 1 {
		var refs []string
		for _, db := range dbs {
			if db == "" {
				db = "(files outside a data directory)"
			}
			refs = append(refs, db)
		}
		return tableID{}, fmt.Errorf("%w: %q is in databases %s, which IoTDB never reads as one table; name one as DATABASE.%s", ErrAmbiguousTable, ref, strings.Join(refs, ", "), ref)
	}
	return tableID{db: found.Database, name: found.Name, tree: found.Tree}, nil
}

// Devices lists the devices of a table in the data files, sorted by
// DeviceID.Compare: from the files' resources, or for a loose file from its
// index. It reads no data, so a CLI can resolve device names or partition
// by device before reading.
func (d *Dataset) Devices(table string) ([]tsfile.DeviceID, error) {
	id, err := d.resolve(table)
	if err != nil {
		return nil, err
	}
	table = id.name
	var out []tsfile.DeviceID
	seen := map[string]bool{}
	add := func(dev tsfile.DeviceID) {
		if k := dev.Key(); !seen[k] && dev.Table() == table {
			seen[k] = true
			out = append(out, dev)
		}
	}
	for _, df := range d.filesOf(id) {
		if df.res != nil {
			for _, dt := range df.res.Devices {
				add(dt.Device)
			}
			continue
		}
		tf, err := d.open(df)
		if err != nil {
			return nil, err
		}
		devs, err := tf.Devices(table)
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", df.Path, err)
		}
		for _, dev := range devs {
			add(dev)
		}
	}
	slices.SortFunc(out, tsfile.DeviceID.Compare)
	return out, nil
}

// tablesOf returns the tables a file holds, sorted: from its resource's
// devices (computed at Open), or for a loose file from its footer.
func (d *Dataset) tablesOf(df *dataFile) ([]string, error) {
	if df.res != nil {
		return df.tables, nil
	}
	tf, err := d.open(df)
	if err != nil {
		return nil, err
	}
	return tf.Tables(), nil
}

// isTree tells a tree-model root from a table by the footer of the newest
// file holding it (a table schema is in every file of a table).
func (d *Dataset) isTree(table string) (bool, error) {
	files := d.filesOf(tableID{name: table, tree: true})
	if len(files) == 0 {
		return false, fmt.Errorf("dataset: no table %q in the data files", table)
	}
	tf, err := d.open(files[len(files)-1])
	if err != nil {
		return false, err
	}
	_, ok := tf.SchemaOf(table)
	return !ok, nil
}

// Warnings says what Open skipped or repaired: truncated mods entries,
// unsealed data files, both .mods and .mods2 beside a file.
func (d *Dataset) Warnings() []string { return d.warnings }

// Rules describes, one line each, what this Dataset resolves over all its
// files, for a CLI to print. TableRules says the same of one table.
func (d *Dataset) Rules() []string { return d.rules(d.files) }

// TableRules is Rules for a read of one table: the files counted are
// those holding the table.
func (d *Dataset) TableRules(table string) ([]string, error) {
	id, err := d.resolve(table)
	if err != nil {
		return nil, err
	}
	return d.rules(d.filesOf(id)), nil
}

func (d *Dataset) rules(files []*dataFile) []string {
	var seq, unseq, loose, modsFiles, dels, v1, v1Whole, rebuilt int
	for _, df := range files {
		switch df.Space {
		case Sequence:
			seq++
		case Unsequence:
			unseq++
		default:
			loose++
		}
		if df.noResource {
			rebuilt++
		}
		if df.mods != nil {
			modsFiles++
			dels += df.mods.entries
			if df.mods.version == ModsV1 {
				v1++
				if df.v1Whole {
					v1Whole++
				}
			}
		}
	}
	kinds := fmt.Sprintf("%d sequence, %d unsequence", seq, unseq)
	if loose > 0 {
		kinds += fmt.Sprintf(", %d outside a data directory", loose)
	}
	out := []string{fmt.Sprintf("%s (%s); copies of a point in several files resolve as IoTDB does: unsequence over sequence, then the higher file version, then the higher file-name time, then the later write in the file", plural(len(files), "data file"), kinds)}
	if rebuilt > 0 {
		out = append(out, fmt.Sprintf("%s without a .resource %s read by %s own index, as IoTDB rebuilds the resource of a complete file", plural(rebuilt, "data file"), pick(rebuilt == 1, "is", "are"), pick(rebuilt == 1, "its", "their")))
	}
	if modsFiles > 0 {
		s := fmt.Sprintf("%s %s %s, each applied to its own data file", plural(modsFiles, "mods file"), pick(modsFiles == 1, "holds", "hold"), plural(dels, "deletion"))
		if n := v1 - v1Whole; n > 0 {
			s += fmt.Sprintf(" (%s in IoTDB 1.x .mods format, applied only to chunks written before them, as IoTDB 1.x does)", plural(n, "file"))
		}
		if v1Whole > 0 {
			s += fmt.Sprintf(" (%s in IoTDB 1.x .mods format, applied to the whole data file, as IoTDB 2.x does after converting them to .mods2)", plural(v1Whole, "file"))
		}
		out = append(out, s)
	}
	n := 0
	for _, sk := range d.layout.Skipped {
		if !sk.Unusual {
			n++
		}
	}
	if n > 0 {
		out = append(out, fmt.Sprintf("%s %s not data (temporaries of IoTDB's work) and %s not read", plural(n, "file"), pick(n == 1, "is", "are"), pick(n == 1, "is", "are")))
	}
	out = append(out, "TTL is not applied: expired rows still in the files are returned")
	return out
}

// Versions lists the data files and companions the snapshot read, sorted by
// path.
func (d *Dataset) Versions() []FileVersion { return append([]FileVersion(nil), d.versions...) }

// Close closes the data files the Dataset opened.
func (d *Dataset) Close() error {
	var first error
	for _, df := range d.files {
		df.mu.Lock()
		if df.osf != nil {
			if err := df.osf.Close(); err != nil && first == nil {
				first = err
			}
			df.osf, df.tf = nil, nil
		}
		df.err = errors.New("dataset: closed")
		df.mu.Unlock()
	}
	return first
}

// Schema returns the Arrow schema of a table as NewReader streams it with
// the same options: every column any file holds, each of the type of the
// newest file holding it (the others are cast, docs/iotdb-rules.md 4c).
func (d *Dataset) Schema(table string, o *arrowconv.Options) (*arrow.Schema, error) {
	ts, err := d.tableSchema(table, o)
	if err != nil {
		return nil, err
	}
	if o != nil && o.ObjectBytes {
		return arrowconv.ObjectBytesSchema(ts.out), nil
	}
	return ts.out, nil
}

// ReadStats counts what a Reader did.
type ReadStats struct {
	// FilesPruned were skipped by their resources (no device or time in
	// the query); FilesRead were opened.
	FilesPruned, FilesRead int
	// RowsRead are the rows decoded from files (before deletions and the
	// merge), RowsOut those returned.
	RowsRead, RowsOut int64
	// RowsDeleted are rows a mods file removed whole; CellsDeleted cells of
	// rows that stayed. Rows of chunks and pages skipped unread because a
	// deletion covers them are not counted, unless Options.CountDeletions
	// is set (or a deletion covers a device's whole range in a file: its
	// count comes from the statistics).
	RowsDeleted, CellsDeleted int64
	// RowsOverwritten are copies of a row another file's copy (or a later
	// chunk of the same file) replaced.
	RowsOverwritten int64
	// RowsDropped are tree-model rows left without a value: their cells
	// all deleted (a non-aligned device's points are deleted one series
	// at a time) or, under a projection, all null in the columns read.
	RowsDropped int64
	// RowsMerged are the rows that went through the k-way merge; the rest
	// streamed through from a single file.
	RowsMerged int64
}

// Add adds the counts of o, as for the readers of several tables.
func (s *ReadStats) Add(o ReadStats) {
	s.FilesPruned += o.FilesPruned
	s.FilesRead += o.FilesRead
	s.RowsRead += o.RowsRead
	s.RowsOut += o.RowsOut
	s.RowsDeleted += o.RowsDeleted
	s.CellsDeleted += o.CellsDeleted
	s.RowsOverwritten += o.RowsOverwritten
	s.RowsDropped += o.RowsDropped
	s.RowsMerged += o.RowsMerged
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Files opens and returns the TsFiles that hold table, in ascending
// priority, for callers that read their metadata (statistics, say) rather
// than rows: the rows of a table are the resolved ones NewReader gives,
// not the union of these files'. The Dataset owns and closes them.
func (d *Dataset) Files(table string) ([]*tsfile.File, error) {
	id, err := d.resolve(table)
	if err != nil {
		return nil, err
	}
	var out []*tsfile.File
	for _, df := range d.filesOf(id) {
		tf, err := d.open(df)
		if err != nil {
			return nil, err
		}
		out = append(out, tf)
	}
	return out, nil
}
