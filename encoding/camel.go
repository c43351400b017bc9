package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sync"
)

// CAMEL (DOUBLE only) follows the layout of the Java CamelEncoder and CamelDecoder added to
// Apache TsFile in 2025 (apache/tsfile PR #560). A stream is a sequence of blocks, one per
// encoder flush:
//
//	VarInt totalBits   ZigZag VarInt, as PLAIN INT32: the bits of the block, at least 64
//	byte[ceil(totalBits/8)] the bits, most significant bit first, zero padded
//
// The bits are the block's first value as its raw 64 bits, then for every further value:
//
//	1 bit   sign
//	1 bit   type: 1 CAMEL, 0 GORILLA
//	CAMEL:   VarLong diff  the integer part minus the previous CAMEL integer part (the first
//	                       value's, truncated to int64 as Java casts, to begin with)
//	         4 bits        count-1: the number of decimal digits, 1 to 15
//	         1 bit         hasXor
//	         count bits    only if hasXor: mantissa bits [52-count, 52) of an XOR
//	         VarLong m     the decimal digits, or their remainder modulo 5^count if hasXor
//	GORILLA: the absolute value XORed with the previous value's bits:
//	         1 bit 0       no change, or 1 then
//	         1 bit 0       the previous leading/trailing zero counts apply, sig bits follow
//	         1 bit 1       6 bits leading zeros, 6 bits sig-1, then the sig XOR bits
//
// A VarLong is a ZigZag int64 in 7-bit groups, least significant first, each followed by a
// continuation bit. The reader computes a CAMEL value in double arithmetic exactly as Java
// does: frac = m/10^count (with the XOR bits applied to the mantissa of m/10^count+1, minus
// 1), dec = round(frac*10^count), value = (int*10^count + dec)/10^count; the sign then
// multiplies it, and the previous value for the next XOR is the result's bits with NaNs made
// canonical, as Double.doubleToLongBits makes them. The block ends when totalBits are read;
// the Java reader reads until then, so a value must end exactly there. An empty stream holds
// no values.

const (
	camelMaxDecimals   = 15 // the Java reader's power table ends at 10^15
	camelMaxDigits     = 10 // the Java writer uses CAMEL for at most ten digits in all
	camelCanonicalNaN  = 0x7ff8000000000000
	camelQuietBit      = 1 << 51
	camelMaxBlockBits  = math.MaxInt32
	camelMaxValueBits  = 2 + 80 + 4 + 1 + camelMaxDecimals + 80 // a CAMEL value at worst
	camelMantissaWidth = 52
)

// camelPow10[k] is 10^k, exactly.
var camelPow10 = [camelMaxDecimals + 1]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// camelPow5[k] is 5^k, the Java threshold 10^k / 2^k.
var camelPow5 = [camelMaxDecimals + 1]int64{1, 5, 25, 125, 625, 3125, 15625, 78125, 390625,
	1953125, 9765625, 48828125, 244140625, 1220703125, 6103515625, 30517578125}

func corruptCamel(off int, format string, args ...any) error {
	return corrupt(Camel, typeFloat64, off, format, args...)
}

// camelDoubleToLongBits is Double.doubleToLongBits: NaNs become the canonical NaN.
func camelDoubleToLongBits(f float64) uint64 {
	if f != f {
		return camelCanonicalNaN
	}
	return math.Float64bits(f)
}

// camelD2L is Java's (long) cast of a double: truncation, saturating, NaN to 0.
func camelD2L(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 0x1p63:
		return math.MaxInt64
	case f <= -0x1p63:
		return math.MinInt64
	}
	return int64(f)
}

// camelRound is Math.round(double): floor(x + 1/2) computed exactly, saturating, NaN to 0.
func camelRound(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= 0x1p63:
		return math.MaxInt64
	case x <= -0x1p63:
		return math.MinInt64
	}
	f := math.Floor(x)
	if x-f >= 0.5 { // exact: x and f are within one binade of each other or x is integral
		f++
	}
	return int64(f)
}

// camelSignMul is sign * x with sign = ±1.0, as Java on x86-64 computes it: a NaN operand
// comes back quieted with its own sign, anything else is negated exactly when sign is -1.
func camelSignMul(negative bool, x float64) float64 {
	if x != x {
		return math.Float64frombits(math.Float64bits(x) | camelQuietBit)
	}
	if negative {
		return -x
	}
	return x
}

