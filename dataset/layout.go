package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
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
	// Unusual is set when the file is not one IoTDB leaves in a data
	// directory in its normal work (a temporary of a compaction): a
	// companion whose data file is missing (a compaction may have just
	// removed it, or the data file is lost), a named pipe or
	// other special file, a broken or looping symbolic link, a data file
	// whose name IoTDB cannot parse or outside a partition folder, a file
	// of unknown kind. OpenLayout warns of each.
	Unusual bool
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
	{".tsfile.meta", "chunk metadata of a data file being written"},
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
//
// Symbolic links are followed as a plain directory walk follows them,
// wherever they lead (inside the roots or outside, as an administrator
// links a partition to another disk): a file or folder reached through a
// link lies where the link lies, and a folder keeps the place its path
// gives. A link back to a folder above it (a loop) is not followed, and a
// file or folder reached twice through links is read once; both are
// listed in Skipped, as are broken links and special files (named pipes,
// devices, sockets), which are never opened.
func Discover(roots ...string) (*Layout, error) {
	return discover(osFS{}, roots)
}

// DiscoverFS is Discover in an io/fs file system (the operating system's
// when fsys is nil): roots are slash-separated names within fsys ("." its
// root), and so are the paths of the Layout. Open it with OpenLayout and
// the same fsys as Options.FS. A folder's place in a layout is told from
// the names within fsys, so fsys's root must lie above the space folders
// for their files to be placed (the data directory or anything above it).
func DiscoverFS(fsys fs.FS, roots ...string) (*Layout, error) {
	return discover(fsOf(fsys), roots)
}

func discover(fsys fileSystem, roots []string) (*Layout, error) {
	if len(roots) == 0 {
		return nil, errors.New("dataset: no root to discover")
	}
	w := &walker{fsys: fsys, seen: map[string]string{}, dirs: map[string]string{}}
	for _, root := range roots {
		root, err := checkRoot(fsys, root)
		if err != nil {
			return nil, err
		}
		if err := w.root(root); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(w.files, compareFiles)
	slices.SortFunc(w.skipped, func(a, b Skipped) int { return cmp.Compare(a.Path, b.Path) })
	return &Layout{Files: w.files, Skipped: w.skipped}, nil
}

type walker struct {
	fsys    fileSystem
	files   []File
	skipped []Skipped
	// seen maps the real path (links resolved) of every file taken or
	// skipped to the path it was found by; dirs does so for folders.
	seen map[string]string
	dirs map[string]string
}

func (w *walker) root(root string) error {
	st, err := w.fsys.Stat(root)
	if err != nil {
		return pathError(root, err)
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("dataset: %s is %s, not a regular file", root, modeName(st.Mode()))
		}
		if !strings.HasSuffix(root, TsFileSuffix) {
			return fmt.Errorf("dataset: %s is neither a directory nor a %s file", root, TsFileSuffix)
		}
		dir := w.fsys.Dir(root)
		real, err := w.fsys.RealPath(dir)
		if err != nil {
			return pathError(dir, err)
		}
		entries, err := w.fsys.ReadDir(dir)
		if err != nil {
			return pathError(dir, err)
		}
		if err := w.dir(dir, real, w.fsys.Base(root), entries); err != nil {
			return err
		}
		return w.fileSets(dir)
	}
	// A data directory: walk its two spaces and nothing else beside them.
	var trees []string
	for _, sp := range []Space{Sequence, Unsequence} {
		p := w.fsys.Join(root, sp.String())
		if st, err := w.fsys.Stat(p); err == nil && st.IsDir() {
			trees = append(trees, p)
		}
	}
	if len(trees) == 0 {
		trees = []string{root}
	}
	for _, t := range trees {
		if err := w.walk(t, nil); err != nil {
			return err
		}
	}
	return nil
}

