package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// inspect DIR over an IoTDB data directory: instead of describing every
// TsFile alone, it summarises the layout the dataset package reads (spaces,
// partitions, resources, mods files, what Discover skipped), which files'
// copies of a point overwrite which, and, by reading every table through
// the resolved reader, how many rows the deletions and overwrites remove.
// The rules it reports are those of docs/iotdb-rules.md.

// inspectDirHelp is the part of inspect's help about data directories.
const inspectDirHelp = `
A DIR that is an IoTDB data directory (it holds sequence/ or
unsequence/, or lies inside one, or its TsFiles have mods files beside
them) is summarised as one dataset instead: files, bytes, devices and
time span per database, region and time partition and space; every mods
file with its deletions (--max-entries of each, 0 for all); which files
hold copies of the same device at overlapping times, and whose copy
wins; what was skipped (compaction temporaries, orphans) and why; and
the effect of the rules: how many rows the deletions remove and how many
copies are overwritten. That count reads every row of every table
through the resolved reader, as convert would; --no-count skips it.
--raw inspects every TsFile alone instead, as for a plain directory.
--json prints one object (docs/inspect-json.md, "Data directory").
`

// inspectDirFlags are the flags of inspect that only a data directory uses.
type inspectDirFlags struct {
	raw        *bool
	noCount    *bool
	maxEntries *int
	modsV1     *string
}

func addInspectDirFlags(fs *pflag.FlagSet) *inspectDirFlags {
	return &inspectDirFlags{
		raw:        fs.Bool("raw", false, "inspect every TsFile alone, even in an IoTDB data directory"),
		noCount:    fs.Bool("no-count", false, "data directory: do not read the rows to count what deletions and overwrites remove"),
		maxEntries: fs.Int("max-entries", 20, "data directory: deletions listed per mods file and overlaps per partition (0 for all)"),
		modsV1:     fs.String("mods-v1", "auto", "data directory: how .mods deletions apply: offset, whole or auto (see convert --help)"),
	}
}

// The JSON form of inspect DIR. Field names are part of the CLI's interface
// (docs/inspect-json.md).
type inspectDir struct {
	Roots []string `json:"roots"`
	// Files and Bytes count the data files taken (not the skipped ones).
	Files      int           `json:"files"`
	Bytes      int64         `json:"bytes"`
	Sequence   inspectSpace  `json:"sequence"`
	Unsequence inspectSpace  `json:"unsequence"`
	Loose      inspectSpace  `json:"loose"`
	Devices    int           `json:"devices"`
	StartTime  *int64        `json:"start_time,omitempty"`
	EndTime    *int64        `json:"end_time,omitempty"`
	Partitions []inspectPart `json:"partitions"`
	Mods       []inspectMods `json:"mods"`
	ModEntries int           `json:"mod_entries"`
	Skipped    []inspectSkip `json:"skipped"`
	// Compactions are the logs of compactions that had not finished.
	Compactions []inspectCompaction `json:"compactions"`
	Warnings    []string            `json:"warnings"`
	Rules       []string            `json:"rules"`
	// TypeChanges are the columns whose type differs between files; they
	// are found while counting, which opens every file.
	TypeChanges []inspectTypeChange `json:"type_changes"`
	Effect      *inspectEffect      `json:"effect"`

	// readerWarnings are the warnings dataset.OpenLayout gives, as
	// inspect finds them itself, for when the reader cannot open.
	readerWarnings []string
}

// inspectSpace counts the data files of one space.
type inspectSpace struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// inspectPart is one time partition of one region of one database, both
// spaces together: the files that can hold copies of the same point.
type inspectPart struct {
	Database   string         `json:"database"`
	Region     string         `json:"region"`
	Partition  string         `json:"partition"`
	Sequence   inspectSpace   `json:"sequence"`
	Unsequence inspectSpace   `json:"unsequence"`
	Loose      inspectSpace   `json:"loose"`
	Devices    int            `json:"devices"`
	StartTime  *int64         `json:"start_time,omitempty"`
	EndTime    *int64         `json:"end_time,omitempty"`
	Files      []inspectDFile `json:"files"`
	// OverlapPairs counts the pairs of files that overlap; Overlaps lists
	// up to --max-entries of them.
	OverlapPairs int              `json:"overlap_pairs"`
	Overlaps     []inspectOverlap `json:"overlaps"`
}

// inspectDFile is one data file of a layout.
type inspectDFile struct {
	Path  string `json:"path"`
	Space string `json:"space"`
	Size  int64  `json:"size"`
	// Version and Time are the file name's; absent for a name IoTDB does
	// not write (a loose file).
	Version *int64 `json:"version,omitempty"`
	Time    *int64 `json:"time,omitempty"`
	// Resource is the .resource path; empty for an unsealed file, whose
	// devices and times are then unknown (Devices 0), and for a loose
	// file without one.
	Resource string `json:"resource,omitempty"`
	// Unsealed marks a file of a layout without a .resource that is not
	// complete (no tail magic), which the reader leaves out.
	Unsealed  bool   `json:"unsealed,omitempty"`
	Devices   int    `json:"devices"`
	StartTime *int64 `json:"start_time,omitempty"`
	EndTime   *int64 `json:"end_time,omitempty"`
	ModsV1    string `json:"mods_v1,omitempty"`
	ModsV2    string `json:"mods_v2,omitempty"`
	// SharedMods is a shared mods file the .resource names (IoTDB 2.x).
	SharedMods *inspectShared `json:"shared_mods,omitempty"`
	// Error says why the .resource could not be read.
	Error string `json:"error,omitempty"`
}

type inspectShared struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
}

