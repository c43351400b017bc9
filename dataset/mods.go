package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"

	"github.com/tsarrow/tsarrow/tsfile"
)

// ModsVersion tells which format a mods file is in.
type ModsVersion uint8

// The mods file formats.
const (
	// ModsV1 is IoTDB 1.x's text format, "X.tsfile.mods".
	ModsV1 ModsVersion = 1
	// ModsV2 is IoTDB 2.x's binary format, "X.tsfile.mods2".
	ModsV2 ModsVersion = 2
)

// File name suffixes of mods files, appended to a data file's full name.
// IoTDB: ModificationFile.FILE_SUFFIX in dataregion/modification (".mods2")
// and its 1.x form (modification/v1/ModificationFileV1, ".mods").
const (
	ModsV1Suffix = ".mods"
	ModsV2Suffix = ".mods2"
)

// DefaultMaxModsSize is the largest mods file read when ModsOptions does
// not say. IoTDB settles a mods file once it passes 1 MiB
// (ModificationFile.COMPACT_THRESHOLD), so real files stay far below it.
const DefaultMaxModsSize = 256 << 20

// ErrModsTooLarge is returned for a mods file larger than the limit,
// before any of it is read.
var ErrModsTooLarge = errors.New("dataset: mods file larger than the limit")

// ModsOptions are the limits of the mods readers. The zero value is valid.
type ModsOptions struct {
	// MaxSize is the largest file accepted, in bytes; 0 means
	// DefaultMaxModsSize.
	MaxSize int64
}

func (o *ModsOptions) maxSize() int64 {
	if o == nil || o.MaxSize <= 0 {
		return DefaultMaxModsSize
	}
	return o.MaxSize
}

// DeletionKind is the model a deletion belongs to, numbered as IoTDB's
// ModEntry.ModType serializes it.
type DeletionKind uint8

// The kinds of Deletion.
const (
	// TableDeletion removes rows of a table-model table (DELETE FROM t ...).
	TableDeletion DeletionKind = 0
	// TreeDeletion removes points of the tree-model series a Pattern names.
	TreeDeletion DeletionKind = 1
)

func (k DeletionKind) String() string {
	switch k {
	case TableDeletion:
		return "table"
	case TreeDeletion:
		return "tree"
	}
	return fmt.Sprintf("DeletionKind(%d)", uint8(k))
}

// Deletion is one entry of a mods file: the points of some series whose
// time falls in [Start, End] are deleted from the data file the mods file
// belongs to. Both bounds are inclusive, except where OpenStart or
// OpenEnd says otherwise.
//
// A tree deletion names its series by Pattern. A table deletion names a
// Table, the devices TagPredicate selects among its devices, and the
// Measurements (field columns) it deletes, every column when empty.
//
// IoTDB: ModEntry, TreeDeletionEntry, TableDeletionEntry, DeletionPredicate
// (2.x), v1/Deletion (1.x).
type Deletion struct {
	Kind       DeletionKind
	Start, End int64
	// OpenStart and OpenEnd exclude the bound itself. Only a v1 deletion
	// has them: IoTDB 1.x's Deletion opens a bound at math.MinInt64 or
	// math.MaxInt64 (and the start of the old 4-field form), so a point at
	// exactly that time survives. A v2 range is always closed.
	OpenStart, OpenEnd bool

	// Pattern is a tree deletion's path pattern.
	Pattern Pattern

	// Table, Predicate and Measurements are a table deletion's.
	Table        string
	Predicate    TagPredicate
	Measurements []string

	// Version is the format the deletion was read from (0 when built by
	// hand, which behaves as ModsV2).
	Version ModsVersion
	// FileOffset is a v1 deletion's offset in the data file: it deletes
	// only from chunks whose header starts before it, the ones written
	// before the deletion (see AppliesToChunk). In the old 4-field form
	// (Legacy) this field holds the line's version number instead, which
	// IoTDB 1.x still compares the same way.
	FileOffset int64
	// Legacy marks a v1 line of the old form DELETION,<path>,<version>,<end>.
	Legacy bool
}

// ContainsTime reports whether a point at time t lies in the deleted range.
func (d *Deletion) ContainsTime(t int64) bool {
	if t < d.Start || t > d.End {
		return false
	}
	return !(d.OpenStart && t == d.Start) && !(d.OpenEnd && t == d.End)
}

// lo and hi are the closed bounds of the range, empty when lo > hi.
func (d *Deletion) lo() (int64, bool) {
	if !d.OpenStart {
		return d.Start, true
	}
	if d.Start == math.MaxInt64 {
		return 0, false
	}
	return d.Start + 1, true
}

