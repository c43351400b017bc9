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
	switch v {
	case ModsV1:
		return ParseModsV1(data, opts)
	case ModsV2:
		return ParseModsV2(data, opts)
	}
	return nil, fmt.Errorf("dataset: unknown mods version %d", v)
}

// ReadModsFile reads the mods file name, whose version its suffix tells
// (".mods" or ".mods2"). A file larger than the limit is refused before
// anything is allocated. The file is read up to the size it had when
// opened: IoTDB appends to mods files of a live directory, and an entry
// being written then shows as a truncated last entry, which is dropped
// with a warning, as IoTDB drops it. A file that is not a regular one (a
// named pipe, a device) is refused before it is opened (ErrNotRegular).
func ReadModsFile(name string, opts *ModsOptions) (*Mods, error) {
	return readMods(osFS{}, name, opts, nil)
}

// ReadModsFS is ReadModsFile for a file in fsys (the operating system
// when nil).
func ReadModsFS(fsys fs.FS, name string, opts *ModsOptions) (*Mods, error) {
	return readMods(fsOf(fsys), name, opts, nil)
}

// readMods reads the mods file name; with info set, it stores there the
// stat of the file it opened (the version read).
func readMods(fsys fileSystem, name string, opts *ModsOptions, info *fs.FileInfo) (*Mods, error) {
	var v ModsVersion
	switch {
	case strings.HasSuffix(name, ModsV2Suffix):
		v = ModsV2
	case strings.HasSuffix(name, ModsV1Suffix):
		v = ModsV1
	default:
		return nil, fmt.Errorf("dataset: %s: not a mods file (want suffix %s or %s)", name, ModsV1Suffix, ModsV2Suffix)
	}
	f, err := openRegular(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info != nil {
		*info = st
	}
	data, err := readModsData(f, st.Size(), opts)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	m, err := ParseMods(data, v, opts)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	return m, nil
}

// readModsData reads size bytes of r after checking size against the limit.
func readModsData(r io.Reader, size int64, opts *ModsOptions) ([]byte, error) {
	if err := checkModsSize(size, opts); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmt.Errorf("dataset: negative mods file size %d", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		// The file shrank while we read it: IoTDB replaced or truncated it.
		return nil, fmt.Errorf("dataset: mods file changed while read: %w", err)
	}
	return data, nil
}

// checkModsSize refuses data past the limit, so the parsers enforce it too.
func checkModsSize(n int64, opts *ModsOptions) error {
	if limit := opts.maxSize(); n > limit {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrModsTooLarge, n, limit)
	}
	return nil
}
