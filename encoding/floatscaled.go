package encoding

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
	"unsafe"
)

// Under RLE and TS_2DIFF, FLOAT and DOUBLE values are stored as scaled integers, laid out as the
// Java FloatEncoder writes them:
//
//	UVarInt p  max_point_number, written with the first value (a stream of no values is just
//	           the inner encoder's output: 0x00 for RLE, nothing for TS_2DIFF)
//	stream     the RLE or TS_2DIFF stream of k = round(v * 10^p), INT32 for FLOAT and INT64
//	           for DOUBLE
//
// A reader returns float32(float64(k) / 10^p) for FLOAT and float64(k) / 10^p for DOUBLE; p is
// read as a Java int and a value of 0 or less (including UVarInts of 2^31 and more) means a
// scale of 1. For p up to 22, 10^p is exact and matches Java bit for bit; beyond that this
// package uses the correctly rounded power, where Java's Math.pow is only specified to within
// one ulp.
//
// The writer uses p = 2 (TSFileConfig's floatPrecision) and Java's rounding: Math.round, that
// is the nearest integer with ties toward +Inf, NaN as 0, and values outside the int64 range
// saturated. FLOAT then keeps only the low 32 bits of that int64, as Java's (int) cast does.
// The encoding is therefore lossy: -0.0 reads as +0.0, NaN as 0, DOUBLE +Inf and -Inf as
// ±9.223372036854776e16, FLOAT +Inf as -0.01 (MaxInt64 truncates to -1), FLOAT -Inf as 0
// (MinInt64 truncates to 0), and a FLOAT beyond ±2^31/100 wraps around.

// scaledPrecision is the max_point_number the writer records, and scaledFactor is 10^scaledPrecision.
const (
	scaledPrecision = 2
	scaledFactor    = 100.0
)

// scaledRound is Java's Math.round(double): floor(a + 1/2) computed exactly, 0 for NaN, and
// saturated at the ends of the int64 range.
func scaledRound(a float64) int64 {
	b := math.Float64bits(a)
	exp := int(b>>52) & 0x7ff
	// |a| = m * 2^(exp-1075) for the 53-bit significand m, so m >> shift is floor(2a) for
	// the exponents where that shift is meaningful.
	if shift := 1074 - exp; shift >= 0 && shift < 64 {
		m := int64(b&(1<<52-1) | 1<<52)
		if int64(b) < 0 {
			m = -m
		}
		return (m>>shift + 1) >> 1
	}
	// Now a is NaN, an integer of magnitude at least 2^52, or of magnitude below 2^-12.
	switch {
	case a != a:
		return 0
	case a >= 1<<63:
		return math.MaxInt64
	case a < -1<<63:
		return math.MinInt64
	}
	return int64(a)
}

func scaledFloat32(v float32) int32 { return int32(scaledRound(float64(v) * scaledFactor)) }
func scaledFloat64(v float64) int64 { return scaledRound(v * scaledFactor) }

// scaledPointScale returns 10^p for the max_point_number field p as Java computes it.
func scaledPointScale(p uint32) float64 {
	if int32(p) <= 0 {
		return 1
	}
	return math.Pow10(int(p)) // +Inf beyond 308, as Math.pow gives
}

// Newer Java writers (apache/tsfile java/tsfile/src/main/java/org/apache/tsfile/encoding/
// encoder/FloatEncoder.java since PRs #342 and #412, early 2025) keep values that cannot be
// scaled: when a page has any, its stream starts with an overflow section before
// max_point_number,
//
//	UVarInt marker     2^31-1, or 2^31-2 when some value is stored as its raw bits
//	UVarInt size       the page's value count
//	byte[size/8+1]     scaled: bit i (LSB first) set when value i is round(v * 10^p)
//	byte[size/8+1]     raw, only under 2^31-2: bit i set when value i is its IEEE-754 bits
//	                   (NaN, or beyond the int32 / int64 range)
//
// and a value marked in neither is round(v) without scaling (v * 10^p beyond the range, v
// within it). The section and the bitmaps cover the whole page, across TS_2DIFF blocks. This
// is the layout upstream made the cross-language rule, which newer C++ writers follow as well
// (apache/tsfile cpp/docs/ts2diff-float-double-wire-format.md, PRs #796 and #901). The C++
// writers between those two PRs wrote the section and max_point_number before every block
// instead; upstream's readers refuse that layout as a format error, and so does this one
// (the second block's header does not parse), except for pages of one block, where the two
// layouts agree.
const (
	scaledOverflowMarker    = 1<<31 - 1
	scaledRawOverflowMarker = 1<<31 - 2
)

