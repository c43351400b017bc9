package tsfile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Segment is one element of a DeviceID. A null segment is distinct from an
// empty string, from "null" and from `\N`: the format stores a null as a
// VarString of length -1, which upstream still writes and reads after
// apache/tsfile PR #848; that PR's `\N` marks a null TAG only in the
// logical series paths of its Python layer, never in a file.
type Segment struct {
	Value string
	Null  bool
}

// DeviceID identifies the device of a chunk group: an ordered tuple of
// nullable string segments. In the table model the first segment is the
// table name and the rest are the TAG values in schema order. Identity and
// ordering are by segments; String's dot-joined form is for display only,
// since segments may themselves contain dots.
type DeviceID struct {
	segs []Segment
	// path is the device's path string as a TsFile v3 stores it, when the
	// DeviceID came from a v3 file or ParseTreePath. It is not part of the
	// identity: two spellings of one path ("root.sg.`d1`", "root.sg.d1")
	// are the same device, as they are to the reference implementation.
	path string
}

// NewDeviceID returns a DeviceID of non-null segments.
func NewDeviceID(segments ...string) DeviceID {
	s := make([]Segment, len(segments))
	for i, v := range segments {
		s[i] = Segment{Value: v}
	}
	return DeviceID{segs: s}
}

// DeviceIDFromSegments returns a DeviceID of the given segments with
// trailing null segments removed, as the format stores them.
func DeviceIDFromSegments(segs []Segment) DeviceID {
	n := len(segs)
	for n > 0 && segs[n-1].Null {
		n--
	}
	return DeviceID{segs: append([]Segment(nil), segs[:n]...)}
}

// Len returns the number of segments.
func (d DeviceID) Len() int { return len(d.segs) }

// Segment returns segment i; ok is false when it is null or i is past the
// stored segments (trailing nulls are not stored).
func (d DeviceID) Segment(i int) (value string, ok bool) {
	if i < 0 || i >= len(d.segs) || d.segs[i].Null {
		return "", false
	}
	return d.segs[i].Value, true
}

// Segments returns a copy of the segments.
func (d DeviceID) Segments() []Segment { return append([]Segment(nil), d.segs...) }

// Table returns the first segment, the table name in the table model.
func (d DeviceID) Table() string {
	v, _ := d.Segment(0)
	return v
}

// String joins the segments with dots, writing null segments as "null". It
// is the display form and the Bloom filter path prefix, not an identity.
func (d DeviceID) String() string {
	var b strings.Builder
	for i, s := range d.segs {
		if i > 0 {
			b.WriteByte('.')
		}
		if s.Null {
			b.WriteString("null")
		} else {
			b.WriteString(s.Value)
		}
	}
	return b.String()
}

// Key returns a string that identifies the device's segments exactly, for
// map keys: unlike String, a null segment and the string "null", or a
// segment holding a dot and two segments, give different keys. Equal
// devices, and only they, have equal keys.
func (d DeviceID) Key() string {
	var b strings.Builder
	for _, s := range d.segs {
		if s.Null {
			b.WriteByte(0)
			continue
		}
		b.WriteByte(1)
		b.WriteString(strconv.Itoa(len(s.Value)))
		b.WriteByte(':')
		b.WriteString(s.Value)
	}
	return b.String()
}

// Equal reports whether d and o have the same segments.
func (d DeviceID) Equal(o DeviceID) bool { return d.Compare(o) == 0 }

// Compare orders DeviceIDs segment by segment: a null segment sorts before
// any string, and a tuple that is a prefix of another sorts first.
func (d DeviceID) Compare(o DeviceID) int {
	for i := range d.segs {
		if i >= len(o.segs) {
			return 1
		}
		a, b := d.segs[i], o.segs[i]
		switch {
		case a.Null && b.Null:
			continue
		case a.Null:
			return -1
		case b.Null:
			return 1
		}
		if c := compareStrings(a.Value, b.Value); c != 0 {
			return c
		}
	}
	if len(d.segs) < len(o.segs) {
		return -1
	}
	return 0
}

