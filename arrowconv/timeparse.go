package arrowconv

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// ParseTime reads a time bound as users write it: an integer in the stored
// unit, or an RFC 3339 time (a date, or a date and time without a zone,
// is taken as UTC) converted to the unit, truncating finer digits.
func ParseTime(s string, unit arrow.TimeUnit) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	var t time.Time
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err = time.Parse(layout, s); err == nil {
			break
		}
	}
	if err != nil {
		return 0, fmt.Errorf("%q is neither an integer nor an RFC 3339 time", s)
	}
	per, ok := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[unit]
	if !ok {
		return 0, fmt.Errorf("invalid time unit %d", int(unit))
	}
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	if sec > math.MaxInt64/per || sec < math.MinInt64/per {
		return 0, fmt.Errorf("%s does not fit in int64 %s", s, unit)
	}
	v := sec * per
	frac := nsec / (1e9 / per)
	if v > math.MaxInt64-frac {
		return 0, fmt.Errorf("%s does not fit in int64 %s", s, unit)
	}
	return v + frac, nil
}
