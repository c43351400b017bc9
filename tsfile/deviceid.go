package tsfile

import (
	"strings"
	"unicode/utf8"
)

// Segment is one element of a DeviceID. A null segment is distinct from an
// empty string.
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
	for i := range segs {
		v, ok := d.varString("DeviceID segment")
		segs[i] = Segment{Value: v, Null: !ok}
	}
	if d.err != nil {
		return DeviceID{}
	}
	id := DeviceIDFromSegments(segs)
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