// scaledKinds are the bitmaps of an overflow section; nil when the stream has none.
type scaledKinds struct {
	scaled, raw []byte // raw is nil under scaledOverflowMarker
}

// scaledHeader reads the max_point_number field at the start of a non-empty src of n values,
// after any overflow section, and returns the scale, the offset of the integer stream and
// the overflow section's bitmaps (nil without one).
func scaledHeader(enc Encoding, typ string, src []byte, n int) (float64, int, *scaledKinds, error) {
	p, k := uvarint32(src)
	if k <= 0 {
		return 0, 0, nil, rleBadVarint(enc, typ, 0, k, "max_point_number")
	}
	if p != scaledOverflowMarker && p != scaledRawOverflowMarker {
		return scaledPointScale(p), k, nil, nil
	}
	off := k
	size, k := uvarint32(src[off:])
	if k <= 0 {
		return 0, 0, nil, rleBadVarint(enc, typ, off, k, "overflow section size")
	}
	if int64(size) != int64(n) {
		return 0, 0, nil, corrupt(enc, typ, off, "overflow section covers %d values, the page holds %d", size, n)
	}
	off += k
	bm := n/8 + 1 // Java BitMap(size).getByteArray()
	maps := 1
	if p == scaledRawOverflowMarker {
		maps = 2
	}
	if len(src)-off < maps*bm {
		return 0, 0, nil, corrupt(enc, typ, off, "overflow section needs %d bitmap bytes, %d left", maps*bm, len(src)-off)
	}
	kinds := &scaledKinds{scaled: src[off : off+bm]}
	off += bm
	if maps == 2 {
		kinds.raw = src[off : off+bm]
		off += bm
	}
	p, k = uvarint32(src[off:])
	if k <= 0 {
		return 0, 0, nil, rleBadVarint(enc, typ, off, k, "max_point_number")
	}
	return scaledPointScale(p), off + k, kinds, nil
}

func (s *scaledKinds) isRaw(i int) bool    { return s.raw != nil && s.raw[i>>3]>>(i&7)&1 != 0 }
func (s *scaledKinds) isScaled(i int) bool { return s.scaled[i>>3]>>(i&7)&1 != 0 }

// scaledUnscaleKinds32 is scaledUnscale32 for a stream with an overflow section: raw values
// are already their bits in place.
func scaledUnscaleKinds32(dst []float32, k []int32, scale float64, s *scaledKinds) {
	for i, x := range k {
		switch {
		case s.isRaw(i):
		case s.isScaled(i):
			dst[i] = float32(float64(x) / scale)
		default:
			dst[i] = float32(x)
		}
	}
}

func scaledUnscaleKinds64(dst []float64, k []int64, scale float64, s *scaledKinds) {
	for i, x := range k {
		switch {
		case s.isRaw(i):
		case s.isScaled(i):
			dst[i] = float64(x) / scale
		default:
			dst[i] = float64(x)
		}
	}
}

func unscale32(dst []float32, k []int32, scale float64, s *scaledKinds) {
	if s != nil {
		scaledUnscaleKinds32(dst, k, scale, s)
		return
	}
	scaledUnscale32(dst, k, scale)
}

func unscale64(dst []float64, k []int64, scale float64, s *scaledKinds) {
	if s != nil {
		scaledUnscaleKinds64(dst, k, scale, s)
		return
	}
	scaledUnscale64(dst, k, scale)
}

// The integer stream is decoded in place: float32 and int32, float64 and int64 have the same
// size and alignment, and every integer is read before its slot is overwritten.
func scaledInt32View(f []float32) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
}

func scaledInt64View(f []float64) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
}

func scaledUnscale32(dst []float32, k []int32, scale float64) {
	for i, x := range k {
		dst[i] = float32(float64(x) / scale)
	}
}

func scaledUnscale64(dst []float64, k []int64, scale float64) {
	for i, x := range k {
		dst[i] = float64(x) / scale
	}
}

