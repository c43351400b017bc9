package encoding

import (
	"encoding/binary"
	"math/bits"
)

// A GORILLA_V1 stream is what the Java GorillaEncoderV1 family (SinglePrecisionEncoderV1 for
// FLOAT, DoublePrecisionEncoderV1 for DOUBLE) writes. Values are handled as their raw w-bit
// patterns, w = 32 or 64; a and b are 5 and 6 for FLOAT, 6 and 7 for DOUBLE:
//
//	first value   w/8 bytes, little-endian
//	then an MSB-first bit stream with, for every later value x, xor = previous value ^ x:
//	  '0'                                    xor == 0
//	  '10' + bits w-1-lead .. trail of xor   lead and trail are the leading and trailing
//	                                         zero counts of the previous VALUE (not of the
//	                                         previous xor); used when xor has at least as many
//	  '11' + a bits lead + b bits len        lead and len = w-lead-trail of xor itself
//	       + len bits of xor>>trail
//
// After the last value the encoder writes NaN (0x7fc00000 or 0x7ff8000000000000) as one more
// value, then zero bits up to the next byte boundary. An encoder flushed without values writes
// just the NaN as its first value.
//
// The Java reader (GorillaDecoderV1, DoublePrecisionDecoderV1, SinglePrecisionDecoderV1 in
// apache/tsfile) takes any NaN that a '10' or '11' control produces after the first value as
// the end: it sets isEnd, after which readBit loads no more bytes, so the rest of the current
// byte decodes as garbage and every later value as a repetition of the last one (NaN or
// garbage), with no error (the first value, and a NaN repeated as '0', are not checked). NaN
// data thus silently ends a Java read early, and the Java encoder writes such streams. This
// encoder writes them too, to stay byte for byte the Java one; tsfile.Writer refuses NaN
// under GORILLA_V1 before encoding.
// This package decodes exactly len(dst) values, NaN or not, and then requires a NaN and the
// padding. As in GORILLA, one more
// repetition of the NaN usually fits the padding, so a stream also decodes as one value more
// than was written when the last value written was itself that NaN.

const (
	gorillaV1NaN32 = uint32(0x7fc00000)
	gorillaV1NaN64 = uint64(0x7ff8000000000000)
)

// gorillaV1IsNaN reports whether the w-bit pattern x is a NaN.
func gorillaV1IsNaN(x uint64, w uint) bool {
	if w == 32 {
		return x&0x7fffffff > 0x7f800000
	}
	return x&^(1<<63) > 0x7ff0000000000000
}

// gorillaV1Next decodes len(out) values following *prev from r into out. On failure it
// returns how many it had decoded and what went wrong; msg is empty on success.
func gorillaV1Next[T xorWord](r *xorReader, prev *uint64, out []T) (int, xorFault) {
	w := xorWidth[T]()
	a := 5 + w/64 // bits of the lead field; the len field has one more
	amask, bmask := uint64(1)<<a-1, uint64(1)<<(a+1)-1
	// Local copies keep the state in registers through the loop.
	src, acc, n, pos := r.src, r.acc, r.n, r.pos
	x := *prev
	var fault xorFault
	var field uint64
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
			var shift, k uint
			if acc>>62 == 2 { // '10': the window of the previous value
				if x == 0 {
					// The Java decoder would read a negative number of bits; no writer does this.
					fault = xorFault{(8*pos - int(n)) / 8, "control bits '10' after a zero value"}
					break
				}
				acc <<= 2
				n -= 2
				shift = gorillaV1Trailing(x)
				k = w - gorillaV1Leading(x, w) - shift
			} else { // '11': an explicit window
				h := acc >> (64 - (2 + 2*a + 1))
				acc <<= 2 + 2*a + 1
				n -= 2 + 2*a + 1
				lead := uint(h>>(a+1)) & uint(amask)
				k = uint(h & bmask)
				if k == 0 || lead+k > w {
					fault = xorFault{(8*pos - int(n) - int(2+2*a+1)) / 8, "window of leading zeros and significant bits is empty or exceeds the value width"}
					break
				}
				shift = w - lead - k
			}
			if k <= n { // xorGet, inlined by hand
				field = acc >> (64 - k)
				acc <<= k
				n -= k
			} else {
				field, acc, n, pos = xorGetSlow(src, acc, n, pos, k)
			}
			x ^= field << shift
		}
		if pos > len(src) && 8*pos-int(n) > 8*len(src) {
			fault = xorFault{len(src), "stream ends inside a value"}
			break
		}
		out[i] = T(x)
	}
	r.acc, r.n, r.pos = acc, n, pos
	*prev = x
	return i, fault
}

