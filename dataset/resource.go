package dataset

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/tsarrow/tsarrow/tsfile"
)

// ResourceSuffix is appended to a data file's name to name its resource
// file (TsFileResource.RESOURCE_SUFFIX).
const ResourceSuffix = ".resource"

// MaxResourceSize is the largest .resource file ReadResourceFile reads. A
// resource holds 16 bytes and a device ID per device, so 64 MiB is far
// beyond any real one; a bigger file is refused before it is read.
const MaxResourceSize = 64 << 20

// The resource format version and time index types IoTDB writes
// (TsFileResource.VERSION_NUMBER, ITimeIndex.*_TYPE).
const (
	resourceVersion = 1

	// IndexPlain is the device time index of IoTDB 1.x (DeviceTimeIndex,
	// read by 2.x as PlainDeviceTimeIndex): devices as path strings.
	IndexPlain = 1
	// IndexArray is the device time index of IoTDB 2.x
	// (ArrayDeviceTimeIndex): devices as serialized IDeviceIDs.
	IndexArray = 3
)

// Resource is the content of a .resource file: the start and end time of
// every device in its data file, which lets a reader skip a file or a
// device before it opens the file's footer.
//
// IoTDB: iotdb-core/datanode/.../dataregion/tsfile/TsFileResource.java
// (serializeTo, deserialize) and .../tsfile/timeindex/ArrayDeviceTimeIndex.java,
// DeviceTimeIndex.java (1.x), PlainDeviceTimeIndex.java, ITimeIndex.java.
type Resource struct {
	// IndexType is IndexPlain or IndexArray.
	IndexType byte
	// Devices lists the devices in the order of their index slots.
	Devices []DeviceTimes
	// MaxPlanIndex and MinPlanIndex are the range of write-plan indexes
	// the file holds (consensus bookkeeping, not used for reading).
	MaxPlanIndex, MinPlanIndex int64
	// ModFile is what the resource says of a mods file: in IoTDB 1.x the
	// base name of the file's own .mods, in 2.x the absolute path of a
	// shared mods file that also holds this file's deletions, from
	// ModFileOffset on. Empty when the resource names none.
	ModFile       string
	ModFileOffset int64
	// Tail holds the bytes after the mods file reference, unparsed: the
	// optional blocks (a progress index of the consensus layer).
	Tail []byte
}

// DeviceTimes is one device's time range in a data file: the smallest and
// largest timestamp of its points, both included. IoTDB writes End as
// math.MinInt64 for a device of a sequence file that was still open.
type DeviceTimes struct {
	Device     tsfile.DeviceID
	Start, End int64
}

// ReadResourceFile reads and parses a .resource file, refusing one larger
// than MaxResourceSize before reading it, and one that is not a regular
// file (ErrNotRegular) before opening it.
func ReadResourceFile(path string) (*Resource, error) {
	return readResource(osFS{}, path, nil)
}

// ReadResourceFS is ReadResourceFile for a file in fsys (the operating
// system when nil).
func ReadResourceFS(fsys fs.FS, path string) (*Resource, error) {
	return readResource(fsOf(fsys), path, nil)
}

