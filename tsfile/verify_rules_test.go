package tsfile

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// naiveStats is the upstream writers' statistics of FLOAT (bits 32) or
// DOUBLE values, written out here from their rules (apache/tsfile java/
// tsfile/src/main/java/org/apache/tsfile/file/metadata/statistics/
// FloatStatistics.java and DoubleStatistics.java, and cpp/src/common/
// statistic.h NUM_VALUE_STAT_UPDATE, which agree): the first value starts
// min, max, first and sum; then "if (v < min) min = v", "if (v > max)
// max = v", "sum += v" in a double (a FLOAT widened), last = v.
func naiveStats(v []float64, bits int) Statistics {
	s := Statistics{Type: Double, Count: int64(len(v))}
	if bits == 32 {
		s.Type = Float
	}
	for i, x := range v {
		if i == 0 {
			s.MinFloat, s.MaxFloat, s.FirstFloat, s.Sum = x, x, x, x
		} else {
			if x < s.MinFloat {
				s.MinFloat = x
			}
			if x > s.MaxFloat {
				s.MaxFloat = x
			}
			s.Sum += x
		}
		s.LastFloat = x
	}
	return s
}

// checkAs checks decoded values against s, as FLOAT or DOUBLE, with the
// rounding r, exactly or fast.
func checkAs(s *Statistics, decoded []float64, bits int, exact bool, r FloatRounding) error {
	if bits == 32 {
		f := make([]float32, len(decoded))
		for i, x := range decoded {
			f[i] = float32(x)
		}
		return s.CheckFloat32sRounded(f, exact, r)
	}
	return s.CheckFloat64sRounded(decoded, exact, r)
}

// rounded2 is what an RLE or TS_2DIFF page at scale 10^p without an
// overflow section reads back for each of v.
func roundedAll(v []float64, p, bits int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = lossyRead(x, p, bits)
	}
	return out
}