// gorillaV1Leading and gorillaV1Trailing count the zero bits of a non-zero w-bit value x.
func gorillaV1Leading(x uint64, w uint) uint { return uint(bits.LeadingZeros64(x)) - (64 - w) }
func gorillaV1Trailing(x uint64) uint        { return uint(bits.TrailingZeros64(x)) }

// decodeGorillaV1 decodes exactly len(dst) values of a complete stream into dst.
func decodeGorillaV1[T xorWord](dst []T, src []byte, typ string) error {
	if len(dst) == 0 && len(src) == 0 {
		return nil // no writer flushes an empty encoder, but an empty stream holds no values
	}
	w := xorWidth[T]()
	size := int(w / 8)
	if len(src) < size {
		return corrupt(GorillaV1, typ, len(src), "stream of %d bytes ends inside the first value", len(src))
	}
	var x uint64
	if w == 32 {
		x = uint64(binary.LittleEndian.Uint32(src))
	} else {
		x = binary.LittleEndian.Uint64(src)
	}
	r := newXORReader(src, size)
	last := T(x) // the NaN when dst is empty
	endAt := 0   // the bit where it starts
	if len(dst) > 0 {
		dst[0] = last
		if i, fault := gorillaV1Next(&r, &x, dst[1:]); fault.msg != "" {
			return corrupt(GorillaV1, typ, fault.off, "%s, after %d of %d values", fault.msg, 1+i, len(dst))
		}
		endAt = r.consumed()
		var m [1]T
		if _, fault := gorillaV1Next(&r, &x, m[:]); fault.msg != "" {
			return corrupt(GorillaV1, typ, fault.off, "%s, reading the end-of-stream NaN after %d values", fault.msg, len(dst))
		}
		last = m[0]
	}
	if !gorillaV1IsNaN(uint64(last), w) {
		return corrupt(GorillaV1, typ, endAt/8, "value 0x%x after %d values is not the end-of-stream NaN", uint64(last), len(dst))
	}
	if off, what, ok := r.endAfterPad(); !ok {
		return corrupt(GorillaV1, typ, off, "%s", what)
	}
	return nil
}

// gorillaV1Encoder is the state of the Java GorillaEncoderV1 between values.
type gorillaV1Encoder struct {
	w     xorWriter
	first bool
	prev  uint64
}

// put appends the w-bit value x.
func (e *gorillaV1Encoder) put(x uint64, w uint) {
	if e.first {
		e.first = false
		e.prev = x
		if w == 32 {
			e.w.buf = binary.LittleEndian.AppendUint32(e.w.buf, uint32(x))
		} else {
			e.w.buf = binary.LittleEndian.AppendUint64(e.w.buf, x)
		}
		return
	}
	xor := e.prev ^ x
	prev := e.prev
	e.prev = x
	if xor == 0 {
		e.w.write(0, 1)
		return
	}
	lead := uint(bits.LeadingZeros64(xor)) - (64 - w)
	trail := uint(bits.TrailingZeros64(xor))
	// A zero previous value has w leading and trailing zeros, which no non-zero xor matches.
	prevLead := uint(bits.LeadingZeros64(prev)) - (64 - w)
	prevTrail := min(uint(bits.TrailingZeros64(prev)), w)
	if prev != 0 && lead >= prevLead && trail >= prevTrail {
		e.w.write(0b10, 2)
		e.w.write(xor>>prevTrail, w-prevLead-prevTrail)
		return
	}
	a := 5 + w/64
	n := w - lead - trail
	e.w.write(0b11<<(2*a+1)|uint64(lead)<<(a+1)|uint64(n), 2+2*a+1)
	e.w.write(xor>>trail, n)
}

// appendGorillaV1 appends v and the end-of-stream NaN as the Java encoder writes them.
func appendGorillaV1[T xorWord](dst []byte, v []T, nan T) []byte {
	w := xorWidth[T]()
	e := gorillaV1Encoder{w: xorWriter{buf: dst}, first: true}
	for _, x := range v {
		e.put(uint64(x), w)
	}
	e.put(uint64(nan), w)
	e.w.padToByte()
	return e.w.finish()
}

func init() {
	register(GorillaV1, valueCodec{
		decodeFloat32: func(dst []float32, src []byte) error {
			return decodeGorillaV1(xorBitsFloat32(dst), src, typeFloat32)
		},
		decodeFloat64: func(dst []float64, src []byte) error {
			return decodeGorillaV1(xorBitsFloat64(dst), src, typeFloat64)
		},
		encodeFloat32: func(dst []byte, v []float32) ([]byte, error) {
			return appendGorillaV1(dst, xorBitsFloat32(v), gorillaV1NaN32), nil
		},
		encodeFloat64: func(dst []byte, v []float64) ([]byte, error) {
			return appendGorillaV1(dst, xorBitsFloat64(v), gorillaV1NaN64), nil
		},
	})
}
