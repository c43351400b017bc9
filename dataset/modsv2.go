package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tsarrow/tsarrow/tsfile"
)

// The mods v2 format (IoTDB 2.x, "X.tsfile.mods2") is ModEntry after
// ModEntry with no header or trailer, each:
//
//	u8    type        0 table deletion, 1 tree deletion (ModEntry.ModType)
//	i64   start       big-endian, inclusive
//	i64   end         big-endian, inclusive
//	tree:  VarString path pattern                     (TreeDeletionEntry)
//	table: VarString table name                       (DeletionPredicate)
//	       TagPredicate
//	       varint    measurement count, then VarString each (none: all)
//
// VarString is ReadWriteIOUtils.writeVar: a zigzag varint byte length
// (ReadWriteForEncodingUtils.writeVarInt), -1 (any negative, on reading)
// for null, then the UTF-8 bytes. A TagPredicate is a u8 kind (the
// ordinal of TagPredicateType) and then:
//
//	NOP                  nothing
//	FULL_EXACT_MATCH     DeviceID
//	SEGMENT_EXACT_MATCH  VarString value (null: IS NULL), varint segment index
//	AND                  varint count, then count TagPredicates
//	DEVICE_IN            varint count, then count DeviceIDs
//	SEGMENT_NOT_NULL     varint segment index
//
// A DeviceID is StringArrayDeviceID.serialize: an unsigned varint segment
// count, then a VarString per segment (null allowed); a count of 0 reads as
// one empty segment, and trailing null segments are dropped.
//
// IoTDB: iotdb-core/datanode/.../dataregion/modification/ModEntry.java,
// TreeDeletionEntry.java, TableDeletionEntry.java, DeletionPredicate.java,
// TagPredicate.java; tsfile: StringArrayDeviceID.java, ReadWriteIOUtils.java,
// ReadWriteForEncodingUtils.java.

// maxPredicateDepth bounds the nesting of AND predicates. IoTDB builds
// one level (And of the WHERE clause's terms); the bound keeps a damaged
// file from recursing deep.
const maxPredicateDepth = 64

// errStop marks an entry IoTDB's reader stops at without failing: the
// data ends inside it, or a length or path it cannot read.
var errStop = errors.New("truncated or unreadable entry")

// errMore marks an entry that runs past the window: the file holds the
// rest, so the window is refilled and the entry read again from its start.
var errMore = errors.New("entry runs past the window")

// v2reader decodes one ModEntry at a time from a window of the file.
type v2reader struct {
	window
	pos int
	// err is the first failure: errMore, errStop, or a corruption error.
	err error
	// strs and pats hold the strings and tree patterns of recent entries:
	// a large mods file repeats a few paths and names many times, and
	// each entry read again would otherwise allocate them, and split the
	// path, anew. Both are emptied when they reach internLimit.
	strs map[string]string
	pats map[string]Pattern
}

// internLimit bounds the entries of v2reader's tables, and
// internMaxLen the strings they keep.
const (
	internLimit  = 4096
	internMaxLen = 256
)

// intern returns b as a string, the one of an earlier entry when the
// table holds it.
func (r *v2reader) intern(b []byte) string {
	if s, ok := r.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(b) <= internMaxLen {
		if r.strs == nil || len(r.strs) >= internLimit {
			r.strs = make(map[string]string)
		}
		r.strs[s] = s
	}
	return s
}

// parsePattern is ParsePattern for v1 lines, through the table of
// pattern (a scanner reads one format, so the table holds one kind).
func (r *v2reader) parsePattern(s string) (Pattern, error) {
	if p, ok := r.pats[s]; ok {
		return p, nil
	}
	p, err := ParsePattern(s)
	if err == nil && len(s) <= internMaxLen {
		if r.pats == nil || len(r.pats) >= internLimit {
			r.pats = make(map[string]Pattern)
		}
		r.pats[s] = p
	}
	return p, err
}