// inspectOverlap is a pair of files holding the same device at times that
// meet: where they do, Winner's copies replace Loser's.
type inspectOverlap struct {
	Winner    string `json:"winner"`
	Loser     string `json:"loser"`
	Devices   int    `json:"devices"`
	StartTime int64  `json:"start_time"`
	EndTime   int64  `json:"end_time"`
}

// inspectMods is one mods file.
type inspectMods struct {
	Path     string `json:"path"`
	DataFile string `json:"data_file,omitempty"`
	Version  int    `json:"version"`
	Size     int64  `json:"size"`
	Entries  int    `json:"entries"`
	// Legacy counts v1 lines of the old form DELETION,path,version,end,
	// whose version IoTDB compares as a file offset (docs/iotdb-rules.md 3b).
	Legacy int `json:"legacy"`
	// Shared is true for a shared mods file a .resource names.
	Shared bool `json:"shared,omitempty"`
	// Ignored says why the reader does not apply this file.
	Ignored string `json:"ignored,omitempty"`
	// Deletions lists up to --max-entries entries, in file order.
	Deletions []inspectDeletion `json:"deletions"`
	Warnings  []string          `json:"warnings,omitempty"`
	Error     string            `json:"error,omitempty"`
}

type inspectDeletion struct {
	Text   string `json:"text"`
	Legacy bool   `json:"legacy,omitempty"`
}

// inspectCompaction is a compaction log: the files a compaction that had
// not finished was merging, and what is left of each.
type inspectCompaction struct {
	Log     string               `json:"log"`
	Sources []inspectCompactFile `json:"sources"`
	Targets []inspectCompactFile `json:"targets"`
}

// inspectCompactFile is a file a compaction log names: Path where it
// would be, and whether it is there and read as data.
type inspectCompactFile struct {
	Path string `json:"path"`
	// Present: the file (or, for a target, its temporary) exists.
	Present bool `json:"present"`
	// Data: it is a data file the reader reads.
	Data bool `json:"data"`
	// Empty marks a target the compaction found empty and deleted.
	Empty bool `json:"empty,omitempty"`
}

type inspectSkip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// inspectTypeChange is a column stored with different types in different
// files (ALTER COLUMN ... SET DATA TYPE): the reader reads it as the type
// of the newest file holding it and casts the others (docs/iotdb-rules.md
// 4), or stops when a cast is impossible.
type inspectTypeChange struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	ReadAs string `json:"read_as"`
	// Types are the types stored, the newest file's first.
	Types []inspectColType `json:"types"`
}

type inspectColType struct {
	Type   string `json:"type"`
	Files  int    `json:"files"`
	Newest string `json:"newest"` // the newest file storing the column so
}

// inspectEffect is what reading the tables through the resolved reader
// counted; Counted is false with --no-count.
type inspectEffect struct {
	Counted bool `json:"counted"`
	// asked is false with --no-count: an error then only says that the
	// reader refuses the directory.
	asked  bool
	Tables []inspectCount `json:"tables,omitempty"`
	Total  *inspectCount  `json:"total,omitempty"`
	Error  string         `json:"error,omitempty"`
}

type inspectCount struct {
	Table string `json:"table,omitempty"`
	// Database is set for a table-model table whose name several
	// databases hold: each is counted apart, as IoTDB never merges them.
	Database        string `json:"database,omitempty"`
	Model           string `json:"model,omitempty"`
	Files           int    `json:"files"`
	FilesRead       int    `json:"files_read"`
	RowsRead        int64  `json:"rows_read"`
	RowsDeleted     int64  `json:"rows_deleted"`
	CellsDeleted    int64  `json:"cells_deleted"`
	RowsOverwritten int64  `json:"rows_overwritten"`
	RowsDropped     int64  `json:"rows_dropped"`
	RowsMerged      int64  `json:"rows_merged"`
	RowsOut         int64  `json:"rows_out"`
}

// inspectDirRoots reports whether the FILE arguments name an IoTDB data
// directory, and then the roots to discover. A directory is one when it
// lies in a layout or when its TsFiles have mods files: both mean that
// reading each file alone would bring deleted points back or show
// overwritten ones twice. A URL cannot take part in a layout.
func inspectDirRoots(args []string) ([]string, bool, error) {
	var roots []string
	layout := false
	for _, a := range args {
		if isURL(a) {
			roots = append(roots, a)
			continue
		}
		names := []string{a}
		if _, err := os.Stat(a); err != nil && isPattern(a) {
			if m, err := globPaths(a); err == nil && len(m) > 0 {
				names = m
			}
		}
		for _, n := range names {
			roots = append(roots, n)
			if st, err := os.Stat(n); err == nil && st.IsDir() && inspectLayoutDir(n) {
				layout = true
			}
		}
	}
	if !layout {
		return nil, false, nil
	}
	for _, r := range roots {
		if isURL(r) {
			return nil, true, usagef("%s: a data directory is read from local files; inspect the URL on its own, or add --raw", r)
		}
	}
	return roots, true, nil
}

// inspectLayoutDir tells an IoTDB data directory (or a part of one) from
// a plain directory of TsFiles, from names alone, as convert, head and
// schema tell their inputs: a data file in a time partition folder of a
// layout, or one with a mods file beside it.
func inspectLayoutDir(dir string) bool {
	l, err := dataset.Discover(dir)
	if err != nil {
		return false
	}
	for _, f := range l.Files {
		if f.Space != dataset.Unknown || f.ModsV1 != "" || f.ModsV2 != "" {
			return true
		}
	}
	// An empty layout (sequence/ and unsequence/ without files yet) is a
	// data directory all the same.
	return isDataDir(dir)
}