// TestVerifyFloatRules: one case per rule of the writers' FLOAT and DOUBLE
// statistics and of the lossy encodings (see the comment at the top of
// verify.go), each checked as FLOAT and DOUBLE, exactly and fast. The
// statistics come from naiveStats of the values written; decoded is what
// the page reads back. Cases marked main failed before this round: each
// was a false alarm on files real writers write.
func TestVerifyFloatRules(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	negz := math.Copysign(0, -1)
	sc := func(p int) FloatRounding { return FloatRounding{Scale: math.Pow10(p)} }
	dec := []float64{11.499, 0.4990000000000001, -3.14159, 2.675, 0.005, -0.005, 7.1, 1e-7}
	type tc struct {
		name    string
		written []float64                // what the writer was given
		decoded func(bits int) []float64 // what the page reads back (nil: written)
		stats   func(s *Statistics)      // changes to naiveStats(written)
		round   FloatRounding            // the page's rounding
		want    string                   // the statistic named, "" for no error
		cause   bool                     // the error names a writer flaw
		only    int                      // 32 or 64 to run as one type only
	}
	cases := []tc{
		{name: "main: lossy p=2, statistics hold the raw values", written: dec,
			decoded: func(bits int) []float64 { return roundedAll(dec, 2, bits) }, round: sc(2)},
		{name: "main: lossy p=3", written: dec,
			decoded: func(bits int) []float64 { return roundedAll(dec, 3, bits) }, round: sc(3)},
		{name: "main: lossy p=0 (11.5 reads 12)", written: []float64{11.5, -2.5, 0.49},
			decoded: func(bits int) []float64 { return roundedAll([]float64{11.5, -2.5, 0.49}, 0, bits) }, round: FloatRounding{Scale: 1}},
		{name: "main: lossy, -0.0 reads +0.0", written: []float64{negz, 1.234, negz},
			decoded: func(bits int) []float64 { return []float64{0, 1.23, 0} }, round: sc(2)},
		{name: "lossy, first off by more than the rounding", written: dec,
			decoded: func(bits int) []float64 { d := roundedAll(dec, 2, bits); d[0] += 0.01; return d }, round: sc(2), want: "first"},
		{name: "lossy, last off by more than the rounding", written: dec,
			decoded: func(bits int) []float64 { d := roundedAll(dec, 2, bits); d[len(d)-1] -= 0.01; return d }, round: sc(2), want: "last"},
		{name: "lossy, a middle value off: the sum sees it", written: []float64{1, 2, 3, 4, 5, 6, 7, 8},
			decoded: func(bits int) []float64 { return []float64{1, 2, 3, 4.5, 5, 6, 7, 8} }, round: sc(2), want: "sum"},
		{name: "lossy, a damaged decimal moves the sum by more than n half-units", written: dec,
			decoded: func(bits int) []float64 { d := roundedAll(dec, 2, bits); d[3] += 0.05; return d }, round: sc(2), want: "sum"},
		{name: "lossy with overflow section: unscaled and raw values kept", written: []float64{1.5, 3e7, nan, 2.25},
			decoded: func(bits int) []float64 { return []float64{1.5, 3e7, nan, 2.25} }, round: FloatRounding{Scale: 100, Overflow: true}, only: 32},
		{name: "lossy with overflow section: p=10 stores 1.5 unscaled as 2", written: []float64{1.5, 2.125},
			decoded: func(bits int) []float64 { return []float64{2, 2} }, round: FloatRounding{Scale: 1e10, Overflow: true}, only: 32},
		{name: "lossy without overflow section: NaN stored as 0", written: []float64{1.25, nan, 2.5},
			decoded: func(bits int) []float64 { return []float64{1.25, 0, 2.5} }, round: sc(2), want: "sum", cause: true},
		{name: "lossy without overflow section: +Inf clamped", written: []float64{1.25, inf},
			decoded: func(bits int) []float64 { return roundedAll([]float64{1.25, inf}, 2, bits) }, round: sc(2), want: "last", cause: true},
		{name: "lossy without overflow section: FLOAT beyond 2^31/100 wraps", written: []float64{3e7, 1},
			decoded: func(bits int) []float64 { return roundedAll([]float64{3e7, 1}, 2, bits) }, round: sc(2), want: "first", cause: true, only: 32},
		{name: "main: a sum that overflowed in page order, not in the fast check's lanes", written: []float64{1.7e308, 1.7e308, -1.7e308, 3, -1.7e308}, only: 64},
		{name: "an infinite sum the values cannot give", written: []float64{1, 2, 3},
			stats: func(s *Statistics) { s.Sum = inf }, want: "sum"},
		{name: "a NaN sum the values cannot give", written: []float64{1, 2, 3},
			stats: func(s *Statistics) { s.Sum = nan }, want: "sum"},
		{name: "a NaN sum from +Inf and -Inf", written: []float64{inf, 1, math.Inf(-1)}},
		{name: "NaN first: min and max stay NaN", written: []float64{nan, 1, 2}},
		{name: "NaN later: min and max skip it", written: []float64{1, nan, 2}},
		{name: "-0.0 and 0.0 are equal to min, max, first and last", written: []float64{0, negz, 0, negz},
			stats: func(s *Statistics) { s.MinFloat, s.FirstFloat, s.MaxFloat, s.LastFloat = negz, negz, 0, 0 }},
		{name: "one value", written: []float64{42.5}},
		{name: "the C++ raw-bits TS_2DIFF layout: exact, a mismatch names its flaw", written: []float64{0.5, -1, 0.25},
			decoded: func(bits int) []float64 { return []float64{0.5, -1, 0.125} }, round: FloatRounding{RawBits: true}, want: "last", cause: true},
		{name: "the C++ raw-bits TS_2DIFF layout: intact", written: []float64{0, -1, 0.5}, round: FloatRounding{RawBits: true}},
		{name: "a changed max", written: []float64{1, 5, 2}, stats: func(s *Statistics) { s.MaxFloat = 6 }, want: "max"},
	}
	for _, c := range cases {
		for _, bits := range []int{32, 64} {
			if c.only != 0 && c.only != bits {
				continue
			}
			w := c.written
			if bits == 32 {
				w = make([]float64, len(c.written))
				for i, x := range c.written {
					w[i] = float64(float32(x))
				}
			}
			s := naiveStats(w, bits)
			if c.stats != nil {
				c.stats(&s)
			}
			decoded := w
			if c.decoded != nil {
				decoded = c.decoded(bits)
				for i := range decoded {
					if bits == 32 {
						decoded[i] = float64(float32(decoded[i]))
					}
				}
			}
			for _, exact := range []bool{true, false} {
				err := checkAs(&s, decoded, bits, exact, c.round)
				name := c.name
				if exact {
					name += " (exact)"
				}
				if c.want == "" {
					require.NoError(t, err, "%s, %d bits", name, bits)
					continue
				}
				if (c.want == "max" || c.want == "min") && !exact {
					continue // the fast check does not compare min and max
				}
				var m *StatisticsMismatch
				require.True(t, errors.As(err, &m), "%s, %d bits: %v", name, bits, err)
				require.Equal(t, c.want, m.Statistic, "%s, %d bits: %v", name, bits, err)
				require.Equal(t, c.cause, m.Cause != "", "%s, %d bits: %v", name, bits, err)
			}
		}
	}
}