// compareStrings orders strings the way the reference writer sorts index
// keys: by UTF-16 code units (Java's String.compareTo). This equals UTF-8
// byte order except between U+E000..U+FFFF and supplementary characters,
// where UTF-16 surrogates sort lower; readers must agree with writers on it
// or index lookups and order checks would fail on such names.
func compareStrings(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return len(a) - len(b)
	}
	// Back up to the start of the differing rune.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ka, kb := utf16Key(ra), utf16Key(rb)
	if ka < kb {
		return -1
	}
	if ka > kb {
		return 1
	}
	// Same key only when runes are equal, which the byte loop excludes;
	// fall back to bytes for invalid UTF-8.
	return strings.Compare(a[i:], b[i:])
}

// utf16Key maps a rune to the first UTF-16 code unit that encodes it.
func utf16Key(r rune) int32 {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

func (d *buf) deviceID(maxSegments int) DeviceID {
	at := d.pos
	n := d.count("DeviceID segment_count", 1)
	if d.err != nil {
		return DeviceID{}
	}
	if maxSegments > 0 && n > maxSegments {
		d.pos = at
		d.fail("DeviceID has %d segments, more than the limit of %d", n, maxSegments)
		return DeviceID{}
	}
	if n == 0 {
		// The format defines a zero count as one empty segment.
		return DeviceID{segs: []Segment{{}}}
	}
	segs := make([]Segment, n)
	d.inDevice, d.fixed = true, false
	for i := range segs {
		v, ok := d.varString("DeviceID segment")
		segs[i] = Segment{Value: v, Null: !ok}
	}
	d.inDevice = false
	if d.err != nil {
		return DeviceID{}
	}
	id := DeviceIDFromSegments(segs)
	d.warnFixedDevice(at, id)
	if id.Len() == 0 {
		d.pos = at
		d.fail("DeviceID has only null segments")
	}
	return id
}

func appendDeviceID(dst []byte, id DeviceID) []byte {
	dst = appendUVarint(dst, uint32(len(id.segs)))
	for _, s := range id.segs {
		if s.Null {
			dst = appendNullVarString(dst)
		} else {
			dst = appendVarString(dst, s.Value)
		}
	}
	return dst
}

// tableSegmentNodes is how many path nodes the reference implementation
// folds into the first segment (its table name) when it turns a tree path
// into a DeviceID (TSFileConfig.DEFAULT_SEGMENT_NUM_FOR_TABLE_NAME).
const tableSegmentNodes = 3

// ParseTreePath returns the DeviceID of a tree-model device path such as
// "root.sg.d1", split as the reference implementation splits the single
// path string of a TsFile v3 device (StringArrayDeviceID of a path): the
// path is cut into nodes at dots outside backquotes, the first three
// nodes joined by dots form the first segment and each further node is a
// segment of its own; a path of two or three nodes gives the leading
// nodes and the last one, a path of one node that node. So "root.sg.d1"
// becomes ("root.sg", "d1") and "root.a.b.c.d" ("root.a.b", "c", "d"),
// which is also how IoTDB 2.x writes the same device into a v4 file, so
// v3 and v4 files of one dataset agree on their devices.
//
// A backquoted node keeps its backquotes unless they are redundant (the
// quoted name is a plain identifier that is not a number), and blanks
// around a node are dropped, as the reference's path parser does. Where
// that parser would reject the path (an empty node, stray characters) the
// nodes are taken as they are rather than failing, since a file written by
// another tool must still be readable. The DeviceID remembers path, which
// a v3 writer stores and its Bloom filter hashes.
func ParseTreePath(path string) DeviceID {
	nodes := splitTreePath(path)
	var segs []string
	switch {
	case len(nodes) == 1:
		segs = nodes
	case len(nodes) <= tableSegmentNodes:
		segs = []string{strings.Join(nodes[:len(nodes)-1], "."), nodes[len(nodes)-1]}
	default:
		segs = append([]string{strings.Join(nodes[:tableSegmentNodes], ".")}, nodes[tableSegmentNodes:]...)
	}
	id := NewDeviceID(segs...)
	id.path = path
	return id
}

// TreePath returns the device's path string as a TsFile v3 stores it: the
// path it was read or parsed from, otherwise its segments joined by dots.
func (d DeviceID) TreePath() string {
	if d.path != "" {
		return d.path
	}
	return d.String()
}

// splitTreePath cuts a path into nodes at the dots outside backquotes
// (inside, a doubled backquote is an escaped one) and normalizes each node
// as the reference's PathVisitor does.
func splitTreePath(path string) []string {
	var nodes []string
	start, quoted := 0, false
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '`' && quoted && i+1 < len(path) && path[i+1] == '`':
			i++ // an escaped backquote
		case c == '`':
			quoted = !quoted
		case c == '.' && !quoted:
			nodes = append(nodes, treeNode(path[start:i]))
			start = i + 1
		}
	}
	return append(nodes, treeNode(path[start:]))
}

