package tsfile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// TestReadNonAlignedSkipsLostPage: a non-aligned chunk of exactly
// page_max_point_count points in the C++ writer's lost-page layout fails a
// strict read with ErrLostFullPage and a message naming --lenient; a
// lenient read leaves its points out with a warning and keeps the rest.
func TestReadNonAlignedSkipsLostPage(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 3, quirkLayouts: QuirkLostFullPage})
	require.NoError(t, err)
	// Two chunk groups: s's first chunk (3 points) is lost, its second
	// (2 points) is kept.
	for g, n := range []int{3, 2} {
		v := NewValues(Double, n)
		var times []int64
		for i := 0; i < n; i++ {
			times = append(times, int64(g*10+i))
			v.Float64s[i] = float64(g*10 + i)
		}
		require.NoError(t, w.WriteNonAligned(NewDeviceID("root.sg.d"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "s", DataType: Double, Encoding: encoding.Plain}, Times: times, Values: v}}))
	}
	require.NoError(t, w.Close())
	b := out.Bytes()
	for _, lenient := range []bool{false, true} {
		f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Lenient: lenient})
		require.NoError(t, err)
		ts, err := f.SeriesByName(NewDeviceID("root.sg.d"), "s")
		require.NoError(t, err)
		times, vals, err := f.ReadNonAligned(ts)
		if !lenient {
			require.True(t, errors.Is(err, ErrLostFullPage), "%v", err)
			require.ErrorContains(t, err, "read with --lenient to skip the chunk")
			continue
		}
		require.NoError(t, err)
		require.Equal(t, []int64{10, 11}, times)
		require.Equal(t, []float64{10, 11}, vals.Float64s)
		require.NotZero(t, f.Quirks()&QuirkLostFullPage)
		var msgs []string
		for _, w := range f.Warnings() {
			msgs = append(msgs, w.Msg)
		}
		require.Contains(t, msgs, LostSeriesChunkWarning)
	}
}
