package tsfile

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/tsarrow/tsarrow/encoding"
)

// Verifying decoded pages against their statistics.
//
// A page body has no checksum, so a damaged byte in it decodes, more often
// than not, to other values without any error. The page's statistics (in
// its header, or for a chunk of one page in the index) were computed by the
// writer from the values it was given, so a page whose decoded values
// contradict them is damaged, in its body or in its statistics, or was
// written by an encoder that did not keep those values. Every check below
// reproduces what the writers compute, one value at a time in page order.
// The rules, and where they come from:
//
//	Java: apache/tsfile java/tsfile/src/main/java/org/apache/tsfile/file/
//	      metadata/statistics/*Statistics.java (updateStats,
//	      mergeStatistics); v3: apache/iotdb tsfile/.../statistics of
//	      0.12-1.x.  C++: apache/tsfile cpp/src/common/statistic.h
//	      (NUM_VALUE_STAT_UPDATE and the typed classes).
//
//	count            values written (non-null values of an aligned value
//	                 page); 0 for an all-null page, which is not checked
//	                 further
//	start/end time   the least and the greatest timestamp (Java update,
//	                 C++ TIME_STAT_UPDATE: both by comparison)
//	min, max         the first value starts them, then "if (v < min) min
//	                 = v", "if (v > max) max = v" (Java and C++ alike), so
//	                 a NaN first keeps both NaN and a later NaN changes
//	                 neither; -0.0 and 0.0 compare equal, so which of them
//	                 is kept depends on order: compared here with ==, as
//	                 first and last are (stored bit for bit, but a -0.0
//	                 and a 0.0 are the same number)
//	first, last      the first and the last value in page order
//	sum              INT32 and DATE: a long, exact (older writers, apache/
//	                 iotdb 0.12's IntegerStatistics, a double in the same
//	                 eight bytes: exact below 2^53); INT64 and TIMESTAMP:
//	                 a double, "sum += v" with each long rounded to double
//	                 (beyond 2^53 the order matters); FLOAT: a double of
//	                 the values widened, never a float; DOUBLE: a double.
//	                 The first value starts the sum (C++ "sum = v", Java
//	                 0 + v: the same number). The same sequence of IEEE
//	                 additions here compares exactly; the Check methods'
//	                 exactSum false adds in four lanes instead, for speed,
//	                 and compares within the rounding bound of the two
//	                 orders (checkSumBound). A stored infinity or NaN is
//	                 accepted when the values can give it (an infinity, a
//	                 NaN, or values whose positive or negative part
//	                 overflows a double: sumCanOverflowTo), since the
//	                 lanes may not overflow where page order did.
//	BOOLEAN          first, last, and the count of true values (its "sum",
//	                 a long in Java and C++)
//	TEXT, STRING     first and last; STRING's min and max are not checked:
//	                 a comparison of byte strings per value costs more than
//	                 the rest of the check, and first and last already see
//	                 damage at the page's ends.
//	BLOB             count only: BlobStatistics holds nothing else.
//	one-page chunk   its page has no statistics; the chunk's in the index
//	                 are that page's (Java ChunkWriterImpl merges the one
//	                 page's into empty ones: a copy; C++ likewise)
//
// FLOAT and DOUBLE under RLE and TS_2DIFF are lossy (java/.../encoding/
// encoder/FloatEncoder.java, C++ cpp/src/encoding/ts2diff_encoder.h): the
// page stores k = Math.round(v * 10^p) for the max_point_number p in its
// body (default 2), FLOAT as an int, and reads back k / 10^p, while the
// statistics hold v. The checks apply that transform to the statistics
// and compare with the decoded values (FloatRounding.stores): first and
// last exactly, min and max exactly where rounding keeps order (pages
// without an overflow section), the sum within n half-units of the last
// kept decimal plus the additions' rounding. Pages of newer writers (Java
// since early 2025, C++ following it) carry an overflow section and keep
// the values that do not scale as Math.round(v) or raw; older ones (every
// v3 file) store a NaN as 0 and clamp (DOUBLE) or wrap (FLOAT) values
// beyond the int or long range, which the statistics reveal (a NaN sum, a
// min or max out of range): such a page is intact but does not hold the
// values written, and fails naming that flaw (checkKept, Cause). So do
// pages of the upstream Java SPRINTZ and RLBE FLOAT/DOUBLE writers whose
// values both readers decode wrong (writerFlaw).
//
// The time range of an aligned value page (the timestamps of its non-null
// rows) is not checked; its time page's is.

// StatisticsMismatch is what a page body and its statistics disagree
// about: the first statistic, in the order count, start time, end time,
// min, max, first, last, sum, whose value differs.
type StatisticsMismatch struct {
	Statistic string // such as "max" or "sum"
	Decoded   string // the value computed from the decoded page
	Stored    string // the value the statistics hold
	// Cause names a known writer flaw that makes intact pages decode to
	// other values than the ones written, when the mismatch has its
	// shape; "" when nothing but damage explains it.
	Cause string
}

