package tsfile

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
)

// An ObjectRef is what an OBJECT cell (data type 12) holds: not the
// object, which IoTDB keeps in a file of its own, but the object's size
// and the path of that file relative to an object folder (the object/
// folder of each IoTDB data directory).
type ObjectRef struct {
	// Size is the object's length in bytes, as the writer recorded it.
	Size int64
	// Path is the object file's path, slash-separated, relative to the
	// object folder: region id, device segments, measurement, then
	// "<time>.bin" (or "<time>_<version>.bin").
	Path string
	// Segmented is true for a cell holding the path as a list of
	// segments (IoTDB's Base32ObjectPath), false for a plain path string
	// (PlainObjectPath, and builds before either).
	Segmented bool
}

// maxObjectSegments bounds the segment count of a segmented OBJECT path:
// a device has at most a few thousand segments, and a cell's length
// bounds the count anyway (each segment takes at least one byte).
const maxObjectSegments = 1 << 16

// ParseObjectCell decodes an OBJECT cell. Its layout follows apache/iotdb
// (iotdb-core/datanode/.../utils/ObjectTypeUtils.java,
// generateObjectBinary and parseObjectBinaryToSizeStringPathPair; the
// paths in .../storageengine/dataregion/{Base32,Plain}ObjectPath.java):
// a big-endian i64 size, then the path in one of two forms. IoTDB picks the
// form by its restrict_object_limit setting, which the file does not
// record, so the cell's bytes decide:
//
//   - segmented (Base32ObjectPath.serialize): an unsigned VarInt count, then
//     each segment as a ZigZag VarInt length and UTF-8 bytes (TsFile's
//     ReadWriteIOUtils.writeVar): the region id in decimal, each DeviceID
//     segment in unpadded RFC 4648 base32 ("NUL" for a null segment,
//     "EPT" for an empty one), the measurement in base32, then the file
//     name "<time>.bin". The path is the segments joined by "/", as the
//     object folder lays the files out.
//   - plain (PlainObjectPath.serializeToObjectValue, and the first OBJECT
//     builds, whose parseObjectBinary read the rest of the cell as a
//     string): the rest of the cell is the path itself, UTF-8, written
//     with the server's file separator.
//
// A cell is taken as segmented only when it parses as such to its last
// byte with a decimal region id first and a ".bin" name last; a plain path
// never does, as its first byte (a digit, 0x30-0x39) read as a count
// would be followed by a length byte that is a digit or "/" of the
// region id, which either reads as a negative length or makes a first
// segment holding a "/" or no digit.
func ParseObjectCell(cell []byte) (ObjectRef, error) {
	if len(cell) < 8 {
		return ObjectRef{}, fmt.Errorf("tsfile: OBJECT cell of %d bytes is shorter than its 8-byte size: %w", len(cell), ErrCorrupt)
	}
	size := int64(binary.BigEndian.Uint64(cell))
	if size < 0 {
		return ObjectRef{}, fmt.Errorf("tsfile: OBJECT cell records a negative size %d: %w", size, ErrCorrupt)
	}
	rest := cell[8:]
	if p, ok := segmentedObjectPath(rest); ok {
		return ObjectRef{Size: size, Path: p, Segmented: true}, nil
	}
	if len(rest) == 0 {
		return ObjectRef{}, fmt.Errorf("tsfile: OBJECT cell holds a size but no path: %w", ErrCorrupt)
	}
	if !utf8.Valid(rest) {
		return ObjectRef{}, fmt.Errorf("tsfile: OBJECT cell's path is neither a segment list nor UTF-8 text: %w", ErrCorrupt)
	}
	return ObjectRef{Size: size, Path: string(rest)}, nil
}

// segmentedObjectPath reads b as a Base32ObjectPath segment list and joins
// the segments with "/"; ok is false where b is not one.
func segmentedObjectPath(b []byte) (string, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n < 2 || n > maxObjectSegments || n > uint64(len(b)) {
		return "", false
	}
	b = b[k:]
	var sb strings.Builder
	for i := uint64(0); i < n; i++ {
		l, k := binary.Varint(b) // ZigZag, as ReadWriteForEncodingUtils.readVarInt
		if k <= 0 || l < 0 || l > int64(len(b)-k) {
			return "", false
		}
		seg := b[k : k+int(l)]
		b = b[k+int(l):]
		if !validObjectSegment(seg, i == 0, i == n-1) {
			return "", false
		}
		if i > 0 {
			sb.WriteByte('/')
		}
		sb.Write(seg)
	}
	if len(b) != 0 {
		return "", false
	}
	return sb.String(), true
}

// validObjectSegment checks one segment of a segmented path: the first is
// a decimal region id, the last a file name ending ".bin", and none is
// empty, "." or "..", or holds a "/" (it would not be one path segment).
func validObjectSegment(s []byte, first, last bool) bool {
	if len(s) == 0 || string(s) == "." || string(s) == ".." || !utf8.Valid(s) {
		return false
	}
	for _, c := range s {
		if c == '/' || c == 0 || (first && (c < '0' || c > '9')) {
			return false
		}
	}
	return !last || strings.HasSuffix(string(s), ".bin")
}

// AppendObjectCell appends the segmented (Base32ObjectPath) form of an
// OBJECT cell: size, then the segments of path split at "/". It is the
// writer's side of ParseObjectCell, for tests and tools that make files
// as IoTDB does.
func AppendObjectCell(dst []byte, size int64, path string) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(size))
	segs := strings.Split(path, "/")
	dst = binary.AppendUvarint(dst, uint64(len(segs)))
	for _, s := range segs {
		dst = binary.AppendVarint(dst, int64(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

// EncodeObjectCell appends the OBJECT cell of an object of size bytes at
// path (slash-separated, relative to the object folder) in the form
// ParseObjectCell reads back to the same size and path: the segmented
// form when the path has its shape (a decimal region id first, a ".bin"
// file last, no empty segment), as IoTDB writes by default, else the
// plain form. It fails for a negative size or a path that reads back as
// something else in both forms (an empty one, or invalid UTF-8).
func EncodeObjectCell(dst []byte, size int64, path string) ([]byte, error) {
	if size < 0 {
		return dst, fmt.Errorf("tsfile: OBJECT size %d is negative", size)
	}
	n := len(dst)
	dst = AppendObjectCell(dst, size, path)
	if r, err := ParseObjectCell(dst[n:]); err == nil && r.Path == path {
		return dst, nil
	}
	dst = binary.BigEndian.AppendUint64(dst[:n], uint64(size))
	dst = append(dst, path...)
	if r, err := ParseObjectCell(dst[n:]); err != nil || r.Path != path {
		return dst[:n], fmt.Errorf("tsfile: OBJECT path %q cannot be stored so that it reads back the same", path)
	}
	return dst, nil
}
