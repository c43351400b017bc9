package dataset

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/internal/civil"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Type changes between files (ALTER COLUMN ... SET DATA TYPE), rules 4a and
// 4b of docs/iotdb-rules.md. Both follow apache/tsfile
// java/common/src/main/java/org/apache/tsfile/enums/TSDataType.java:
// castAllowed is TSDataType.isCompatible (its compatibleTypes table) and
// castColumn converts values as castFromSingleValue and the castTo*SingleValue
// helpers do, which is what IoTDB applies to a chunk whose type differs from
// the schema's (SchemaUtils.rewriteChunkMetadata). A stored chunk is
// converted point by point with castFromSingleValue (Chunk.rewrite(newType)
// in apache/tsfile java/tsfile/src/main/java/org/apache/tsfile/read/common/
// Chunk.java). The array casters (castFromArray, which IoTDB applies to
// unflushed memtable columns) differ in one place: they pass BLOB bytes to
// TEXT untouched, without the U+FFFD replacement. We follow the per-point
// path, the one for data in files.

// castSources lists, for each target type, the other types a column may be
// cast from (TSDataType's compatibleTypes). A type absent here accepts only
// itself: BOOLEAN, INT32, DATE and OBJECT.
var castSources = map[tsfile.DataType][]tsfile.DataType{
	tsfile.Int64:     {tsfile.Int32, tsfile.Timestamp},
	tsfile.Float:     {tsfile.Int32},
	tsfile.Double:    {tsfile.Int32, tsfile.Int64, tsfile.Float, tsfile.Timestamp},
	tsfile.Timestamp: {tsfile.Int32, tsfile.Int64},
	tsfile.Text:      {tsfile.String, tsfile.Int32, tsfile.Int64, tsfile.Float, tsfile.Double, tsfile.Boolean, tsfile.Blob, tsfile.Date, tsfile.Timestamp},
	tsfile.String:    {tsfile.Text, tsfile.Int32, tsfile.Int64, tsfile.Float, tsfile.Double, tsfile.Boolean, tsfile.Blob, tsfile.Date, tsfile.Timestamp},
	tsfile.Blob:      {tsfile.String, tsfile.Text},
}

// castAllowed reports whether IoTDB reads a column stored as from when the
// schema says to: the same type always, else rule 4a.
func castAllowed(from, to tsfile.DataType) bool {
	if from == to {
		// VECTOR and UNKNOWN are markers, never a column's type.
		return from.IsValueType()
	}
	for _, s := range castSources[to] {
		if s == from {
			return true
		}
	}
	return false
}