// runInspectDir summarises the data directory the roots name.
//
// src is where the roots lie (the disk, or a bucket's io/fs view with the
// roots as keys); shown names them in messages (the roots, or their URLs).
func runInspectDir(src dirSource, roots, shown []string, asJSON bool, f *inspectDirFlags, ropts *tsfile.ReadOptions, stdout, stderr io.Writer) error {
	if *f.maxEntries < 0 {
		return usagef("--max-entries must be 0 (all) or more, not %d", *f.maxEntries)
	}
	// A root that is missing is reported in its place, as inspect does
	// for files, and the others are still summarised.
	missing := 0
	var found, foundShown []string
	for i, r := range roots {
		if _, err := src.stat(r); err != nil {
			report(withFile(shown[i], err), stderr)
			missing++
			continue
		}
		found = append(found, r)
		foundShown = append(foundShown, shown[i])
	}
	if len(found) == 0 {
		return fmt.Errorf("none of the %d FILEs could be read", len(roots))
	}
	l, err := dataset.DiscoverFS(src.fsys, found...)
	if err != nil {
		return err
	}
	where := ""
	if src.fsys != nil {
		where = " in a bucket (files named by key)"
	}
	fmt.Fprintf(stderr, "ts2arrow: %s: an IoTDB data directory%s: summarising it as one dataset (--raw inspects each TsFile alone)\n", strings.Join(foundShown, ", "), where)
	info, failed := summarizeLayout(src, found, l, *f.maxEntries)
	dso, err := (&datasetFlags{modsV1: *f.modsV1}).options(ropts)
	if err != nil {
		return err
	}
	dso.FS = src.fsys
	info.Effect = countEffect(src, l, dso, !*f.noCount, info, stderr)
	if src.url != nil {
		info.urlPaths(found, src.url)
		info.Roots = foundShown
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(info); err != nil {
			return err
		}
	} else {
		printInspectDir(stdout, info)
	}
	var errs []string
	if missing > 0 {
		errs = append(errs, fmt.Sprintf("%d of %d FILEs missing", missing, len(roots)))
	}
	if failed > 0 {
		errs = append(errs, fmt.Sprintf("%d files of the data directory could not be read (see the warnings)", failed))
	}
	if e := info.Effect; e.Error != "" && e.asked {
		errs = append(errs, "the rows could not be counted: "+e.Error)
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// span is an inclusive time range, or none yet.
type span struct {
	ok         bool
	start, end int64
}

func (s *span) add(start, end int64) {
	if end < start {
		// IoTDB writes end = Long.MIN_VALUE for a device of a file still
		// being written: no usable range.
		return
	}
	if !s.ok {
		*s = span{true, start, end}
		return
	}
	s.start, s.end = min(s.start, start), max(s.end, end)
}

func (s span) ptrs() (*int64, *int64) {
	if !s.ok {
		return nil, nil
	}
	a, b := s.start, s.end
	return &a, &b
}

// summarizeLayout builds the report from the names Discover found and the
// .resource and mods files, without opening a data file. It returns how
// many companions could not be read.
func summarizeLayout(src dirSource, roots []string, l *dataset.Layout, limit int) (*inspectDir, int) {
	info := &inspectDir{Roots: roots, Partitions: []inspectPart{}, Mods: []inspectMods{}, Skipped: []inspectSkip{}, Compactions: []inspectCompaction{},
		Warnings: []string{}, Rules: []string{}, TypeChanges: []inspectTypeChange{}}
	failed := 0
	warn := func(format string, args ...any) { info.Warnings = append(info.Warnings, fmt.Sprintf(format, args...)) }
	// readerWarn notes what the resolved reader warns of on opening, in
	// its words: countEffect shows the reader's own list, and these only
	// when the reader cannot open the directory.
	readerWarn := func(format string, args ...any) {
		info.readerWarnings = append(info.readerWarnings, fmt.Sprintf(format, args...))
	}

	type partKey struct{ db, region, part string }
	parts := map[partKey]int{}
	var partFiles [][]int // indexes into l.Files, per partition
	var partRes [][]*dataset.Resource
	allDevs := map[string]bool{}
	var all span
	for i := range l.Files {
		f := &l.Files[i]
		k := partKey{f.Database, f.Region, f.Partition}
		pi, ok := parts[k]
		if !ok {
			pi = len(info.Partitions)
			parts[k] = pi
			info.Partitions = append(info.Partitions, inspectPart{Database: f.Database, Region: f.Region, Partition: f.Partition, Files: []inspectDFile{}, Overlaps: []inspectOverlap{}})
			partFiles = append(partFiles, nil)
			partRes = append(partRes, nil)
		}
		p := &info.Partitions[pi]
		df := inspectDFile{Path: f.Path, Space: f.Space.String(), Resource: f.Resource, ModsV1: f.ModsV1, ModsV2: f.ModsV2}
		if f.Space == dataset.Unknown {
			df.Space = "loose"
		}
		if f.Named {
			v, t := f.Name.Version, f.Name.Time
			df.Version, df.Time = &v, &t
		}
		if st, err := src.stat(f.Path); err == nil {
			df.Size = st.Size()
		} else {
			df.Error = err.Error()
			failed++
		}
		var sp *inspectSpace
		switch f.Space {
		case dataset.Sequence:
			sp = &info.Sequence
			p.Sequence.Files++
			p.Sequence.Bytes += df.Size
		case dataset.Unsequence:
			sp = &info.Unsequence
			p.Unsequence.Files++
			p.Unsequence.Bytes += df.Size
		default:
			sp = &info.Loose
			p.Loose.Files++
			p.Loose.Bytes += df.Size
		}
		sp.Files++
		sp.Bytes += df.Size
		info.Files++
		info.Bytes += df.Size

		var res *dataset.Resource
		switch {
		case f.Resource == "" && f.Space != dataset.Unknown && dataset.IncompleteFS(src.fsys, f.Path, df.Size) != "":
			// docs/iotdb-rules.md 7a: a file IoTDB had not finished; the
			// server rebuilds it from the WAL, which files alone do not
			// give, so the reader leaves it out.
			df.Unsealed = true
			readerWarn("%s: no .resource beside it and %s, so IoTDB had not finished it (still written, or left by a crash); skipped, as the server rebuilds it from its write-ahead log, which files alone do not give", f.Path, dataset.IncompleteFS(src.fsys, f.Path, df.Size))
		case f.Resource == "":
			// A loose file needs no resource, nor does a complete data
			// file (IoTDB rebuilds its resource): its own index gives its
			// times, which this summary does not open files to read.
		default:
			r, err := dataset.ReadResourceFS(src.fsys, f.Resource)
			if err != nil {
				df.Error = err.Error()
				failed++
				warn("%s: %v", f.Resource, err)
				break
			}
			res = r
			var s span
			devs := map[string]bool{}
			for _, d := range r.Devices {
				s.add(d.Start, d.End)
				devs[d.Device.Key()] = true
				allDevs[d.Device.Key()] = true
			}
			df.Devices = len(devs)
			df.StartTime, df.EndTime = s.ptrs()
			if s.ok {
				all.add(s.start, s.end)
			}
			if shared := sharedMods(f, r); shared != "" {
				df.SharedMods = &inspectShared{Path: shared, Offset: r.ModFileOffset}
				// docs/iotdb-rules.md 3f: IoTDB 2.x has shared mods files
				// switched off (TsFileResource.useSharedModFile), yet this
				// resource was written by a server that had them on, so
				// the file holds deletions of this data file; the reader
				// refuses to guess (dataset.OpenLayout).
				warn("%s names the shared mods file %s (from offset %d), which IoTDB 2.x ships switched off: the resolved reader refuses the directory rather than ignore its deletions", f.Resource, shared, r.ModFileOffset)
			}
		}
		// docs/iotdb-rules.md 3c: IoTDB 2.x, recovering a region, keeps
		// X.tsfile.mods2 whenever that file exists, even empty, and
		// upgrades X.tsfile.mods only when it does not, removing the .mods
		// after (DataRegion's recovery, TsFileResource.upgradeModFile); so
		// both present mean an interrupted upgrade, and the reader applies
		// the .mods2 (dataset.OpenLayout).
		v1Ignored := f.ModsV1 != "" && f.ModsV2 != ""
		if v1Ignored {
			readerWarn("%s: both %s and %s exist (an upgrade to IoTDB 2.x was interrupted); applying %s, as IoTDB 2.x does",
				f.Path, dataset.ModsV1Suffix, dataset.ModsV2Suffix, dataset.ModsV2Suffix)
		}
		for _, mp := range []string{f.ModsV1, f.ModsV2} {
			if mp == "" {
				continue
			}
			m := readInspectMods(src, mp, limit)
			m.DataFile = f.Path
			if mp == f.ModsV1 && v1Ignored {
				m.Ignored = "a " + dataset.ModsV2Suffix + " file is beside it"
			}
			if m.Error != "" {
				failed++
				warn("%s: %s", mp, m.Error)
			}
			if m.Ignored == "" {
				for _, w := range m.Warnings {
					readerWarn("%s: %s", mp, w)
				}
				info.ModEntries += m.Entries
			}
			info.Mods = append(info.Mods, m)
		}
		p.Files = append(p.Files, df)
		partFiles[pi] = append(partFiles[pi], i)
		partRes[pi] = append(partRes[pi], res)
	}
	info.Mods = append(info.Mods, sharedModsFiles(src, info.Partitions, limit)...)
	info.Devices = len(allDevs)
	info.StartTime, info.EndTime = all.ptrs()

	for pi := range info.Partitions {
		p := &info.Partitions[pi]
		devs := map[string]bool{}
		var s span
		for _, r := range partRes[pi] {
			if r == nil {
				continue
			}
			for _, d := range r.Devices {
				devs[d.Device.Key()] = true
				s.add(d.Start, d.End)
			}
		}
		p.Devices = len(devs)
		p.StartTime, p.EndTime = s.ptrs()
		ov := overlaps(l, partFiles[pi], partRes[pi])
		p.OverlapPairs = len(ov)
		if limit > 0 && len(ov) > limit {
			ov = ov[:limit]
		}
		p.Overlaps = append(p.Overlaps, ov...)
	}
	slices.SortStableFunc(info.Partitions, func(a, b inspectPart) int {
		if c := cmp.Compare(a.Database, b.Database); c != 0 {
			return c
		}
		if c := compareNum(a.Region, b.Region); c != 0 {
			return c
		}
		return compareNum(a.Partition, b.Partition)
	})

	for _, s := range l.Skipped {
		info.Skipped = append(info.Skipped, inspectSkip{s.Path, s.Reason})
	}
	info.Compactions = compactionLogs(src, l)
	for _, c := range info.Compactions {
		warn("%s", compactionWarning(c))
	}
	for _, s := range l.Skipped {
		// docs/iotdb-rules.md 8: renames recorded in filesets/*.sevo apply
		// to the partition's older files, which keep the old names. The
		// reader refuses a log with anything in it (dataset/renames.go)
		// and warns of an empty one in its own words.
		if !strings.HasSuffix(s.Path, dataset.SevoSuffix) {
			continue
		}
		if st, err := src.stat(s.Path); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
			readerWarn("%s: an empty schema-evolution log of %s: it records no rename, so the files are read under their stored names", s.Path, dataset.RenamesUnsettled)
			continue
		}
		warn("%s: records table or column renames, made by %s; they are not applied, so convert, head, schema, sql and serve refuse this directory (--raw reads every file under its stored names)", s.Path, dataset.RenamesUnsettled)
	}
	return info, failed
}

// compactionLogSuffixes are the compaction logs whose lines name files as
// "source|target|empty {sequence|unsequence} {database} {region}
// {partition} {file name}". IoTDB: compaction/execute/utils/log/
// CompactionLogger.java (STR_SOURCE_FILES, STR_TARGET_FILES,
// STR_DELETED_TARGET_FILES, logFile) and TsFileIdentifier.java (toString,
// getFileIdentifierFromInfoString). The logs of IoTDB < 0.13 are in
// another form and only listed as skipped.
var compactionLogSuffixes = []string{".inner-compaction.log", ".cross-compaction.log", ".insertion-compaction.log", ".settle-compaction.log"}

// maxCompactionLog bounds the log read: a compaction names tens of files.
const maxCompactionLog = 1 << 20

// compactionLogs reads the compaction logs among the skipped files.
func compactionLogs(src dirSource, l *dataset.Layout) []inspectCompaction {
	data := map[string]bool{}
	for _, f := range l.Files {
		data[src.clean(f.Path)] = true
	}
	out := []inspectCompaction{}
	for _, sk := range l.Skipped {
		if !slices.ContainsFunc(compactionLogSuffixes, func(suf string) bool { return strings.HasSuffix(sk.Path, suf) }) {
			continue
		}
		c := inspectCompaction{Log: sk.Path, Sources: []inspectCompactFile{}, Targets: []inspectCompactFile{}}
		// The log lies in a partition folder: {root}/{space}/{db}/{region}/{partition}/.
		root := sk.Path
		for range 5 {
			root = src.dir(root)
		}
		b, err := readLimited(src, sk.Path, maxCompactionLog)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(strings.TrimRight(line, "\r"), " ")
			if len(f) != 6 || (f[1] != "sequence" && f[1] != "unsequence") {
				continue // a task stage line, or one being written
			}
			path := src.join(root, f[1], f[2], f[3], f[4], f[5])
			cf := inspectCompactFile{Path: path}
			// A target is logged under its temporary name (.inner,
			// .cross) until it is renamed to a .tsfile.
			for _, p := range []string{path, tmpToTsFile(path)} {
				if _, err := src.stat(p); err == nil {
					cf.Present = true
				}
				cf.Data = cf.Data || data[src.clean(p)]
			}
			switch f[0] {
			case "source":
				c.Sources = append(c.Sources, cf)
			case "target":
				c.Targets = append(c.Targets, cf)
			case "empty":
				cf.Empty = true
				c.Targets = append(c.Targets, cf)
			}
		}
		out = append(out, c)
	}
	return out
}