// TestVerifyOtherRules covers the other types' statistics rules: integer
// sums (INT32 and DATE a long, or a double in older writers; INT64 and
// TIMESTAMP a double added in page order, beyond 2^53 too), BOOLEAN's
// true count, TEXT's first and last, a page of one value and an all-null
// page (no values, count 0).
func TestVerifyOtherRules(t *testing.T) {
	big := []int64{1 << 62, 1<<62 + 1, 3, -(1 << 61), 1<<53 + 1}
	var sum float64
	for _, x := range big {
		sum += float64(x)
	}
	s64 := Statistics{Type: Int64, Count: 5, MinInt: -(1 << 61), MaxInt: 1<<62 + 1, FirstInt: 1 << 62, LastInt: 1<<53 + 1, Sum: sum}
	for _, exact := range []bool{true, false} {
		require.NoError(t, s64.CheckInt64s(big, exact), "INT64 beyond 2^53, exact %v", exact)
	}
	bad := s64
	bad.Sum = math.Nextafter(sum, 0) * 0.999
	require.Error(t, bad.CheckInt64s(big, true))

	i32 := []int32{math.MaxInt32, math.MaxInt32, -5}
	s32 := Statistics{Type: Int32, Count: 3, MinInt: -5, MaxInt: math.MaxInt32, FirstInt: math.MaxInt32, LastInt: -5, SumInt: 2*math.MaxInt32 - 5}
	require.NoError(t, s32.CheckInt32s(i32, true))
	v3 := s32
	v3.SumInt = int64(math.Float64bits(2*math.MaxInt32 - 5)) // IntegerStatistics' double sum of apache/iotdb 0.12
	require.NoError(t, v3.CheckInt32s(i32, true))
	v3.SumInt = int64(math.Float64bits(2*math.MaxInt32 - 4))
	require.Error(t, v3.CheckInt32s(i32, true))

	b := Statistics{Type: Boolean, Count: 3, FirstBool: true, LastBool: false, TrueCount: 2}
	require.NoError(t, b.CheckBools([]bool{true, true, false}))
	b.TrueCount = 1
	require.Error(t, b.CheckBools([]bool{true, true, false}))

	tx := Statistics{Type: Text, Count: 2, First: []byte("a"), Last: []byte("b")}
	require.NoError(t, tx.CheckBinary(2, []byte("a"), []byte("b")))
	require.Error(t, tx.CheckBinary(2, []byte("a"), []byte("c")))
	bl := Statistics{Type: Blob, Count: 2}
	require.NoError(t, bl.CheckBinary(2, []byte{1}, []byte{2}), "BLOB statistics hold nothing but the count")

	one := Statistics{Type: Double, Count: 1, MinFloat: 2.5, MaxFloat: 2.5, FirstFloat: 2.5, LastFloat: 2.5, Sum: 2.5}
	require.NoError(t, one.CheckFloat64s([]float64{2.5}, true))
	empty := Statistics{Type: Double}
	require.NoError(t, empty.CheckFloat64s(nil, true), "an all-null page")
	require.Error(t, one.CheckFloat64s(nil, true))
}