func (m *StatisticsMismatch) Error() string {
	return fmt.Sprintf("%s is %s in the page body but %s in its statistics", m.Statistic, m.Decoded, m.Stored)
}

func mismatch(stat string, decoded, stored any) error {
	return &StatisticsMismatch{Statistic: stat, Decoded: fmt.Sprint(decoded), Stored: fmt.Sprint(stored)}
}

// PageStatistics returns the statistics a decoded page is checked
// against: its header's, or for a chunk of one page (whose page header has
// none) the chunk's statistics from the index, cm. The second result tells
// which: true for the chunk's. It returns nil for an empty page, and when
// the page has none and cm is nil.
func PageStatistics(p *PageHeader, cm *Statistics) (*Statistics, bool) {
	if p.Statistics != nil {
		return p.Statistics, false
	}
	if p.Empty() || cm == nil {
		return nil, false
	}
	return cm, true
}

// PageStatisticsError is the ErrCorrupt error of page i (header p) of the
// chunk with header h, of device dev, whose decoded body contradicts its
// statistics (m, from the chunk's statistics in the index when fromChunk).
// Both tsfile's row helpers and arrowconv report with it, so the wording
// is one.
func PageStatisticsError(dev string, h *ChunkHeader, i int, p *PageHeader, fromChunk bool, m error) error {
	if cause := writerFlaw(h, m); cause != "" {
		return pageStatisticsError(dev, h, i, p, fromChunk, m, "the page is intact but holds other values than were written, likely by "+cause+
			"; upstream's reader returns the same values without a word: read with --lenient (ReadOptions.Lenient) to keep them, or --no-verify (ReadOptions.NoVerify) to skip the check")
	}
	return pageStatisticsError(dev, h, i, p, fromChunk, m, "the page body or its statistics are damaged: read with --lenient (ReadOptions.Lenient) to keep the decoded values, or --no-verify (ReadOptions.NoVerify) to skip the check")
}

// writerFlaw names the known writer flaw that explains mismatch m of a
// page of the chunk with header h, or "". The upstream Java encoders
// below write pages that both readers decode to other values than the
// writer was given, while its statistics hold those it was given.
func writerFlaw(h *ChunkHeader, m error) string {
	var sm *StatisticsMismatch
	if !errors.As(m, &sm) {
		return ""
	}
	if sm.Cause != "" {
		return sm.Cause
	}
	switch {
	case h.Encoding == encoding.Sprintz:
		// apache/tsfile java/tsfile/src/main/java/org/apache/tsfile/
		// encoding/encoder/*SprintzEncoder.java: the zigzag mapping of
		// a residual overflows (see encoding/sprintz.go).
		return "the upstream Java SPRINTZ writer, whose blocks lose values whose residual from the prediction is beyond ±2^30 (±2^62 for 64-bit types: wide or random data)"
	case h.Encoding == encoding.RLBE && (h.DataType == Float || h.DataType == Double):
		// apache/tsfile .../encoding/encoder/FloatRLBE.java, DoubleRLBE.java:
		// differences taken in floating point (see encoding/rlbe.go).
		return "the upstream Java RLBE writer, which stores each " + h.DataType.String() + " as a floating-point difference from the one before, and the differences need not add back to the values written"
	}
	return ""
}

// pageStatisticsError is PageStatisticsError with what the message tells
// the reader to do.
func pageStatisticsError(dev string, h *ChunkHeader, i int, p *PageHeader, fromChunk bool, m error, todo string) error {
	whose := ""
	if fromChunk {
		whose = " (the chunk's only page: its statistics are the chunk's, in the index)"
	}
	if dev != "" {
		dev = "device " + dev + ", "
	}
	return &FormatError{Offset: p.Offset, Structure: "page", Kind: ErrCorrupt,
		Msg: fmt.Sprintf("%s%s chunk %q at offset %d, page %d%s: %v; %s",
			dev, h.DataType, h.Measurement, h.Offset, i, whose, m, todo)}
}

// CheckCount compares a page's value count with the statistics.
func (s *Statistics) CheckCount(n int) error {
	if int64(n) != s.Count {
		return mismatch("count", n, s.Count)
	}
	return nil
}

// CheckTimeRange compares the least and the greatest timestamp of a
// non-empty page with the statistics' start and end time.
func (s *Statistics) CheckTimeRange(least, greatest int64) error {
	if least != s.StartTime {
		return mismatch("start time", least, s.StartTime)
	}
	if greatest != s.EndTime {
		return mismatch("end time", greatest, s.EndTime)
	}
	return nil
}