// tmpToTsFile names the data file a compaction target's temporary becomes.
func tmpToTsFile(path string) string {
	for _, suf := range []string{".inner", ".cross"} {
		if p, ok := strings.CutSuffix(path, suf); ok {
			return p + dataset.TsFileSuffix
		}
	}
	return path
}

// readLimited reads a small file whole, refusing one above limit bytes.
func readLimited(src dirSource, path string, limit int64) ([]byte, error) {
	f, err := src.open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}

// sharedModsFiles reads the shared mods files the resources name, each
// once however many resources name it.
func sharedModsFiles(src dirSource, parts []inspectPart, limit int) []inspectMods {
	seenShared := map[string]bool{}
	var out []inspectMods
	for _, p := range parts {
		for _, df := range p.Files {
			if df.SharedMods == nil {
				continue
			}
			// The resource holds the absolute path on the server, and the
			// file sits beside the data files of its partition
			// (PartitionLevelModFileManager.allocateNew), so a directory
			// copied elsewhere still has it there.
			path := df.SharedMods.Path
			if _, err := src.stat(path); err != nil {
				path = src.join(src.dir(df.Path), filepath.Base(path))
				if _, err := src.stat(path); err != nil {
					continue // not here; the warning names it
				}
			}
			if seenShared[path] {
				continue
			}
			seenShared[path] = true
			m := readInspectMods(src, path, limit)
			m.Shared = true
			m.Ignored = "a shared mods file, which the resolved reader refuses (IoTDB 2.x ships them switched off)"
			out = append(out, m)
		}
	}
	return out
}

