package encoding

// The C++ TsFile writer of early 2025 (the engine under the Python tsfile package) writes
// FLOAT and DOUBLE under TS_2DIFF as the delta-of-delta of the raw IEEE-754 bits: each value's
// bits as an int32 (FLOAT) or int64 (DOUBLE) go through the ordinary TS_2DIFF block layout
// (ts2diff.go), with no leading max_point_number and no scaling. The bits are stored exactly,
// so NaN payloads, signed zeros and subnormals survive. (apache/tsfile
// cpp/src/encoding/ts2diff_encoder.h, FloatTS2DIFFEncoder and DoubleTS2DIFFEncoder before PR
// #796, and ts2diff_decoder.h, whose decoder reads them back the same way.)
//
// Later upstream made the Java layout (floatscaled.go: max_point_number, then the scaled
// integers) the one cross-language rule for FLOAT/DOUBLE TS_2DIFF, and newer C++ writers
// follow it (apache/tsfile PRs #796 and #901, cpp/docs/ts2diff-float-double-wire-format.md,
// whose C++ reader refuses the raw-bits layout); the raw-bits layout is read here only as
// that one writer's quirk, as issue 30 asks.
//
// Two details of that encoder matter to a reader only in that they cannot be undone:
//   - A block's bit width is computed from max-min of its deltas in the value's own signed
//     width, and a difference of 2^31 (2^63) or more wraps negative, which the encoder turns
//     into width 0: every delta of such a block is then read back as the block's minimum.
//     It happens when one block mixes large positive and negative deltas, as in 0, -1, 0.
//     Those values are lost in the file; the page statistics show it.
//   - A block of one value (no deltas) repeats the previous block's width and minimum in its
//     header. With no deltas, no packed bytes follow whatever the width, so this reads fine.

// DecodeTS2DiffFloat32Bits decodes exactly len(dst) FLOAT values from src, a TS_2DIFF stream
// of the raw IEEE-754 bits of each value as an int32, with no max_point_number: the layout of
// the C++ TsFile writer of early 2025. src must be consumed exactly as for [DecodeBool].
func DecodeTS2DiffFloat32Bits(dst []float32, src []byte) error {
	// float32 and int32 share size and alignment: the decoded bits are the floats.
	return decodeTS2Diff(scaledInt32View(dst), src, 4, typeFloat32)
}

// DecodeTS2DiffFloat64Bits decodes exactly len(dst) DOUBLE values from src, a TS_2DIFF
// stream of the raw IEEE-754 bits of each value as an int64, as for
// [DecodeTS2DiffFloat32Bits].
func DecodeTS2DiffFloat64Bits(dst []float64, src []byte) error {
	return decodeTS2Diff(scaledInt64View(dst), src, 8, typeFloat64)
}

// TS2DiffFloatBits reports whether src, the TS_2DIFF stream of n FLOAT (size 4) or DOUBLE
// (size 8) values, is laid out as raw IEEE-754 bits (see [DecodeTS2DiffFloat32Bits]) rather
// than in the Java layout that begins with max_point_number. It checks only the framing of
// the blocks, not their values, and costs a pass over the block headers.
//
// The two layouts differ in their first byte: a raw-bits stream starts with a block header,
// whose int32 delta count (at most 128 from that writer) begins with 0x00, while the Java
// layout starts with the UVarInt max_point_number, 0x02 from every writer's default
// precision of 2 and 0xFE or 0xFF for the overflow markers of newer Java writers. Only a
// Java stream written with precision 0 also starts with 0x00, so such a stream is taken as
// raw bits only when its blocks frame exactly n values from byte 0 and do not from byte 1.
func TS2DiffFloatBits(src []byte, n, size int) bool {
	if n == 0 || len(src) == 0 || src[0] != 0 || (size != 4 && size != 8) {
		return false
	}
	if c, err := countTS2Diff(src, size, ""); err != nil || c != n {
		return false
	}
	c, err := countTS2Diff(src[1:], size, "")
	return err != nil || c != n
}

// AppendTS2DiffFloat32Bits appends v encoded as the C++ TsFile writer of early 2025 encodes
// FLOAT under TS_2DIFF, byte for byte as its encoder writes one page from a fresh encoder,
// including the width-0 blocks of the first note above. It exists so that tests and tools
// can build such files; tsarrow's writer uses the Java layout.
func AppendTS2DiffFloat32Bits(dst []byte, v []float32) []byte {
	return appendCppTS2Diff(dst, scaledInt32View(v), 4)
}

// AppendTS2DiffFloat64Bits is [AppendTS2DiffFloat32Bits] for DOUBLE.
func AppendTS2DiffFloat64Bits(dst []byte, v []float64) []byte {
	return appendCppTS2Diff(dst, scaledInt64View(v), 8)
}

// appendCppTS2Diff reproduces TS2DIFFEncoder<T>::do_encode and flush of the C++ writer (see
// the file comment): blocks of a first value and up to TS2DiffBlockSize deltas, the width
// from the wrapping signed max-min (0 when that is not positive), and a lone value's block
// repeating the previous block's minimum and width.
func appendCppTS2Diff[T int32 | int64](dst []byte, v []T, size int) []byte {
	var lo, hi T // delta_arr_min_ and delta_arr_max_, kept across blocks
	for len(v) > 0 {
		n := min(len(v), TS2DiffBlockSize+1)
		block := v[:n]
		v = v[n:]
		for j := 1; j < n; j++ {
			d := block[j] - block[j-1]
			if j == 1 {
				lo, hi = d, d
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		width := uint(0)
		for r := hi - lo; r > 0; r >>= 1 {
			width++
		}
		dst = appendTS2DiffHeader(dst, n-1, width, size, lo, block[0])
		if width == 0 || n == 1 {
			continue
		}
		w := bitWriter{buf: dst}
		for j := 1; j < n; j++ {
			w.write(uint64(block[j]-block[j-1]-lo)&(1<<width-1), width)
		}
		dst = w.finish()
	}
	return dst
}
