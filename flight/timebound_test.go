package flight

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
)

// TestQueryTimeBounds: Start and End strings go through the CLI's parser,
// End read as an inclusive end (a date is its whole day).
func TestQueryTimeBounds(t *testing.T) {
	for _, c := range []struct {
		start, end *TimeBound
		unit       arrow.TimeUnit
		lo, hi     int64
	}{
		{Time("2023-11-14"), Time("2023-11-14"), arrow.Millisecond, 1_699_920_000_000, 1_700_006_399_999},
		{Time("2023-11-14 22:15:00"), Time("2023-11-15T06:15:00+08:00"), arrow.Second, 1_700_000_100, 1_700_000_100},
		{Int(5), Time("1970-01-01"), arrow.Microsecond, 5, 86_399_999_999},
	} {
		q := &Query{Table: "t", Start: c.start, End: c.end}
		o, err := q.options(c.unit)
		require.NoError(t, err)
		require.Equal(t, c.lo, o.Time.Start, "%v", c)
		require.Equal(t, c.hi, o.Time.End, "%v", c)
	}
	q := &Query{Table: "t", End: Time("soon")}
	_, err := q.options(arrow.Millisecond)
	require.ErrorIs(t, err, errBadQuery)
	require.ErrorContains(t, err, `end: not a time: "soon"`)
}