func (d *Deletion) hi() (int64, bool) {
	if !d.OpenEnd {
		return d.End, true
	}
	if d.End == math.MinInt64 {
		return 0, false
	}
	return d.End - 1, true
}

// CoversRange reports whether every time of [min, max] is deleted, so a
// chunk or page with those statistics can be dropped unread.
func (d *Deletion) CoversRange(min, max int64) bool {
	lo, ok1 := d.lo()
	hi, ok2 := d.hi()
	return ok1 && ok2 && lo <= min && max <= hi
}

// OverlapsRange reports whether some time of [min, max] is deleted.
func (d *Deletion) OverlapsRange(min, max int64) bool {
	lo, ok1 := d.lo()
	hi, ok2 := d.hi()
	return ok1 && ok2 && lo <= hi && lo <= max && min <= hi
}

// AppliesToChunk reports whether the deletion applies to the chunk whose
// header starts at headerOffset in the data file. A v2 deletion applies
// to every chunk. A v1 deletion applies to the chunks whose header is
// below its FileOffset: IoTDB 1.x recorded the data file's length when
// the deletion was made, so chunks flushed later hold points written
// after it. (IoTDB: ModificationUtils.modifyChunkMetaData, the test
// modification.getFileOffset() > metaData.getOffsetOfChunkHeader().)
//
// IoTDB 2.x answers differently: it converts X.tsfile.mods into
// X.tsfile.mods2, each v1 deletion a TreeDeletionEntry of the same pattern
// and range, dropping the offset (TsFileResource.upgradeModFile). A reader
// that answers as 2.x does clears Version to ModsV2 to apply such a
// deletion to every chunk, as Dataset does under ModsV1Whole (ModsV1Rule).
func (d *Deletion) AppliesToChunk(headerOffset int64) bool {
	if d.Version != ModsV1 {
		return true
	}
	return d.FileOffset > headerOffset
}

// AffectsDevice reports whether the deletion may delete points of the
// device: for a table deletion, the device is of its table and the
// predicate selects it; for a tree deletion, the pattern can name one of
// its series. Which measurements it deletes is AffectsMeasurement's.
//
// IoTDB: ModEntry.affects(IDeviceID).
func (d *Deletion) AffectsDevice(dev tsfile.DeviceID) bool {
	switch d.Kind {
	case TableDeletion:
		return dev.Table() == d.Table && d.Predicate.Match(dev)
	case TreeDeletion:
		return d.Pattern.MatchDevice(DeviceNodes(dev))
	}
	return false
}

// AffectsMeasurement reports whether the deletion deletes points of the
// series measurement of the device.
//
// IoTDB: TreeDeletionEntry.matches (the full path), and for tables
// DeletionPredicate.matches with DeletionPredicate.affects.
func (d *Deletion) AffectsMeasurement(dev tsfile.DeviceID, measurement string) bool {
	switch d.Kind {
	case TableDeletion:
		if !d.AffectsDevice(dev) {
			return false
		}
		if len(d.Measurements) == 0 {
			return true
		}
		for _, m := range d.Measurements {
			if m == measurement {
				return true
			}
		}
		return false
	case TreeDeletion:
		return d.Pattern.Match(DeviceNodes(dev), measurement)
	}
	return false
}

// AffectsAll reports whether the deletion deletes every column of the
// device, its time column included, so whole rows (and, with
// CoversRange, whole chunk groups) go.
//
// IoTDB: ModEntry.affectsAll.
func (d *Deletion) AffectsAll(dev tsfile.DeviceID) bool {
	switch d.Kind {
	case TableDeletion:
		return len(d.Measurements) == 0 && d.AffectsDevice(dev)
	case TreeDeletion:
		return d.Pattern.CoversDevice(DeviceNodes(dev))
	}
	return false
}

// String describes the deletion for messages and inspect.
func (d *Deletion) String() string {
	var b strings.Builder
	switch d.Kind {
	case TreeDeletion:
		fmt.Fprintf(&b, "delete %s", d.Pattern)
	case TableDeletion:
		fmt.Fprintf(&b, "delete from %s where %s", d.Table, d.Predicate.String())
		if len(d.Measurements) > 0 {
			fmt.Fprintf(&b, " columns %s", strings.Join(d.Measurements, ","))
		}
	default:
		b.WriteString(d.Kind.String())
	}
	lb, rb := "[", "]"
	if d.OpenStart {
		lb = "("
	}
	if d.OpenEnd {
		rb = ")"
	}
	fmt.Fprintf(&b, " time %s%d, %d%s", lb, d.Start, d.End, rb)
	if d.Version == ModsV1 {
		fmt.Fprintf(&b, " before offset %d", d.FileOffset)
	}
	return b.String()
}