// castColumn converts arr, a column as arrowconv builds it for TsFile type
// from, into a new array of Arrow type toType holding TsFile type to (rule
// 4b). Nulls stay null. The caller releases both arrays; when nothing is to
// be converted arr itself comes back, retained. A cast that rule 4a forbids
// fails with an error wrapping tsfile.ErrUnsupported.
func castColumn(mem memory.Allocator, arr arrow.Array, from, to tsfile.DataType, toType arrow.DataType) (arrow.Array, error) {
	if from == to && arrow.TypeEqual(arr.DataType(), toType) {
		arr.Retain()
		return arr, nil
	}
	if !castAllowed(from, to) {
		return nil, fmt.Errorf("dataset: a column stored as %s cannot be read as %s (IoTDB's TSDataType.isCompatible refuses the cast): %w", from, to, tsfile.ErrUnsupported)
	}
	if a, ok := arr.DataType().(*arrow.TimestampType); ok && from == tsfile.Timestamp {
		if b, ok := toType.(*arrow.TimestampType); ok && a.Unit != b.Unit {
			// Copying the numbers would silently rescale every time: the
			// caller mixed up the schemas of files in different units.
			return nil, fmt.Errorf("dataset: TIMESTAMP column of Arrow type %s cannot be cast to %s: the units differ", a, b)
		}
	}
	b := array.NewBuilder(mem, toType)
	defer b.Release()
	b.Reserve(arr.Len())
	var err error
	switch to {
	case tsfile.Int64, tsfile.Timestamp:
		err = castToInt64(b, arr, from, to)
	case tsfile.Float:
		err = castToFloat32(b, arr, from)
	case tsfile.Double:
		err = castToFloat64(b, arr, from)
	case tsfile.Text, tsfile.String:
		err = castToText(b, arr, from, to)
	case tsfile.Blob:
		err = castToBlob(b, arr, from)
	default:
		// BOOLEAN, INT32, DATE and OBJECT accept only themselves, and
		// arrowconv has one Arrow type for each.
		err = fmt.Errorf("dataset: %s column of Arrow type %s cannot become Arrow type %s", from, arr.DataType(), toType)
	}
	if err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

// appendEach appends get(i) for every row i of arr to b with app, and a
// null where arr holds one: the loop of every cast.
func appendEach[T any](b array.Builder, arr arrow.Array, get func(int) T, app func(T)) {
	for i := range arr.Len() {
		if arr.IsNull(i) {
			b.AppendNull()
		} else {
			app(get(i))
		}
	}
}

// wrongArrow is the error for an array or a target type that is not what
// arrowconv produces for the TsFile type: a mistake of the caller.
func wrongArrow(what string, t tsfile.DataType, dt arrow.DataType) error {
	return fmt.Errorf("dataset: %s of Arrow type %s does not hold TsFile %s as arrowconv builds it", what, dt, t)
}

func castToInt64(b array.Builder, arr arrow.Array, from, to tsfile.DataType) error {
	var get func(i int) int64
	switch a := arr.(type) {
	case *array.Int32:
		if from == tsfile.Int32 {
			get = func(i int) int64 { return int64(a.Value(i)) } // sign-extends
		}
	case *array.Int64:
		if from == tsfile.Int64 {
			get = a.Value
		}
	case *array.Timestamp:
		if from == tsfile.Timestamp {
			// INT64 and TIMESTAMP share the number (castToLongSingleValue
			// returns the value unchanged), not a rescaled time.
			get = func(i int) int64 { return int64(a.Value(i)) }
		}
	}
	if get == nil {
		return wrongArrow("column", from, arr.DataType())
	}
	var app func(int64)
	switch bb := b.(type) {
	case *array.Int64Builder:
		app = bb.Append
	case *array.TimestampBuilder:
		app = func(v int64) { bb.Append(arrow.Timestamp(v)) }
	default:
		return wrongArrow("target", to, b.Type())
	}
	appendEach(b, arr, get, app)
	return nil
}

func castToFloat32(b array.Builder, arr arrow.Array, from tsfile.DataType) error {
	a, ok := arr.(*array.Int32)
	if !ok || from != tsfile.Int32 {
		return wrongArrow("column", from, arr.DataType())
	}
	bb, ok := b.(*array.Float32Builder)
	if !ok {
		return wrongArrow("target", tsfile.Float, b.Type())
	}
	// Java's (float) int rounds to nearest even above 2^24, as Go does.
	appendEach(b, arr, func(i int) float32 { return float32(a.Value(i)) }, bb.Append)
	return nil
}

func castToFloat64(b array.Builder, arr arrow.Array, from tsfile.DataType) error {
	var get func(i int) float64
	switch a := arr.(type) {
	case *array.Int32:
		if from == tsfile.Int32 {
			get = func(i int) float64 { return float64(a.Value(i)) }
		}
	case *array.Int64:
		if from == tsfile.Int64 {
			get = func(i int) float64 { return float64(a.Value(i)) }
		}
	case *array.Timestamp:
		if from == tsfile.Timestamp {
			get = func(i int) float64 { return float64(a.Value(i)) }
		}
	case *array.Float32:
		if from == tsfile.Float {
			// The exact float value widened: 0.1f is 0.10000000149011612.
			get = func(i int) float64 { return float64(a.Value(i)) }
		}
	}
	if get == nil {
		return wrongArrow("column", from, arr.DataType())
	}
	bb, ok := b.(*array.Float64Builder)
	if !ok {
		return wrongArrow("target", tsfile.Double, b.Type())
	}
	appendEach(b, arr, get, bb.Append)
	return nil
}

// castToText renders each value as Java's String.valueOf does
// (castToTextSingleValue), into utf8 or string_view.
func castToText(b array.Builder, arr arrow.Array, from, to tsfile.DataType) error {
	var get func(i int) string
	switch a := arr.(type) {
	case *array.Int32:
		if from == tsfile.Int32 {
			get = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
		}
	case *array.Int64:
		if from == tsfile.Int64 {
			get = func(i int) string { return strconv.FormatInt(a.Value(i), 10) }
		}
	case *array.Timestamp:
		if from == tsfile.Timestamp {
			// The raw number, not an ISO time: String.valueOf(long).
			get = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
		}
	case *array.Float32:
		if from == tsfile.Float {
			get = func(i int) string { return javaFloatString(a.Value(i)) }
		}
	case *array.Float64:
		if from == tsfile.Double {
			get = func(i int) string { return javaDoubleString(a.Value(i)) }
		}
	case *array.Boolean:
		if from == tsfile.Boolean {
			get = func(i int) string { return strconv.FormatBool(a.Value(i)) }
		}
	case *array.Date32:
		if from == tsfile.Date {
			get = func(i int) string { return dateString(int64(a.Value(i))) }
		}
	case *array.String:
		if from == tsfile.Text || from == tsfile.String {
			get = a.Value
		}
	case *array.StringView:
		if from == tsfile.Text || from == tsfile.String {
			get = a.Value
		}
	case *array.Binary:
		if from == tsfile.Blob {
			// Binary.toString: new String(bytes, UTF_8).
			get = func(i int) string { return javaUTF8(a.Value(i)) }
		}
	}
	if get == nil {
		return wrongArrow("column", from, arr.DataType())
	}
	var app func(string)
	switch bb := b.(type) {
	case *array.StringBuilder:
		app = bb.Append
	case *array.StringViewBuilder:
		app = bb.Append
	default:
		return wrongArrow("target", to, b.Type())
	}
	appendEach(b, arr, get, app)
	return nil
}

// castToBlob copies TEXT or STRING bytes as they are (castToBlobSingleValue).
func castToBlob(b array.Builder, arr arrow.Array, from tsfile.DataType) error {
	var get func(i int) string
	switch a := arr.(type) {
	case *array.String:
		get = a.Value
	case *array.StringView:
		get = a.Value
	}
	if get == nil || (from != tsfile.Text && from != tsfile.String) {
		return wrongArrow("column", from, arr.DataType())
	}
	bb, ok := b.(*array.BinaryBuilder)
	if !ok || bb.Type().ID() != arrow.BINARY {
		return wrongArrow("target", tsfile.Blob, b.Type())
	}
	appendEach(b, arr, get, bb.AppendString)
	return nil
}

// dateString is TSDataType.getDateStringValue of the date days after
// 1970-01-01: "%04d-%02d-%02d" of year, month and day. arrowconv only
// builds dates of year 0 and later, which is all YYYYMMDD can hold.
func dateString(days int64) string {
	y, m, d := civil.FromDays(days)
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// javaDoubleString is Java's Double.toString (String.valueOf(double)) as
// specified since JDK 19: the shortest decimal that rounds to x, the one
// closest to x among those; when a single digit would do, the closest of
// one or two digits (so 4.9E-324, not 5.0E-324). It prints plain decimals
// for 1E-3 <= |x| < 1E7 and "computerized scientific notation" otherwise,
// always with a digit after the point. JDK 18 and older (what many IoTDB
// servers run on) print extra digits for some values, about 2% of random
// doubles and 9% of random floats in a comparison with JDK 17
// (Float.MIN_NORMAL is "1.17549435E-38" there, "1.1754944E-38" here); both
// read back as the same number. We follow the current specification, which
// Go's shortest digits give exactly.
func javaDoubleString(x float64) string { return javaFormat(x, 64) }

// javaFloatString is Java's Float.toString, the same rules on the float's
// own shortest digits: 0.1f prints "0.1".
func javaFloatString(x float32) string { return javaFormat(float64(x), 32) }

func javaFormat(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	var sb strings.Builder
	if x < 0 {
		sb.WriteByte('-')
		x = -x
	}
	digits, e := javaDigits(x, bits)
	switch {
	case e >= 0 && e < 7:
		// d.ddd x 10^e with the point e places to the right.
		if len(digits) <= e+1 {
			sb.WriteString(digits)
			sb.WriteString(strings.Repeat("0", e+1-len(digits)))
			sb.WriteString(".0")
		} else {
			sb.WriteString(digits[:e+1])
			sb.WriteByte('.')
			sb.WriteString(digits[e+1:])
		}
	case e < 0 && e >= -3:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -e-1))
		sb.WriteString(digits)
	default:
		sb.WriteByte(digits[0])
		sb.WriteByte('.')
		if len(digits) > 1 {
			sb.WriteString(digits[1:])
		} else {
			sb.WriteByte('0')
		}
		sb.WriteByte('E')
		sb.WriteString(strconv.Itoa(e))
	}
	return sb.String()
}

