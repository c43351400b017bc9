package tsfile

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// buf is a bounds-checked cursor over bytes that came from the file at
// absolute offset base. The first failure is sticky: later reads return zero
// values, so a decoder can read a whole structure and check err once. Errors
// record the absolute offset of the field that failed.
type buf struct {
	b         []byte
	pos       int
	base      int64 // absolute file offset of b[0]
	structure string
	err       error
	maxString int // 0 means no limit beyond the enclosing bytes
	// short is set when the failure is only that b ended: the absolute
	// offset the failed read needed b to reach, so that a reader of a
	// window of the file knows whether and how far a larger one may help.
	short int64
	// v3 selects the TsFile v3 grammar where it differs: a device is a
	// path string, and device index keys sort by that string.
	v3 bool
	// javaDevices (ReadOptions.Lenient) reads a DeviceID segment or v3
	// device path that is not valid UTF-8 as upstream Java does
	// (javaUTF8), calling warn with the device; inDevice and fixed are
	// the state of the DeviceID being read.
	javaDevices bool
	warn        func(Warning)
	inDevice    bool
	fixed       bool
}

func newBuf(b []byte, base int64, structure string) *buf {
	return &buf{b: b, base: base, structure: structure}
}

// off is the absolute file offset of the cursor.
func (d *buf) off() int64 { return d.base + int64(d.pos) }

func (d *buf) remaining() int { return len(d.b) - d.pos }

func (d *buf) fail(format string, args ...any) {
	if d.err == nil {
		d.err = corruptf(d.off(), d.structure, format, args...)
	}
}

func (d *buf) need(n int, what string) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || n > d.remaining() {
		if n >= 0 {
			d.short = d.off() + int64(n)
		}
		d.fail("%s needs %d bytes, %d remain", what, n, d.remaining())
		return false
	}
	return true
}

func (d *buf) byte1(what string) byte {
	if !d.need(1, what) {
		return 0
	}
	v := d.b[d.pos]
	d.pos++
	return v
}

func (d *buf) bool1(what string) bool {
	at := d.pos
	v := d.byte1(what)
	if d.err == nil && v > 1 {
		d.pos = at
		d.fail("%s: bool byte 0x%02x is neither 0 nor 1", what, v)
	}
	return v == 1
}

func (d *buf) int32(what string) int32 {
	if !d.need(4, what) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(d.b[d.pos:]))
	d.pos += 4
	return v
}

func (d *buf) int64(what string) int64 {
	if !d.need(8, what) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(d.b[d.pos:]))
	d.pos += 8
	return v
}

func (d *buf) float32(what string) float32 {
	return math.Float32frombits(uint32(d.int32(what)))
}

func (d *buf) float64(what string) float64 {
	return math.Float64frombits(uint64(d.int64(what)))
}

// uvarint reads a UVarInt: at most five bytes, value within 32 bits.
func (d *buf) uvarint(what string) uint32 {
	if d.err != nil {
		return 0
	}
	v, n, ok := uvarint32(d.b[d.pos:])
	if !ok {
		if n == 0 {
			d.short = d.off() + 5
			d.fail("%s: unterminated UVarInt", what)
		} else {
			d.fail("%s: UVarInt overflows 32 bits", what)
		}
		return 0
	}
	d.pos += n
	return v
}

// varint reads a ZigZag VarInt.
func (d *buf) varint(what string) int32 {
	u := d.uvarint(what)
	return int32(u>>1) ^ -int32(u&1)
}

// count reads a UVarInt element count and rejects one that cannot fit in the
// remaining bytes given each element takes at least minSize bytes; this keeps
// a hostile count from driving a large allocation.
func (d *buf) count(what string, minSize int) int {
	at := d.pos
	n := d.uvarint(what)
	if d.err != nil {
		return 0
	}
	if minSize > 0 && int64(n)*int64(minSize) > int64(d.remaining()) {
		d.short = d.off() + int64(n)*int64(minSize)
		d.pos = at
		d.fail("%s %d cannot fit in the %d remaining bytes", what, n, d.remaining())
		return 0
	}
	return int(n)
}

func (d *buf) bytesN(n int, what string) []byte {
	if !d.need(n, what) {
		return nil
	}
	v := d.b[d.pos : d.pos+n : d.pos+n]
	d.pos += n
	return v
}

func (d *buf) checkString(at int, s []byte, what string) {
	if d.maxString > 0 && len(s) > d.maxString {
		d.pos = at
		d.fail("%s: length %d exceeds the limit of %d", what, len(s), d.maxString)
		return
	}
	if !utf8.Valid(s) {
		d.pos = at
		if d.inDevice {
			// Upstream's own C++ example program wrote such a segment,
			// and upstream Java reads it (deviceid.go, javaUTF8).
			d.fail("%s: invalid UTF-8 (upstream Java reads each ill-formed sequence as U+FFFD: read with --lenient (ReadOptions.Lenient) to read it so)", what)
			return
		}
		d.fail("%s: invalid UTF-8", what)
	}
}