// walk classifies the entries of dir and walks its subfolders, following
// links to folders. stack holds the real paths of the folders above dir
// in this walk, to tell a loop.
func (w *walker) walk(dir string, stack []string) error {
	real, err := w.fsys.RealPath(dir)
	if err != nil {
		return pathError(dir, err)
	}
	if slices.Contains(stack, real) {
		w.skip(dir, "symbolic link loop: it leads back to "+real+", a folder above it; not followed", true)
		return nil
	}
	if prev, ok := w.dirs[real]; ok {
		if !w.samePath(prev, dir) {
			w.skip(dir, "the same folder as "+prev+" (through a symbolic link), read once there", true)
		}
		return nil
	}
	w.dirs[real] = dir
	entries, err := w.fsys.ReadDir(dir)
	if err != nil {
		return pathError(dir, err)
	}
	if err := w.dir(dir, real, "", entries); err != nil {
		return err
	}
	stack = append(stack, real)
	for _, e := range entries {
		p := w.fsys.Join(dir, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			st, err := w.fsys.Stat(p)
			isDir = err == nil && st.IsDir()
		}
		if isDir {
			if err := w.walk(p, stack); err != nil {
				return err
			}
		}
	}
	return nil
}

// fileSets walks the filesets/ folder of the partition folder dir, when
// dir is one and has it, so that the renames recorded there (renames.go)
// are seen when one data file of the partition is the root: they name the
// file's tables and columns as a folder root would see them. (Where IoTDB
// puts filesets/ is not settled, docs/iotdb-rules.md 8; beside the data
// files is where a partition's TsFileSet would keep it.)
func (w *walker) fileSets(dir string) error {
	if pl, ok := placeOf(w.fsys, dir); !ok || pl.depth != 3 {
		return nil
	}
	p := w.fsys.Join(dir, fileSetsDir)
	if st, err := w.fsys.Stat(p); err != nil || !st.IsDir() {
		return nil
	}
	return w.walk(p, nil)
}

// fileSetsDir is the folder of a partition's file sets
// (TsFileSet.FILE_SET_DIR_NAME in apache/iotdb #17079).
const fileSetsDir = "filesets"

// samePath reports whether a and b spell one path (a root given twice,
// once relative), as opposed to two paths that links join.
func (w *walker) samePath(a, b string) bool {
	x, errA := w.fsys.Abs(a)
	y, errB := w.fsys.Abs(b)
	return errA == nil && errB == nil && x == y
}

// pathError wraps an error of listing or stating p, saying what to do
// when it is a permission that is missing.
func pathError(p string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("dataset: %s: permission denied: this user may not list or read it; run as a user who can (IoTDB's files belong to the user running IoTDB), or read a copy: %w", p, err)
	}
	return fmt.Errorf("dataset: %w", err)
}

// modeName names the kind of a file that is not a regular one.
func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// place is where a folder lies in a layout.
type place struct {
	space                       Space
	database, region, partition string
	depth                       int // folders between the space folder and this one, plus one
}

// placeOf finds the nearest ancestor of dir (dir included) named sequence
// or unsequence; ok is false when there is none.
func placeOf(fsys fileSystem, dir string) (place, bool) {
	abs, err := fsys.Abs(dir)
	if err != nil {
		return place{}, false
	}
	var names []string // dir's base first
	for {
		b := fsys.Base(abs)
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
		parent := fsys.Dir(abs)
		if parent == abs {
			return place{}, false
		}
		names = append(names, b)
		abs = parent
	}
}

