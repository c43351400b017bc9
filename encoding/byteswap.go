package encoding

import "encoding/binary"

// The PLAIN encodings of INT64, DOUBLE, FLOAT (and of PLAIN time columns)
// are big-endian words, and every machine Arrow runs on here is
// little-endian: decoding them is a byte swap of the whole stream, which
// on amd64 runs 32 bytes an instruction (byteswap_amd64.s) instead of 8.

// swapWords64Generic stores the big-endian 8-byte words of src in dst;
// len(src) == 8*len(dst).
func swapWords64Generic(dst []uint64, src []byte) {
	src = src[:8*len(dst)]
	for i := range dst {
		dst[i] = binary.BigEndian.Uint64(src[8*i : 8*i+8])
	}
}

// swapWords32Generic stores the big-endian 4-byte words of src in dst;
// len(src) == 4*len(dst).
func swapWords32Generic(dst []uint32, src []byte) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = binary.BigEndian.Uint32(src[4*i : 4*i+4])
	}
}