// pattern returns newPattern(s), the one of an earlier entry when the
// table holds it (a Pattern is never modified, so entries share it).
func (r *v2reader) pattern(s string) Pattern {
	if p, ok := r.pats[s]; ok {
		return p
	}
	p := newPattern(s)
	if len(s) <= internMaxLen {
		if r.pats == nil || len(r.pats) >= internLimit {
			r.pats = make(map[string]Pattern)
		}
		r.pats[s] = p
	}
	return p
}

func (r *v2reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// off is the offset in the file of window position i.
func (r *v2reader) off(i int) int64 { return r.base + int64(i) }

// left is the number of bytes of the file after the read position, in the
// window or not.
func (r *v2reader) left() int64 { return int64(len(r.buf)-r.pos) + r.rest }

// need reports whether n bytes follow the read position in the window.
// When they do not, it fails with errMore if the file holds them and with
// errStop if it ends first.
func (r *v2reader) need(n int) bool {
	if len(r.buf)-r.pos >= n {
		return true
	}
	if r.left() >= int64(n) {
		r.fail(errMore)
	} else {
		r.fail(errStop)
	}
	return false
}

func (r *v2reader) corrupt(at int, structure, format string, args ...any) {
	r.fail(&tsfile.FormatError{Offset: r.off(at), Structure: structure, Msg: fmt.Sprintf(format, args...), Kind: tsfile.ErrCorrupt})
}

func (r *v2reader) u8() byte {
	if r.err != nil || !r.need(1) {
		return 0
	}
	b := r.buf[r.pos]
	r.pos++
	return b
}

func (r *v2reader) i64() int64 {
	if r.err != nil || !r.need(8) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.buf[r.pos:]))
	r.pos += 8
	return v
}

// uvarint reads an unsigned LEB128 varint of at most five bytes, the most
// a 32-bit value takes. (IoTDB's reader keeps shifting past that, wrapping
// the int; a writer never produces it, so here it is corruption.)
func (r *v2reader) uvarint(structure string) uint32 {
	if r.err != nil {
		return 0
	}
	at := r.pos
	var v uint64
	for i := 0; i < 5; i++ {
		if !r.need(1) {
			return 0
		}
		b := r.buf[r.pos]
		r.pos++
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if v > 0xffffffff {
				r.corrupt(at, structure, "varint overflows 32 bits")
				return 0
			}
			return uint32(v)
		}
	}
	r.corrupt(at, structure, "varint longer than 5 bytes")
	return 0
}

// varint reads a zigzag varint (ReadWriteForEncodingUtils.readVarInt).
func (r *v2reader) varint(structure string) int32 {
	u := r.uvarint(structure)
	return int32(u>>1) ^ -int32(u&1)
}

// count reads a non-negative count of items that each take at least one
// byte, and refuses one larger than the bytes left, before the caller
// allocates for it.
func (r *v2reader) count(structure string, unsigned bool) int {
	at := r.pos
	var n int64
	if unsigned {
		n = int64(r.uvarint(structure))
	} else {
		n = int64(r.varint(structure))
	}
	if r.err != nil {
		return 0
	}
	if n < 0 {
		// IoTDB's loops run zero times on a negative count.
		return 0
	}
	if n > r.left() {
		// The items cannot fit in what is left: the entry is cut short,
		// or its count is damaged; IoTDB stops reading either way.
		r.fail(fmt.Errorf("%w: %s %d at offset %d exceeds the %d bytes left", errStop, structure, n, r.off(at), r.left()))
		return 0
	}
	return int(n)
}

// varString reads a VarString; ok is false for null.
func (r *v2reader) varString(structure string) (s string, ok bool) {
	at := r.pos
	n := r.varint(structure)
	if r.err != nil {
		return "", false
	}
	if n < 0 {
		return "", false
	}
	if int64(n) > r.left() {
		// Checked before anything is allocated. IoTDB allocates the
		// length, reads short and stops reading the file.
		r.fail(fmt.Errorf("%w: %s length %d at offset %d exceeds the %d bytes left", errStop, structure, n, r.off(at), r.left()))
		return "", false
	}
	if !r.need(int(n)) {
		return "", false
	}
	s = r.intern(r.buf[r.pos : r.pos+int(n)])
	r.pos += int(n)
	return s, true
}