// treeNode trims the blanks the reference's lexer skips and unquotes a
// backquoted node whose quotes are redundant.
func treeNode(n string) string {
	n = strings.Trim(n, " \t\r\n\v")
	if len(n) < 2 || n[0] != '`' || n[len(n)-1] != '`' {
		return n
	}
	inner := n[1 : len(n)-1]
	if !isPlainIdentifier(inner) || isRealNumber(inner) {
		return n
	}
	return inner
}

// isPlainIdentifier reports whether s matches the reference's
// IDENTIFIER_PATTERN, [a-zA-Z0-9_\u2E80-\u9FFF]+.
func isPlainIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
		case r >= 0x2E80 && r <= 0x9FFF:
		default:
			return false
		}
	}
	return true
}

// isRealNumber is the reference's PathVisitor.isRealNumber for the
// strings isPlainIdentifier accepts (no signs or points can occur): leading
// zeros are dropped and the rest must be a Java number literal as Apache
// Commons' NumberUtils.isCreatable reads it: digits, an optional exponent,
// an optional type suffix (d, f, or l without an exponent). "`123`" and
// "`1e5`" therefore keep their backquotes.
func isRealNumber(s string) bool {
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return true // all zeros: an octal zero
	}
	if t[0] == 'e' || t[0] == 'E' {
		if len(t) == len(s) {
			return false
		}
		t = "0" + t // "000e38" is read as "0e38"
	}
	i := 0
	digits := func() bool {
		j := i
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		return i > j
	}
	if !digits() {
		return false
	}
	exp := false
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		exp = true
		if !digits() {
			return false
		}
	}
	if i == len(t) {
		return true
	}
	if i != len(t)-1 {
		return false
	}
	switch t[i] {
	case 'd', 'D', 'f', 'F':
		return true
	case 'l', 'L':
		return !exp
	}
	return false
}

// v3DeviceID reads the device of a TsFile v3: one VarString holding the
// device's path, which must be present and not empty (the reference
// refuses an empty one). Its segments are ParseTreePath's, at most
// maxSegments of them.
func (d *buf) v3DeviceID(maxSegments int) DeviceID {
	at := d.pos
	d.inDevice, d.fixed = true, false
	p := d.varStringNotNull("v3 device path")
	d.inDevice = false
	if d.err != nil {
		return DeviceID{}
	}
	defer func() { d.warnFixedDevice(at, ParseTreePath(p)) }()
	if p == "" {
		d.pos = at
		d.fail("v3 device path is empty")
		return DeviceID{}
	}
	id := ParseTreePath(p)
	if maxSegments > 0 && id.Len() > maxSegments {
		d.pos = at
		d.fail("v3 device path %q has %d segments, more than the limit of %d", p, id.Len(), maxSegments)
		return DeviceID{}
	}
	return id
}

// appendV3Device appends the VarString path a TsFile v3 stores for id.
func appendV3Device(dst []byte, id DeviceID) []byte {
	return appendVarString(dst, id.TreePath())
}

// warnFixedDevice warns, naming the device, when a segment of the DeviceID
// just read at at was not valid UTF-8 and was read as upstream Java reads
// it (ReadOptions.Lenient).
func (d *buf) warnFixedDevice(at int, id DeviceID) {
	if !d.fixed || d.warn == nil {
		return
	}
	d.fixed = false
	d.warn(Warning{Offset: d.base + int64(at), Structure: "DeviceID", Msg: fmt.Sprintf("device %s: a segment is not valid UTF-8 (written so by the C++ TsFile writer's example program); read as upstream Java reads it, each ill-formed byte sequence as U+FFFD", id)})
}

