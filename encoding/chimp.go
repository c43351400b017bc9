package encoding

import (
	"encoding/binary"
	"math/bits"
)

// A CHIMP stream is the bit stream of the Java IntChimpEncoder and LongChimpEncoder (and the
// FLOAT and DOUBLE encoders built on them), MSB first: the Chimp128 variant, which may XOR a
// value with any of the last P values instead of only the previous one. Values are handled as
// their raw w-bit patterns. With w = 32 (INT32, DATE, FLOAT) P = 64, p = 6 index bits and
// s = 5 length bits; with w = 64 (INT64, TIMESTAMP, DOUBLE) P = 128, p = 7 and s = 6.
//
// Decoded values are kept in a ring of P slots, the first value in slot 0 and each later one
// in the slot after its predecessor's. With prev the last value decoded, L(c) the lead code c
// mapped through {0, 8, 12, 16, 18, 20, 22, 24} and lead the stored lead:
//
//	first value   w bits, verbatim
//	'00' + p bits i                      the value equals ring slot i
//	'01' + p bits i + 3 bits c + s bits n
//	     + n bits                        slot i ^ (the bits << (w - L(c) - n)); lead = L(c);
//	                                     n == 0 stands for w, which needs L(c) == 0
//	'10' + (w-lead) bits                 prev ^ the bits
//	'11' + 3 bits c + (w-L(c)) bits      lead = L(c), prev ^ the bits
//
// The encoder picks the reference through a table of the slot that last held a value with
// the same low p+6 (INT32) or p+7 (INT64) bits, uses '01' when the XOR with it has more than
// p+5 or p+6 trailing zeros, and otherwise XORs with prev; the lead it stores is the XOR's
// leading zero count rounded down to a value of L, and '00' and '01' clear it. The end of the
// stream is marked as in GORILLA: MinInt32, MinInt64 or the canonical NaN as one more value,
// then zero bits up to the next byte boundary or a whole zero byte when already on one. A
// repetition costs p+2 bits here, more than the padding can hold, so unlike GORILLA a stream
// decodes as only one number of values.

// chimpLeads maps the 3-bit lead codes to counts of leading zeros.
var chimpLeads = [8]uint8{0, 8, 12, 16, 18, 20, 22, 24}

// chimpRound maps a count of leading zeros to the largest of chimpLeads not above it, and
// chimpCode to that value's code.
var chimpRound, chimpCode = func() (r, c [65]uint8) {
	for n := range r {
		for code, l := range chimpLeads {
			if int(l) <= n {
				r[n], c[n] = l, uint8(code)
			}
		}
	}
	return r, c
}()

// chimpNoLead marks that no '11' or '01' has stored a lead; the Java decoder then reads a
// negative number of bits for '10', which no writer produces.
const chimpNoLead = 0xff

// chimpParams returns the layout constants of w-bit values: the index bits p, the length bits
// s, and the trailing-zero threshold above which the encoder references an older value.
func chimpParams(w uint) (p, s, threshold uint) {
	if w == 32 {
		return 6, 5, 11
	}
	return 7, 6, 13
}

// chimpState is a decoder between two values.
type chimpState struct {
	r    xorReader
	ring [128]uint64 // the last P values; slots not yet written read as zero, as in Java
	cur  uint        // slot of prev
	prev uint64
	lead uint // stored lead, or chimpNoLead
}

// start reads the first value of a w-bit stream.
func (s *chimpState) start(src []byte, w uint) bool {
	s.r = newXORReader(src, 0)
	s.lead = chimpNoLead
	s.prev = s.r.read(w)
	s.ring[0] = s.prev
	return !s.r.overrun()
}