// Mods is the content of one mods file.
type Mods struct {
	Version ModsVersion
	// Deletions in file order.
	Deletions []Deletion
	// Warnings says what was skipped, as IoTDB skips it: a truncated last
	// entry, a malformed v1 line and the lines after it.
	Warnings []string
}

// ParseMods parses a whole mods file of the given version.
func ParseMods(data []byte, v ModsVersion, opts *ModsOptions) (*Mods, error) {
	return parseMods(data, v, opts)
}

// parseMods parses data through a ModsScanner over it, which reads the
// entries in place (its window is data itself).
func parseMods(data []byte, v ModsVersion, opts *ModsOptions) (*Mods, error) {
	s, err := newModsScanner(nil, int64(len(data)), v, opts)
	if err != nil {
		return nil, err
	}
	s.r.buf = data
	s.r.rest = 0
	return collectMods(s)
}

// collectMods keeps every entry s reads.
func collectMods(s *ModsScanner) (*Mods, error) {
	m := &Mods{Version: s.v}
	for s.Next() {
		m.Deletions = append(m.Deletions, *s.Deletion())
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	m.Warnings = s.Warnings()
	return m, nil
}

// ModsScanner reads a mods file one entry at a time, as IoTDB 2.0.11's
// query engine iterates a mods file (TsFileResource.ModIterator over
// ModificationFile.ModIterator, a 64 KiB buffered stream) instead of
// loading it whole. It holds a window of the file: at most
// modsWindowSize bytes, or twice the longest entry (or v1 line) when one
// is longer, so memory does not grow with the file. Entries and warnings
// are those ParseModsV1 and ParseModsV2 give for the same bytes.
type ModsScanner struct {
	v        ModsVersion
	r        v2reader // the window and the read position (v1 too)
	d        Deletion
	err      error
	warnings []string
	done     bool
	lineNo   int
	// kind and body are the v2 entry just read, less its times (in the
	// window: valid until the next call of Next).
	kind byte
	body []byte
}

// modsWindowSize is the window a ModsScanner starts with.
const modsWindowSize = 256 << 10

// NewModsScanner returns a scanner of the mods file of version v that r
// holds, of which size bytes are read: the size the file had when
// opened, since IoTDB appends to the mods file of a live directory (a
// deletion being written then reads as a truncated last entry, dropped
// with a warning). A size past the limit is refused before anything is
// read or allocated (ErrModsTooLarge); so is a reader that ends before
// size bytes (the file was replaced or truncated), when the scan gets
// there.
func NewModsScanner(r io.Reader, size int64, v ModsVersion, opts *ModsOptions) (*ModsScanner, error) {
	s, err := newModsScanner(r, size, v, opts)
	if err != nil {
		return nil, err
	}
	s.r.buf = make([]byte, 0, min(size, modsWindowSize))
	return s, nil
}

func newModsScanner(r io.Reader, size int64, v ModsVersion, opts *ModsOptions) (*ModsScanner, error) {
	if v != ModsV1 && v != ModsV2 {
		return nil, fmt.Errorf("dataset: unknown mods version %d", v)
	}
	if err := checkModsSize(size, opts); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmt.Errorf("dataset: negative mods file size %d", size)
	}
	return &ModsScanner{v: v, r: v2reader{window: window{src: r, rest: size}}}, nil
}

// Next reads the next entry, reporting false at the end of the file, at
// an entry or line IoTDB stops reading at (see Warnings) or on an error
// (see Err).
func (s *ModsScanner) Next() bool {
	if s.done {
		return false
	}
	var ok bool
	if s.v == ModsV1 {
		ok = s.nextV1()
	} else {
		ok = s.nextV2()
	}
	if !ok {
		s.done = true
		s.body = nil
	}
	return ok
}

// Deletion returns the entry Next read. Its strings and slices are the
// caller's to keep; the Deletion itself is overwritten by the next call.
func (s *ModsScanner) Deletion() *Deletion { return &s.d }

// Err returns the error that ended the scan, if any: corruption IoTDB's
// reader fails on, or a read error.
func (s *ModsScanner) Err() error { return s.err }

// Warnings says what was skipped, as IoTDB skips it (Mods.Warnings).
func (s *ModsScanner) Warnings() []string { return s.warnings }

// Version returns the format being read.
func (s *ModsScanner) Version() ModsVersion { return s.v }

// window is the part of a mods file in memory: buf holds the bytes from
// offset base on, and rest bytes of the file follow, not yet read.
type window struct {
	src  io.Reader
	buf  []byte
	base int64
	rest int64
}

