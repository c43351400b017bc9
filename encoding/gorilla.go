package encoding

import (
	"encoding/binary"
	"math/bits"
)

// A GORILLA stream is the bit stream of the Java GorillaEncoderV2 family (IntGorillaEncoder,
// LongGorillaEncoder and the FLOAT and DOUBLE encoders built on them), MSB first. Values are
// handled as their raw w-bit patterns, w = 32 for INT32, DATE and FLOAT and w = 64 for INT64,
// TIMESTAMP and DOUBLE; FLOAT and DOUBLE keep NaN payloads. f is 5 for w = 32 and 6 for
// w = 64:
//
//	first value   w bits, verbatim
//	then, for every later value x, with xor = previous value ^ x:
//	  '0'                                           xor == 0
//	  '10' + (w-lead-trail) bits of xor>>trail      xor fits the stored window
//	  '11' + f bits lead + f bits (sig-1)           a new window: lead leading and
//	       + sig bits of xor>>trail                 trail = w-lead-sig trailing zero bits
//
// The encoder reuses the stored window when xor has at least as many leading and trailing
// zeros as it, and otherwise stores xor's exact window. After the last value comes an
// end-of-stream value, MinInt32, MinInt64 or the canonical NaN (0x7fc00000, 0x7ff8000000000000),
// encoded like any other, then zero bits up to the next byte boundary, or a whole zero byte
// when the end-of-stream value ends on one (the Java reader loads one byte past every field).
//
// The stream has no count. The Java reader of a time column stops at the first end-of-stream
// value after the first value; value columns are read by count, so the end-of-stream value
// can also occur as data. A count-driven decode therefore decodes exactly len(dst) values,
// whatever they are, and then requires the end-of-stream value and the padding.
//
// Because a '0' for one more repetition of the end-of-stream value usually fits into the
// padding, the encodings of v and of v followed by the end-of-stream value coincide unless
// the padding is exactly one bit: decoding one value more than was written then succeeds and
// yields the end-of-stream value. countGorilla returns the smallest count that decodes, which
// is what the Java time reader returns for every stream the Java writer produces for
// timestamps other than MinInt64.

// gorillaNoWindow marks that no '11' has set a window yet; the Java decoder then reads a
// negative number of bits for '10', which no writer produces.
const gorillaNoWindow = 0xff

const (
	gorillaEndInt32   = uint32(1 << 31)
	gorillaEndInt64   = uint64(1 << 63)
	gorillaEndFloat32 = uint32(0x7fc00000)
	gorillaEndFloat64 = uint64(0x7ff8000000000000)
)

// gorillaState is a decoder between two values.
type gorillaState struct {
	r     xorReader
	prev  uint64 // the last value decoded, zero extended
	lead  uint   // the stored window, or gorillaNoWindow
	trail uint
	sig   uint // w - lead - trail
}

// start reads the first value of a w-bit stream that begins at src[off:]; SPRINTZ embeds
// streams inside its own, and offsets in errors then stay relative to the whole of src.
func (s *gorillaState) start(src []byte, off int, w uint) bool {
	s.r = newXORReader(src, off)
	s.lead = gorillaNoWindow
	s.prev = s.r.read(w)
	return !s.r.overrun()
}

// xorFault describes why a decoder stopped: the byte offset and what it found. The message is
// a constant, so a failure allocates only when the caller turns it into an error.
type xorFault struct {
	off int
	msg string
}

// gorillaNext decodes len(out) values following s.prev into out. On failure it returns how
// many it had decoded and what went wrong; msg is empty on success.
func gorillaNext[T xorWord](s *gorillaState, out []T) (int, xorFault) {
	w := xorWidth[T]()
	f := 5 + w/64 // bits of the lead and sig-1 fields
	fmask := uint64(1)<<f - 1
	// Local copies keep the state in registers through the loop.
	src, acc, n, pos := s.r.src, s.r.acc, s.r.n, s.r.pos
	prev, lead, trail, sig := s.prev, s.lead, s.trail, s.sig
	var fault xorFault
	var x uint64
	i := 0
	for ; i < len(out); i++ {
		if pos <= len(src)-8 { // xorFill, inlined by hand
			acc |= binary.BigEndian.Uint64(src[pos:]) >> n
			pos += int(63-n) >> 3
			n |= 56
		} else {
			acc, n, pos = xorFillTail(src, acc, n, pos)
		}
		if acc>>63 == 0 { // '0': the value repeats
			acc <<= 1
			n--
		} else {
			if acc>>62 == 2 { // '10': the stored window
				if lead == gorillaNoWindow {
					fault = xorFault{(8*pos - int(n)) / 8, "control bits '10' before any '11' defined a window"}
					break
				}
				acc <<= 2
				n -= 2
			} else { // '11': a new window
				h := acc >> (64 - (2 + 2*f))
				acc <<= 2 + 2*f
				n -= 2 + 2*f
				lead = uint(h>>f) & uint(fmask)
				sig = uint(h&fmask) + 1
				if lead+sig > w {
					fault = xorFault{(8*pos - int(n) - int(2+2*f)) / 8, "window of leading zeros and significant bits exceeds the value width"}
					break
				}
				trail = w - lead - sig
			}
			if sig <= n { // xorGet, inlined by hand
				x = acc >> (64 - sig)
				acc <<= sig
				n -= sig
			} else {
				x, acc, n, pos = xorGetSlow(src, acc, n, pos, sig)
			}
			prev ^= x << trail
		}
		if pos > len(src) && 8*pos-int(n) > 8*len(src) {
			fault = xorFault{len(src), "stream ends inside a value"}
			break
		}
		out[i] = T(prev)
	}
	s.r.acc, s.r.n, s.r.pos = acc, n, pos
	s.prev, s.lead, s.trail, s.sig = prev, lead, trail, sig
	return i, fault
}