func (r *v2reader) deviceID(structure string) tsfile.DeviceID {
	at := r.pos
	n := r.count(structure+" segment count", true)
	if r.err != nil {
		return tsfile.DeviceID{}
	}
	if n == 0 {
		return tsfile.NewDeviceID("")
	}
	segs := make([]tsfile.Segment, n)
	for i := range segs {
		v, ok := r.varString(structure + " segment")
		segs[i] = tsfile.Segment{Value: v, Null: !ok}
	}
	if r.err != nil {
		return tsfile.DeviceID{}
	}
	id := tsfile.DeviceIDFromSegments(segs)
	if id.Len() == 0 {
		// IoTDB: IllegalDeviceIDException("All segments are null").
		r.corrupt(at, structure, "all segments are null")
	}
	return id
}

func (r *v2reader) predicate(depth int) TagPredicate {
	at := r.pos
	kind := PredicateKind(r.u8())
	if r.err != nil {
		return TagPredicate{}
	}
	if kind >= numPredicateKinds {
		// IoTDB: values()[typeNum] throws, failing the read.
		r.corrupt(at, "mods2 tag predicate", "unknown predicate type %d", uint8(kind))
		return TagPredicate{}
	}
	p := TagPredicate{Kind: kind}
	switch kind {
	case PredFullExactMatch:
		p.Device = r.deviceID("mods2 FULL_EXACT_MATCH device")
	case PredSegmentExactMatch:
		v, ok := r.varString("mods2 SEGMENT_EXACT_MATCH value")
		p.Value, p.ValueNull = v, !ok && r.err == nil
		p.Segment = r.segmentIndex("mods2 SEGMENT_EXACT_MATCH index")
	case PredSegmentNotNull:
		p.Segment = r.segmentIndex("mods2 SEGMENT_NOT_NULL index")
	case PredAnd:
		if depth >= maxPredicateDepth {
			r.corrupt(at, "mods2 AND predicate", "nested deeper than %d", maxPredicateDepth)
			return TagPredicate{}
		}
		n := r.count("mods2 AND operand count", false)
		if n > 0 {
			p.And = make([]TagPredicate, 0, n)
		}
		for i := 0; i < n && r.err == nil; i++ {
			p.And = append(p.And, r.predicate(depth+1))
		}
	case PredDeviceIn:
		n := r.count("mods2 DEVICE_IN device count", false)
		if n > 0 {
			p.Devices = make([]tsfile.DeviceID, 0, n)
		}
		for i := 0; i < n && r.err == nil; i++ {
			p.Devices = append(p.Devices, r.deviceID("mods2 DEVICE_IN device"))
		}
	}
	return p
}

// segmentIndex reads a segment index. IoTDB would index its segment array
// with a negative one and throw when matching; here it is corruption.
func (r *v2reader) segmentIndex(structure string) int {
	at := r.pos
	i := r.varint(structure)
	if r.err == nil && i < 0 {
		r.corrupt(at, structure, "negative segment index %d", i)
	}
	return int(i)
}

