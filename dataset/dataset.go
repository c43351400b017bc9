package dataset

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

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
}

// Table is a logical table of a Dataset: a table-model table (all its
// devices in every file), or a tree-model root, the first segment of its
// devices' IDs (such as "root.sg"), whose devices make one stream with a
// "device" column, as arrowconv.NewTreeReader reads one file.
type Table struct {
	Name string
	// Tree is true for a tree-model root.
	Tree bool
	// Files is the number of data files holding devices of the table.
	Files int
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

	mu      sync.Mutex
	schemas map[schemaKey]*tableSchema
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
	mods   *Mods // nil without mods
	// modsPath is the mods file whose deletions apply ("" for none).
	modsPath string

	mu  sync.Mutex
	tf  *tsfile.File
	osf *os.File
	err error
}

// Open discovers the data files under roots (see Discover) and reads their
// resources and mods.
func Open(roots []string, opts *Options) (*Dataset, error) {
	l, err := Discover(roots...)
	if err != nil {
		return nil, err
	}
	return OpenLayout(l, opts)
}

// OpenLayout opens the files of a layout Discover returned (or one built by
// hand, for a list of files). A data file of a layout (a named file below a
// space folder) without its .resource is one IoTDB had not sealed: it is
// left out with a warning, since the server rebuilds such a file from its
// write-ahead log, which files alone do not give (docs/iotdb-rules.md 7a).
// A loose file needs no resource: its own index gives its devices' times.
func OpenLayout(l *Layout, opts *Options) (*Dataset, error) {
	d := &Dataset{layout: l, schemas: map[schemaKey]*tableSchema{}}
	if opts != nil {
		d.opts = *opts
	}

	for _, f := range l.Files {
		df := &dataFile{File: f}
		st, err := os.Stat(f.Path)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrChanged, err)
		}
		df.ver = FileVersion{Path: f.Path, Size: st.Size(), ModTime: st.ModTime().UnixNano()}
		if f.Space != Unknown && f.Resource == "" {
			d.warnings = append(d.warnings, fmt.Sprintf("%s: no .resource beside it, so IoTDB had not sealed it (still written, or left by a crash); skipped, as its points are in IoTDB's write-ahead log", f.Path))
			continue
		}
		if f.Resource != "" {
			v, err := versionOf(f.Resource)
			if err != nil {
				return nil, err
			}
			r, err := ReadResourceFile(f.Resource)
			if err != nil {
				return nil, err
			}
			if r.ModFile != "" && !isV1ModsName(r.ModFile) {
				return nil, fmt.Errorf("dataset: %s names the shared mods file %s, which this reader does not apply (IoTDB ships with shared mods files switched off); read with --raw to ignore deletions: %w", f.Resource, r.ModFile, tsfile.ErrUnsupported)
			}
			df.res = r
			df.resIdx = make(map[string]int, len(r.Devices))
			for j, dt := range r.Devices {
				df.resIdx[dt.Device.Key()] = j
				df.tables = append(df.tables, dt.Device.Table())
			}
			slices.Sort(df.tables)
			df.tables = slices.Compact(df.tables)
			d.versions = append(d.versions, v)
		}
		switch {
		case f.ModsV2 != "":
			df.modsPath = f.ModsV2
			if f.ModsV1 != "" {
				d.warnings = append(d.warnings, fmt.Sprintf("%s: both %s and %s exist (an upgrade to IoTDB 2.x was interrupted); applying %s, as IoTDB 2.x does", f.Path, ModsV1Suffix, ModsV2Suffix, ModsV2Suffix))
			}
		case f.ModsV1 != "":
			df.modsPath = f.ModsV1
		}
		if df.modsPath != "" {
			v, err := versionOf(df.modsPath)
			if err != nil {
				return nil, err
			}
			m, err := ReadModsFile(df.modsPath, d.opts.Mods)
			if err != nil {
				return nil, err
			}
			for _, w := range m.Warnings {
				d.warnings = append(d.warnings, fmt.Sprintf("%s: %s", df.modsPath, w))
			}
			if len(m.Deletions) > 0 {
				df.mods = m
			}
			d.versions = append(d.versions, v)
		}
		df.idx = len(d.files)
		d.files = append(d.files, df)
		d.versions = append(d.versions, df.ver)
	}
	for _, sk := range l.Skipped {
		if strings.HasSuffix(sk.Path, "-compaction.log") || strings.HasSuffix(sk.Path, ".compaction.log") {
			// docs/iotdb-rules.md 7b: the log is not replayed.
			d.warnings = append(d.warnings, fmt.Sprintf("%s: a compaction is running (or was, when the directory was copied); its log is not replayed, so a target already renamed beside its sources is read with them, their points merged as copies of each other", sk.Path))
		}
		// IoTDB 2.x records table and column renames in filesets/*.sevo
		// and leaves older files under the old names; read without them
		// a renamed table would split in two and a renamed column show
		// twice, silently (docs/iotdb-rules.md 8).
		if strings.HasSuffix(sk.Path, ".sevo") {
			return nil, fmt.Errorf("dataset: %s records table or column renames (IoTDB 2.x schema evolution), which this reader does not apply; read with --raw to see every file under its stored names: %w", sk.Path, tsfile.ErrUnsupported)
		}
	}
	sort.Slice(d.versions, func(i, j int) bool { return d.versions[i].Path < d.versions[j].Path })
	return d, nil
}