// TestWriterFlawMessages: a mismatch on a SPRINTZ page, or an RLBE FLOAT
// or DOUBLE page, names the upstream writer flaw that gives intact pages
// of that shape, and one with a Cause names it; others say damage.
func TestWriterFlawMessages(t *testing.T) {
	p := &PageHeader{Offset: 100}
	m := &StatisticsMismatch{Statistic: "sum", Decoded: "1", Stored: "2"}
	for _, c := range []struct {
		enc  Encoding
		dt   DataType
		m    *StatisticsMismatch
		want string
	}{
		{encoding.Sprintz, Int64, m, "SPRINTZ writer"},
		{encoding.RLBE, Double, m, "RLBE writer"},
		{encoding.RLBE, Int32, m, "damaged"},
		{encoding.Gorilla, Double, m, "damaged"},
		{encoding.RLE, Float, &StatisticsMismatch{Statistic: "sum", Cause: lossyFloatFlaw}, "without an overflow section"},
	} {
		h := &ChunkHeader{Measurement: "s", DataType: c.dt, Encoding: c.enc}
		err := PageStatisticsError("root.d", h, 0, p, false, c.m)
		require.ErrorIs(t, err, ErrCorrupt)
		require.Contains(t, err.Error(), c.want, "%s %s", c.dt, c.enc)
		require.Equal(t, c.want != "damaged", strings.Contains(err.Error(), "upstream's reader returns the same values"), err.Error())
	}
}

// TestWriterRefusesUnkeptFloats: NaN, infinities and values beyond the
// range under RLE and TS_2DIFF FLOAT and DOUBLE are refused at write time,
// naming the device, column and time, and the writer goes on.
func TestWriterRefusesUnkeptFloats(t *testing.T) {
	for _, enc := range []Encoding{encoding.RLE, encoding.TS2Diff} {
		for _, v := range []Values{
			{Type: Float, Float32s: []float32{1, float32(math.NaN())}},
			{Type: Float, Float32s: []float32{3e7}},
			{Type: Double, Float64s: []float64{math.Inf(-1)}},
			{Type: Double, Float64s: []float64{1e17}},
		} {
			var buf strings.Builder
			w, err := NewWriter(&buf, nil)
			require.NoError(t, err)
			times := make([]int64, v.Len())
			for i := range times {
				times[i] = int64(i + 1)
			}
			sch := SeriesSchema{Name: "x", DataType: v.Type, Encoding: enc}
			err = w.WriteNonAligned(NewDeviceID("root.sg", "d"), []NonAlignedSeries{{SeriesSchema: sch, Times: times, Values: v}})
			require.ErrorContains(t, err, "choose GORILLA or PLAIN")
			require.ErrorIs(t, err, ErrUnsupportedOption)
			require.ErrorContains(t, err, `root.sg.d, column "x", time`)
			err = w.WriteAligned(NewDeviceID("root.sg", "a"), times, []AlignedColumn{{SeriesSchema: sch, Values: v}})
			require.ErrorContains(t, err, "choose GORILLA or PLAIN")
			kept := Values{Type: v.Type, Float32s: []float32{1.5}, Float64s: []float64{1.5}}
			require.NoError(t, w.WriteNonAligned(NewDeviceID("root.sg", "d"), []NonAlignedSeries{{SeriesSchema: sch, Times: []int64{1}, Values: kept}}))
			require.NoError(t, w.Close())
		}
	}
}