// refill drops the bytes of buf before keep, moves the others to its
// front and reads more after them. The buffer doubles when the bytes kept
// fill half of it, so each read is at least half a buffer and the buffer
// ends at most twice the longest entry or line (or its first size).
func (w *window) refill(keep int) error {
	tail := len(w.buf) - keep
	c := max(cap(w.buf), 1)
	nb := w.buf[:cap(w.buf)]
	if tail >= c/2 {
		c *= 2
		nb = make([]byte, c)
	}
	copy(nb, w.buf[keep:])
	n := int(min(int64(c-tail), w.rest))
	if w.src == nil {
		return errors.New("dataset: mods scanner without a reader")
	}
	if _, err := io.ReadFull(w.src, nb[tail:tail+n]); err != nil {
		// The file shrank while we read it: IoTDB replaced or truncated it.
		return fmt.Errorf("dataset: mods file changed while read: %w", err)
	}
	w.buf = nb[:tail+n]
	w.base += int64(keep)
	w.rest -= int64(n)
	return nil
}

// ReadModsFile reads the mods file name, whose version its suffix tells
// (".mods" or ".mods2"), keeping every entry (ScanModsFS keeps none). A
// file larger than the limit is refused before anything is allocated.
// The file is read up to the size it had when opened: IoTDB appends to
// mods files of a live directory, and an entry being written then shows
// as a truncated last entry, which is dropped with a warning, as IoTDB
// drops it. A file that is not a regular one (a named pipe, a device) is
// refused before it is opened (ErrNotRegular).
func ReadModsFile(name string, opts *ModsOptions) (*Mods, error) {
	return readMods(osFS{}, name, opts, nil)
}

// ReadModsFS is ReadModsFile for a file in fsys (the operating system
// when nil).
func ReadModsFS(fsys fs.FS, name string, opts *ModsOptions) (*Mods, error) {
	return readMods(fsOf(fsys), name, opts, nil)
}

// ScanModsFS reads the mods file name in fsys (the operating system when
// nil) as ReadModsFS does, handing each entry to fn instead of keeping
// it, so that a file of any size is read in a window of the file
// (ModsScanner). An error of fn ends the scan and is returned. It
// returns the warnings of the scan.
func ScanModsFS(fsys fs.FS, name string, opts *ModsOptions, fn func(d *Deletion) error) ([]string, error) {
	var warnings []string
	err := scanMods(fsOf(fsys), name, opts, nil, func(s *ModsScanner) error {
		for s.Next() {
			if err := fn(s.Deletion()); err != nil {
				return err
			}
		}
		if err := s.Err(); err != nil {
			return err
		}
		warnings = s.Warnings()
		return nil
	})
	return warnings, err
}

// readMods reads the mods file name; with info set, it stores there the
// stat of the file it opened (the version read).
func readMods(fsys fileSystem, name string, opts *ModsOptions, info *fs.FileInfo) (*Mods, error) {
	var m *Mods
	err := scanMods(fsys, name, opts, info, func(s *ModsScanner) (err error) {
		m, err = collectMods(s)
		return err
	})
	return m, err
}

// modsVersionOf tells a mods file's version from its name.
func modsVersionOf(name string) (ModsVersion, error) {
	switch {
	case strings.HasSuffix(name, ModsV2Suffix):
		return ModsV2, nil
	case strings.HasSuffix(name, ModsV1Suffix):
		return ModsV1, nil
	}
	return 0, fmt.Errorf("dataset: %s: not a mods file (want suffix %s or %s)", name, ModsV1Suffix, ModsV2Suffix)
}

// scanMods opens the mods file name and hands fn a scanner of it; with
// info set, it stores there the stat of the file it opened. Errors are
// wrapped with the file's name.
func scanMods(fsys fileSystem, name string, opts *ModsOptions, info *fs.FileInfo, fn func(s *ModsScanner) error) error {
	v, err := modsVersionOf(name)
	if err != nil {
		return err
	}
	f, err := openRegular(fsys, name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if info != nil {
		*info = st
	}
	s, err := NewModsScanner(f, st.Size(), v, opts)
	if err == nil {
		err = fn(s)
	}
	if err != nil {
		return fmt.Errorf("dataset: %s: %w", name, err)
	}
	return nil
}

// checkModsSize refuses data past the limit, so the parsers enforce it too.
func checkModsSize(n int64, opts *ModsOptions) error {
	if limit := opts.maxSize(); n > limit {
		return fmt.Errorf("%w: %d bytes, limit %d; raise the limit with --max-mods-size (ModsOptions.MaxSize)", ErrModsTooLarge, n, limit)
	}
	return nil
}