// compactionWarning says what a compaction log means for the reader.
func compactionWarning(c inspectCompaction) string {
	var src, srcData, tgtData int
	for _, f := range c.Sources {
		if f.Present {
			src++
		}
		if f.Data {
			srcData++
		}
	}
	for _, f := range c.Targets {
		if f.Data {
			tgtData++
		}
	}
	// docs/iotdb-rules.md 7b: on restart IoTDB keeps the sources when
	// all are there and deletes the targets, else keeps the targets
	// and deletes what is left of the sources (CompactionRecoverTask).
	// The reader reads every data file present, so both sides of one
	// compaction hold the same points twice.
	if srcData > 0 && tgtData > 0 {
		return fmt.Sprintf("%s: a compaction had not finished: %d of its %d targets are data files beside %d of its %d sources, which hold the same points (IoTDB keeps one side on restart; the reader reads both)",
			c.Log, tgtData, len(c.Targets), srcData, len(c.Sources))
	}
	return fmt.Sprintf("%s: a compaction had not finished (%d of %d sources present, %d of %d targets are data files)", c.Log, src, len(c.Sources), tgtData, len(c.Targets))
}

// sharedMods returns the shared mods file r names for f, or "". IoTDB 1.x
// wrote the base name of the file's own .mods there, which is no shared
// file (dataset.Resource.ModFile).
func sharedMods(f *dataset.File, r *dataset.Resource) string {
	if r.ModFile == "" || r.ModFile == filepath.Base(f.Path)+dataset.ModsV1Suffix {
		return ""
	}
	return r.ModFile
}

