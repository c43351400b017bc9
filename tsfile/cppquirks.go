package tsfile

import (
	"errors"

	"github.com/tsarrow/tsarrow/encoding"
)

// The value-codec quirks of the C++ TsFile writer of early 2025 (issue 30):
// how a page decoder reads around them. The structural ones are detected
// where the structures are parsed.

// DecodeFloat32s decodes exactly len(dst) FLOAT values of a page in
// encoding enc from src, as encoding.DecodeFloat32 does, except that a
// TS_2DIFF stream laid out as the raw IEEE-754 bits of the values (the C++
// writer's, see encoding.TS2DiffFloatBits) is read as such; it then
// returns QuirkFloatTS2DIFFBits, for the caller to note (File.NoteQuirk).
// The layouts are told apart by their bytes alone, so no option is
// needed; a stream in the Java layout costs nothing more.
func DecodeFloat32s(enc Encoding, dst []float32, src []byte) (WriterQuirk, error) {
	_, q, err := DecodeFloat32Page(enc, dst, src)
	return q, err
}

// DecodeFloat64s is DecodeFloat32s for DOUBLE.
func DecodeFloat64s(enc Encoding, dst []float64, src []byte) (WriterQuirk, error) {
	_, q, err := DecodeFloat64Page(enc, dst, src)
	return q, err
}

// DecodeFloat32Page is DecodeFloat32s that also returns how the page's
// encoder rounded the values (for Statistics.CheckFloat32sRounded): the
// scale of an RLE or TS_2DIFF page in the Java layout, read from its
// header; the zero FloatRounding for every other page.
func DecodeFloat32Page(enc Encoding, dst []float32, src []byte) (FloatRounding, WriterQuirk, error) {
	if enc == encoding.TS2Diff && encoding.TS2DiffFloatBits(src, len(dst), 4) {
		return FloatRounding{RawBits: true}, QuirkFloatTS2DIFFBits, encoding.DecodeTS2DiffFloat32Bits(dst, src)
	}
	return pageRounding(enc, src, len(dst)), 0, encoding.DecodeFloat32(enc, dst, src)
}

// DecodeFloat64Page is DecodeFloat32Page for DOUBLE.
func DecodeFloat64Page(enc Encoding, dst []float64, src []byte) (FloatRounding, WriterQuirk, error) {
	if enc == encoding.TS2Diff && encoding.TS2DiffFloatBits(src, len(dst), 8) {
		return FloatRounding{RawBits: true}, QuirkFloatTS2DIFFBits, encoding.DecodeTS2DiffFloat64Bits(dst, src)
	}
	return pageRounding(enc, src, len(dst)), 0, encoding.DecodeFloat64(enc, dst, src)
}

// pageRounding reads the rounding of a FLOAT or DOUBLE stream of n values
// in the Java layout of RLE and TS_2DIFF.
func pageRounding(enc Encoding, src []byte, n int) FloatRounding {
	if enc != encoding.RLE && enc != encoding.TS2Diff {
		return FloatRounding{}
	}
	scale, overflow, _, ok := encoding.ScaledFloatFormat(src, n)
	if !ok {
		return FloatRounding{}
	}
	return FloatRounding{Scale: scale, Overflow: overflow}
}

// QuirkMismatch is what a page check returns when a page's values, read
// by the format, contradict its statistics (the embedded mismatch), and
// read around Quirk they match them. The values are then left in the
// quirk's reading: File.TolerateMismatch keeps them only under
// ReadOptions.Lenient, and otherwise fails naming the likely writer.
type QuirkMismatch struct {
	Quirk WriterQuirk
	*StatisticsMismatch
}

// Unwrap returns the mismatch of the format's reading, so that
// errors.As finds a *StatisticsMismatch in either.
func (m *QuirkMismatch) Unwrap() error { return m.StatisticsMismatch }