// CheckTimes compares the timestamps of a time page, or of the time
// stream of a non-aligned page, with the statistics: count, start and end
// time.
func (s *Statistics) CheckTimes(ts []int64) error {
	if err := s.CheckCount(len(ts)); err != nil || len(ts) == 0 {
		return err
	}
	lo, hi := ts[0], ts[0]
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	return s.CheckTimeRange(lo, hi)
}

// CheckInt32s compares the non-null values of an INT32 or DATE page (DATE
// as stored, yyyymmdd), in page order, with the statistics: count, first,
// last and the sum, a long, which is exact in any order; with exact, min
// and max too (see CheckInt64s for why they are optional).
func (s *Statistics) CheckInt32s(v []int32, exact bool) error {
	if err := s.CheckCount(len(v)); err != nil || len(v) == 0 {
		return err
	}
	lo, hi := int64(s.MinInt), int64(s.MaxInt)
	var sum int64
	if exact {
		l, h := v[0], v[0]
		for _, x := range v {
			l, h = min(l, x), max(h, x)
			sum += int64(x)
		}
		lo, hi = int64(l), int64(h)
	} else {
		sum = sumIntLanes(v)
	}
	if err := s.checkInts(lo, hi, int64(v[0]), int64(v[len(v)-1])); err != nil {
		return err
	}
	// Older writers kept an INT32 sum in a double (IntegerStatistics'
	// sumValue in apache/iotdb's tsfile before the long one), in the
	// same eight bytes: read so, it is the same sum, exact below 2^53.
	if sum != s.SumInt && math.Float64frombits(uint64(s.SumInt)) != float64(sum) {
		return mismatch("sum", sum, s.SumInt)
	}
	return nil
}

// CheckInt64s compares the non-null values of an INT64 or TIMESTAMP page,
// in page order, with the statistics. With exact it checks all of them:
// count, min, max, first, last and the sum, a double, as the writer's own
// sequence of additions. Without, it checks the count, first, last and
// the sum within a rounding bound (see checkSumBound), at a fraction of
// the cost.
//
// Why the two: in Go, without SIMD, min and max are a dependent compare
// per value and the writer's sum a dependent addition (four cycles) per
// value, about 1 ns a value together, which on the default mix of
// benchmarks/ made verification cost 11-16% of a scan. A sum in four
// lanes runs at the processor's throughput instead. What the fast check
// gives up is small for a damaged page body: a value damaged enough to
// become a new min or max moves the sum past its bound, and the
// encodings other than PLAIN carry a damaged value into the ones after
// it, up to the last. It would miss damage to the min and max
// statistics themselves, which changes no row. Readers use exact for
// PLAIN pages, where a damaged value changes alone and may move the sum
// by less than the bound.
func (s *Statistics) CheckInt64s(v []int64, exact bool) error {
	if err := s.CheckCount(len(v)); err != nil || len(v) == 0 {
		return err
	}
	if !exact {
		if err := s.checkInts(s.MinInt, s.MaxInt, v[0], v[len(v)-1]); err != nil {
			return err
		}
		bound := max(math.Abs(float64(s.MinInt)), math.Abs(float64(s.MaxInt)))
		// Integer lanes add at a cycle a value, where converting each
		// value to double first costs three. Their exact sum is within
		// the same bound of the writer's: each conversion it rounds adds
		// at most u|x|, which the bound's 2n+2 covers. Values within
		// bound, n of them, cannot overflow an int64 below 2^62; beyond
		// that the sum is taken in doubles.
		if bound*float64(len(v)) < 0x1p62 {
			return s.checkSumBound(float64(sumIntLanes(v)), bound, len(v))
		}
		return s.checkSumBound(sumLanes(v), bound, len(v))
	}
	lo, hi := v[0], v[0]
	var sum float64
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
		sum += float64(x)
	}
	if err := s.checkInts(lo, hi, v[0], v[len(v)-1]); err != nil {
		return err
	}
	return s.checkSum(sum, 64)
}

func (s *Statistics) checkInts(lo, hi, first, last int64) error {
	switch {
	case lo != s.MinInt:
		return mismatch("min", lo, s.MinInt)
	case hi != s.MaxInt:
		return mismatch("max", hi, s.MaxInt)
	case first != s.FirstInt:
		return mismatch("first", first, s.FirstInt)
	case last != s.LastInt:
		return mismatch("last", last, s.LastInt)
	}
	return nil
}

// CheckFloat32s compares the non-null values of a FLOAT page, in page
// order, with the statistics, whose sum is a double of the widened values
// (exact as for CheckInt64s).
func (s *Statistics) CheckFloat32s(v []float32, exact bool) error {
	return checkFloatValues(s, v, exact, 32, FloatRounding{})
}

// CheckFloat64s compares the non-null values of a DOUBLE page, in page
// order, with the statistics (exact as for CheckInt64s).
func (s *Statistics) CheckFloat64s(v []float64, exact bool) error {
	return checkFloatValues(s, v, exact, 64, FloatRounding{})
}