// versionOf stats a file for the snapshot.
func versionOf(path string) (FileVersion, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileVersion{}, fmt.Errorf("%w: %v", ErrChanged, err)
	}
	return FileVersion{Path: path, Size: st.Size(), ModTime: st.ModTime().UnixNano()}, nil
}

// open opens the data file once, checking that it is the file the snapshot
// saw: a compaction may have replaced or removed it since.
func (d *Dataset) open(df *dataFile) (*tsfile.File, error) {
	df.mu.Lock()
	defer df.mu.Unlock()
	if df.tf != nil || df.err != nil {
		return df.tf, df.err
	}
	osf, err := os.Open(df.Path)
	if err != nil {
		df.err = fmt.Errorf("%w: %v", ErrChanged, err)
		return nil, df.err
	}
	st, err := osf.Stat()
	if err == nil && (st.Size() != df.ver.Size || st.ModTime().UnixNano() != df.ver.ModTime) {
		err = fmt.Errorf("%w: %s is now %d bytes (modified %s), not the %d bytes it had when the directory was opened", ErrChanged, df.Path, st.Size(), st.ModTime().UTC().Format("15:04:05.000"), df.ver.Size)
	}
	if err != nil {
		osf.Close()
		df.err = err
		return nil, err
	}
	var ro *tsfile.ReadOptions
	if d.opts.Read != nil {
		o := *d.opts.Read
		ro = &o
	}
	tf, err := tsfile.Open(osf, df.ver.Size, ro)
	if err != nil {
		osf.Close()
		df.err = fmt.Errorf("dataset: %s: %w", df.Path, err)
		return nil, df.err
	}
	df.tf, df.osf = tf, osf
	return tf, nil
}

// Layout returns the files the Dataset holds and those Discover skipped.
func (d *Dataset) Layout() *Layout { return d.layout }

// Tables lists the logical tables, sorted by name. Files with a resource
// are listed from it; the others (loose files) are opened.
func (d *Dataset) Tables() ([]Table, error) {
	byName := map[string]*Table{}
	for _, df := range d.files {
		names, err := d.tablesOf(df)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			t := byName[name]
			if t == nil {
				t = &Table{Name: name}
				byName[name] = t
			}
			t.Files++
		}
	}
	out := make([]Table, 0, len(byName))
	for _, t := range byName {
		tree, err := d.isTree(t.Name)
		if err != nil {
			return nil, err
		}
		t.Tree = tree
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Devices lists the devices of a table in the data files, sorted by
// DeviceID.Compare: from the files' resources, or for a loose file from its
// index. It reads no data, so a CLI can resolve device names or partition
// by device before reading.
func (d *Dataset) Devices(table string) ([]tsfile.DeviceID, error) {
	var out []tsfile.DeviceID
	seen := map[string]bool{}
	add := func(dev tsfile.DeviceID) {
		if k := dev.Key(); !seen[k] && dev.Table() == table {
			seen[k] = true
			out = append(out, dev)
		}
	}
	for _, df := range d.filesOf(table) {
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
	files := d.filesOf(table)
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

// Rules describes, one line each, what this Dataset resolves, for a CLI to
// print.
func (d *Dataset) Rules() []string {
	var seq, unseq, loose, modsFiles, dels, v1 int
	for _, df := range d.files {
		switch df.Space {
		case Sequence:
			seq++
		case Unsequence:
			unseq++
		default:
			loose++
		}
		if df.mods != nil {
			modsFiles++
			dels += len(df.mods.Deletions)
			if df.mods.Version == ModsV1 {
				v1++
			}
		}
	}
	kinds := fmt.Sprintf("%d sequence, %d unsequence", seq, unseq)
	if loose > 0 {
		kinds += fmt.Sprintf(", %d outside a data directory", loose)
	}
	out := []string{fmt.Sprintf("%s (%s); copies of a point in several files resolve as IoTDB does: unsequence over sequence, then the higher file version, then the later write", plural(len(d.files), "data file"), kinds)}
	if modsFiles > 0 {
		s := fmt.Sprintf("%s %s %s, each applied to its own data file", plural(modsFiles, "mods file"), pick(modsFiles == 1, "holds", "hold"), plural(dels, "deletion"))
		if v1 > 0 {
			s += fmt.Sprintf(" (%s in IoTDB 1.x .mods format, applied only to chunks written before them)", plural(v1, "file"))
		}
		out = append(out, s)
	}
	if n := len(d.layout.Skipped); n > 0 {
		out = append(out, fmt.Sprintf("%s %s not data (compaction temporaries, orphaned companions) and %s not read", plural(n, "file"), pick(n == 1, "is", "are"), pick(n == 1, "is", "are")))
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
