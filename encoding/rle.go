package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// An RLE stream is the RLE/bit-packing hybrid of the Java RleEncoder and RleDecoder. It is one
// or more packages, each
//
//	UVarInt length   bytes in the rest of the package
//	byte    width    bits per value, 0..32 for INT32, DATE and BOOLEAN, 0..64 for INT64
//	run...           runs until the package ends
//
// and every run starts with a UVarInt header h:
//
//	h even: a repeated run of h>>1 copies of one value stored in ceil(width/8) bytes,
//	        little-endian for INT32, DATE and BOOLEAN but big-endian for INT64 and TIMESTAMP
//	        (the Java IntRleEncoder and LongRleEncoder disagree);
//	h odd:  a bit-packed run of h>>1 groups, then one byte saying how many of the last
//	        group's eight values are real (1..8), then the groups: each is eight width-bit
//	        fields, most significant bit first, so exactly width bytes.
//
// The values are the fields' unsigned bits; INT32 fields of width 32 and INT64 fields of width 64
// carry negative values. BOOLEAN is the INT32 form written with width 1, and any non-zero value
// reads as true, as in Java.
//
// The stream carries no total count: Java reads packages until the buffer is exhausted, so the
// count is the sum of the runs' counts. A writer emits one package per Page. A stream of no
// values is the lone empty package 0x00 (or no bytes at all); an empty package anywhere else
// is rejected, because the Java reader would turn it into a spurious value.

const (
	rleMinRepeat = 8      // shortest repeated run the writer emits (RLE_MIN_REPEATED_NUM)
	rleMaxRepeat = 0x7fff // longest repeated run the writer emits (RLE_MAX_REPEATED_NUM)
	rleMaxGroups = 63     // most groups the writer puts in one bit-packed run (RLE_MAX_BIT_PACKED_NUM)
)

// rleRun is one run of a parsed, bounds-checked RLE stream.
type rleRun struct {
	n      int    // number of values
	packed int    // offset of the first group in the stream, or -1 for a repeated run
	value  uint64 // the repeated value's stored bytes
	at     int    // offset of the run header
}

// rleCursor walks the runs of an RLE stream, checking every length before it is used.
type rleCursor struct {
	src   []byte // the complete stream; the RLE part starts at start
	off   int    // next unread byte
	end   int    // end of the current package; off == end between packages
	start int
	size  int      // value size in bytes: 4 for INT32, DATE, BOOLEAN and FLOAT, 8 for INT64 and DOUBLE
	width uint     // bit width of the current package
	enc   Encoding // the encoding errors name: RLE, or one that embeds an RLE stream
	typ   string
}

func newRLECursor(src []byte, start, size int, typ string) rleCursor {
	return rleCursor{src: src, off: start, end: start, start: start, size: size, enc: RLE, typ: typ}
}

func (c *rleCursor) corrupt(off int, format string, args ...any) error {
	return corrupt(c.enc, c.typ, off, format, args...)
}

// openPackage reads the length and bit width of the package at c.off.
func (c *rleCursor) openPackage() error {
	at := c.off
	length, k := uvarint32(c.src[at:])
	switch {
	case k == 0:
		return c.corrupt(at, "truncated package length")
	case k < 0:
		return c.corrupt(at, "package length VarInt overflows 32 bits")
	}
	body := at + k
	if int64(length) > int64(len(c.src)-body) {
		return c.corrupt(at, "package of %d bytes overruns the %d bytes left", length, len(c.src)-body)
	}
	if length == 0 {
		if at != c.start || body != len(c.src) {
			return c.corrupt(at, "empty package inside a stream")
		}
		c.off, c.end = body, body
		return nil
	}
	width := c.src[body]
	if int(width) > 8*c.size {
		return c.corrupt(body, "bit width %d outside 0..%d", width, 8*c.size)
	}
	if length == 1 {
		return c.corrupt(at, "package holds a bit width but no runs")
	}
	c.width = uint(width)
	c.off = body + 1
	c.end = body + int(length)
	return nil
}

