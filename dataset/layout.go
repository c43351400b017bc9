package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Space is the part of a data directory a file lives in.
type Space uint8

const (
	// Unknown is the space of a file outside an IoTDB layout.
	Unknown Space = iota
	// Sequence files hold points written in time order per device.
	Sequence
	// Unsequence files hold out-of-order writes; their points overwrite
	// those of sequence files (see Priority).
	Unsequence
)

// String returns the folder name of the space, or "unknown".
func (s Space) String() string {
	switch s {
	case Sequence:
		return "sequence"
	case Unsequence:
		return "unsequence"
	}
	return "unknown"
}

// File is one data file of a layout and its companions.
type File struct {
	Path  string // the .tsfile, as found (joined to the root given)
	Space Space
	// Database, Region and Partition are the folder names above the file
	// in a layout; empty for a loose file. Region is a data region ID and
	// Partition a time partition ID, both decimal (a partition of times
	// before 1970 is negative).
	Database, Region, Partition string
	// Name is the parsed file name; Named is false when the base name is
	// not one IoTDB writes (possible only for a loose file).
	Name  Name
	Named bool
	// Resource, ModsV1 and ModsV2 are the paths of the companions that
	// exist, empty otherwise. A data file without a resource is one IoTDB
	// had not closed (still being written, or left by a crash).
	Resource, ModsV1, ModsV2 string
}

// Skipped is a file Discover did not take as data, and why.
type Skipped struct {
	Path   string
	Reason string
}

// Layout is what Discover found: data files in a deterministic order (by
// space, database, region, partition, then file name version and time) and
// the files it passed over.
type Layout struct {
	Files   []File
	Skipped []Skipped
}

// tempSuffixes are the files IoTDB writes while it compacts, settles or
// rewrites something: never data to read, whatever their content. A target
// of a running compaction holds copies of points its sources still hold.
// IoTDB: commons/conf/IoTDBConstant.java (INNER_COMPACTION_TMP_FILE_SUFFIX,
// CROSS_COMPACTION_TMP_FILE_SUFFIX, SETTLE_SUFFIX,
// CROSS_COMPACTION_TMP_FILE_SUFFIX_FROM_OLD), compaction/.../log/
// CompactionLogger.java (*_COMPACTION_LOG_NAME_SUFFIX),
// dataregion/modification/ModificationFile.java (COMPACTION_FILE_SUFFIX,
// COMPACT_SUFFIX), tsfile/TsFileResource.java (TEMP_SUFFIX, BROKEN_SUFFIX).
var tempSuffixes = []struct{ suffix, reason string }{
	{".inner", "target of a running inner-space compaction"},
	{".cross", "target of a running cross-space compaction"},
	{".merge", "target of a running cross-space compaction (IoTDB < 0.13)"},
	{".compaction.mods", "deletions made during a running compaction"},
	{".compaction.mods2", "deletions made during a running compaction"},
	{".settle", "target of a running settle (of a data or mods file)"},
	{".inner-compaction.log", "log of a running inner-space compaction"},
	{".cross-compaction.log", "log of a running cross-space compaction"},
	{".insertion-compaction.log", "log of a running insertion compaction"},
	{".settle-compaction.log", "log of a running settle compaction"},
	{".compaction.log", "log of a running compaction (IoTDB < 0.13)"},
	{".temp", "resource file being written"},
	{".broken", "file IoTDB marked broken"},
}

// tempReason returns why base is a temporary, or "".
func tempReason(base string) string {
	if base == "merge.log" || base == "merge.mods" {
		return "log or deletions of a running cross-space compaction (IoTDB < 0.13)"
	}
	for _, t := range tempSuffixes {
		// The suffix ends the name (X.tsfile.mods.settle) or another
		// suffix follows it (X.inner.resource, the resource of a target).
		if strings.HasSuffix(base, t.suffix) || strings.Contains(base, t.suffix+".") {
			return t.reason
		}
	}
	return ""
}