// int32PlainShift turns INT32 PLAIN values read as the format says
// (zigzag) into the reading of the C++ writer, which wrote
// uvarint(uint32(v << 1)): int32(u) >> 1. It reports false, and leaves v
// alone, when a value cannot have come from that writer: a negative
// zigzag value has an odd u, and the writer's u is always even.
//
// The writer's v << 1 drops the sign bit, so only values in
// [-2^30, 2^30) survive it; int32(u) >> 1 reads those back exactly, and a
// page with a value beyond them matches its statistics in neither
// reading (apache/tsfile cpp/src/common/allocator/byte_stream.h,
// SerializationUtil::write_var_int, before the fix).
func int32PlainShift(v []int32) bool {
	for _, x := range v {
		if x < 0 {
			return false
		}
	}
	for i, x := range v {
		v[i] = int32(uint32(x)<<1) >> 1 // u = 2x, a zigzag value's own bits
	}
	return true
}

// int32PlainUnshift undoes int32PlainShift.
func int32PlainUnshift(v []int32) {
	for i, x := range v {
		v[i] = int32(uint32(x) &^ (1 << 31))
	}
}

// CheckInt32sPlain is Statistics.CheckInt32s for the values of an INT32
// PLAIN page (exact: PLAIN pages get every check). When they contradict
// the statistics and the C++ writer's reading (see QuirkInt32PlainShift)
// matches them instead, it leaves v in that reading and returns a
// *QuirkMismatch. The check runs only on a mismatch, so a conformant page
// costs nothing more.
func CheckInt32sPlain(s *Statistics, v []int32, exact bool) error {
	m := s.CheckInt32s(v, exact)
	if m == nil {
		return m
	}
	return retryInt32Shift(v, m, func() error { return s.CheckInt32s(v, true) })
}

// retryInt32Shift reads v, INT32 PLAIN values whose check returned m, in
// the C++ writer's reading: when recheck then passes, v stays so and the
// result is a *QuirkMismatch; otherwise v is restored and m returned.
func retryInt32Shift(v []int32, m error, recheck func() error) error {
	if !int32PlainShift(v) {
		return m
	}
	if sm, ok := m.(*StatisticsMismatch); ok && recheck() == nil {
		return &QuirkMismatch{Quirk: QuirkInt32PlainShift, StatisticsMismatch: sm}
	}
	int32PlainUnshift(v)
	return m
}

// TolerateMismatch handles err, what checking page i (header p) of the
// chunk with header h, of device dev, against its statistics returned
// (from the chunk's statistics when fromChunk). A *QuirkMismatch is kept
// under ReadOptions.Lenient, in the quirk's reading, with the quirk noted
// once per file; otherwise it is an ErrCorrupt error naming the page and
// the likely writer. A *StatisticsMismatch goes to Tolerate as
// PageStatisticsError. Any other error is returned as is.
func (f *File) TolerateMismatch(dev string, h *ChunkHeader, i int, p *PageHeader, fromChunk bool, err error) error {
	var qm *QuirkMismatch
	if errors.As(err, &qm) {
		if f.opts.Lenient {
			f.NoteQuirk(qm.Quirk, p.Offset, "page")
			return nil
		}
		return pageStatisticsError(dev, h, i, p, fromChunk, qm.StatisticsMismatch,
			"read as "+qm.Quirk.String()+", the page matches them: likely written by "+qm.Quirk.Writer()+"; read with --lenient (ReadOptions.Lenient) to read it so")
	}
	var m *StatisticsMismatch
	if !errors.As(err, &m) {
		return err
	}
	return f.Tolerate(PageStatisticsError(dev, h, i, p, fromChunk, m))
}

// checkPageValues is Statistics.CheckValues for a page of encoding enc,
// with the INT32 PLAIN reading of CheckInt32sPlain. Without statistics
// (ReadOptions.NoVerify, or a chunk of one page whose index entry is
// missing) nothing tells the two readings apart, and the format's reading
// is kept: the quirk is read around only where statistics confirm it.
func checkPageValues(s *Statistics, v *Values, enc Encoding) error {
	m := s.CheckValues(v)
	if m == nil || v.Type != Int32 || enc != encoding.Plain {
		return m
	}
	// Null positions hold 0 in v, which both readings leave 0; the
	// statistics see only the non-null values.
	return retryInt32Shift(v.Int32s, m, func() error { return s.CheckValues(v) })
}