// limitString refuses a string length n, read at at, over maxString
// before its bytes are looked for: a reader growing a window of the file
// to find them would read up to n bytes first.
func (d *buf) limitString(at int, n int32, what string) bool {
	if d.err == nil && d.maxString > 0 && int64(n) > int64(d.maxString) {
		d.pos = at
		d.fail("%s: length %d exceeds the limit of %d", what, n, d.maxString)
	}
	return d.err == nil
}

// varString reads a VarString; ok is false for the null sentinel -1.
func (d *buf) varString(what string) (s string, ok bool) {
	at := d.pos
	n := d.varint(what)
	if !d.limitString(at, n, what) {
		return "", false
	}
	b, ok := d.nullableBytes(at, n, what)
	if !ok {
		return "", false
	}
	if d.inDevice && d.javaDevices && !utf8.Valid(b) && (d.maxString <= 0 || len(b) <= d.maxString) {
		d.fixed = true
		return javaUTF8(b), true
	}
	d.checkString(at, b, what)
	return string(b), d.err == nil
}

// varStringNotNull reads a VarString that the format requires to be present.
func (d *buf) varStringNotNull(what string) string {
	at := d.pos
	s, ok := d.varString(what)
	if d.err == nil && !ok {
		d.pos = at
		d.fail("%s is null", what)
	}
	return s
}

// varBinary reads a VarInt-length byte array; nil with ok false for null.
func (d *buf) varBinary(what string) (b []byte, ok bool) {
	at := d.pos
	return d.nullableBytes(at, d.varint(what), what)
}

// binary32 reads an int32-length byte array (Binary32); ok false for null.
func (d *buf) binary32(what string) (b []byte, ok bool) {
	at := d.pos
	return d.nullableBytes(at, d.int32(what), what)
}

// nullableBytes takes the n bytes after a length field read at at, where
// -1 is the null sentinel.
func (d *buf) nullableBytes(at int, n int32, what string) ([]byte, bool) {
	if d.err != nil || n == -1 {
		return nil, false
	}
	if n < -1 {
		d.pos = at
		d.fail("%s: negative length %d", what, n)
		return nil, false
	}
	return d.bytesN(int(n), what), d.err == nil
}

// string32 reads a String32 that must be present and valid UTF-8.
func (d *buf) string32(what string) string {
	at := d.pos
	n := d.int32(what)
	if !d.limitString(at, n, what) {
		return ""
	}
	b, ok := d.nullableBytes(at, n, what)
	if d.err != nil {
		return ""
	}
	if !ok {
		d.pos = at
		d.fail("%s is null", what)
		return ""
	}
	d.checkString(at, b, what)
	return string(b)
}

// maxUvarint32Len is the most bytes a UVarInt of 32 bits takes.
const maxUvarint32Len = 5

// uvarint32 decodes a canonical-width UVarInt of at most 32 bits. n is the
// number of bytes read; ok is false when the input ends first (n == 0) or
// the value overflows.
func uvarint32(b []byte) (v uint32, n int, ok bool) {
	// Five bytes carry 35 bits: binary.Uvarint reads at most that many
	// and the value must then fit in 32.
	x, n := binary.Uvarint(b[:min(len(b), maxUvarint32Len)])
	switch {
	case n > 0 && x <= math.MaxUint32:
		return uint32(x), n, true
	case n > 0:
		return 0, n, false
	case len(b) >= maxUvarint32Len:
		// The fifth byte still has its continuation bit.
		return 0, maxUvarint32Len, false
	}
	return 0, 0, false
}

// Append helpers used by the writer. They mirror the readers above.

func appendUVarint(dst []byte, v uint32) []byte {
	return binary.AppendUvarint(dst, uint64(v))
}

func appendVarint(dst []byte, v int32) []byte {
	return appendUVarint(dst, uint32(v<<1)^uint32(v>>31))
}

func appendInt32(dst []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(v))
}

func appendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func appendVarString(dst []byte, s string) []byte {
	dst = appendVarint(dst, int32(len(s)))
	return append(dst, s...)
}

func appendNullVarString(dst []byte) []byte { return appendVarint(dst, -1) }

func appendVarBinary(dst []byte, b []byte, ok bool) []byte {
	if !ok {
		return appendVarint(dst, -1)
	}
	dst = appendVarint(dst, int32(len(b)))
	return append(dst, b...)
}

func appendBinary32(dst []byte, b []byte, ok bool) []byte {
	if !ok {
		return appendInt32(dst, -1)
	}
	dst = appendInt32(dst, int32(len(b)))
	return append(dst, b...)
}