// Discover finds the data files under roots. Each root may be an IoTDB
// data directory (holding sequence/ and unsequence/), a sequence or
// unsequence directory, a database, region or time partition folder
// inside one, or a single .tsfile. Where a folder lies is told from its
// own name and those of its ancestors (the nearest one named sequence or
// unsequence), so a region folder named on its own keeps its space,
// database and region. Any other directory is walked for loose files, of
// Unknown space. Files below a space folder but not at
// {database}/{region}/{partition}/ are skipped, as are temporaries of a
// running compaction and companions whose data file is gone; Skipped says
// which and why. A file reached from two roots is listed once.
func Discover(roots ...string) (*Layout, error) {
	if len(roots) == 0 {
		return nil, errors.New("dataset: no root to discover")
	}
	w := &walker{seen: map[string]bool{}}
	for _, root := range roots {
		if err := w.root(root); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(w.files, compareFiles)
	slices.SortFunc(w.skipped, func(a, b Skipped) int { return cmp.Compare(a.Path, b.Path) })
	return &Layout{Files: w.files, Skipped: w.skipped}, nil
}

type walker struct {
	files   []File
	skipped []Skipped
	seen    map[string]bool // absolute paths already taken or skipped
}

func (w *walker) root(root string) error {
	st, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if !st.IsDir() {
		if !strings.HasSuffix(root, TsFileSuffix) {
			return fmt.Errorf("dataset: %s is neither a directory nor a %s file", root, TsFileSuffix)
		}
		return w.dir(filepath.Dir(root), filepath.Base(root))
	}
	// A data directory: walk its two spaces and nothing else beside them.
	var trees []string
	for _, sp := range []Space{Sequence, Unsequence} {
		p := filepath.Join(root, sp.String())
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			trees = append(trees, p)
		}
	}
	if len(trees) == 0 {
		trees = []string{root}
	}
	for _, t := range trees {
		err := filepath.WalkDir(t, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("dataset: %w", err)
			}
			if !e.IsDir() {
				return nil
			}
			return w.dir(p, "")
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// place is where a folder lies in a layout.
type place struct {
	space                       Space
	database, region, partition string
	depth                       int // folders between the space folder and this one, plus one
}

// placeOf finds the nearest ancestor of dir (dir included) named sequence
// or unsequence; ok is false when there is none.
func placeOf(dir string) (place, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return place{}, false
	}
	var names []string // dir's base first
	for {
		b := filepath.Base(abs)
		var sp Space
		switch b {
		case "sequence":
			sp = Sequence
		case "unsequence":
			sp = Unsequence
		}
		if sp != Unknown {
			p := place{space: sp, depth: len(names)}
			if len(names) == 3 {
				p.database, p.region, p.partition = names[2], names[1], names[0]
			}
			return p, true
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return place{}, false
		}
		names = append(names, b)
		abs = parent
	}
}

// dir classifies the entries of one folder; with only set, it takes that
// data file and its companions and passes over the rest.
func (w *walker) dir(dir, only string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	present := map[string]bool{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			present[e.Name()] = true
		}
	}
	if only != "" && !present[only] {
		return fmt.Errorf("dataset: %s is not a regular file", filepath.Join(dir, only))
	}
	pl, inLayout := placeOf(dir)
	skip := func(name, reason string) {
		p := filepath.Join(dir, name)
		if only == "" && w.mark(p) {
			w.skipped = append(w.skipped, Skipped{Path: p, Reason: reason})
		}
	}
	for _, e := range entries {
		name := e.Name()
		if !present[name] || (only != "" && name != only) {
			continue
		}
		if r := tempReason(name); r != "" {
			skip(name, r)
			continue
		}
		if data, ok := companionOf(name); ok {
			if !present[data] || tempReason(data) != "" {
				skip(name, "companion of "+data+", which is not there (removed by a compaction?)")
			}
			continue
		}
		if !strings.HasSuffix(name, TsFileSuffix) {
			skip(name, "not a data file or a companion of one")
			continue
		}
		if inLayout && pl.depth != 3 {
			skip(name, "not in a {database}/{region}/{partition} folder of "+pl.space.String())
			continue
		}
		n, err := ParseName(name)
		if inLayout && err != nil {
			// IoTDB cannot order such a file's points against others, so a
			// server would not hold it in a partition folder.
			skip(name, err.Error())
			continue
		}
		p := filepath.Join(dir, name)
		if !w.mark(p) {
			continue
		}
		f := File{Path: p, Name: n, Named: err == nil}
		if inLayout {
			f.Space, f.Database, f.Region, f.Partition = pl.space, pl.database, pl.region, pl.partition
		}
		if present[name+ResourceSuffix] {
			f.Resource = p + ResourceSuffix
		}
		if present[name+ModsV1Suffix] {
			f.ModsV1 = p + ModsV1Suffix
		}
		if present[name+ModsV2Suffix] {
			f.ModsV2 = p + ModsV2Suffix
		}
		w.files = append(w.files, f)
	}
	return nil
}

// mark records p as handled and reports whether it was new.
func (w *walker) mark(p string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	if w.seen[abs] {
		return false
	}
	w.seen[abs] = true
	return true
}

// companionOf returns the data file a companion's name belongs to.
func companionOf(name string) (string, bool) {
	for _, suf := range []string{ResourceSuffix, ModsV1Suffix, ModsV2Suffix} {
		if data, ok := strings.CutSuffix(name, suf); ok && strings.HasSuffix(data, TsFileSuffix) {
			return data, true
		}
	}
	return "", false
}

// compareFiles orders files by space, database, region and partition
// (numerically where both are numbers), then by merge priority, lowest
// first, then by path.
func compareFiles(a, b File) int {
	if c := cmp.Compare(a.Space, b.Space); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Database, b.Database); c != 0 {
		return c
	}
	if c := compareNumeric(a.Region, b.Region); c != 0 {
		return c
	}
	if c := compareNumeric(a.Partition, b.Partition); c != 0 {
		return c
	}
	if c := a.Priority(0).Compare(b.Priority(0)); c != 0 {
		return c
	}
	return cmp.Compare(a.Path, b.Path)
}

// compareNumeric compares folder names as integers when both are, else as
// strings (numbers first).
func compareNumeric(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}