// scaledNoValues checks a stream for n values where n or len(src) is zero. For no values the
// stream must be what the Java writer leaves: nothing, or for RLE the inner encoder's empty
// package 0x00 (the header is only written with the first value).
func scaledNoValues(enc Encoding, typ string, n int, src []byte) error {
	switch {
	case n > 0:
		return corrupt(enc, typ, 0, "empty stream cannot hold %d values", n)
	case len(src) == 0, enc == RLE && len(src) == 1 && src[0] == 0:
		return nil
	}
	return corrupt(enc, typ, 0, "%d bytes for no values", len(src))
}

func decodeRLEFloat32(dst []float32, src []byte) error {
	if len(dst) == 0 || len(src) == 0 {
		return scaledNoValues(RLE, typeFloat32, len(dst), src)
	}
	scale, start, kinds, err := scaledHeader(RLE, typeFloat32, src, len(dst))
	if err != nil {
		return err
	}
	k := scaledInt32View(dst)
	if err := decodeRLE(k, src, start, 4, typeFloat32); err != nil {
		return err
	}
	unscale32(dst, k, scale, kinds)
	return nil
}

func decodeRLEFloat64(dst []float64, src []byte) error {
	if len(dst) == 0 || len(src) == 0 {
		return scaledNoValues(RLE, typeFloat64, len(dst), src)
	}
	scale, start, kinds, err := scaledHeader(RLE, typeFloat64, src, len(dst))
	if err != nil {
		return err
	}
	k := scaledInt64View(dst)
	if err := decodeRLE(k, src, start, 8, typeFloat64); err != nil {
		return err
	}
	unscale64(dst, k, scale, kinds)
	return nil
}

// scaledAfterHeader marks an error of the TS_2DIFF decoder, whose offsets count from the start of
// the integer stream, with where that stream starts.
func scaledAfterHeader(typ string, start int, err error) error {
	return fmt.Errorf("encoding: TS_2DIFF %s integer stream starting at byte %d (the offsets that follow count from there): %w", typ, start, err)
}

func decodeTS2DiffFloat32(dst []float32, src []byte) error {
	if len(dst) == 0 || len(src) == 0 {
		return scaledNoValues(TS2Diff, typeFloat32, len(dst), src)
	}
	scale, start, kinds, err := scaledHeader(TS2Diff, typeFloat32, src, len(dst))
	if err != nil {
		return err
	}
	k := scaledInt32View(dst)
	if err := decodeTS2Diff(k, src[start:], 4, typeFloat32); err != nil {
		return scaledAfterHeader(typeFloat32, start, err)
	}
	unscale32(dst, k, scale, kinds)
	return nil
}

func decodeTS2DiffFloat64(dst []float64, src []byte) error {
	if len(dst) == 0 || len(src) == 0 {
		return scaledNoValues(TS2Diff, typeFloat64, len(dst), src)
	}
	scale, start, kinds, err := scaledHeader(TS2Diff, typeFloat64, src, len(dst))
	if err != nil {
		return err
	}
	k := scaledInt64View(dst)
	if err := decodeTS2Diff(k, src[start:], 8, typeFloat64); err != nil {
		return scaledAfterHeader(typeFloat64, start, err)
	}
	unscale64(dst, k, scale, kinds)
	return nil
}

func appendRLEFloat32(dst []byte, v []float32) ([]byte, error) {
	if len(v) == 0 {
		return append(dst, 0), nil // the inner encoder's empty package; Java writes no header
	}
	orig := len(dst)
	dst = appendUvarint32(dst, scaledPrecision)
	var or uint32
	for _, x := range v {
		or |= uint32(scaledFloat32(x))
	}
	e := beginRLE[int32](dst, max(uint(bits.Len32(or)), 1), 4)
	for _, x := range v {
		e.add(scaledFloat32(x))
	}
	out, err := e.finish()
	if err != nil {
		return dst[:orig], err
	}
	return out, nil
}

