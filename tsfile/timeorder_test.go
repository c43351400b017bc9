package tsfile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// unorderedModel is Unordered as the definition says it, one pair at a
// time.
func unorderedModel(ts []int64) int {
	for k := 1; k < len(ts); k++ {
		if ts[k] <= ts[k-1] {
			return k
		}
	}
	return -1
}

// TestUnordered: the unrolled scan finds the first position that does not
// increase wherever it lies (in the four-wide steps or the tail), for
// repeats and steps back, at the int64 extremes too.
func TestUnordered(t *testing.T) {
	for _, tc := range []struct {
		ts   []int64
		want int
	}{
		{nil, -1},
		{[]int64{5}, -1},
		{[]int64{1, 2}, -1},
		{[]int64{2, 2}, 1},
		{[]int64{3, 2}, 1},
		{[]int64{math.MinInt64, math.MaxInt64}, -1},
		{[]int64{math.MaxInt64, math.MinInt64}, 1},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, -1},
		{[]int64{1, 2, 3, 4, 4, 6, 7, 8, 9}, 4},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 8}, 8},
		{[]int64{1, 2, 3, 4, 5, 0, 7, 8, 9}, 5},
	} {
		require.Equal(t, tc.want, Unordered(tc.ts), "%v", tc.ts)
	}
	rng := rand.New(rand.NewPCG(36, 3))
	for range 2000 {
		n := rng.IntN(40)
		ts := make([]int64, n)
		t0 := rng.Int64() - math.MaxInt64/2
		for i := range ts {
			t0 += 1 + rng.Int64N(1000)
			ts[i] = t0
		}
		// Damage up to two positions: a repeat, a step back.
		for range rng.IntN(3) {
			if n > 1 {
				k := 1 + rng.IntN(n-1)
				ts[k] = ts[k-1] - rng.Int64N(3)
			}
		}
		require.Equal(t, unorderedModel(ts), Unordered(ts), "%v", ts)
	}
}
