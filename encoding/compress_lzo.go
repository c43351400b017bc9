package encoding

import (
	"encoding/binary"
	"fmt"
)

// LZO pages hold one raw LZO1X block: no header, no length prefix, the stream's own end
// marker last, and the exact decoded length in the page header. Only the C++ TsFile writer
// produces them (apache/tsfile cpp/src/compress/lzo_compressor.cc, the engine of the
// Python tsfile package): it calls lzokay::compress, an LZO1X-999-style compressor, and
// stores its output as is. The Java reference neither writes nor reads LZO.
//
// This is a decoder of our own, decode-only. The one pure-Go LZO1X decoder on the module
// proxy (github.com/anchore/go-lzo, v0.1.1, a fork of a port of the Linux kernel's
// decompressor) is young and would be a new dependency; the format is small enough to
// decode here with every bound checked. The format is as described in the Linux kernel's
// Documentation/staging/lzo.rst ("LZO stream format as understood by Linux's LZO
// decompressor") and as decoded by liblzo2's lzo1x_decompress_safe (lzo1x_d.ch) and by
// lzokay::decompress (apache/tsfile cpp/third_party/lzokay/lzokay.cpp), read, not copied.
// The golden vectors in testdata/lzo come from liblzo2's lzo1x_1 and lzo1x_999 compressors
// and from lzokay.
//
// An LZO1X stream is a sequence of instructions. Each instruction is an opcode byte, maybe
// length-extension bytes and distance bytes, and its low two bits S say how many literal
// bytes (0-3) follow it. How an opcode below 16 reads depends on the state the previous
// instruction left: the number of literals it copied (0, 1-3, or 4 for "4 or more"):
//
//	state 0,   0000LLLL: a run of 3+L literals (L = 0: 18 + 255*zeros + next byte)
//	state 1-3, 0000DDSS H: a 2-byte match at distance (H<<2)+D+1
//	state 4,   0000DDSS H: a 3-byte match at distance (H<<2)+D+2049
//	0001HLLL DDDDDDSS DDDDDDDD: M4, 2+L bytes (L = 0: 9 + 255*zeros + next byte) at
//	    distance 16384+(H<<14)+D; distance 16384 ends the stream
//	001LLLLL DDDDDDSS DDDDDDDD: M3, 2+L bytes (L = 0: 33 + 255*zeros + next byte) at D+1
//	01LDDDSS H: M2, 3+L bytes at distance (H<<3)+D+1
//	1LLDDDSS H: M2, 5+L bytes at distance (H<<3)+D+1
//
// The first byte of a stream is special when above 17: 18-20 copy 1-3 literals (state
// 1-3), 21-255 copy 4-238 literals (state 4). A stream starts in state 0.

func init() {
	RegisterCodec(LZO, lzoCodec{})
}

type lzoCodec struct{}

// lzoMaxRatio bounds how much an LZO1X block expands. Literals are copied one for one; an
// M2 match turns 2 bytes into at most 8; an M3 or M4 match of 4+z input bytes (opcode,
// z zero bytes, a final length byte, two distance bytes) copies at most 288+255*z bytes,
// under 255 bytes per input byte.
const lzoMaxRatio = 255

// Decompress decodes src into exactly size bytes of dst's capacity, or of a new slice when
// dst is too small. Whatever the input, it never writes outside those size bytes, never
// reads outside src, and ends: every instruction consumes input.
func (lzoCodec) Decompress(dst, src []byte, size int) ([]byte, error) {
	if err := compressCheckSize(LZO, size); err != nil {
		return nil, err
	}
	if size == 0 && len(src) == 0 {
		return dst[:0], nil
	}
	if len(src) == 0 {
		return nil, compressCorrupt(LZO, "empty block for %d bytes", size)
	}
	if size/lzoMaxRatio > len(src) {
		// Refused before size bytes are allocated for it.
		return nil, compressCorrupt(LZO, "a block of %d bytes cannot decode to the %d bytes the page header says", len(src), size)
	}
	out := compressOut(dst, size)
	if err := lzoDecode(out, src); err != nil {
		return nil, err
	}
	return out, nil
}

// Compress refuses: tsarrow reads LZO pages but does not write them, as the Java writer
// does not either. Writers fail with this error rather than store another compression.
func (lzoCodec) Compress(dst, src []byte) ([]byte, error) {
	return nil, compressUnsupported(LZO, "tsarrow reads LZO pages but does not write them; choose SNAPPY, LZ4, ZSTD, GZIP or LZMA2")
}

// lzoError reports a malformed block at input offset ip and output offset op.
func lzoError(what string, ip, op int) error {
	return compressCorrupt(LZO, "%s at block offset %d (%d bytes decoded)", what, ip, op)
}