// chimpNext decodes len(out) values following s.prev into out. On failure it returns how
// many it had decoded and what went wrong; msg is empty on success.
func chimpNext[T xorWord](s *chimpState, out []T) (int, xorFault) {
	w := xorWidth[T]()
	p, sb, _ := chimpParams(w)
	pmask := uint64(1)<<p - 1
	smask := uint64(1)<<sb - 1
	// Local copies keep the state in registers through the loop.
	src, acc, n, pos := s.r.src, s.r.acc, s.r.n, s.r.pos
	prev, cur, lead := s.prev, s.cur, s.lead
	ring := &s.ring
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
		switch acc >> 62 {
		case 0: // '00': a repeat of a slot
			prev = ring[acc>>(62-p)&pmask]
			acc <<= 2 + p
			n -= 2 + p
		case 1: // '01': a slot XOR a window
			m := acc >> (64 - (2 + p + 3 + sb))
			acc <<= 2 + p + 3 + sb
			n -= 2 + p + 3 + sb
			l := uint(chimpLeads[m>>sb&7])
			k := uint(m & smask)
			if k == 0 {
				k = w
			}
			if l+k > w {
				fault = xorFault{(8*pos - int(n) - int(2+p+3+sb)) / 8, "window of leading zeros and significant bits exceeds the value width"}
				goto stop
			}
			lead = l
			if k <= n { // xorGet, inlined by hand
				x = acc >> (64 - k)
				acc <<= k
				n -= k
			} else {
				x, acc, n, pos = xorGetSlow(src, acc, n, pos, k)
			}
			prev = ring[m>>(3+sb)&pmask] ^ x<<(w-l-k)
		case 2: // '10': prev XOR bits below the stored lead
			if lead == chimpNoLead {
				fault = xorFault{(8*pos - int(n)) / 8, "control bits '10' before any lead was stored"}
				goto stop
			}
			acc <<= 2
			n -= 2
			k := w - lead
			if k <= n { // xorGet, inlined by hand
				x = acc >> (64 - k)
				acc <<= k
				n -= k
			} else {
				x, acc, n, pos = xorGetSlow(src, acc, n, pos, k)
			}
			prev ^= x
		default: // '11': a new lead
			lead = uint(chimpLeads[acc>>59&7])
			acc <<= 5
			n -= 5
			k := w - lead
			if k <= n { // xorGet, inlined by hand
				x = acc >> (64 - k)
				acc <<= k
				n -= k
			} else {
				x, acc, n, pos = xorGetSlow(src, acc, n, pos, k)
			}
			prev ^= x
		}
		if pos > len(src) && 8*pos-int(n) > 8*len(src) {
			fault = xorFault{len(src), "stream ends inside a value"}
			goto stop
		}
		cur = (cur + 1) & uint(pmask)
		ring[cur] = prev
		out[i] = T(prev)
	}
stop:
	s.r.acc, s.r.n, s.r.pos = acc, n, pos
	s.prev, s.cur, s.lead = prev, cur, lead
	return i, fault
}

// decodeChimp decodes exactly len(dst) values of a complete stream into dst.
func decodeChimp[T xorWord](dst []T, src []byte, end T, typ string) error {
	if len(dst) == 0 && len(src) == 0 {
		return nil // no writer flushes an empty encoder, but an empty stream holds no values
	}
	var s chimpState
	if !s.start(src, xorWidth[T]()) {
		return corrupt(Chimp, typ, len(src), "stream of %d bytes ends inside the first value", len(src))
	}
	last := T(s.prev) // the end-of-stream value when dst is empty
	endAt := 0        // the bit where it starts
	if len(dst) > 0 {
		dst[0] = last
		if i, fault := chimpNext(&s, dst[1:]); fault.msg != "" {
			return corrupt(Chimp, typ, fault.off, "%s, after %d of %d values", fault.msg, 1+i, len(dst))
		}
		endAt = s.r.consumed()
		var m [1]T
		if _, fault := chimpNext(&s, m[:]); fault.msg != "" {
			return corrupt(Chimp, typ, fault.off, "%s, reading the end-of-stream value after %d values", fault.msg, len(dst))
		}
		last = m[0]
	}
	if last != end {
		return corrupt(Chimp, typ, endAt/8, "value 0x%x after %d values is not the end-of-stream value 0x%x", uint64(last), len(dst), uint64(end))
	}
	if off, what, ok := s.r.endAfterFlip(); !ok {
		return corrupt(Chimp, typ, off, "%s", what)
	}
	return nil
}

// countChimp returns the number of values that decodeChimp accepts for src, the number the
// Java reader of a time column yields.
func countChimp[T xorWord](src []byte, end T, typ string) (int, error) {
	if len(src) == 0 {
		return 0, nil
	}
	var s chimpState
	if !s.start(src, xorWidth[T]()) {
		return 0, corrupt(Chimp, typ, len(src), "stream of %d bytes ends inside the first value", len(src))
	}
	// Every value takes at least one bit, so the loop ends by overrunning the stream at the
	// latest.
	var m [1]T
	for n := 0; ; n++ {
		if T(s.prev) == end {
			if _, _, ok := s.r.endAfterFlip(); ok {
				return n, nil
			}
		}
		if _, fault := chimpNext(&s, m[:]); fault.msg != "" {
			return 0, corrupt(Chimp, typ, fault.off, "%s, after %d values and no end-of-stream value", fault.msg, n+1)
		}
	}
}