// CheckFloat32sRounded is CheckFloat32s for a page whose encoder rounded
// the values before storing them as r says (see FloatRounding), while the
// statistics hold the values the writer was given.
func (s *Statistics) CheckFloat32sRounded(v []float32, exact bool, r FloatRounding) error {
	return checkFloatValues(s, v, exact, 32, r)
}

// CheckFloat64sRounded is CheckFloat32sRounded for DOUBLE.
func (s *Statistics) CheckFloat64sRounded(v []float64, exact bool, r FloatRounding) error {
	return checkFloatValues(s, v, exact, 64, r)
}

func checkFloatValues[T float32 | float64](s *Statistics, v []T, exact bool, bits int, r FloatRounding) error {
	if r.RawBits {
		err := checkFloatValues(s, v, exact, bits, FloatRounding{})
		if m, ok := err.(*StatisticsMismatch); ok {
			m.Cause = cppTS2DiffFlaw
		}
		return err
	}
	if err := s.CheckCount(len(v)); err != nil || len(v) == 0 {
		return err
	}
	if r.Scale != 0 {
		return checkRoundedFloats(s, v, exact, bits, r)
	}
	first, last := float64(v[0]), float64(v[len(v)-1])
	if !exact {
		if err := s.checkFloats(s.MinFloat, s.MaxFloat, first, last, bits); err != nil {
			return err
		}
		err := s.checkSumBound(sumLanes(v), max(math.Abs(s.MinFloat), math.Abs(s.MaxFloat)), len(v))
		if err != nil && sumCanOverflowTo(v, s.Sum) {
			return nil
		}
		return err
	}
	// Written out, not min and max, which return a NaN they meet: the
	// writer's "v < min" never lets one in after the first value.
	lo, hi := v[0], v[0]
	var sum float64
	for _, x := range v {
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
		sum += float64(x)
	}
	if err := s.checkFloats(float64(lo), float64(hi), first, last, bits); err != nil {
		return err
	}
	if err := s.checkSum(sum, 64); err != nil && !sumCanOverflowTo(v, s.Sum) {
		return err
	}
	return nil
}

// sumCanOverflowTo reports whether stored, a sum that is an infinity or
// NaN, can be what a writer adding v up got: +Inf when v holds +Inf or
// its positive values add up past the largest double in some order (the
// C++ and Java writers add in page order, but the check itself may not),
// -Inf likewise, NaN when v holds a NaN or can reach both infinities. A
// finite stored sum is never explained so. It runs only on a mismatch.
func sumCanOverflowTo[T float32 | float64](v []T, stored float64) bool {
	if !math.IsInf(stored, 0) && !math.IsNaN(stored) {
		return false
	}
	var pos, neg float64
	nan := false
	for _, x := range v {
		f := float64(x)
		switch {
		case f != f:
			nan = true
		case f > 0:
			pos += f
		case f < 0:
			neg -= f
		}
	}
	// Each order's sum of the positive values is within (n+1)u of theirs
	// (checkSumBound), so one that comes this close may overflow.
	near := math.MaxFloat64 * (1 - float64(len(v)+1)*0x1p-52)
	plus, minus := pos >= near, neg >= near // +Inf compares greater, too
	switch {
	case math.IsNaN(stored):
		return nan || (plus && minus)
	case stored > 0:
		return !nan && plus
	}
	return !nan && minus
}

// FloatRounding is what a lossy encoding did to the FLOAT or DOUBLE values
// of a page: under RLE and TS_2DIFF the Java writer (and writers following
// its layout) stores round(v * 10^p) for the page's max_point_number p
// and reads back k / 10^p, while the statistics hold the values it was
// given (apache/tsfile java/tsfile/src/main/java/org/apache/tsfile/
// encoding/encoder/FloatEncoder.java). The zero value is a page stored
// exactly.
type FloatRounding struct {
	// Scale is 10^p as the decoder computes it; 0 for a page stored
	// exactly.
	Scale float64
	// Overflow is set when the page has an overflow section (newer Java
	// writers): values that do not scale into an int (FLOAT) or a long
	// (DOUBLE) are stored as round(v), or as their IEEE-754 bits (NaN,
	// and values beyond that range), instead of clamped.
	Overflow bool
	// RawBits is set for a TS_2DIFF page in the C++ writer's layout of
	// the values' raw bits (QuirkFloatTS2DIFFBits), stored exactly but by
	// an encoder that loses deltas beyond the signed range: a mismatch
	// then names that flaw.
	RawBits bool
}

// rounded is what an encoder of the page's kind without an overflow
// section stores and the decoder returns for x (a float32 widened, for
// bits 32): Math.round(x * 10^p) (NaN as 0, saturated at the long
// range), for FLOAT cut to an int as Java's (int) cast does, divided back.
func (r FloatRounding) rounded(x float64, bits int) float64 {
	k := encoding.JavaRound(x * r.Scale)
	if bits == 32 {
		return float64(float32(float64(int32(k)) / r.Scale))
	}
	return float64(k) / r.Scale
}