// next returns the next run, or ok == false at the end of the stream.
func (c *rleCursor) next() (r rleRun, ok bool, err error) {
	if c.off == c.end {
		if c.off == len(c.src) {
			return rleRun{}, false, nil
		}
		if err := c.openPackage(); err != nil {
			return rleRun{}, false, err
		}
		if c.off == c.end {
			return rleRun{}, false, nil // the lone empty package
		}
	}
	at := c.off
	h, k := uvarint32(c.src[at:c.end])
	switch {
	case k == 0:
		return rleRun{}, false, c.corrupt(at, "truncated run header")
	case k < 0:
		return rleRun{}, false, c.corrupt(at, "run header VarInt overflows 32 bits")
	case h > math.MaxInt32:
		// Java holds the header in an int, so its count would be negative.
		return rleRun{}, false, c.corrupt(at, "run header %d exceeds the int32 range", h)
	}
	c.off += k
	if h&1 == 0 {
		n := int(h >> 1)
		if n == 0 {
			return rleRun{}, false, c.corrupt(at, "repeated run of no values")
		}
		nb := int(c.width+7) / 8
		if c.end-c.off < nb {
			return rleRun{}, false, c.corrupt(at, "repeated value needs %d bytes, %d left in the package", nb, c.end-c.off)
		}
		b := c.src[c.off : c.off+nb]
		var v uint64
		if c.size == 4 {
			for i := len(b) - 1; i >= 0; i-- {
				v = v<<8 | uint64(b[i])
			}
		} else {
			for _, x := range b {
				v = v<<8 | uint64(x)
			}
		}
		c.off += nb
		return rleRun{n: n, packed: -1, value: v, at: at}, true, nil
	}
	groups := int64(h >> 1)
	if groups == 0 {
		return rleRun{}, false, c.corrupt(at, "bit-packed run of no groups")
	}
	if c.off == c.end {
		return rleRun{}, false, c.corrupt(c.off, "bit-packed run lacks the count of its last group")
	}
	last := c.src[c.off]
	if last == 0 || last > 8 {
		return rleRun{}, false, c.corrupt(c.off, "last group holds %d values, not 1..8", last)
	}
	c.off++
	// groups < 2^30 and width <= 64, so neither product overflows.
	need := groups * int64(c.width)
	if need > int64(c.end-c.off) {
		return rleRun{}, false, c.corrupt(at, "%d groups of %d-bit values need %d bytes, %d left in the package",
			groups, c.width, need, c.end-c.off)
	}
	r = rleRun{n: int((groups-1)*8 + int64(last)), packed: c.off, at: at}
	c.off += int(need)
	return r, true, nil
}

// decodeRLE decodes exactly len(dst) values of size (4 or 8) bytes from the RLE stream that
// starts at src[start:] and runs to the end of src. Errors name offsets within src.
func decodeRLE[T int32 | int64](dst []T, src []byte, start, size int, typ string) error {
	c := newRLECursor(src, start, size, typ)
	return decodeRLERuns(c, dst)
}

// decodeRLERuns decodes exactly len(dst) values from the runs c has yet to read. SPRINTZ
// calls it with unsigned values and its own c.enc, for the RLE stream a partial block embeds.
// c is taken by value so that the cursor stays a local of the decode loop, as it was when
// this loop was decodeRLE's own.
func decodeRLERuns[T int32 | int64 | uint32 | uint64](c rleCursor, dst []T) error {
	src := c.src
	i := 0
	for {
		r, ok, err := c.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if r.n > len(dst)-i {
			return c.corrupt(r.at, "run of %d values overruns the %d values left of %d", r.n, len(dst)-i, len(dst))
		}
		out := dst[i : i+r.n]
		if r.packed < 0 {
			fillRLE(out, T(r.value))
		} else {
			unpackRLE(out, src, r.packed, c.width)
		}
		i += r.n
	}
	if i < len(dst) {
		return c.corrupt(len(src), "stream ends after %d of %d values", i, len(dst))
	}
	return nil
}