// camelValue is the absolute value the Java reader computes for a CAMEL field group whose
// integer part is intPart. The explicit conversions keep every product rounded on its own,
// as in Java, rather than fused into the following addition.
func camelValue(intPart int64, count int, hasXor bool, xorBits uint64, m int64) float64 {
	scale := float64(camelPow10[count])
	var frac float64
	if hasXor {
		base := float64(m)/scale + 1
		merged := xorBits<<(camelMantissaWidth-count) ^ camelDoubleToLongBits(base)
		frac = math.Float64frombits(merged) - 1
	} else {
		frac = float64(m) / scale
	}
	dec := float64(camelRound(float64(frac * scale)))
	v := (float64(float64(intPart)*scale) + dec) / scale
	if intPart < 0 {
		v = -v
	}
	return v
}

// camelReader reads the bits of one block, most significant first, through a 64-bit window.
// Reads past the block's bytes return zero bits and drive n negative; the caller checks
// after each value that it ended within the block.
type camelReader struct {
	src []byte // the block's bytes
	off int    // next byte to load into acc
	acc uint64 // the next n bits, most significant first; the bits below are zero
	n   int
}

// read returns the next width bits, 1 <= width <= 56.
func (r *camelReader) read(width uint) uint64 {
	if r.n < int(width) {
		r.fill()
	}
	v := r.acc >> (64 - width)
	r.acc <<= width
	r.n -= int(width)
	return v
}

// read64 is read for widths up to 64.
func (r *camelReader) read64(width uint) uint64 {
	if width <= 56 {
		return r.read(width)
	}
	hi := r.read(width - 32)
	return hi<<32 | r.read(32)
}

// fill tops the window up to at least 57 bits, or to the end of the block's bytes.
func (r *camelReader) fill() {
	if r.n < 0 {
		return // already past the end
	}
	if r.off+8 <= len(r.src) {
		take := (64 - r.n) / 8
		r.acc |= binary.BigEndian.Uint64(r.src[r.off:]) >> r.n
		r.n += 8 * take
		r.off += take
		if r.n < 64 {
			r.acc &^= ^uint64(0) >> r.n
		}
		return
	}
	for r.n <= 56 && r.off < len(r.src) {
		r.acc |= uint64(r.src[r.off]) << (56 - r.n)
		r.off++
		r.n += 8
	}
}

// pos is the number of bits read, past the end included.
func (r *camelReader) pos() int { return 8*r.off - r.n }

// readVarLong reads a VarLong; ok is false if it has more than 64 bits, which Java would
// drop or reject.
func (r *camelReader) readVarLong() (v int64, ok bool) {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		g := r.read(8)
		chunk, more := g>>1, g&1 == 1
		if shift == 63 && (chunk > 1 || more) {
			return 0, false
		}
		u |= chunk << shift
		if !more {
			return int64(u>>1) ^ -int64(u&1), true
		}
	}
}

// camelBlockState is the decoder state that a block resets.
type camelBlockState struct {
	prev      uint64 // canonical bits of the previous result
	stored    int64  // previous CAMEL integer part
	lead, sig uint   // GORILLA block info
	haveBlock bool
}

