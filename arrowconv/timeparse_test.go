package arrowconv

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
)

// TestParseTime holds every accepted form to hand-computed epochs, as a
// start (first instant) and as an inclusive end (last instant), in each
// unit. 2023-11-14T22:15:00Z is 1_700_000_100 s; the day starts at
// 1_699_920_000 s.
func TestParseTime(t *testing.T) {
	type want struct{ s, ms, us, ns int64 }
	for _, c := range []struct {
		in         string
		start, end want
	}{
		// Integers are the stored value in the unit, whatever it is.
		{"1700000000123", want{1700000000123, 1700000000123, 1700000000123, 1700000000123}, want{1700000000123, 1700000000123, 1700000000123, 1700000000123}},
		{"-5", want{-5, -5, -5, -5}, want{-5, -5, -5, -5}},
		// A bare date: its first instant, or through its last instant.
		{"2023-11-14",
			want{1_699_920_000, 1_699_920_000_000, 1_699_920_000_000_000, 1_699_920_000_000_000_000},
			want{1_700_006_399, 1_700_006_399_999, 1_700_006_399_999_999, 1_700_006_399_999_999_999}},
		{"1969-12-31", want{-86400, -86_400_000, -86_400_000_000, -86_400_000_000_000}, want{-1, -1, -1, -1}},
		// Date and time, 'T' or a space, with or without zone: no zone is UTC.
		{"2023-11-14T22:15:00", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		{"2023-11-14 22:15:00", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		{"2023-11-14T22:15:00Z", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		{"2023-11-14 22:15", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		{"2023-11-14T22:15Z", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		{"2023-11-15T06:15:00+08:00", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		{"2023-11-15 06:15:00+0800", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		{"2023-11-14T17:15:00-05", at(1_700_000_100, 0, 0), at(1_700_000_100, 0, 0)},
		// Fractions: exact when the unit holds them; a start rounds up,
		// an end down, when it does not.
		{"2023-11-14T22:15:00.5", at(1_700_000_100, 500_000_000, +1), at(1_700_000_100, 500_000_000, 0)},
		{"2023-11-14 22:15:00.123456789+00:00", at(1_700_000_100, 123_456_789, +1), at(1_700_000_100, 123_456_789, 0)},
		{"2023-11-14T22:15:00.000001Z", at(1_700_000_100, 1_000, +1), at(1_700_000_100, 1_000, 0)},
	} {
		for _, u := range []struct {
			unit       arrow.TimeUnit
			start, end int64
		}{
			{arrow.Second, c.start.s, c.end.s}, {arrow.Millisecond, c.start.ms, c.end.ms},
			{arrow.Microsecond, c.start.us, c.end.us}, {arrow.Nanosecond, c.start.ns, c.end.ns},
		} {
			got, err := ParseTime(c.in, u.unit)
			require.NoError(t, err, "%s %s", c.in, u.unit)
			require.Equal(t, u.start, got, "start %s in %s", c.in, u.unit)
			got, err = ParseEndTime(c.in, u.unit)
			require.NoError(t, err, "%s %s", c.in, u.unit)
			require.Equal(t, u.end, got, "end %s in %s", c.in, u.unit)
		}
	}
}

// at is the value of sec seconds and nsec nanoseconds in each unit, cut
// down to the unit, plus round (0 or 1) in the units that cut digits off.
func at(sec, nsec int64, round int64) (w struct{ s, ms, us, ns int64 }) {
	part := func(per int64) int64 {
		step := int64(1e9) / per
		v := sec*per + nsec/step
		if nsec%step != 0 {
			v += round
		}
		return v
	}
	w.s, w.ms, w.us, w.ns = part(1), part(1e3), part(1e6), part(1e9)
	return w
}

func TestParseTimeLimits(t *testing.T) {
	// The last day ns holds ends at the largest int64, not past it.
	got, err := ParseEndTime("2262-04-11", arrow.Nanosecond)
	require.NoError(t, err)
	require.Equal(t, int64(math.MaxInt64), got)
	got, err = ParseTime("2262-04-11T23:47:16.854775807Z", arrow.Nanosecond)
	require.NoError(t, err)
	require.Equal(t, int64(math.MaxInt64), got)
	for _, c := range []struct {
		in   string
		unit arrow.TimeUnit
	}{
		{"2262-04-12", arrow.Nanosecond},
		{"1677-09-21", arrow.Nanosecond},
		{"2262-04-11T23:47:16.854775808Z", arrow.Nanosecond},
		{"99999999999999999999", arrow.Millisecond},
	} {
		_, err := ParseTime(c.in, c.unit)
		require.ErrorContains(t, err, "does not fit in int64", c.in)
	}
}

// TestParseTimeErrors: input that is no accepted form fails with one
// line naming the input and listing the forms.
func TestParseTimeErrors(t *testing.T) {
	for _, c := range []struct{ in, reason string }{
		{"", ""}, {"yesterday", ""}, {"1700000000.5", ""}, {"2023-11-14T", ""}, {"2023/11/14", ""},
		{"14.11.2023", ""}, {"2023-11-14T22", ""}, {"2023-11-14T22:15:00 UTC", ""}, {"2023-11-14x", ""},
		{"2023-02-30", "day out of range"}, {"2023-13-01T00:00:00Z", "month out of range"},
		{"2023-11-14 25:00:00", "hour out of range"},
	} {
		for _, parse := range []func(string, arrow.TimeUnit) (int64, error){ParseTime, ParseEndTime} {
			_, err := parse(c.in, arrow.Millisecond)
			require.Error(t, err, c.in)
			require.True(t, errors.Is(err, ErrTimeSyntax), "%q: %v", c.in, err)
			msg := err.Error()
			require.NotContains(t, msg, "\n")
			require.Contains(t, msg, "2023-11-14 22:15:00", c.in)
			require.Contains(t, msg, "no zone means UTC", c.in)
			if c.reason != "" {
				require.Contains(t, msg, c.reason, c.in)
			}
			require.True(t, strings.Contains(msg, `"`+c.in+`"`), msg)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2023-11-14", "2023-11-14T22:15:00.123+08:00", "123", "2023-11-14 22:15"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, unit := range []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond} {
			start, err1 := ParseTime(s, unit)
			end, err2 := ParseEndTime(s, unit)
			if (err1 == nil) != (err2 == nil) {
				// Only a day that runs past int64 clamps its end.
				if err1 != nil && err2 == nil && end == math.MaxInt64 {
					continue
				}
				t.Fatalf("%q %s: start err %v, end err %v", s, unit, err1, err2)
			}
			// An end never lies before its start, and a start rounds
			// up at most one unit past the end of the same instant.
			if err1 == nil && (end < start-1) {
				t.Fatalf("%q %s: end %d before start %d", s, unit, end, start)
			}
		}
	})
}