// readInspectMods reads one mods file for the listing.
func readInspectMods(src dirSource, path string, limit int) inspectMods {
	m := inspectMods{Path: path, Version: 1, Deletions: []inspectDeletion{}}
	if strings.HasSuffix(path, dataset.ModsV2Suffix) {
		m.Version = 2
	}
	if st, err := src.stat(path); err == nil {
		m.Size = st.Size()
	}
	mods, err := dataset.ReadModsFS(src.fsys, path, nil)
	if err != nil {
		m.Error = err.Error()
		return m
	}
	m.Entries = len(mods.Deletions)
	m.Warnings = mods.Warnings
	for i := range mods.Deletions {
		d := &mods.Deletions[i]
		if d.Legacy {
			m.Legacy++
		}
		if limit == 0 || len(m.Deletions) < limit {
			m.Deletions = append(m.Deletions, inspectDeletion{Text: d.String(), Legacy: d.Legacy})
		}
	}
	return m
}

// overlaps finds the pairs of files of one partition whose resources give
// a device time ranges that meet, the higher priority first
// (dataset.Priority: unsequence, then version, then time).
func overlaps(l *dataset.Layout, files []int, res []*dataset.Resource) []inspectOverlap {
	type rng struct {
		file       int // index into files
		start, end int64
	}
	byDev := map[string][]rng{}
	var order []string
	for i, r := range res {
		if r == nil {
			continue
		}
		for _, d := range r.Devices {
			if d.End < d.Start {
				continue
			}
			k := d.Device.Key()
			if _, ok := byDev[k]; !ok {
				order = append(order, k)
			}
			byDev[k] = append(byDev[k], rng{i, d.Start, d.End})
		}
	}
	type pair struct{ a, b int }
	type acc struct {
		devices    int
		start, end int64
	}
	found := map[pair]*acc{}
	var pairs []pair
	for _, k := range order {
		rs := byDev[k]
		slices.SortFunc(rs, func(x, y rng) int { return cmp.Compare(x.start, y.start) })
		for i := range rs {
			for j := i + 1; j < len(rs) && rs[j].start <= rs[i].end; j++ {
				if rs[i].file == rs[j].file {
					continue
				}
				p := pair{min(rs[i].file, rs[j].file), max(rs[i].file, rs[j].file)}
				lo, hi := max(rs[i].start, rs[j].start), min(rs[i].end, rs[j].end)
				a := found[p]
				if a == nil {
					a = &acc{start: lo, end: hi}
					found[p] = a
					pairs = append(pairs, p)
				}
				a.devices++
				a.start, a.end = min(a.start, lo), max(a.end, hi)
			}
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		return cmp.Compare(x.b, y.b)
	})
	out := make([]inspectOverlap, 0, len(pairs))
	for _, p := range pairs {
		a, b := &l.Files[files[p.a]], &l.Files[files[p.b]]
		if a.Priority(0).Compare(b.Priority(0)) < 0 {
			a, b = b, a
		}
		x := found[p]
		out = append(out, inspectOverlap{Winner: a.Path, Loser: b.Path, Devices: x.devices, StartTime: x.start, EndTime: x.end})
	}
	return out
}

// compareNum orders folder names as numbers where both are.
func compareNum(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(a, b)
}

// countEffect opens the layout with the resolved reader for its rules and
// warnings and, when count is set, reads every table through it to count
// what the rules removed.
func countEffect(src dirSource, l *dataset.Layout, dso *dataset.Options, count bool, info *inspectDir, stderr io.Writer) *inspectEffect {
	e := &inspectEffect{asked: count}
	ropts := dso.Read
	// CountDeletions: decode what deletions cover rather than skip it, so
	// that every deleted row is counted.
	o := *dso
	o.CountDeletions = true
	ds, err := dataset.OpenLayout(l, &o)
	if err != nil {
		e.Error = err.Error()
		info.Warnings = append(info.Warnings, info.readerWarnings...)
		return e
	}
	defer ds.Close()
	info.Rules = append(info.Rules, ds.Rules()...)
	info.Warnings = append(info.Warnings, ds.Warnings()...)
	if !count {
		return e
	}
	tables, err := ds.Tables()
	if err != nil {
		e.Error = err.Error()
		return e
	}
	info.TypeChanges = typeChanges(src, l, tables, ropts)
	// Reading a large directory takes as long as converting it: say why
	// inspect is slow, and how not to be.
	fmt.Fprintf(stderr, "ts2arrow: counting what deletions and overwrites remove: reading every row of %d tables (--no-count skips this)\n", len(tables))
	var sum dataset.ReadStats
	files := 0
	for _, t := range tables {
		c, st, err := countTable(ds, t)
		if err != nil {
			e.Error = fmt.Sprintf("table %s: %v", t.Ref, err)
			return e
		}
		e.Tables = append(e.Tables, c)
		sum.Add(st)
		files += c.Files
	}
	total := countOf(sum)
	total.Files = files
	e.Total = &total
	e.Counted = true
	return e
}