// scales reports whether the encoder scales x at all: x * 10^p is a
// number within the int (FLOAT) or long (DOUBLE) range, as FloatEncoder
// tests it in doubles.
func (r FloatRounding) scales(x float64, bits int) bool {
	p := x * r.Scale
	if bits == 32 {
		return p <= math.MaxInt32 && p >= math.MinInt32
	}
	return p <= 0x1p63 && p >= -0x1p63
}

// stores reports whether got, a decoded value, is what the page's
// encoder stores for x, a value of the statistics. On a page with an
// overflow section, a value the encoder does not scale may be kept raw
// or as Math.round(x) (Math.round(float) for FLOAT, saturated at the
// int range), by the version of the writer; either is accepted.
func (r FloatRounding) stores(x, got float64, bits int) bool {
	if sameFloat(r.rounded(x, bits), got) {
		return true
	}
	if !r.Overflow || r.scales(x, bits) {
		return false
	}
	if sameFloat(x, got) {
		return true
	}
	k := encoding.JavaRound(x)
	if bits == 32 {
		return float64(float32(min(max(k, math.MinInt32), math.MaxInt32))) == got
	}
	return float64(k) == got
}

// monotone reports whether rounding keeps the order of every value the
// statistics allow, so that the least and the greatest decoded values
// are the statistics' min and max rounded. It does not when a NaN may be
// stored as 0 (any NaN makes the writer's sum NaN), when a FLOAT may wrap
// around the int range, and on pages with an overflow section, whose
// unscaled values can fall below the scaled ones before them.
func (r FloatRounding) monotone(s *Statistics, bits int) bool {
	if r.Overflow || math.IsNaN(s.Sum) || math.IsNaN(s.MinFloat) || math.IsNaN(s.MaxFloat) || math.IsNaN(s.FirstFloat) {
		return false
	}
	return bits == 64 || (r.scales(s.MinFloat, 32) && r.scales(s.MaxFloat, 32))
}

// checkRoundedFloats checks a page that r rounded (see FloatRounding).
// First and last (and with exact and a monotone rounding, min and max)
// must be the statistics' values as the encoder stores them, exactly. The
// sum must be within what rounding each value moves it, n times half a
// unit of the last kept decimal (up to 0.5 for a value stored unscaled),
// plus the rounding of the additions; it is not compared when a value may
// have been clamped, wrapped or a NaN or an infinity.
func checkRoundedFloats[T float32 | float64](s *Statistics, v []T, exact bool, bits int, r FloatRounding) error {
	first, last := float64(v[0]), float64(v[len(v)-1])
	if !r.Overflow {
		if err := checkKept(r, s, v, bits); err != nil {
			return err
		}
	}
	switch {
	case !r.stores(s.FirstFloat, first, bits):
		return roundedMismatch("first", first, s.FirstFloat, bits, r)
	case !r.stores(s.LastFloat, last, bits):
		return roundedMismatch("last", last, s.LastFloat, bits, r)
	}
	if exact && r.monotone(s, bits) {
		lo, hi := v[0], v[0]
		for _, x := range v {
			if x < lo {
				lo = x
			}
			if x > hi {
				hi = x
			}
		}
		switch {
		case !r.stores(s.MinFloat, float64(lo), bits):
			return roundedMismatch("min", float64(lo), s.MinFloat, bits, r)
		case !r.stores(s.MaxFloat, float64(hi), bits):
			return roundedMismatch("max", float64(hi), s.MaxFloat, bits, r)
		}
	}
	bound := max(math.Abs(s.MinFloat), math.Abs(s.MaxFloat))
	limit := 0x1p63
	if bits == 32 {
		limit = 0x1p31
	}
	for _, x := range [...]float64{s.Sum, s.MinFloat, s.MaxFloat, s.FirstFloat, s.LastFloat} {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
	}
	if bound*r.Scale >= limit {
		return nil
	}
	// Per value: half a unit of the kept decimal (0.5 when stored
	// unscaled), the rounding of x*10^p and of k/10^p, and for FLOAT the
	// cut to float.
	step := 0.5 / r.Scale
	if r.Overflow {
		step = max(step, 0.5)
	}
	eps := 0x1p-51
	if bits == 32 {
		eps = 0x1p-23
	}
	n := float64(len(v))
	sum := sumLanes(v)
	tol := (n*(step+bound*eps) + (2*n+2)*n*0x1p-53*(bound+step)) * (1 + 0x1p-20)
	if math.Abs(sum-s.Sum) <= tol || math.IsInf(tol, 0) {
		return nil
	}
	return &StatisticsMismatch{Statistic: "sum", Decoded: fmtFloat(sum, 64),
		Stored: fmt.Sprintf("%s (more than the %s that rounding to the page's scale 1/%s can move it)", fmtFloat(s.Sum, 64), fmtFloat(tol, 64), fmtFloat(r.Scale, 64))}
}