// entry reads one ModEntry.
func (r *v2reader) entry() Deletion {
	at := r.pos
	kind := DeletionKind(r.u8())
	if r.err != nil {
		return Deletion{}
	}
	if kind != TableDeletion && kind != TreeDeletion {
		// IoTDB: ModType.deserialize throws IllegalArgumentException,
		// which is not an IOException, so the read fails.
		r.corrupt(at, "mods2 entry", "unknown entry type %d", uint8(kind))
		return Deletion{}
	}
	d := Deletion{Kind: kind, Version: ModsV2}
	d.Start = r.i64()
	d.End = r.i64()
	switch kind {
	case TreeDeletion:
		pat := r.pos
		s, ok := r.varString("mods2 tree path")
		if r.err != nil {
			break
		}
		if !ok {
			// IoTDB dereferences the null path and fails.
			r.corrupt(pat, "mods2 tree path", "null path pattern")
			break
		}
		if !backquotesClosed(s) {
			// IoTDB's path parser throws IllegalPathException, which the
			// stream reader turns into an IOException: it stops reading.
			r.fail(fmt.Errorf("%w: tree path %q at offset %d has an unclosed backquote", errStop, s, r.off(pat)))
			break
		}
		// IoTDB splits a path without backquotes at every dot and checks
		// nothing more, so any other string is a pattern, empty nodes and all.
		d.Pattern = r.pattern(s)
	case TableDeletion:
		tat := r.pos
		t, ok := r.varString("mods2 table name")
		if r.err == nil && !ok {
			// IoTDB would fail on its first match against the null name.
			r.corrupt(tat, "mods2 table name", "null table name")
		}
		d.Table = t
		d.Predicate = r.predicate(0)
		n := r.count("mods2 measurement count", false)
		if n > 0 {
			d.Measurements = make([]string, 0, n)
		}
		for i := 0; i < n && r.err == nil; i++ {
			mat := r.pos
			m, ok := r.varString("mods2 measurement")
			if r.err == nil && !ok {
				r.corrupt(mat, "mods2 measurement", "null measurement name")
			}
			d.Measurements = append(d.Measurements, m)
		}
	}
	return d
}

// ParseModsV2 parses a whole mods v2 file.
//
// It follows IoTDB's ModificationFile.ModIterator: entries are read until
// the data ends, and an entry the data ends inside of (a write in
// progress or a crash; also a length or count larger than the bytes left,
// which IoTDB cannot tell from one) ends the file: it and anything after
// it are dropped with a warning. An unknown entry or predicate type, a
// null path or table name is corruption and an error, as it fails IoTDB's
// read. Nothing is allocated for a length before it is checked against
// the bytes left. ModsScanner reads the same entries one at a time.
func ParseModsV2(data []byte, opts *ModsOptions) (*Mods, error) {
	return parseMods(data, ModsV2, opts)
}

// nextV2 reads the next ModEntry into s.d. An entry that runs past the
// window is read again once the window holds it whole: the window grows
// to the longest entry, never to the file.
func (s *ModsScanner) nextV2() bool {
	r := &s.r
	for r.pos < len(r.buf) || r.rest > 0 {
		at := r.pos
		d := r.entry()
		switch {
		case r.err == nil:
			s.d = d
			// The entry less its times: two entries of equal such bytes
			// delete from the same series (see modsIndex).
			s.kind, s.body = r.buf[at], r.buf[at+17:r.pos]
			return true
		case r.err == errMore:
			r.err = nil
			if err := r.refill(at); err != nil {
				s.err = err
				return false
			}
			r.pos = 0
		case errors.Is(r.err, errStop):
			s.warnings = append(s.warnings, fmt.Sprintf(
				"mods2 entry at offset %d: %v: dropped %d trailing bytes, as IoTDB stops reading there",
				r.off(at), r.err, int64(len(r.buf)-at)+r.rest))
			return false
		default:
			s.err = r.err
			return false
		}
	}
	return false
}

// AppendModsV2 appends the deletions to dst in the mods v2 format,
// exactly the bytes IoTDB 2.x's ModEntry.serialize writes for them, and
// returns the extended slice. A deletion's Version, FileOffset, Legacy,
// OpenStart and OpenEnd are not part of the format and are not written.
// It fails on a deletion the format cannot hold: an unknown kind or
// predicate kind, a tree deletion without a pattern, a negative segment
// index, or a string or count past the varint's 32 bits.
func AppendModsV2(dst []byte, deletions ...Deletion) ([]byte, error) {
	for i := range deletions {
		d := &deletions[i]
		var err error
		switch d.Kind {
		case TreeDeletion:
			if d.Pattern.IsZero() {
				return dst, fmt.Errorf("dataset: mods2 deletion %d: tree deletion without a pattern", i)
			}
			dst = appendEntryHead(dst, d)
			dst, err = appendVarString(dst, d.Pattern.String())
		case TableDeletion:
			dst = appendEntryHead(dst, d)
			dst, err = appendVarString(dst, d.Table)
			if err == nil {
				dst, err = appendPredicate(dst, &d.Predicate, 0)
			}
			if err == nil {
				dst, err = appendVarintLen(dst, len(d.Measurements))
			}
			for _, m := range d.Measurements {
				if err == nil {
					dst, err = appendVarString(dst, m)
				}
			}
		default:
			err = fmt.Errorf("unknown deletion kind %d", uint8(d.Kind))
		}
		if err != nil {
			return dst, fmt.Errorf("dataset: mods2 deletion %d: %w", i, err)
		}
	}
	return dst, nil
}

