package main

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/export"
)

// timeFormatFlag reads a --time-format value, of head and convert alike.
func timeFormatFlag(s string) (export.TimeFormat, error) {
	tf, err := export.ParseTimeFormat(s)
	if err != nil {
		return 0, usagef("unknown --time-format %q (want iso or epoch; rfc3339 and raw are accepted for them)", s)
	}
	return tf, nil
}

// timeRangeHelp says what --start and --end take, for the help of every
// command that has them.
const timeRangeHelp = `  --start, --end     an inclusive time range, each bound an integer in the
                     stored unit (--time-unit), a date (2023-11-14) or a
                     date and time (2023-11-14T22:15:00, 2023-11-14
                     22:15:00.123, seconds and fraction optional) with an
                     optional zone (Z, +08:00); a time without a zone is
                     UTC, as IoTDB stores it. A date as --start is its first
                     instant; as --end the whole day is included, through
                     its last instant in the unit
`

// timeRangeFlags reads --start and --end into a range in unit; nil when
// neither is given. Both bounds are inclusive.
func timeRangeFlags(start, end string, unit arrow.TimeUnit) (*arrowconv.TimeRange, error) {
	if start == "" && end == "" {
		return nil, nil
	}
	r := &arrowconv.TimeRange{Start: math.MinInt64, End: math.MaxInt64}
	var err error
	if start != "" {
		if r.Start, err = arrowconv.ParseTime(start, unit); err != nil {
			return nil, usagef("--start: %v", err)
		}
	}
	if end != "" {
		if r.End, err = arrowconv.ParseEndTime(end, unit); err != nil {
			return nil, usagef("--end: %v", err)
		}
	}
	if r.Start > r.End {
		return nil, usagef("--start is after --end")
	}
	return r, nil
}