// cppTS2DiffFlaw is the writer flaw of a FLOAT or DOUBLE TS_2DIFF page
// in the C++ raw-bits layout that contradicts its statistics (see
// encoding.TS2DiffFloatBits; apache/tsfile cpp/src/encoding/
// ts2diff_encoder.h before the Java layout).
const cppTS2DiffFlaw = "the C++ TsFile writer of early 2025 (the Python tsfile package), whose TS_2DIFF blocks of raw FLOAT/DOUBLE bits lose the deltas beyond the signed range (written with bit width 0)"

// lossyFloatFlaw is the writer flaw of checkKept.
const lossyFloatFlaw = "a Java FloatEncoder without an overflow section (RLE or TS_2DIFF FLOAT and DOUBLE of TsFile writers before 2025: IoTDB 1.x, every TsFile v3), which stores a NaN as 0, an infinity or a value beyond ±2^63/10^p clamped, and a FLOAT beyond ±2^31/10^p wrapped around"

// checkKept checks that a page without an overflow section held only
// values its encoder keeps up to rounding: no NaN (stored as 0) and
// nothing beyond the range (clamped, or for FLOAT wrapped around). The
// statistics tell: a NaN anywhere makes the writer's sum NaN, and the
// values lie within min and max. Such a page is intact but its values
// are not the ones written (upstream reads the same), so it fails with
// the flaw named rather than as damage.
func checkKept[T float32 | float64](r FloatRounding, s *Statistics, v []T, bits int) error {
	kept := func(x float64) bool {
		if x != x {
			return false
		}
		if bits == 32 {
			k := encoding.JavaRound(x * r.Scale)
			return k >= math.MinInt32 && k <= math.MaxInt32
		}
		p := x * r.Scale
		return p <= 0x1p63 && p >= -0x1p63
	}
	for _, c := range [...]struct {
		name   string
		stored float64
	}{{"first", s.FirstFloat}, {"last", s.LastFloat}, {"min", s.MinFloat}, {"max", s.MaxFloat}} {
		if kept(c.stored) {
			continue
		}
		// Only now, on the way out, the decoded counterpart.
		got := float64(v[0])
		switch c.name {
		case "last":
			got = float64(v[len(v)-1])
		case "min", "max":
			for _, x := range v {
				if c.name == "min" {
					got = min(got, float64(x))
				} else {
					got = max(got, float64(x))
				}
			}
		}
		return &StatisticsMismatch{Statistic: c.name, Decoded: fmtFloat(got, bits), Stored: fmtFloat(c.stored, bits), Cause: lossyFloatFlaw}
	}
	if math.IsNaN(s.Sum) {
		return &StatisticsMismatch{Statistic: "sum", Decoded: fmtFloat(sumLanes(v), 64), Stored: "NaN", Cause: lossyFloatFlaw}
	}
	return nil
}

// roundedMismatch names a statistic x of a rounded page whose decoded
// value got is not x as the page's encoder stores it.
func roundedMismatch(stat string, got, x float64, bits int, r FloatRounding) error {
	return &StatisticsMismatch{Statistic: stat, Decoded: fmtFloat(got, bits),
		Stored: fmt.Sprintf("%s (stored at scale 1/%s as %s)", fmtFloat(x, bits), fmtFloat(r.Scale, 64), fmtFloat(r.rounded(x, bits), bits))}
}

// sumIntLanes adds v up in four independent lanes of int64, wrapping on
// overflow (which the callers rule out where it matters). The loop
// reslices rather than indexes: it keeps the bounds checks out of it,
// 30% faster.
func sumIntLanes[T int32 | int64](v []T) int64 {
	var s0, s1, s2, s3 int64
	for ; len(v) >= 4; v = v[4:] {
		s0, s1, s2, s3 = s0+int64(v[0]), s1+int64(v[1]), s2+int64(v[2]), s3+int64(v[3])
	}
	for _, x := range v {
		s0 += int64(x)
	}
	return s0 + s1 + s2 + s3
}

// sumLanes adds v up in four independent lanes, as doubles.
func sumLanes[T int64 | float32 | float64](v []T) float64 {
	var s0, s1, s2, s3 float64
	for ; len(v) >= 4; v = v[4:] {
		s0, s1, s2, s3 = s0+float64(v[0]), s1+float64(v[1]), s2+float64(v[2]), s3+float64(v[3])
	}
	for _, x := range v {
		s0 += float64(x)
	}
	return (s0 + s1) + (s2 + s3)
}

// sameFloat reports whether a and b are the same number, any NaN matching
// any other.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func fmtFloat(f float64, bits int) string { return strconv.FormatFloat(f, 'g', -1, bits) }