// chimpEncoder is the state of the Java IntChimpEncoder or LongChimpEncoder between values.
type chimpEncoder struct {
	w     xorWriter
	first bool
	ring  [128]uint64
	index int // values written minus one; slot index%P holds the last of them
	lead  uint
	// slots maps the low bits of a value to the index of the last value with those bits.
	// Like Java's table it starts out zero, so unseen keys point at the first value.
	slots [1 << 14]int32
}

// put appends the w-bit value x.
func (e *chimpEncoder) put(x uint64, w uint) {
	p, sb, threshold := chimpParams(w)
	pmask := 1<<p - 1
	key := int(x) & (1<<(threshold+1) - 1)
	if e.first {
		e.first = false
		e.ring[0] = x
		e.slots[key] = 0
		e.w.write(x, w)
		return
	}
	var xor uint64
	var ref int
	trail := uint(0)
	if cand := int(e.slots[key]); e.index-cand <= pmask {
		ref = cand & pmask
		xor = x ^ e.ring[ref]
		trail = min(uint(bits.TrailingZeros64(xor)), w)
		if trail <= threshold {
			ref = e.index & pmask
			xor = x ^ e.ring[ref]
		}
	} else {
		ref = e.index & pmask
		xor = x ^ e.ring[ref]
	}
	switch {
	case xor == 0:
		e.w.write(uint64(ref), 2+p)
		e.lead = w + 1
	case trail > threshold:
		l := uint(chimpRound[uint(bits.LeadingZeros64(xor))-(64-w)])
		n := w - l - trail
		code := uint64(chimpCode[l])
		e.w.write(1<<(p+3+sb)|uint64(ref)<<(3+sb)|code<<sb|uint64(n), 2+p+3+sb)
		e.w.write(xor>>trail, n)
		e.lead = w + 1
	default:
		l := uint(chimpRound[uint(bits.LeadingZeros64(xor))-(64-w)])
		if l == e.lead {
			e.w.write(0b10, 2)
		} else {
			e.lead = l
			e.w.write(0b11000|uint64(chimpCode[l]), 5)
		}
		e.w.write(xor, w-l)
	}
	e.index++
	e.ring[e.index&pmask] = x
	e.slots[key] = int32(e.index)
}

// appendChimp appends v and the end-of-stream value as the Java encoder writes them.
func appendChimp[T xorWord](dst []byte, v []T, end T) []byte {
	w := xorWidth[T]()
	var e chimpEncoder
	e.w.buf = dst
	e.first = true
	e.lead = chimpNoLead
	for _, x := range v {
		e.put(uint64(x), w)
	}
	e.put(uint64(end), w)
	e.w.flip()
	return e.w.finish()
}

func init() {
	register(Chimp, valueCodec{
		decodeInt32: func(dst []int32, src []byte) error {
			return decodeChimp(xorBitsInt32(dst), src, gorillaEndInt32, typeInt32)
		},
		decodeInt64: func(dst []int64, src []byte) error {
			return decodeChimp(xorBitsInt64(dst), src, gorillaEndInt64, typeInt64)
		},
		decodeFloat32: func(dst []float32, src []byte) error {
			return decodeChimp(xorBitsFloat32(dst), src, gorillaEndFloat32, typeFloat32)
		},
		decodeFloat64: func(dst []float64, src []byte) error {
			return decodeChimp(xorBitsFloat64(dst), src, gorillaEndFloat64, typeFloat64)
		},
		countInt64: func(src []byte) (int, error) { return countChimp(src, gorillaEndInt64, typeInt64) },
		encodeInt32: func(dst []byte, v []int32) ([]byte, error) {
			return appendChimp(dst, xorBitsInt32(v), gorillaEndInt32), nil
		},
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) {
			return appendChimp(dst, xorBitsInt64(v), gorillaEndInt64), nil
		},
		encodeFloat32: func(dst []byte, v []float32) ([]byte, error) {
			return appendChimp(dst, xorBitsFloat32(v), gorillaEndFloat32), nil
		},
		encodeFloat64: func(dst []byte, v []float64) ([]byte, error) {
			return appendChimp(dst, xorBitsFloat64(v), gorillaEndFloat64), nil
		},
	})
}