// readResource reads the resource at path; with info set, it stores there
// the stat of the file it opened (the version read), even when the
// content then fails to parse.
func readResource(fsys fileSystem, path string, info *fs.FileInfo) (*Resource, error) {
	f, err := openRegular(fsys, path)
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
	if st.Size() > MaxResourceSize {
		return nil, fmt.Errorf("dataset: %s: %d bytes, more than the %d a resource file may have: %w",
			path, st.Size(), MaxResourceSize, tsfile.ErrUnsupported)
	}
	// Read through a limit: the file may grow between Stat and ReadAll.
	b, err := io.ReadAll(io.LimitReader(f, MaxResourceSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxResourceSize {
		return nil, fmt.Errorf("dataset: %s grew past %d bytes while read: %w", path, MaxResourceSize, tsfile.ErrUnsupported)
	}
	r, err := ParseResource(b)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	return r, nil
}

// ParseResource parses the bytes of a .resource file. Integers are
// big-endian, as Java's streams write them:
//
//	u8  version (1)
//	u8  time index type (1 plain, 3 array)
//	i32 device count n
//	n × (i64 start, i64 end)         // by slot
//	n × (device, i32 slot)           // device: plain = i32-length UTF-8 path,
//	                                 // array = uvarint segment count, then
//	                                 // per segment a zigzag-varint length
//	                                 // (-1 null) and UTF-8 bytes
//	i64 max plan index, i64 min plan index
//	optional: i32-length string (-1 null): the mods file; in 2.x a
//	          non-empty path is followed by an i64 offset
//	optional: blocks (kept in Tail)
//
// Anything else is refused with an error wrapping tsfile.ErrCorrupt
// (damage) or tsfile.ErrUnsupported (a version or index type this parser
// does not know, such as the file-level index IoTDB never persists), so
// the caller can fall back to the data file's own index.
func ParseResource(b []byte) (*Resource, error) {
	d := &resDecoder{b: b}
	if v := d.u8("version"); d.err == nil && v != resourceVersion {
		return nil, d.unsupported(0, "version", "version %d, want %d", v, resourceVersion)
	}
	at := d.pos
	typ := d.u8("time index type")
	if d.err == nil && typ != IndexPlain && typ != IndexArray {
		return nil, d.unsupported(at, "time index type", "time index type %d (1 plain and 3 array device indexes are known)", typ)
	}
	r := &Resource{IndexType: typ}
	at = d.pos
	n := d.i32("device count")
	// Each device needs 16 bytes of times, 4 of slot and at least 1 of ID:
	// check the count against the bytes left before allocating for it.
	if d.err == nil && (n < 0 || int64(n)*21 > int64(len(b)-d.pos)) {
		return nil, d.corrupt(at, "device count", "%d devices cannot fit in the %d remaining bytes", n, len(b)-d.pos)
	}
	if d.err != nil {
		return nil, d.err
	}
	r.Devices = make([]DeviceTimes, n)
	for i := range r.Devices {
		r.Devices[i].Start = d.i64("start time")
		r.Devices[i].End = d.i64("end time")
	}
	seen := make([]bool, n)
	for i := 0; i < int(n) && d.err == nil; i++ {
		at := d.pos
		var id tsfile.DeviceID
		if typ == IndexPlain {
			path, ok := d.string32("device path")
			if d.err == nil && !ok {
				return nil, d.corrupt(at, "device path", "null device path")
			}
			// As IoTDB 2.x does for a 1.x index: the path becomes the
			// IDeviceID its path parser makes of it.
			id = tsfile.ParseTreePath(path)
		} else {
			id = d.deviceID()
		}
		slotAt := d.pos
		slot := d.i32("device slot")
		if d.err != nil {
			break
		}
		if slot < 0 || slot >= n || seen[slot] {
			return nil, d.corrupt(slotAt, "device slot", "slot %d of device %q is out of range [0, %d) or taken twice", slot, id, n)
		}
		seen[slot] = true
		r.Devices[slot].Device = id
	}
	r.MaxPlanIndex = d.i64("max plan index")
	r.MinPlanIndex = d.i64("min plan index")
	if d.err != nil {
		return nil, d.err
	}
	// IoTDB reads the rest only "if available": a 0.13-era resource ends
	// here.
	if d.pos < len(b) {
		at := d.pos
		s, ok := d.string32("mods file")
		if d.err != nil {
			return nil, d.err
		}
		if ok && s != "" {
			r.ModFile = s
			// 1.x wrote the base name of the file's own .mods with nothing
			// after it; 2.x writes the absolute path of a shared mods file
			// and its offset (TsFileResource.serializeTo in each version).
			if !isV1ModsName(s) {
				r.ModFileOffset = d.i64("mods file offset")
				if d.err == nil && r.ModFileOffset < 0 {
					return nil, d.corrupt(at, "mods file offset", "negative offset %d", r.ModFileOffset)
				}
			}
		}
		if d.err != nil {
			return nil, d.err
		}
		if d.pos < len(b) {
			r.Tail = append([]byte(nil), b[d.pos:]...)
		}
	}
	return r, nil
}

// isV1ModsName reports whether s is the mods reference of a 1.x resource:
// a bare file name ending in ".mods" (ModificationFile.FILE_SUFFIX of 1.x).
func isV1ModsName(s string) bool {
	return strings.HasSuffix(s, ".mods") && !strings.ContainsAny(s, `/\`)
}

// AppendBinary appends the bytes IoTDB's TsFileResource.serializeTo writes
// for r, so that tests and tools can lay out a data directory a server
// would read. A 2.x shared mods reference gets its offset; the Tail is
// appended as it is, and without one an empty block (type 0) ends the
// file, as IoTDB writes it.
func (r *Resource) AppendBinary(dst []byte) ([]byte, error) {
	if r.IndexType != IndexPlain && r.IndexType != IndexArray {
		return dst, fmt.Errorf("dataset: cannot write time index type %d", r.IndexType)
	}
	if len(r.Devices) > math.MaxInt32 {
		return dst, fmt.Errorf("dataset: %d devices do not fit a resource file", len(r.Devices))
	}
	dst = append(dst, resourceVersion, r.IndexType)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(r.Devices)))
	for _, dt := range r.Devices {
		dst = binary.BigEndian.AppendUint64(dst, uint64(dt.Start))
		dst = binary.BigEndian.AppendUint64(dst, uint64(dt.End))
	}
	for i, dt := range r.Devices {
		if r.IndexType == IndexPlain {
			dst = appendString32(dst, dt.Device.TreePath())
		} else {
			var err error
			if dst, err = appendDeviceID(dst, dt.Device); err != nil {
				return dst, fmt.Errorf("dataset: resource device %d: %w", i, err)
			}
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(i))
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.MaxPlanIndex))
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.MinPlanIndex))
	if r.ModFile == "" {
		dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32) // null string: -1
	} else {
		dst = appendString32(dst, r.ModFile)
		if !isV1ModsName(r.ModFile) {
			dst = binary.BigEndian.AppendUint64(dst, uint64(r.ModFileOffset))
		}
	}
	if r.Tail == nil {
		return append(dst, 0), nil // TsFileResourceBlockType.EMPTY_BLOCK
	}
	return append(dst, r.Tail...), nil
}

func appendString32(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

// resDecoder reads the fields of a resource file; its first error sticks
// and names the field and its offset.
type resDecoder struct {
	b   []byte
	pos int
	err error
}

func (d *resDecoder) corrupt(at int, what, format string, args ...any) error {
	return d.fail(at, what, tsfile.ErrCorrupt, format, args...)
}

func (d *resDecoder) unsupported(at int, what, format string, args ...any) error {
	return d.fail(at, what, tsfile.ErrUnsupported, format, args...)
}

func (d *resDecoder) fail(at int, what string, kind error, format string, args ...any) error {
	if d.err == nil {
		d.err = &tsfile.FormatError{Offset: int64(at), Structure: "resource " + what, Msg: fmt.Sprintf(format, args...), Kind: kind}
	}
	return d.err
}

func (d *resDecoder) need(n int, what string) bool {
	if d.err != nil {
		return false
	}
	if n > len(d.b)-d.pos {
		d.corrupt(d.pos, what, "needs %d bytes, %d remain", n, len(d.b)-d.pos)
		return false
	}
	return true
}

func (d *resDecoder) u8(what string) byte {
	if !d.need(1, what) {
		return 0
	}
	d.pos++
	return d.b[d.pos-1]
}

func (d *resDecoder) i32(what string) int32 {
	if !d.need(4, what) {
		return 0
	}
	d.pos += 4
	return int32(binary.BigEndian.Uint32(d.b[d.pos-4:]))
}

func (d *resDecoder) i64(what string) int64 {
	if !d.need(8, what) {
		return 0
	}
	d.pos += 8
	return int64(binary.BigEndian.Uint64(d.b[d.pos-8:]))
}

// string32 reads ReadWriteIOUtils.readString's form: an i32 length, -1 for
// null, then UTF-8 bytes.
func (d *resDecoder) string32(what string) (string, bool) {
	at := d.pos
	n := d.i32(what + " length")
	if d.err != nil {
		return "", false
	}
	if n == -1 {
		return "", false
	}
	if n < 0 {
		d.corrupt(at, what, "negative length %d", n)
		return "", false
	}
	return d.text(int(n), at, what), d.err == nil
}

// text takes n bytes as a UTF-8 string, n checked against what remains.
func (d *resDecoder) text(n, at int, what string) string {
	if !d.need(n, what) {
		return ""
	}
	s := d.b[d.pos : d.pos+n]
	if !utf8.Valid(s) {
		d.corrupt(at, what, "not UTF-8")
		return ""
	}
	d.pos += n
	return string(s)
}

// deviceID reads StringArrayDeviceID's form (see appendDeviceID); a count
// of zero is one empty segment, as its deserializer makes it.
func (d *resDecoder) deviceID() tsfile.DeviceID {
	at := d.pos
	if d.err != nil {
		return tsfile.DeviceID{}
	}
	cnt, k := binary.Uvarint(d.b[d.pos:])
	if k <= 0 || cnt > math.MaxInt32 {
		d.corrupt(at, "device ID", "bad segment count")
		return tsfile.DeviceID{}
	}
	d.pos += k
	if cnt == 0 {
		return tsfile.NewDeviceID("")
	}
	// Every segment takes at least one byte.
	if cnt > uint64(len(d.b)-d.pos) {
		d.corrupt(at, "device ID", "%d segments cannot fit in the %d remaining bytes", cnt, len(d.b)-d.pos)
		return tsfile.DeviceID{}
	}
	segs := make([]tsfile.Segment, cnt)
	for i := range segs {
		sat := d.pos
		n, k := binary.Varint(d.b[d.pos:])
		if k <= 0 || n < -1 || n > math.MaxInt32 {
			d.corrupt(sat, "device ID segment", "bad length")
			return tsfile.DeviceID{}
		}
		d.pos += k
		if n == -1 {
			segs[i].Null = true
			continue
		}
		segs[i].Value = d.text(int(n), sat, "device ID segment")
		if d.err != nil {
			return tsfile.DeviceID{}
		}
	}
	id := tsfile.DeviceIDFromSegments(segs)
	if id.Len() == 0 {
		d.corrupt(at, "device ID", "only null segments")
	}
	return id
}