// lzoLength reads the length-extension bytes of an instruction whose length field is
// zero: each zero byte adds 255, and the first non-zero byte b ends them with base+b.
// It gives up once the length exceeds limit, the bytes left to decode, so a run of zeros
// never makes the length overflow.
func lzoLength(src []byte, ip, op, base, limit int) (n, next int, err error) {
	start := ip
	for ip < len(src) {
		b := src[ip]
		ip++
		if b != 0 {
			return n + base + int(b), ip, nil
		}
		n += 255
		if n > limit {
			return 0, ip, lzoError("length runs past the page size", start, op)
		}
	}
	return 0, ip, lzoError("block ends inside a length", start, op)
}

// lzoDecode decodes the LZO1X block src into out, which it must fill exactly: the end
// marker must come with out full and be the last bytes of src.
func lzoDecode(out, src []byte) error {
	ip, op := 0, 0
	state := 0
	// The first byte may be a literal run of its own form.
	if t := int(src[0]); t > 17 {
		t -= 17
		if len(src)-1 < t {
			return lzoError("literal run past the end of the block", 0, 0)
		}
		if len(out) < t {
			return lzoError("literal run past the page size", 0, 0)
		}
		copy(out, src[1:1+t])
		ip, op = 1+t, t
		state = min(t, 4)
	}
	for {
		if ip >= len(src) {
			return lzoError("block ends without its end marker", ip, op)
		}
		at := ip
		t := int(src[ip])
		ip++
		var length, dist, next int
		switch {
		case t >= 64: // M2
			if ip >= len(src) {
				return lzoError("block ends inside a match", at, op)
			}
			length = t>>5 + 1
			dist = (t>>2)&7 + int(src[ip])<<3 + 1
			ip++
			next = t & 3
		case t >= 16: // M3 (t >= 32); M4, or the end marker
			// Both carry a length field (5 bits in M3, 3 in M4) and a
			// little-endian 16-bit word of distance bits and the next
			// literal count.
			mask := 7
			if t >= 32 {
				mask = 31
			}
			length = t & mask
			if length == 0 {
				var err error
				if length, ip, err = lzoLength(src, ip, op, mask, len(out)-op); err != nil {
					return err
				}
			}
			length += 2
			if len(src)-ip < 2 {
				return lzoError("block ends inside a match", at, op)
			}
			d := int(src[ip]) | int(src[ip+1])<<8
			ip += 2
			next = d & 3
			if t >= 32 {
				dist = d>>2 + 1
				break
			}
			dist = (t&8)<<11 + d>>2
			if dist == 0 {
				// Every compressor ends a block with 0x11 0x00 0x00. liblzo2 accepts any
				// length field in the marker; lzokay's decoder, the C++ writer's own,
				// requires 3 (opcode 0x11), and so does this one.
				if t != 0x11 {
					return lzoError(fmt.Sprintf("end marker with opcode %#02x, not 0x11", t), at, op)
				}
				if ip != len(src) {
					return lzoError(fmt.Sprintf("%d byte(s) after the end marker", len(src)-ip), ip, op)
				}
				if op != len(out) {
					return compressShort(LZO, op, len(out))
				}
				return nil
			}
			dist += 16384
		case state == 0: // a literal run
			length = t
			if length == 0 {
				var err error
				if length, ip, err = lzoLength(src, ip, op, 15, len(out)-op); err != nil {
					return err
				}
			}
			length += 3
			if len(src)-ip < length {
				return lzoError("literal run past the end of the block", at, op)
			}
			if len(out)-op < length {
				return lzoError("literal run past the page size", at, op)
			}
			copy(out[op:], src[ip:ip+length])
			ip += length
			op += length
			state = 4
			continue
		default: // M1: a short match whose meaning depends on the literals before it
			if ip >= len(src) {
				return lzoError("block ends inside a match", at, op)
			}
			dist = t>>2 + int(src[ip])<<2 + 1
			ip++
			length = 2
			if state == 4 {
				dist += 2048
				length = 3
			}
			next = t & 3
		}
		if dist > op {
			return lzoError(fmt.Sprintf("match distance %d reaches before the start of the page", dist), at, op)
		}
		if len(out)-op < length+next {
			return lzoError("match past the page size", at, op)
		}
		if len(src)-ip < next {
			return lzoError("literals past the end of the block", at, op)
		}
		from := op - dist
		if length <= 8 && dist >= 8 && len(out)-op >= 8 {
			// Most matches are short: one 8-byte move, whose excess bytes past the
			// match stay inside out and are overwritten by what follows.
			binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(out[from:]))
			op += length
		} else {
			// A match may overlap its own output (distance < length), repeating a
			// pattern; copying what is already there doubles the span each round.
			end := op + length
			for op < end {
				op += copy(out[op:end], out[from:op])
			}
		}
		if next > 0 {
			if len(src)-ip >= 4 && len(out)-op >= 4 {
				binary.LittleEndian.PutUint32(out[op:], binary.LittleEndian.Uint32(src[ip:]))
			} else {
				copy(out[op:op+next], src[ip:])
			}
			op += next
			ip += next
		}
		state = next
	}
}