// countRLE returns the number of values in the RLE stream src[start:], validating all of it.
func countRLE(src []byte, start, size int, typ string) (int, error) {
	c := newRLECursor(src, start, size, typ)
	n := 0
	for {
		r, ok, err := c.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			return n, nil
		}
		if r.n > math.MaxInt-n {
			return 0, c.corrupt(r.at, "value count overflows int")
		}
		n += r.n
	}
}

// fillRLE sets every element of out to v.
func fillRLE[T int32 | int64 | uint32 | uint64 | bool](out []T, v T) {
	if len(out) < 64 {
		for i := range out {
			out[i] = v
		}
		return
	}
	// Doubling copies turn long runs into a few memmoves.
	for i := range out[:16] {
		out[i] = v
	}
	for k := 16; k < len(out); k *= 2 {
		copy(out[k:], out[:k])
	}
}

// unpackRLE stores len(out) width-bit fields, packed most significant bit first from byte start
// of src, into out. The caller guarantees the fields lie within src.
func unpackRLE[T int32 | int64 | uint32 | uint64](out []T, src []byte, start int, width uint) {
	if width == 0 {
		clear(out)
		return
	}
	pos := uint(start) * 8
	j := 0
	// Groups are byte aligned and width bytes long. For widths up to 8 one 64-bit load holds a
	// whole group, which is by far the common case (booleans, small counters, dictionary
	// indexes); wider fields are taken one load per field.
	if width <= 8 {
		// Only groups with eight bytes of src from their first byte take the fast path.
		groups := len(out) / 8
		if rem := len(src) - start - 8; rem < 0 {
			groups = 0
		} else {
			groups = min(groups, rem/int(width)+1)
		}
		mask := uint64(1)<<width - 1
		p := start
		for g := range groups {
			x := binary.BigEndian.Uint64(src[p:]) >> (64 - 8*width)
			o := out[8*g : 8*g+8 : 8*g+8]
			o[7] = T(x & mask)
			o[6] = T(x >> width & mask)
			o[5] = T(x >> (2 * width) & mask)
			o[4] = T(x >> (3 * width) & mask)
			o[3] = T(x >> (4 * width) & mask)
			o[2] = T(x >> (5 * width) & mask)
			o[1] = T(x >> (6 * width) & mask)
			o[0] = T(x >> (7 * width))
			p += int(width)
		}
		j = 8 * groups
		pos += uint(j) * width
	} else if width <= 56 && len(src)-start >= 8 {
		// A field whose first byte has eight bytes from it is one load, shifted into place.
		last := uint(len(src)-8)*8 + 7 // largest bit position whose byte starts a full load
		n := min(len(out), int((last-pos)/width)+1)
		shift := 64 - width
		for k := range out[:n] {
			x := binary.BigEndian.Uint64(src[pos>>3:])
			out[k] = T(x << (pos & 7) >> shift)
			pos += width
		}
		j = n
	}
	for ; j < len(out); j++ {
		out[j] = T(readBits(src, pos, width))
		pos += width
	}
}

// rleBoolBytes maps a byte of width-1 fields to its eight booleans.
var rleBoolBytes = func() (t [256][8]bool) {
	for b := range t {
		for k := range 8 {
			t[b][k] = b&(0x80>>k) != 0
		}
	}
	return t
}()

// decodeRLEBool decodes exactly len(dst) BOOLEAN values from an RLE stream.
func decodeRLEBool(dst []bool, src []byte) error {
	c := newRLECursor(src, 0, 4, typeBool)
	i := 0
	for {
		r, ok, err := c.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if r.n > len(dst)-i {
			return c.corrupt(r.at, "run of %d values overruns the %d values left of %d", r.n, len(dst)-i, len(dst))
		}
		out := dst[i : i+r.n]
		switch {
		case r.packed < 0:
			fillRLE(out, r.value != 0)
		case c.width == 1:
			p := src[r.packed:]
			g := 0
			for ; 8*g+8 <= len(out); g++ {
				*(*[8]bool)(out[8*g:]) = rleBoolBytes[p[g]]
			}
			if rest := len(out) - 8*g; rest > 0 {
				copy(out[8*g:], rleBoolBytes[p[g]][:rest])
			}
		default:
			pos := uint(r.packed) * 8
			for k := range out {
				out[k] = c.width != 0 && readBits(src, pos, c.width) != 0
				pos += c.width
			}
		}
		i += r.n
	}
	if i < len(dst) {
		return c.corrupt(len(src), "stream ends after %d of %d values", i, len(dst))
	}
	return nil
}

