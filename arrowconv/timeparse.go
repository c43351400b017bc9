package arrowconv

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrTimeSyntax marks a time bound that is none of the forms ParseTime
// accepts.
var ErrTimeSyntax = errors.New("not a time")

// TimeForms describes the time bounds ParseTime accepts, for usage
// messages.
const TimeForms = "an integer in the stored time unit, a date (2023-11-14), or a date and time " +
	"(2023-11-14T22:15:00 or 2023-11-14 22:15:00, optional fraction .123, optional zone Z or +08:00; no zone means UTC)"

// timeLayouts are the date-and-time forms, with a 'T' or a space between
// date and time, seconds optional, a zone optional. The time package reads
// a fraction after the seconds without the layout naming it.
var timeLayouts = func() []string {
	var out []string
	for _, sep := range []string{"T", " "} {
		for _, clock := range []string{"15:04:05", "15:04"} {
			for _, zone := range []string{"Z07:00", "-0700", "-07", ""} {
				out = append(out, "2006-01-02"+sep+clock+zone)
			}
		}
	}
	return out
}()

// ParseTime reads the first instant a time bound names, in unit: a start
// bound, or a point in time. The bound is written as users write it:
//
//   - an integer: the stored value itself, in unit;
//   - a date, 2023-11-14: its first instant (00:00:00 UTC);
//   - a date and time, 2023-11-14T22:15:00 or 2023-11-14 22:15:00, the
//     seconds optional, with a fraction of up to nine digits and a zone
//     (Z, +08:00, +0800, +08) optional.
//
// A time without a zone is UTC: TsFile and IoTDB store UTC epochs. A
// fraction finer than unit rounds up to the next unit, so that the bound
// keeps no value before the instant it names.
func ParseTime(s string, unit arrow.TimeUnit) (int64, error) {
	return parseBound(s, unit, false)
}

// ParseEndTime reads the last instant an inclusive end bound names, in
// unit: as ParseTime, except that a date means the whole day, through its
// last instant in unit (2023-11-14 is 2023-11-14T23:59:59.999Z in ms), and
// that a fraction finer than unit rounds down.
func ParseEndTime(s string, unit arrow.TimeUnit) (int64, error) {
	return parseBound(s, unit, true)
}

func parseBound(s string, unit arrow.TimeUnit, end bool) (int64, error) {
	per, ok := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[unit]
	if !ok {
		return 0, fmt.Errorf("invalid time unit %d", int(unit))
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	} else if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s does not fit in int64", s)
	}
	bad := func(why string) error {
		return fmt.Errorf("%w: %q%s; want %s", ErrTimeSyntax, s, why, TimeForms)
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		day := t.Unix()
		v, ok := mulFits(day, per)
		if !ok {
			return 0, fmt.Errorf("%s does not fit in int64 %s", s, unit)
		}
		if !end {
			return v, nil
		}
		next, ok := mulFits(day+86400, per)
		if !ok {
			return math.MaxInt64, nil // the day runs past the last value; all of it that fits
		}
		return next - 1, nil
	} else if rangeError(err) {
		return 0, bad(": " + rangeReason(err))
	}
	var t time.Time
	var err error
	var reason string
	for _, layout := range timeLayouts {
		if t, err = time.Parse(layout, s); err == nil {
			break
		}
		if rangeError(err) && reason == "" {
			reason = ": " + rangeReason(err)
		}
	}
	if err != nil {
		return 0, bad(reason)
	}
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	v, ok := mulFits(sec, per)
	step := int64(1e9) / per // nanoseconds per unit
	frac := nsec / step
	if !end && nsec%step != 0 {
		frac++ // round a start up: no value before the instant
	}
	if !ok || v > math.MaxInt64-frac {
		return 0, fmt.Errorf("%s does not fit in int64 %s", s, unit)
	}
	return v + frac, nil
}

// mulFits returns a*b and whether it fits in int64 (b > 0).
func mulFits(a, b int64) (int64, bool) {
	if a > math.MaxInt64/b || a < math.MinInt64/b {
		return 0, false
	}
	return a * b, true
}

// rangeError reports whether the time package read the form but found a
// field out of range (month 13, February 30, hour 25).
func rangeError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "out of range")
}

func rangeReason(err error) string {
	var pe *time.ParseError
	if errors.As(err, &pe) && pe.Message != "" {
		return strings.TrimPrefix(pe.Message, ": ")
	}
	return "a field is out of range"
}
