package encoding

// TsFile's VarInt is a ZigZag-mapped 32-bit value written as an unsigned LEB128 UVarInt of one
// to five bytes (Binary-Representation.md). encoding/binary's varints are 64-bit and would
// accept values that do not fit a 32-bit field, so the 32-bit forms are implemented here.

// maxVarintLen32 is the longest UVarInt that can carry 32 bits.
const maxVarintLen32 = 5

// appendUvarint32 appends v in its shortest UVarInt form.
func appendUvarint32(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// uvarint32 decodes a UVarInt from the start of b and returns it with the number of bytes
// read. n == 0 means b ended inside the varint; n < 0 means the encoding needs more than
// 32 bits, either through a sixth byte or through high bits set in the fifth.
//
// Overlong but in-range forms (such as 0x80 0x00 for zero) are accepted, as the Java reader
// accepts them; writers never produce them.
func uvarint32(b []byte) (v uint32, n int) {
	for i := 0; i < maxVarintLen32; i++ {
		if i == len(b) {
			return 0, 0
		}
		c := b[i]
		if i == maxVarintLen32-1 && c > 0x0f {
			return 0, -1
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	panic("unreachable")
}

// zigzag32 maps signed values to unsigned ones so that small magnitudes get short varints.
func zigzag32(v int32) uint32 { return uint32(v<<1) ^ uint32(v>>31) }

// unzigzag32 inverts zigzag32.
func unzigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