// rleEncoder reproduces the run decisions of the Java RleEncoder for one package.
type rleEncoder[T int32 | int64 | uint32 | uint64] struct {
	out    []byte
	width  uint
	size   int
	prev   T    // previous value, seeded with 0 as in Java
	repeat int  // how often prev has occurred since the last group or run was written
	buf    [8]T // values of the group being filled
	nbuf   int  // values in buf
	groups int  // groups in the open bit-packed run
	runAt  int  // offset in out of the open bit-packed run's two header bytes, or -1
	lenAt  int  // offset in out where the package starts
}

// rleWidth returns the bit width Java chooses for values of size bytes: the widest value's
// bit length, at least 1. Negative values take the full width.
func rleWidth[T int32 | int64 | uint32 | uint64](v []T, size int) uint {
	var or uint64
	for _, x := range v {
		if size == 4 {
			or |= uint64(uint32(x))
		} else {
			or |= uint64(x)
		}
	}
	return max(uint(bits.Len64(or)), 1)
}

// beginRLE starts a package of values of the given width; the values follow through add.
func beginRLE[T int32 | int64 | uint32 | uint64](dst []byte, width uint, size int) rleEncoder[T] {
	return rleEncoder[T]{out: append(dst, byte(width)), width: width, size: size, runAt: -1, lenAt: len(dst)}
}

func (e *rleEncoder[T]) add(x T) {
	if x == e.prev {
		e.repeat++
		if e.repeat >= rleMinRepeat && e.repeat <= rleMaxRepeat {
			return // counted, and written when the run ends
		}
		if e.repeat == rleMaxRepeat+1 {
			e.repeat = rleMaxRepeat
			e.writeRepeat()
			e.repeat = 1 // x starts the next run, and is buffered below
		}
	} else {
		if e.repeat >= rleMinRepeat {
			e.writeRepeat()
		}
		e.repeat = 1
		e.prev = x
	}
	e.buf[e.nbuf] = x
	e.nbuf++
	if e.nbuf == 8 {
		e.packGroup()
	}
}

// packGroup appends the eight buffered values as a group of the open bit-packed run.
func (e *rleEncoder[T]) packGroup() {
	if e.groups >= rleMaxGroups {
		e.endPacked(8)
	}
	if e.runAt < 0 {
		e.runAt = len(e.out)
		e.out = append(e.out, 0, 0) // header and last-group count, set by endPacked
	}
	// The group is 8*width bits, a whole number of bytes: fields are gathered MSB first in
	// a word that is appended whenever it fills.
	w := e.width
	var acc uint64
	n := uint(0) // bits pending in acc, from its top
	for _, x := range e.buf {
		u := uint64(x)
		if e.size == 4 {
			u = uint64(uint32(x))
		}
		if n+w < 64 {
			acc |= u << (64 - n - w)
			n += w
			continue
		}
		r := n + w - 64 // low bits of u that spill into the next word
		acc |= u >> r
		e.out = binary.BigEndian.AppendUint64(e.out, acc)
		acc, n = 0, r
		if r > 0 {
			acc = u << (64 - r)
		}
	}
	for ; n > 0; n -= 8 {
		e.out = append(e.out, byte(acc>>56))
		acc <<= 8
	}
	e.nbuf = 0
	e.repeat = 0
	e.groups++
}

// endPacked closes the open bit-packed run, if any; last is how many of its last group's
// values are real.
func (e *rleEncoder[T]) endPacked(last int) {
	if e.runAt < 0 {
		return
	}
	e.out[e.runAt] = byte(e.groups<<1 | 1)
	e.out[e.runAt+1] = byte(last)
	e.runAt = -1
	e.groups = 0
}