func appendRLEFloat64(dst []byte, v []float64) ([]byte, error) {
	if len(v) == 0 {
		return append(dst, 0), nil
	}
	orig := len(dst)
	dst = appendUvarint32(dst, scaledPrecision)
	var or uint64
	for _, x := range v {
		or |= uint64(scaledFloat64(x))
	}
	e := beginRLE[int64](dst, max(uint(bits.Len64(or)), 1), 8)
	for _, x := range v {
		e.add(scaledFloat64(x))
	}
	out, err := e.finish()
	if err != nil {
		return dst[:orig], err
	}
	return out, nil
}

// scaledScratch holds the scaled integers handed to the TS_2DIFF encoder between calls.
var scaledScratch32, scaledScratch64 sync.Pool

func scaledGetScratch[T int32 | int64](pool *sync.Pool, n int) *[]T {
	p, _ := pool.Get().(*[]T)
	if p == nil {
		p = new([]T)
	}
	if cap(*p) < n {
		*p = make([]T, n)
	}
	*p = (*p)[:n]
	return p
}

func appendTS2DiffFloat32(dst []byte, v []float32) ([]byte, error) {
	if len(v) == 0 {
		return dst, nil
	}
	p := scaledGetScratch[int32](&scaledScratch32, len(v))
	k := *p
	for i, x := range v {
		k[i] = scaledFloat32(x)
	}
	dst = appendTS2Diff(appendUvarint32(dst, scaledPrecision), k, 4)
	scaledScratch32.Put(p)
	return dst, nil
}

func appendTS2DiffFloat64(dst []byte, v []float64) ([]byte, error) {
	if len(v) == 0 {
		return dst, nil
	}
	p := scaledGetScratch[int64](&scaledScratch64, len(v))
	k := *p
	for i, x := range v {
		k[i] = scaledFloat64(x)
	}
	dst = appendTS2Diff(appendUvarint32(dst, scaledPrecision), k, 8)
	scaledScratch64.Put(p)
	return dst, nil
}

func init() {
	register(RLE, valueCodec{
		decodeFloat32: decodeRLEFloat32,
		decodeFloat64: decodeRLEFloat64,
		encodeFloat32: appendRLEFloat32,
		encodeFloat64: appendRLEFloat64,
	})
	register(TS2Diff, valueCodec{
		decodeFloat32: decodeTS2DiffFloat32,
		decodeFloat64: decodeTS2DiffFloat64,
		encodeFloat32: appendTS2DiffFloat32,
		encodeFloat64: appendTS2DiffFloat64,
	})
}

// ScaledFloatFormat reads how the FLOAT or DOUBLE stream src of n values, under RLE or
// TS_2DIFF in the Java layout, scaled its values: the scale 10^max_point_number it was
// written with, whether it has an overflow section (values stored unscaled or, with raw, as
// their IEEE-754 bits), and ok false when src is empty or its header does not parse (the
// decoder reports that). It reads the header only, for page verification, which must know
// what the encoder did to the values its statistics were computed from.
func ScaledFloatFormat(src []byte, n int) (scale float64, overflow, raw, ok bool) {
	if n == 0 || len(src) == 0 {
		return 0, false, false, false
	}
	scale, _, kinds, err := scaledHeader(TS2Diff, "", src, n)
	if err != nil {
		return 0, false, false, false
	}
	return scale, kinds != nil, kinds != nil && kinds.raw != nil, true
}

// JavaRound is Java's Math.round(double): the nearest integer with ties toward +Inf, 0 for
// NaN, and saturated at the ends of the int64 range. The lossy FLOAT/DOUBLE encoders round
// with it.
func JavaRound(a float64) int64 { return scaledRound(a) }

// ScaledFloat32Keeps reports whether the FLOAT encoder of RLE and TS_2DIFF stores v as
// itself up to rounding to scaledPrecision decimals: not a NaN (stored as 0), and
// round(v * 10^p) within the int range (beyond it the int cast wraps around). Writers
// refuse the values it does not keep: every reader, upstream's included, would read
// another value without a word.
func ScaledFloat32Keeps(v float32) bool {
	k := scaledRound(float64(v) * scaledFactor)
	return v == v && k >= math.MinInt32 && k <= math.MaxInt32
}

// ScaledFloat64Keeps is ScaledFloat32Keeps for DOUBLE, whose encoder clamps v * 10^p at
// the ends of the long range (infinities included).
func ScaledFloat64Keeps(v float64) bool {
	p := v * scaledFactor
	return p <= 0x1p63 && p >= -0x1p63
}