// dir classifies the entries of one folder, whose path with every link
// resolved is real; with only set, it takes that data file and its
// companions and passes over the rest. Links are followed to what they
// name; special files are skipped unopened.
func (w *walker) dir(dir, real, only string, entries []fs.DirEntry) error {
	present := map[string]bool{}
	links := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if only != "" && name != only && !strings.HasPrefix(name, only) {
			continue
		}
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			st, err := w.fsys.Stat(w.fsys.Join(dir, name))
			if err != nil {
				w.skip(w.fsys.Join(dir, name), "broken symbolic link ("+linkError(err)+"); not read", only == "")
				continue
			}
			mode = st.Mode()
			links[name] = true
		}
		switch {
		case mode.IsRegular():
			present[name] = true
		case mode.IsDir():
			// walk takes it.
		default:
			// Never opened: reading a named pipe would wait for a writer,
			// and a device may never end.
			w.skip(w.fsys.Join(dir, name), modeName(mode)+", not a regular file; never opened", only == "")
		}
	}
	if only != "" && !present[only] {
		return fmt.Errorf("dataset: %s is not a regular file", w.fsys.Join(dir, only))
	}
	pl, inLayout := placeOf(w.fsys, dir)
	skip := func(name, reason string, unusual bool) {
		if only == "" {
			w.skip(w.fsys.Join(dir, name), reason, unusual)
		}
	}
	for _, e := range entries {
		name := e.Name()
		if !present[name] || (only != "" && name != only) {
			continue
		}
		if r := tempReason(name); r != "" {
			skip(name, r, false)
			continue
		}
		if data, ok := companionOf(name); ok {
			switch {
			case tempReason(data) != "":
				skip(name, "companion of "+data+", a temporary", false)
			case !present[data]:
				// IoTDB removes a compacted file's data file before its
				// companions, so this is normal for a moment; but it is
				// also what a data file deleted by hand leaves, whose
				// rows the read then lacks. It is said, not passed over.
				skip(name, "companion of "+data+", which is not there: its rows are not read (IoTDB removes a compacted data file just before its companions; otherwise the data file was lost)", true)
			}
			continue
		}
		if strings.HasSuffix(name, SevoSuffix) {
			// Not unusual where IoTDB writes renames; OpenLayout
			// refuses it or, empty, warns of it (renames.go).
			skip(name, sevoReason, false)
			continue
		}
		if !strings.HasSuffix(name, TsFileSuffix) {
			skip(name, "not a data file or a companion of one", true)
			continue
		}
		if inLayout && pl.depth != 3 {
			skip(name, "not in a {database}/{region}/{partition} folder of "+pl.space.String()+", where IoTDB keeps its data files; not read", true)
			continue
		}
		n, err := ParseName(name)
		if inLayout && err != nil {
			// Not read, though it may hold points: IoTDB orders the files
			// of a partition by the time and version in their names
			// (TsFileNameGenerator), so this file's points cannot be placed
			// against the copies other files hold; read as a loose file it
			// could overwrite newer points or be overwritten by older ones.
			// Skipped with a warning: the user can rename it or read it
			// alone with --raw.
			skip(name, err.Error()+": IoTDB could not order its points against the other files' (the time and version in the name decide), so it is not read; rename it as IoTDB names files, or read it alone with --raw", true)
			continue
		}
		p := w.fsys.Join(dir, name)
		key := w.fsys.Join(real, name)
		if links[name] {
			if key, err = w.fsys.RealPath(p); err != nil {
				return pathError(p, err)
			}
		}
		if first, ok := w.mark(key, p); !ok {
			if !w.samePath(first, p) && only == "" {
				w.skip(p, "the same file as "+first+" (through a symbolic link), read once there", true)
			}
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

// linkError says why a link cannot be followed, without the path the
// caller already gives.
func linkError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "its target does not exist"
	}
	return err.Error()
}

// skip lists p as not taken, once (by its path as found, not its real
// path: a link to a file taken is listed as skipped).
func (w *walker) skip(p, reason string, unusual bool) {
	key, err := w.fsys.Abs(p)
	if err != nil {
		key = p
	}
	key = "\x00skip\x00" + key
	if _, ok := w.seen[key]; !ok {
		w.seen[key] = p
		w.skipped = append(w.skipped, Skipped{Path: p, Reason: reason, Unusual: unusual})
	}
}

// mark records the file p, whose path with every link resolved is key,
// as handled, and reports whether it was new; if not, it returns the
// path by which it was first found, so that a file reached through a link
// is not read twice.
func (w *walker) mark(key, p string) (string, bool) {
	if first, ok := w.seen[key]; ok {
		return first, false
	}
	w.seen[key] = p
	return p, true
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
