package tsfile

import (
	"github.com/tsarrow/tsarrow/encoding"
)

// checkValues runs the checks of a column's schema and values that come
// before anything of its chunk group is written: checkV3Series, and
// checkScaledFloats.
func (w *Writer) checkValues(dev DeviceID, s *SeriesSchema, times []int64, v *Values) error {
	if err := w.checkV3Series(s); err != nil {
		return err
	}
	return checkScaledFloats(dev, s, times, v)
}

// checkScaledFloats refuses FLOAT and DOUBLE values that RLE and TS_2DIFF
// would not keep. Their encoder stores round(v * 10^2) as an integer in
// the layout every upstream reader knows (apache/tsfile java/tsfile/src/
// main/java/org/apache/tsfile/encoding/encoder/FloatEncoder.java before
// its overflow section of 2025, which older readers cannot read): a NaN
// becomes 0, an infinity or a DOUBLE beyond ±2^63/100 is clamped, a FLOAT
// beyond ±2^31/100 wraps around, and every reader returns that other value
// without a word while the statistics hold the one written (so this
// package's reader refuses the page). Rounding to two decimals is the
// encoding's documented loss and is not refused. Values whose count does
// not match times are left to the checks that follow.
func checkScaledFloats(dev DeviceID, s *SeriesSchema, times []int64, v *Values) error {
	if (s.Encoding != encoding.RLE && s.Encoding != encoding.TS2Diff) || v.Type != s.DataType || v.Len() != len(times) {
		return nil
	}
	for i := range times {
		if v.IsNull(i) {
			continue
		}
		var x float64
		switch s.DataType {
		case Float:
			if encoding.ScaledFloat32Keeps(v.Float32s[i]) {
				continue
			}
			x = float64(v.Float32s[i])
		case Double:
			if encoding.ScaledFloat64Keeps(v.Float64s[i]) {
				continue
			}
			x = v.Float64s[i]
		default:
			return nil
		}
		return optionErrorf("tsfile: device %s, column %q, time %d: %s value %v under %s: the encoding stores values as integers of 1/100 and would read this one back as another value in every reader (NaN as 0, values beyond ±2^%d/100 clamped or wrapped); choose GORILLA or PLAIN for this column",
			dev, s.Name, times[i], s.DataType, x, s.Encoding, map[DataType]int{Float: 31, Double: 63}[s.DataType])
	}
	return nil
}