// decodeGorilla decodes exactly len(dst) values of a complete stream into dst.
func decodeGorilla[T xorWord](dst []T, src []byte, end T, typ string) error {
	if len(dst) == 0 && len(src) == 0 {
		return nil // no writer flushes an empty encoder, but an empty stream holds no values
	}
	w := xorWidth[T]()
	var s gorillaState
	if !s.start(src, 0, w) {
		return corrupt(Gorilla, typ, len(src), "stream of %d bytes ends inside the first value", len(src))
	}
	last := T(s.prev) // the end-of-stream value when dst is empty
	endAt := 0        // the bit where it starts
	if len(dst) > 0 {
		dst[0] = last
		if i, fault := gorillaNext(&s, dst[1:]); fault.msg != "" {
			return corrupt(Gorilla, typ, fault.off, "%s, after %d of %d values", fault.msg, 1+i, len(dst))
		}
		endAt = s.r.consumed()
		var m [1]T
		if _, fault := gorillaNext(&s, m[:]); fault.msg != "" {
			return corrupt(Gorilla, typ, fault.off, "%s, reading the end-of-stream value after %d values", fault.msg, len(dst))
		}
		last = m[0]
	}
	if last != end {
		return corrupt(Gorilla, typ, endAt/8, "value 0x%x after %d values is not the end-of-stream value 0x%x", uint64(last), len(dst), uint64(end))
	}
	if off, what, ok := s.r.endAfterFlip(); !ok {
		return corrupt(Gorilla, typ, off, "%s", what)
	}
	return nil
}

// countGorilla returns the smallest number of values that decodeGorilla accepts for src,
// the number the Java reader of a time column yields.
func countGorilla[T xorWord](src []byte, end T, typ string) (int, error) {
	if len(src) == 0 {
		return 0, nil
	}
	var s gorillaState
	if !s.start(src, 0, xorWidth[T]()) {
		return 0, corrupt(Gorilla, typ, len(src), "stream of %d bytes ends inside the first value", len(src))
	}
	// Every value takes at least one bit, so the loop ends by overrunning the stream at the
	// latest; values are checked one at a time because the first end-of-stream value with valid
	// padding decides.
	var m [1]T
	for n := 0; ; n++ {
		if T(s.prev) == end {
			if _, _, ok := s.r.endAfterFlip(); ok {
				return n, nil
			}
		}
		if _, fault := gorillaNext(&s, m[:]); fault.msg != "" {
			return 0, corrupt(Gorilla, typ, fault.off, "%s, after %d values and no end-of-stream value", fault.msg, n+1)
		}
	}
}

// gorillaEncoder is the state of the Java GorillaEncoderV2 between values.
type gorillaEncoder struct {
	w     xorWriter
	first bool
	prev  uint64
	lead  uint // initially more than any count of leading zeros, as in Java
	trail uint
}

// put appends the w-bit value x.
func (e *gorillaEncoder) put(x uint64, w uint) {
	if e.first {
		e.first = false
		e.prev = x
		e.w.write(x, w)
		return
	}
	xor := e.prev ^ x
	e.prev = x
	if xor == 0 {
		e.w.write(0, 1)
		return
	}
	lead := uint(bits.LeadingZeros64(xor)) - (64 - w)
	trail := uint(bits.TrailingZeros64(xor))
	if lead >= e.lead && trail >= e.trail {
		e.w.write(0b10, 2)
		e.w.write(xor>>e.trail, w-e.lead-e.trail)
		return
	}
	f := 5 + w/64
	sig := w - lead - trail
	e.w.write(0b11<<(2*f)|uint64(lead)<<f|uint64(sig-1), 2+2*f)
	e.w.write(xor>>trail, sig)
	e.lead, e.trail = lead, trail
}

// appendGorilla appends v and the end-of-stream value as the Java encoder writes them.
func appendGorilla[T xorWord](dst []byte, v []T, end T) []byte {
	w := xorWidth[T]()
	e := gorillaEncoder{w: xorWriter{buf: dst}, first: true, lead: gorillaNoWindow}
	for _, x := range v {
		e.put(uint64(x), w)
	}
	e.put(uint64(end), w)
	e.w.flip()
	return e.w.finish()
}

func init() {
	register(Gorilla, valueCodec{
		decodeInt32: func(dst []int32, src []byte) error {
			return decodeGorilla(xorBitsInt32(dst), src, gorillaEndInt32, typeInt32)
		},
		decodeInt64: func(dst []int64, src []byte) error {
			return decodeGorilla(xorBitsInt64(dst), src, gorillaEndInt64, typeInt64)
		},
		decodeFloat32: func(dst []float32, src []byte) error {
			return decodeGorilla(xorBitsFloat32(dst), src, gorillaEndFloat32, typeFloat32)
		},
		decodeFloat64: func(dst []float64, src []byte) error {
			return decodeGorilla(xorBitsFloat64(dst), src, gorillaEndFloat64, typeFloat64)
		},
		countInt64: func(src []byte) (int, error) { return countGorilla(src, gorillaEndInt64, typeInt64) },
		encodeInt32: func(dst []byte, v []int32) ([]byte, error) {
			return appendGorilla(dst, xorBitsInt32(v), gorillaEndInt32), nil
		},
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) {
			return appendGorilla(dst, xorBitsInt64(v), gorillaEndInt64), nil
		},
		encodeFloat32: func(dst []byte, v []float32) ([]byte, error) {
			return appendGorilla(dst, xorBitsFloat32(v), gorillaEndFloat32), nil
		},
		encodeFloat64: func(dst []byte, v []float64) ([]byte, error) {
			return appendGorilla(dst, xorBitsFloat64(v), gorillaEndFloat64), nil
		},
	})
}