// writeRepeat appends a repeated run of e.repeat copies of e.prev, dropping the buffered
// copies, which the run covers.
func (e *rleEncoder[T]) writeRepeat() {
	e.endPacked(8)
	e.out = appendUvarint32(e.out, uint32(e.repeat)<<1)
	nb := int(e.width+7) / 8
	if e.size == 4 {
		u := uint32(e.prev)
		for range nb {
			e.out = append(e.out, byte(u))
			u >>= 8
		}
	} else {
		u := uint64(e.prev)
		for k := nb - 1; k >= 0; k-- {
			e.out = append(e.out, byte(u>>(8*k)))
		}
	}
	e.repeat = 0
	e.nbuf = 0
}

// finish flushes the pending values as Java's flush does and prefixes the package with its
// length.
func (e *rleEncoder[T]) finish() ([]byte, error) {
	switch last := e.nbuf; {
	case e.repeat >= rleMinRepeat:
		e.writeRepeat()
	case e.nbuf > 0:
		clear(e.buf[e.nbuf:])
		e.packGroup()
		e.endPacked(last)
	default:
		e.endPacked(8)
	}
	body := len(e.out) - e.lenAt
	if body > math.MaxInt32 {
		return e.out[:e.lenAt], fmt.Errorf("encoding: RLE package of %d bytes is longer than its int32 length field can frame: %w", body, ErrUnsupported)
	}
	var hdr [maxVarintLen32]byte
	h := appendUvarint32(hdr[:0], uint32(body))
	out := append(e.out, h...)
	copy(out[e.lenAt+len(h):], out[e.lenAt:e.lenAt+body])
	copy(out[e.lenAt:], h)
	return out, nil
}

// appendRLE appends v as one RLE package, byte for byte as a new Java IntRleEncoder (size 4)
// or LongRleEncoder (size 8) writes it. SPRINTZ passes the unsigned bits of its values, which
// the package holds the same way.
func appendRLE[T int32 | int64 | uint32 | uint64](dst []byte, v []T, size int) ([]byte, error) {
	if len(v) == 0 {
		return append(dst, 0), nil
	}
	e := beginRLE[T](dst, rleWidth(v, size), size)
	for _, x := range v {
		e.add(x)
	}
	return e.finish()
}

// appendRLEBool appends v as the Java IntRleEncoder writes booleans: as 1 and 0.
func appendRLEBool(dst []byte, v []bool) ([]byte, error) {
	if len(v) == 0 {
		return append(dst, 0), nil
	}
	e := beginRLE[int32](dst, 1, 4)
	for _, b := range v {
		var x int32
		if b {
			x = 1
		}
		e.add(x)
	}
	return e.finish()
}

// decodeRLEInt32 decodes exactly len(dst) values from a complete RLE INT32 stream, such as the
// index stream of a DICTIONARY page.
func decodeRLEInt32(dst []int32, src []byte) error { return decodeRLE(dst, src, 0, 4, typeInt32) }

// countRLEInt32 returns the number of values in a complete RLE INT32 stream.
func countRLEInt32(src []byte) (int, error) { return countRLE(src, 0, 4, typeInt32) }

// appendRLEInt32 appends v encoded as an RLE INT32 stream, as the Java IntRleEncoder writes it.
func appendRLEInt32(dst []byte, v []int32) ([]byte, error) { return appendRLE(dst, v, 4) }

func init() {
	register(RLE, valueCodec{
		decodeBool:  decodeRLEBool,
		decodeInt32: decodeRLEInt32,
		decodeInt64: func(dst []int64, src []byte) error { return decodeRLE(dst, src, 0, 8, typeInt64) },
		countInt64:  func(src []byte) (int, error) { return countRLE(src, 0, 8, typeInt64) },
		encodeBool:  appendRLEBool,
		encodeInt32: appendRLEInt32,
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) { return appendRLE(dst, v, 8) },
	})
}
