package export

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// TimeFormat is how the text writers (WriteCSV, WriteJSONL) spell
// timestamps: the time column and every other Arrow timestamp column.
// The binary formats keep their timestamp types whatever it says.
type TimeFormat int

const (
	// TimeISO writes ISO 8601 in UTC with as many fraction digits as the
	// column's unit has (none for s, 3 for ms, 6 for us, 9 for ns) and a
	// trailing Z, as DuckDB and pyarrow write timestamps:
	// 2023-11-14T22:13:20.123Z. DuckDB's read_csv and read_json infer a
	// timestamp type from it. A column without a time zone (a wall-clock
	// timestamp in Arrow's sense) is written without the Z. Years beyond
	// 0000-9999 are written in ISO 8601's expanded form, signed
	// (+10000-01-01T00:00:00Z), as Java's Instant.toString writes them.
	// The zero TimeFormat.
	TimeISO TimeFormat = iota
	// TimeEpoch writes the stored integer, in the column's unit.
	TimeEpoch
)

// TextOptions are the options of WriteCSVWith and WriteJSONLWith; nil
// or the zero value gives the defaults.
type TextOptions struct {
	// Time is how timestamps are written (default TimeISO).
	Time TimeFormat
}

func (o *TextOptions) timeFormat() TimeFormat {
	if o == nil {
		return TimeISO
	}
	return o.Time
}

// timeFormatNames are the names ParseTimeFormat accepts; the first of each
// is the one String gives, the others are aliases kept for the names that
// "ts2arrow head" took first.
var timeFormatNames = []struct {
	f     TimeFormat
	names []string
}{
	{TimeISO, []string{"iso", "rfc3339"}},
	{TimeEpoch, []string{"epoch", "raw"}},
}

// TimeFormatNames lists the accepted spellings of ParseTimeFormat, the
// canonical names first ("iso", "epoch"), then the aliases.
func TimeFormatNames() []string {
	var out []string
	for pass := 0; pass < 2; pass++ {
		for _, n := range timeFormatNames {
			if pass == 0 {
				out = append(out, n.names[0])
			} else {
				out = append(out, n.names[1:]...)
			}
		}
	}
	return out
}

// ParseTimeFormat reads a time format by name: "iso" (alias "rfc3339") or
// "epoch" (alias "raw").
func ParseTimeFormat(name string) (TimeFormat, error) {
	for _, n := range timeFormatNames {
		for _, s := range n.names {
			if s == name {
				return n.f, nil
			}
		}
	}
	return 0, fmt.Errorf("unknown time format %q (want iso or epoch; rfc3339 and raw are their old names)", name)
}

// String returns the canonical name of f.
func (f TimeFormat) String() string {
	for _, n := range timeFormatNames {
		if n.f == f {
			return n.names[0]
		}
	}
	return "TimeFormat(" + strconv.Itoa(int(f)) + ")"
}

// isoTime appends the ISO 8601 form of timestamps of one column. It keeps
// the date part of the last value written: the values of a time column
// run in order, so most rows share their day with the row before and the
// calendar arithmetic runs once per day, not per value.
type isoTime struct {
	perSec int64 // units per second
	digits int   // fraction digits
	zulu   bool  // append "Z"
	day    int64 // the day date holds, valid when date is not empty
	date   []byte
}

func newISOTime(t *arrow.TimestampType) *isoTime {
	per, digits := unitScale(t.Unit)
	return &isoTime{perSec: per, digits: digits, zulu: t.TimeZone != ""}
}

// unitScale returns the units per second of unit and the fraction digits
// that spell one unit.
func unitScale(unit arrow.TimeUnit) (int64, int) {
	switch unit {
	case arrow.Second:
		return 1, 0
	case arrow.Millisecond:
		return 1e3, 3
	case arrow.Microsecond:
		return 1e6, 6
	}
	return 1e9, 9
}

// AppendISOTime appends the TimeISO form of timestamp v in unit, with the
// trailing Z (a UTC instant), as the text writers write it.
func AppendISOTime(dst []byte, v int64, unit arrow.TimeUnit) []byte {
	return newISOTime(&arrow.TimestampType{Unit: unit, TimeZone: "UTC"}).append(dst, v)
}

func (t *isoTime) append(dst []byte, v int64) []byte {
	// Floor division, so that times before 1970 count back from the
	// previous second and the fraction stays positive.
	sec, frac := v/t.perSec, v%t.perSec
	if frac < 0 {
		sec--
		frac += t.perSec
	}
	day, sod := sec/86400, sec%86400
	if sod < 0 {
		day--
		sod += 86400
	}
	if t.date == nil || day != t.day {
		t.day = day
		t.date = append(appendDate(t.date[:0], day), 'T')
	}
	dst = append(dst, t.date...)
	h, m, s := sod/3600, sod/60%60, sod%60
	dst = append(dst, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+s/10), byte('0'+s%10))
	if t.digits > 0 {
		dst = append(dst, '.')
		var buf [9]byte
		for i := t.digits - 1; i >= 0; i-- {
			buf[i] = byte('0' + frac%10)
			frac /= 10
		}
		dst = append(dst, buf[:t.digits]...)
	}
	if t.zulu {
		dst = append(dst, 'Z')
	}
	return dst
}