func decodeCamelFloat64(dst []float64, src []byte) error {
	off, i := 0, 0
	for i < len(dst) {
		if off == len(src) {
			return corruptCamel(off, "stream ends after %d of %d values", i, len(dst))
		}
		n, end, err := decodeCamelBlock(dst[i:], src, off)
		if err != nil {
			return err
		}
		i += n
		off = end
	}
	if off != len(src) {
		return corruptCamel(off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

// decodeCamelBlock decodes the block at src[off:] into the start of dst and returns the
// number of values it held and the offset past it.
func decodeCamelBlock(dst []float64, src []byte, off int) (int, int, error) {
	u, k := uvarint32(src[off:])
	switch {
	case k == 0:
		return 0, 0, corruptCamel(off, "truncated block length VarInt")
	case k < 0:
		return 0, 0, corruptCamel(off, "block length VarInt overflows 32 bits")
	}
	totalBits := int(unzigzag32(u))
	if totalBits < 64 {
		return 0, 0, corruptCamel(off, "block of %d bits cannot hold its first value", totalBits)
	}
	start := off + k
	nbytes := (totalBits + 7) / 8
	if nbytes > len(src)-start {
		return 0, 0, corruptCamel(off, "block of %d bits needs %d bytes, %d left", totalBits, nbytes, len(src)-start)
	}
	end := start + nbytes
	// The padding is zero, so a field running into it reads zeros until the check below.
	if pad := 8*nbytes - totalBits; src[end-1]&(1<<pad-1) != 0 {
		return 0, 0, corruptCamel(end-1, "padding bits after the block's %d bits are not zero", totalBits)
	}
	r := camelReader{src: src[start:end]}
	at := 0 // bit offset of the value being read
	bad := func(format string, args ...any) error {
		return corruptCamel(start+at/8, "value at bit %d of the block: %s", at, fmt.Sprintf(format, args...))
	}

	dst[0] = math.Float64frombits(r.read64(64))
	st := camelBlockState{prev: camelDoubleToLongBits(dst[0]), stored: camelD2L(dst[0])}
	n := 1
	for at = r.pos(); at < totalBits; at = r.pos() {
		if n == len(dst) {
			return 0, 0, corruptCamel(start+at/8, "block has %d bits left after the %d requested values", totalBits-at, len(dst))
		}
		head := r.read(2)
		var v float64
		if head&1 == 1 {
			diff, ok := r.readVarLong()
			if !ok {
				return 0, 0, bad("integer part VarLong exceeds 64 bits")
			}
			st.stored += diff
			c := r.read(5)
			count, hasXor := int(c>>1)+1, c&1 == 1
			if count > camelMaxDecimals {
				return 0, 0, bad("decimal count %d exceeds %d", count, camelMaxDecimals)
			}
			var xorBits uint64
			if hasXor {
				xorBits = r.read(uint(count))
			}
			m, ok := r.readVarLong()
			if !ok {
				return 0, 0, bad("decimal VarLong exceeds 64 bits")
			}
			v = camelValue(st.stored, count, hasXor, xorBits, m)
		} else {
			g := st.prev
			if r.read(1) == 1 {
				if r.read(1) == 1 {
					h := r.read(12)
					st.lead, st.sig = uint(h>>6), uint(h&63)+1
					if st.lead+st.sig > 64 {
						return 0, 0, bad("%d leading zeros and %d significant bits exceed 64", st.lead, st.sig)
					}
					st.haveBlock = true
				} else if !st.haveBlock {
					return 0, 0, bad("GORILLA XOR reuses block info that was never set")
				}
				g ^= r.read64(st.sig) << (64 - st.lead - st.sig)
			}
			v = math.Float64frombits(g)
		}
		if r.pos() > totalBits {
			return 0, 0, bad("the value runs past the block's %d bits", totalBits)
		}
		v = camelSignMul(head&2 != 0, v)
		dst[n] = v
		st.prev = camelDoubleToLongBits(v)
		n++
	}
	return n, end, nil
}

// camelEncoder writes one block's bits.
type camelEncoder struct {
	w         bitWriter
	prev      uint64 // canonical bits of the previous value
	stored    int64
	lead, trl uint
	haveBlock bool
	nbits     int
}

var camelScratchPool = sync.Pool{New: func() any { return new([]byte) }}

func (e *camelEncoder) put(v uint64, width uint) {
	e.w.write(v, width)
	e.nbits += int(width)
}

func (e *camelEncoder) putVarLong(x int64) {
	u := uint64(x<<1) ^ uint64(x>>63)
	for u >= 0x80 {
		e.put((u&0x7f)<<1|1, 8)
		u >>= 7
	}
	e.put(u<<1, 8)
}

func (e *camelEncoder) start(first float64) {
	e.w.buf = e.w.buf[:0]
	e.nbits = 0
	e.haveBlock = false
	e.put(math.Float64bits(first), 64)
	e.prev = camelDoubleToLongBits(first)
	e.stored = camelD2L(first)
}

// putGorilla writes the GORILLA form of a value whose absolute value's bits are abs.
func (e *camelEncoder) putGorilla(negative bool, abs uint64) {
	head := uint64(0)
	if negative {
		head = 2
	}
	e.put(head, 2)
	x := abs ^ e.prev
	if x == 0 {
		e.put(0, 1)
		return
	}
	lead, trail := uint(bits.LeadingZeros64(x)), uint(bits.TrailingZeros64(x))
	if e.haveBlock && lead >= e.lead && trail >= e.trl {
		e.put(0b10, 2)
		e.put(x>>e.trl, 64-e.lead-e.trl)
		return
	}
	sig := 64 - lead - trail
	e.put(0b11, 2)
	e.put(uint64(lead)<<6|uint64(sig-1), 12)
	e.put(x>>trail, sig)
	e.lead, e.trl, e.haveBlock = lead, trail, true
}

// putValue writes a value after the first as the Java encoder does, except where Java's
// output would not read back as the value: then the GORILLA form, which always does. The
// caller then sets e.prev.
func (e *camelEncoder) putValue(v float64) {
	b := math.Float64bits(v)
	if v != v {
		// Java would send a NaN down the CAMEL path, which reads back as 0.0. The sign is
		// left clear because multiplying a NaN by -1.0 keeps the NaN's own sign.
		e.putGorilla(false, b)
		return
	}
	negative := b>>63 == 1
	a := math.Abs(v)
	if a > 0x1p63 || a == 0 {
		e.putGorilla(negative, math.Float64bits(a))
		return
	}
	intPart := camelD2L(a)
	digits := 1
	for x := intPart; x >= 10; x /= 10 {
		digits++
	}
	// Java's log10 guard sends values of 1e11 and more, or below about 1e-10, to GORILLA;
	// the digit count below sends them there as well, so it is not repeated.
	count := 0
	for factor := 1.0; ; {
		t := float64(a * factor)
		if t == float64(camelRound(t)) {
			break
		}
		factor *= 10
		count++
		if digits+count > camelMaxDigits {
			break
		}
	}
	count = max(1, count)
	if digits+count > camelMaxDigits {
		e.putGorilla(negative, math.Float64bits(a))
		return
	}
	pow := camelPow10[count]
	dv := camelRound(float64(a*float64(pow))) % pow
	m, hasXor, xorBits := dv, false, uint64(0)
	if dv >= camelPow5[count] {
		hasXor = true
		m = dv % camelPow5[count]
		x := math.Float64bits(float64(dv)/float64(pow)+1) ^ math.Float64bits(float64(m)/float64(pow)+1)
		xorBits = x >> (camelMantissaWidth - count) & (1<<count - 1)
	}
	if math.Float64bits(camelSignMul(negative, camelValue(intPart, count, hasXor, xorBits, m))) != b {
		// Java rounds such a value wrongly (one whose digits carry into the integer part).
		e.putGorilla(negative, math.Float64bits(a))
		return
	}
	head := uint64(1)
	if negative {
		head = 3
	}
	e.put(head, 2)
	e.putVarLong(intPart - e.stored)
	e.stored = intPart
	c := uint64(count-1) << 1
	if hasXor {
		c |= 1
	}
	e.put(c, 5)
	if hasXor {
		e.put(xorBits, uint(count))
	}
	e.putVarLong(m)
}

// finish appends the block to dst.
func (e *camelEncoder) finish(dst []byte) []byte {
	n := e.nbits
	e.w.finish()
	dst = appendUvarint32(dst, zigzag32(int32(n)))
	return append(dst, e.w.buf...)
}

// appendCamelFloat64 appends v as CAMEL: one block, byte for byte as the Java encoder writes
// it for every value it encodes faithfully. It departs from Java only to stay lossless:
// values whose CAMEL form Java would read back wrongly (NaNs, and a few whose decimal digits
// round into the integer part) take the GORILLA form; a signaling NaN after the first value,
// which the sign multiplication would quiet, starts a new block, whose first value is raw;
// and a block is also closed before it would outgrow the int32 bit count.
func appendCamelFloat64(dst []byte, v []float64) ([]byte, error) {
	if len(v) == 0 {
		return dst, nil
	}
	scratch := camelScratchPool.Get().(*[]byte)
	e := camelEncoder{w: bitWriter{buf: (*scratch)[:0]}}
	e.start(v[0])
	for _, x := range v[1:] {
		b := math.Float64bits(x)
		signaling := x != x && b&camelQuietBit == 0
		if signaling || e.nbits > camelMaxBlockBits-camelMaxValueBits {
			dst = e.finish(dst)
			e.start(x)
			continue
		}
		e.putValue(x)
		e.prev = camelDoubleToLongBits(x)
	}
	dst = e.finish(dst)
	*scratch = e.w.buf[:0]
	camelScratchPool.Put(scratch)
	return dst, nil
}

func init() {
	register(Camel, valueCodec{
		decodeFloat64: decodeCamelFloat64,
		encodeFloat64: appendCamelFloat64,
	})
}