// javaDigits returns the significant digits (no trailing zeros) and the
// decimal exponent e of x > 0 as Java chooses them: x ~ d.ddd x 10^e.
func javaDigits(x float64, bits int) (string, int) {
	digits, e := splitE(strconv.FormatFloat(x, 'e', -1, bits))
	if len(digits) == 1 {
		// Java's set of candidates is decimals of length 1 or 2 here,
		// and it takes the closest to x. The closest two-digit decimals
		// that still round to x are the neighbours of x at two digits.
		if d, ee, ok := closestTwoDigits(x, bits); ok {
			digits, e = d, ee
		}
	}
	return digits, e
}

// splitE splits strconv's 'e' format of a positive number into its digits
// without the point or trailing zeros, and its exponent.
func splitE(s string) (string, int) {
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	return digits, e
}

// closestTwoDigits returns the two-significant-digit decimal closest to x
// that reads back as x at the given precision, if any; on a tie the one
// with the even last digit, as Java's specification says.
func closestTwoDigits(x float64, bits int) (string, int, bool) {
	// strconv rounds x correctly to two digits; its neighbours one unit
	// in the last place away bracket x from the other side.
	mid, e := splitE(strconv.FormatFloat(x, 'e', 1, bits))
	m, _ := strconv.Atoi((mid + "0")[:2])
	exact := new(big.Rat).SetFloat64(x)
	best, bestE, found := "", 0, false
	var bestDist *big.Rat
	bestM := 0
	for _, c := range []int{m - 1, m, m + 1} {
		ce := e
		switch {
		case c == 9:
			c, ce = 99, e-1 // 1.0 - 0.1 is 0.99
		case c > 99:
			c, ce = 10, e+1
		}
		s := fmt.Sprintf("%d.%de%d", c/10, c%10, ce)
		v, err := strconv.ParseFloat(s, bits)
		if err != nil || v != x {
			continue
		}
		r, _ := new(big.Rat).SetString(s)
		dist := new(big.Rat).Sub(r, exact)
		dist.Abs(dist)
		if !found || dist.Cmp(bestDist) < 0 || (dist.Cmp(bestDist) == 0 && c%2 == 0 && bestM%2 != 0) {
			best, bestE, bestDist, bestM, found = s, ce, dist, c, true
		}
	}
	if !found {
		return "", 0, false
	}
	d, _ := splitE(best)
	return d, bestE, true
}