// javaUTF8 decodes b as Java's new String(b, StandardCharsets.UTF_8) does,
// which is how the reference implementation reads every string of a TsFile
// (ReadWriteIOUtils.readVarIntString): each ill-formed sequence becomes one
// U+FFFD. Java's rules for where one sequence ends differ from Go's
// (utf8.DecodeRune gives one U+FFFD per bad byte, strings.ToValidUTF8 one
// per run of bad bytes): a lead byte with the continuation bytes that can
// still follow it makes one sequence, so E2 82 41 is U+FFFD 'A'; an encoded
// surrogate (ED A0..BF xx) is one U+FFFD for its three bytes; a sequence cut
// by the end of b is one U+FFFD. Followed here: OpenJDK 17,
// java.lang.String.decodeUTF8_UTF16 and its malformed3/malformed4 (the same
// rules as sun.nio.cs.UTF_8's decoder of Java 8). Valid input is returned
// as it is.
func javaUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	const repl = "\uFFFD"
	cont := func(x byte) bool { return x&0xc0 == 0x80 }
	var s strings.Builder
	s.Grow(len(b) + 8)
	n := len(b)
	for i := 0; i < n; {
		b1 := b[i]
		switch {
		case b1 < 0x80:
			s.WriteByte(b1)
			i++
		case b1>>5 == 0x6 && b1&0x1e != 0: // C2..DF
			if i+1 < n && cont(b[i+1]) {
				s.Write(b[i : i+2])
				i += 2
			} else {
				s.WriteString(repl)
				i++
			}
		case b1>>4 == 0xe: // E0..EF
			if i+2 < n {
				b2, b3 := b[i+1], b[i+2]
				if (b1 == 0xe0 && b2&0xe0 == 0x80) || !cont(b2) || !cont(b3) {
					s.WriteString(repl)
					// malformed3: the lead alone, or with a valid second byte.
					if (b1 == 0xe0 && b2&0xe0 == 0x80) || !cont(b2) {
						i++
					} else {
						i += 2
					}
					continue
				}
				if b1 == 0xed && b2 >= 0xa0 { // a surrogate
					s.WriteString(repl)
				} else {
					s.Write(b[i : i+3])
				}
				i += 3
				continue
			}
			// Fewer than two bytes follow the lead.
			if i+1 < n && ((b1 == 0xe0 && b[i+1]&0xe0 == 0x80) || !cont(b[i+1])) {
				s.WriteString(repl)
				i++
				continue
			}
			s.WriteString(repl)
			i = n // the lead and its one valid byte end the input
		case b1>>3 == 0x1e: // F0..F7
			if i+3 < n {
				b2, b3, b4 := b[i+1], b[i+2], b[i+3]
				uc := rune(b1&0x07)<<18 | rune(b2&0x3f)<<12 | rune(b3&0x3f)<<6 | rune(b4&0x3f)
				if !cont(b2) || !cont(b3) || !cont(b4) || uc < 0x10000 || uc > 0x10ffff {
					s.WriteString(repl)
					// malformed4
					switch {
					case b1 > 0xf4 || (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 == 0xf4 && b2&0xf0 != 0x80) || !cont(b2):
						i++
					case !cont(b3):
						i += 2
					default:
						i += 3
					}
					continue
				}
				s.Write(b[i : i+4])
				i += 4
				continue
			}
			// Fewer than three bytes follow the lead.
			if b1 > 0xf4 || (i+1 < n && ((b1 == 0xf0 && (b[i+1] < 0x90 || b[i+1] > 0xbf)) || (b1 == 0xf4 && b[i+1]&0xf0 != 0x80) || !cont(b[i+1]))) {
				s.WriteString(repl)
				i++
				continue
			}
			s.WriteString(repl)
			i += 2 // the lead and its valid second byte
			if i < n && !cont(b[i]) {
				continue
			}
			i = n
		default: // 80..C1, F8..FF
			s.WriteString(repl)
			i++
		}
	}
	return s.String()
}