func (s *Statistics) checkFloats(lo, hi, first, last float64, bits int) error {
	for _, c := range [...]struct {
		name      string
		got, want float64
	}{{"min", lo, s.MinFloat}, {"max", hi, s.MaxFloat}, {"first", first, s.FirstFloat}, {"last", last, s.LastFloat}} {
		if !sameFloat(c.got, c.want) {
			return mismatch(c.name, fmtFloat(c.got, bits), fmtFloat(c.want, bits))
		}
	}
	return nil
}

func (s *Statistics) checkSum(sum float64, bits int) error {
	if !sameFloat(sum, s.Sum) {
		return mismatch("sum", fmtFloat(sum, bits), fmtFloat(s.Sum, bits))
	}
	return nil
}

// checkSumBound compares sum, n values added in another order than the
// writer's, with the statistics' sum. Each order's rounding error is at
// most (n-1)u times the sum of the magnitudes, at most n times bound, the
// greatest magnitude (u = 2^-53, the unit roundoff: Higham, Accuracy and
// Stability of Numerical Algorithms, section 4.2), so the two differ by
// at most twice that; the margin covers the bound's own rounding. bound
// comes from the statistics' min and max, which the fast check does not
// verify: damaged ones can widen the bound (hiding a damaged value that
// moves the sum by less) or narrow it (failing the page, whose statistics
// are then indeed damaged), but never fail an intact page. A damaged
// value goes unseen here when it moves the sum by less than about 2e-8
// of the page's greatest magnitude for a page of 8,192. Values with a NaN
// or an infinity, or sums that may overflow, have no bound and are not
// compared.
func (s *Statistics) checkSumBound(sum, bound float64, n int) error {
	if sameFloat(sum, s.Sum) {
		return nil
	}
	tol := float64(2*n+2) * float64(n) * 0x1p-53 * bound * (1 + 0x1p-20)
	if math.IsInf(tol, 0) || math.IsNaN(tol) || math.IsInf(sum, 0) || math.IsNaN(sum) {
		return nil
	}
	if math.Abs(sum-s.Sum) <= tol {
		return nil
	}
	return mismatch("sum", fmtFloat(sum, 64), fmtFloat(s.Sum, 64))
}

// CheckBoolSummary compares what a BOOLEAN page holds, n non-null values
// of which trues are true, first and last in page order, with the
// statistics. A caller holding the values as bits counts them without
// unpacking.
func (s *Statistics) CheckBoolSummary(n int, first, last bool, trues int) error {
	if err := s.CheckCount(n); err != nil || n == 0 {
		return err
	}
	switch {
	case first != s.FirstBool:
		return mismatch("first", first, s.FirstBool)
	case last != s.LastBool:
		return mismatch("last", last, s.LastBool)
	case int64(trues) != s.TrueCount:
		return mismatch("true count", trues, s.TrueCount)
	}
	return nil
}

// CheckBools compares the non-null values of a BOOLEAN page, in page
// order, with the statistics: count, first, last and the true count.
func (s *Statistics) CheckBools(v []bool) error {
	trues := 0
	for _, b := range v {
		if b {
			trues++
		}
	}
	if len(v) == 0 {
		return s.CheckCount(0)
	}
	return s.CheckBoolSummary(len(v), v[0], v[len(v)-1], trues)
}

// CheckBinary compares a TEXT, STRING, BLOB or OBJECT page of n non-null
// values, first and last in page order, with the statistics: the count,
// and first and last for TEXT and STRING (BLOB and OBJECT statistics hold
// no values).
func (s *Statistics) CheckBinary(n int, first, last []byte) error {
	if err := s.CheckCount(n); err != nil || n == 0 {
		return err
	}
	if s.Type != Text && s.Type != String {
		return nil
	}
	switch {
	case string(first) != string(s.First):
		return mismatch("first", quoteShort(first), quoteShort(s.First))
	case string(last) != string(s.Last):
		return mismatch("last", quoteShort(last), quoteShort(s.Last))
	}
	return nil
}

// quoteShort quotes b for an error message, cut at 64 bytes.
func quoteShort(b []byte) string {
	if len(b) > 64 {
		return strconv.Quote(string(b[:64])) + "..."
	}
	return strconv.Quote(string(b))
}

// CheckValues compares the non-null values of a page of any type, in page
// order, with the statistics, by the rules of the Check methods above.
func (s *Statistics) CheckValues(v *Values) error {
	if v.Null != nil {
		var d Values
		d.Type, d.round = v.Type, v.round
		for i := 0; i < v.Len(); i++ {
			if !v.Null[i] {
				appendOne(&d, v, i)
			}
		}
		v = &d
	}
	switch v.Type {
	case Boolean:
		return s.CheckBools(v.Bools)
	case Int32, Date:
		return s.CheckInt32s(v.Int32s, true)
	case Int64, Timestamp:
		return s.CheckInt64s(v.Int64s, true)
	case Float:
		return s.CheckFloat32sRounded(v.Float32s, true, v.round)
	case Double:
		return s.CheckFloat64sRounded(v.Float64s, true, v.round)
	}
	n := len(v.Binaries)
	if n == 0 {
		return s.CheckCount(0)
	}
	return s.CheckBinary(n, v.Binaries[0], v.Binaries[n-1])
}