// javaUTF8 decodes b as Java's new String(b, UTF_8) does (tsfile's
// Binary.toString), which replaces malformed input with U+FFFD: one for
// each maximal prefix of a well-formed sequence (E2 82 before a
// non-continuation byte, or at the end, is one), one for each byte that
// cannot start one, and, unlike the Unicode recommendation and Go, one for
// a whole encoded surrogate (ED A0 80), since the JDK decodes the three
// bytes before rejecting the code point. Checked against the decoder of
// JDK 17 and 25 (java.lang.String's UTF-8 path) on random byte strings.
func javaUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			sb.WriteByte(c)
			i++
			continue
		}
		// need is the number of continuation bytes; lo and hi bound the
		// first one, which excludes overlong forms and code points above
		// U+10FFFF but, for Java, not surrogates.
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c >= 0xE0 && c <= 0xEF:
			need = 2
			if c == 0xE0 {
				lo = 0xA0
			}
		case c >= 0xF0 && c <= 0xF4:
			need = 3
			if c == 0xF0 {
				lo = 0x90
			} else if c == 0xF4 {
				hi = 0x8F
			}
		default:
			sb.WriteRune(utf8.RuneError)
			i++
			continue
		}
		k := 1
		for k <= need && i+k < len(b) {
			l, h := byte(0x80), byte(0xBF)
			if k == 1 {
				l, h = lo, hi
			}
			if x := b[i+k]; x < l || x > h {
				break
			}
			k++
		}
		if k == need+1 && !(c == 0xED && b[i+1] >= 0xA0) {
			sb.Write(b[i : i+k])
		} else {
			sb.WriteRune(utf8.RuneError)
		}
		i += k
	}
	return sb.String()
}