func appendEntryHead(dst []byte, d *Deletion) []byte {
	dst = append(dst, byte(d.Kind))
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.Start))
	return binary.BigEndian.AppendUint64(dst, uint64(d.End))
}

// appendVarint appends a zigzag varint (ReadWriteForEncodingUtils.writeVarInt).
func appendVarint(dst []byte, v int32) []byte {
	return binary.AppendUvarint(dst, uint64(uint32(v<<1)^uint32(v>>31)))
}

func appendVarintLen(dst []byte, n int) ([]byte, error) {
	if n > 1<<31-1 {
		return dst, fmt.Errorf("length %d past 32 bits", n)
	}
	return appendVarint(dst, int32(n)), nil
}

func appendVarString(dst []byte, s string) ([]byte, error) {
	dst, err := appendVarintLen(dst, len(s))
	if err != nil {
		return dst, err
	}
	return append(dst, s...), nil
}

// appendDeviceID writes an IDeviceID as StringArrayDeviceID.serialize does
// (apache/tsfile java/tsfile/.../file/metadata/StringArrayDeviceID.java):
// the mods v2 entries and the 2.x .resource files both hold this form.
func appendDeviceID(dst []byte, id tsfile.DeviceID) ([]byte, error) {
	segs := id.Segments()
	if len(segs) > 1<<31-1 {
		return dst, fmt.Errorf("device of %d segments", len(segs))
	}
	dst = binary.AppendUvarint(dst, uint64(len(segs)))
	var err error
	for _, s := range segs {
		if s.Null {
			dst = appendVarint(dst, -1)
			continue
		}
		if dst, err = appendVarString(dst, s.Value); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func appendPredicate(dst []byte, p *TagPredicate, depth int) ([]byte, error) {
	if p.Kind >= numPredicateKinds {
		return dst, fmt.Errorf("unknown predicate kind %d", uint8(p.Kind))
	}
	if p.Kind == PredAnd && depth >= maxPredicateDepth {
		// The parser refuses it, so the writer does too.
		return dst, fmt.Errorf("AND predicates nested deeper than %d", maxPredicateDepth)
	}
	dst = append(dst, byte(p.Kind))
	var err error
	switch p.Kind {
	case PredFullExactMatch:
		dst, err = appendDeviceID(dst, p.Device)
	case PredSegmentExactMatch:
		if p.ValueNull {
			dst = appendVarint(dst, -1)
		} else {
			dst, err = appendVarString(dst, p.Value)
		}
		if err == nil {
			dst, err = appendSegmentIndex(dst, p.Segment)
		}
	case PredSegmentNotNull:
		dst, err = appendSegmentIndex(dst, p.Segment)
	case PredAnd:
		dst, err = appendVarintLen(dst, len(p.And))
		for i := range p.And {
			if err == nil {
				dst, err = appendPredicate(dst, &p.And[i], depth+1)
			}
		}
	case PredDeviceIn:
		dst, err = appendVarintLen(dst, len(p.Devices))
		for _, id := range p.Devices {
			if err == nil {
				dst, err = appendDeviceID(dst, id)
			}
		}
	}
	return dst, err
}

func appendSegmentIndex(dst []byte, i int) ([]byte, error) {
	if i < 0 {
		return dst, fmt.Errorf("negative segment index %d", i)
	}
	return appendVarintLen(dst, i)
}