// typeChanges opens the footer of every data file the reader reads, newest
// first as the reader orders them for types (by the version in the file
// name, then its time, then discovery order: not merge priority, under
// which an unsequence file flushed before an ALTER would impose the old
// type), and lists the columns of the tables whose type differs between
// files. A file that cannot be opened is passed over: the count reports it.
func typeChanges(src dirSource, l *dataset.Layout, tables []dataset.Table, ropts *tsfile.ReadOptions) []inspectTypeChange {
	known := map[string]bool{}
	for _, t := range tables {
		known[t.Name] = true
	}
	order := make([]int, 0, len(l.Files))
	for i, f := range l.Files {
		if f.Space != dataset.Unknown && f.Resource == "" && dataset.IncompleteFS(src.fsys, f.Path, -1) != "" {
			continue // unfinished: the reader leaves it out
		}
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		pa, pb := l.Files[a].Priority(0), l.Files[b].Priority(0)
		if c := cmp.Compare(pb.Version, pa.Version); c != 0 {
			return c
		}
		if c := cmp.Compare(pb.Time, pa.Time); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	type key struct{ table, column string }
	var keys []key
	types := map[key][]inspectColType{}
	note := func(k key, typ tsfile.DataType, file string) {
		ts, ok := types[k]
		if !ok {
			keys = append(keys, k)
		}
		for i := range ts {
			if ts[i].Type == typ.String() {
				ts[i].Files++
				return
			}
		}
		types[k] = append(ts, inspectColType{Type: typ.String(), Files: 1, Newest: file})
	}
	for _, i := range order {
		path := l.Files[i].Path
		cols, err := fileColumns(src, path, ropts)
		if err != nil {
			continue
		}
		for _, c := range cols {
			if known[c.table] {
				note(key{c.table, c.column}, c.typ, path)
			}
		}
	}
	out := []inspectTypeChange{}
	for _, k := range keys {
		if ts := types[k]; len(ts) > 1 {
			out = append(out, inspectTypeChange{Table: k.table, Column: k.column, ReadAs: ts[0].Type, Types: ts})
		}
	}
	slices.SortStableFunc(out, func(a, b inspectTypeChange) int {
		if c := cmp.Compare(a.Table, b.Table); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
	return out
}

// fileColumn is a data column of a table in one file.
type fileColumn struct {
	table, column string
	typ           tsfile.DataType
}

// fileColumns lists the FIELD columns of a file's tables and the
// measurements of its tree-model devices, each once per type stored.
func fileColumns(src dirSource, path string, ropts *tsfile.ReadOptions) ([]fileColumn, error) {
	f, closeFile, err := src.openTsFile(path, ropts)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	var out []fileColumn
	for _, t := range f.Tables() {
		if s, ok := f.SchemaOf(t); ok {
			for _, c := range s.Fields() {
				out = append(out, fileColumn{t, c.Name, c.DataType})
			}
			continue
		}
		devs, err := f.Devices(t)
		if err != nil {
			return nil, err
		}
		// Two devices of one root may store a measurement with different
		// types: that is a type change of the root's column too.
		seen := map[fileColumn]bool{}
		for _, d := range devs {
			series, err := f.Series(d)
			if err != nil {
				return nil, err
			}
			for _, s := range series {
				c := fileColumn{t, s.Measurement, s.DataType}
				if s.IsTimeColumn() || seen[c] {
					continue
				}
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// countTable drains the resolved reader of one table.
func countTable(ds *dataset.Dataset, t dataset.Table) (inspectCount, dataset.ReadStats, error) {
	c := inspectCount{Table: t.Name, Model: "table", Files: t.Files}
	if t.Ref != t.Name {
		c.Database = t.Database
	}
	if t.Tree {
		c.Model = "tree"
	}
	r, err := ds.NewReader(t.Ref, nil)
	if err != nil {
		return c, dataset.ReadStats{}, err
	}
	defer r.Release()
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		if errors.Is(err, dataset.ErrChanged) {
			return c, dataset.ReadStats{}, fmt.Errorf("%w; inspect it again", err)
		}
		return c, dataset.ReadStats{}, err
	}
	st := r.Stats()
	n := countOf(st)
	n.Table, n.Database, n.Model, n.Files = c.Table, c.Database, c.Model, c.Files
	return n, st, nil
}

// countOf is the count of a reader's statistics (Table, Model and Files
// are the caller's).
func countOf(st dataset.ReadStats) inspectCount {
	return inspectCount{FilesRead: st.FilesRead, RowsRead: st.RowsRead, RowsDeleted: st.RowsDeleted,
		CellsDeleted: st.CellsDeleted, RowsOverwritten: st.RowsOverwritten, RowsDropped: st.RowsDropped,
		RowsMerged: st.RowsMerged, RowsOut: st.RowsOut}
}

// printInspectDir prints the report in the style of printInspect: labelled
// summary lines, then a section per partition, mods file and skip.
func printInspectDir(w io.Writer, info *inspectDir) {
	fmt.Fprintf(w, "data directory: %s\n", strings.Join(info.Roots, ", "))
	fmt.Fprintf(w, "files:       %d, %d bytes (%s)\n", info.Files, info.Bytes, spacesText(info.Sequence, info.Unsequence, info.Loose))
	fmt.Fprintf(w, "partitions:  %d\n", len(info.Partitions))
	fmt.Fprintf(w, "devices:     %d\n", info.Devices)
	fmt.Fprintf(w, "time:        %s\n", timeText(info.StartTime, info.EndTime))
	legacy := 0
	for _, m := range info.Mods {
		legacy += m.Legacy
	}
	mods := fmt.Sprintf("%d files, %d entries", len(info.Mods), info.ModEntries)
	if legacy > 0 {
		mods += fmt.Sprintf(" (%d legacy v1 lines)", legacy)
	}
	fmt.Fprintf(w, "mods:        %s\n", mods)
	fmt.Fprintf(w, "skipped:     %d\n", len(info.Skipped))
	for _, x := range info.Warnings {
		fmt.Fprintf(w, "warning:     %s\n", x)
	}
	for _, r := range info.Rules {
		fmt.Fprintf(w, "rule:        %s\n", r)
	}

	for _, p := range info.Partitions {
		name := "loose files"
		if p.Database != "" || p.Region != "" || p.Partition != "" {
			name = fmt.Sprintf("partition %s/%s/%s", p.Database, p.Region, p.Partition)
		}
		fmt.Fprintf(w, "\n%s (%s, %d devices, time %s)\n", name, spacesText(p.Sequence, p.Unsequence, p.Loose), p.Devices, timeText(p.StartTime, p.EndTime))
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  FILE\tSPACE\tSIZE\tDEVICES\tSTART\tEND\tMODS")
		for _, f := range p.Files {
			var mods []string
			if f.ModsV1 != "" {
				mods = append(mods, "v1")
			}
			if f.ModsV2 != "" {
				mods = append(mods, "v2")
			}
			if f.SharedMods != nil {
				mods = append(mods, "shared")
			}
			start, end := opt(f.StartTime), opt(f.EndTime)
			if f.Unsealed {
				start = "unsealed"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t%s\n", filepath.Base(f.Path), f.Space, f.Size, f.Devices, start, end, orDash(strings.Join(mods, ",")))
		}
		tw.Flush()
		for _, o := range p.Overlaps {
			fmt.Fprintf(w, "  overlap: %s overwrites %s: %d devices, time %d..%d\n", filepath.Base(o.Winner), filepath.Base(o.Loser), o.Devices, o.StartTime, o.EndTime)
		}
		if n := p.OverlapPairs - len(p.Overlaps); n > 0 {
			fmt.Fprintf(w, "  ... %d more overlapping pairs\n", n)
		}
	}

	for _, m := range info.Mods {
		what := fmt.Sprintf("v%d, %d bytes, %d entries", m.Version, m.Size, m.Entries)
		if m.Legacy > 0 {
			what += fmt.Sprintf(", %d legacy lines", m.Legacy)
		}
		if m.Shared {
			what += ", shared"
		}
		fmt.Fprintf(w, "\nmods %s (%s)\n", m.Path, what)
		if m.Ignored != "" {
			fmt.Fprintf(w, "  ignored: %s\n", m.Ignored)
		}
		if m.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", m.Error)
		}
		for _, d := range m.Deletions {
			if d.Legacy {
				fmt.Fprintf(w, "  %s (legacy line: its version is compared as the offset)\n", d.Text)
			} else {
				fmt.Fprintf(w, "  %s\n", d.Text)
			}
		}
		if n := m.Entries - len(m.Deletions); n > 0 {
			fmt.Fprintf(w, "  ... %d more\n", n)
		}
	}

	for _, c := range info.Compactions {
		fmt.Fprintf(w, "\ncompaction log %s\n", c.Log)
		line := func(role string, f inspectCompactFile) {
			state := "missing"
			switch {
			case f.Data:
				state = "data file"
			case f.Present:
				state = "present, not data"
			}
			if f.Empty {
				role = "empty target"
			}
			fmt.Fprintf(w, "  %s %s (%s)\n", role, filepath.Base(f.Path), state)
		}
		for _, f := range c.Sources {
			line("source", f)
		}
		for _, f := range c.Targets {
			line("target", f)
		}
	}

	if len(info.Skipped) > 0 {
		fmt.Fprintf(w, "\nskipped\n")
		for _, s := range info.Skipped {
			fmt.Fprintf(w, "  %s: %s\n", s.Path, s.Reason)
		}
	}

	if len(info.TypeChanges) > 0 {
		fmt.Fprintf(w, "\ntype changes (read as the newest file's type, the others cast; an impossible cast stops the count)\n")
		for _, c := range info.TypeChanges {
			var parts []string
			for _, t := range c.Types {
				parts = append(parts, fmt.Sprintf("%s in %d files (newest %s)", t.Type, t.Files, filepath.Base(t.Newest)))
			}
			fmt.Fprintf(w, "  %s.%s: %s\n", c.Table, c.Column, strings.Join(parts, ", "))
		}
	}

	e := info.Effect
	switch {
	case e == nil:
	case e.Error != "" && !e.asked:
		fmt.Fprintf(w, "\neffect: not counted (--no-count); the resolved reader cannot read the directory: %s\n", e.Error)
	case e.Error != "":
		fmt.Fprintf(w, "\neffect: not counted: %s\n", e.Error)
	case !e.Counted:
		fmt.Fprintf(w, "\neffect: not counted (--no-count)\n")
	default:
		fmt.Fprintf(w, "\neffect (counted by reading every row of every table through the resolved reader; --no-count skips it)\n")
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  TABLE\tMODEL\tFILES\tROWS READ\tDELETED\tCELLS DELETED\tOVERWRITTEN\tEMPTIED\tMERGED\tROWS OUT")
		row := func(c *inspectCount) {
			name := c.Table
			if c.Database != "" {
				name = c.Database + "." + c.Table
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", name, c.Model, c.Files, c.RowsRead, c.RowsDeleted, c.CellsDeleted, c.RowsOverwritten, c.RowsDropped, c.RowsMerged, c.RowsOut)
		}
		for i := range e.Tables {
			row(&e.Tables[i])
		}
		if e.Total != nil {
			t := *e.Total
			t.Table, t.Model = "total", "-"
			row(&t)
		}
		tw.Flush()
	}
}

func spacesText(seq, unseq, loose inspectSpace) string {
	var parts []string
	for _, s := range []struct {
		name string
		sp   inspectSpace
	}{{"sequence", seq}, {"unsequence", unseq}, {"loose", loose}} {
		if s.sp.Files > 0 || s.name != "loose" {
			parts = append(parts, fmt.Sprintf("%s %d files %d bytes", s.name, s.sp.Files, s.sp.Bytes))
		}
	}
	return strings.Join(parts, ", ")
}

func timeText(start, end *int64) string {
	if start == nil {
		return "-"
	}
	return fmt.Sprintf("%d..%d", *start, *end)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