// appendOne appends position i of src to dst.
func appendOne(dst, src *Values, i int) {
	switch src.Type {
	case Boolean:
		dst.Bools = append(dst.Bools, src.Bools[i])
	case Int32, Date:
		dst.Int32s = append(dst.Int32s, src.Int32s[i])
	case Int64, Timestamp:
		dst.Int64s = append(dst.Int64s, src.Int64s[i])
	case Float:
		dst.Float32s = append(dst.Float32s, src.Float32s[i])
	case Double:
		dst.Float64s = append(dst.Float64s, src.Float64s[i])
	default:
		dst.Binaries = append(dst.Binaries, src.Binaries[i])
	}
}

// Time order.
//
// The Java writer refuses a point whose timestamp is not after the last
// one of its series (apache/tsfile java/tsfile/src/main/java/org/apache/
// tsfile/write/chunk/NonAlignedChunkGroupWriterImpl.java and
// AlignedChunkGroupWriterImpl.java, checkIsHistoryData: "Not allowed to
// write out-of-order data"; older versions skip the point instead), and
// IoTDB sorts and deduplicates a memtable before it flushes one, so the
// timestamps of a chunk, page after page, strictly increase. (The C++
// writer, as of 2025-03, does not check: a program of its that writes
// unsorted points makes a file that needs Lenient.) Only chunks
// of one series that overlap in time (IoTDB's unsequence files, merged by
// the reader, the later write winning) go back, and each on its own still
// increases. A page whose time stream does not is damaged: a changed
// delta or block header of a TS_2DIFF stream moves the timestamps after
// it, which otherwise reads as extra rows of a tree-model device.

// Unordered returns the first position k of ts with ts[k] <= ts[k-1], or
// -1 when ts strictly increases.
func Unordered(ts []int64) int {
	if len(ts) < 2 {
		return -1
	}
	// Four compares a step, one branch for them (never taken on an
	// intact page): six times the speed of one a step, 0.13 ns against
	// 0.79 ns a timestamp. Reslicing keeps the bounds checks out.
	v := ts
	for len(v) >= 5 {
		if v[1] <= v[0] || v[2] <= v[1] || v[3] <= v[2] || v[4] <= v[3] {
			break
		}
		v = v[4:]
	}
	k0 := len(ts) - len(v)
	for k := 1; k < len(v); k++ {
		if v[k] <= v[k-1] {
			return k0 + k
		}
	}
	return -1
}

// CheckTimeOrder returns the TimeOrderError of page i (header p) of the
// chunk with header h, of device dev, when its timestamps ts do not
// strictly increase or, when hasPrev, do not start after prev (the last
// timestamp of the chunk's page before); nil otherwise.
func CheckTimeOrder(dev string, h *ChunkHeader, i int, p *PageHeader, prev int64, hasPrev bool, ts []int64) error {
	if len(ts) == 0 {
		return nil
	}
	if hasPrev && ts[0] <= prev {
		return TimeOrderError(dev, h, i, p, 0, prev, ts[0])
	}
	if k := Unordered(ts); k > 0 {
		return TimeOrderError(dev, h, i, p, k, ts[k-1], ts[k])
	}
	return nil
}

// TimeOrderError is the ErrCorrupt error of page i (header p) of the
// chunk with header h, of device dev, whose timestamp t at position k of
// the page does not come after prev, the one before it (in the page, or
// for k == 0 the last of the chunk's page before).
func TimeOrderError(dev string, h *ChunkHeader, i int, p *PageHeader, k int, prev, t int64) error {
	if dev != "" {
		dev = "device " + dev + ", "
	}
	where := fmt.Sprintf("timestamp %d at position %d follows %d", t, k, prev)
	if k == 0 {
		where = fmt.Sprintf("its first timestamp %d follows %d, the last of the page before", t, prev)
	}
	return &FormatError{Offset: p.Offset, Structure: "page", Kind: ErrCorrupt,
		Msg: fmt.Sprintf("%s%s chunk %q at offset %d, page %d: %s, but the timestamps of a chunk strictly increase (IoTDB and the Java writer refuse out-of-order points): "+
			"the page's time stream is damaged, or its writer did not sort its points; read with --lenient (ReadOptions.Lenient) to keep its points in time order, or --no-verify (ReadOptions.NoVerify) to skip the check",
			dev, h.DataType, h.Measurement, h.Offset, i, where)}
}
