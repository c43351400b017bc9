package tsfile

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
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

// TestRowHelpersRefuseUnorderedPages: the row helpers check time order as
// the Arrow readers do. Byte 486322 of j10 (a packed delta of a TS_2DIFF
// time stream, changed by XOR 0xf3) moves timestamps of a non-aligned BLOB
// page back behind earlier ones, within its statistics; byte 76 of j01
// (the middle block's first value in an aligned time page) moves them
// ahead, which the row helpers' full pass over the time statistics sees
// first. A default read fails naming the page, a lenient one warns.
func TestRowHelpersRefuseUnorderedPages(t *testing.T) {
	for _, tc := range []struct {
		file string
		off  int
		xor  byte
		what string
	}{
		{"j10_tree_nonaligned", 486322, 0xf3, "strictly increase"},
		{"j01_table_all_types_plain", 76, 0x01, "end time"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "shared", "interop", tc.file+".tsfile"))
			if os.IsNotExist(err) {
				t.Skip("no interop files")
			}
			require.NoError(t, err)
			b[tc.off] ^= tc.xor
			// readSeries reads every series of the file as its kind says.
			readSeries := func(ro *ReadOptions) (*File, error) {
				f, err := Open(bytes.NewReader(b), int64(len(b)), ro)
				require.NoError(t, err)
				for _, tb := range f.Tables() {
					devs, err := f.Devices(tb)
					require.NoError(t, err)
					for _, d := range devs {
						series, err := f.Series(d)
						require.NoError(t, err)
						if len(series) > 0 && series[0].IsTimeColumn() {
							if _, err := f.ReadAligned(series); err != nil {
								return f, err
							}
							continue
						}
						for i := range series {
							if _, _, err := f.ReadNonAligned(&series[i]); err != nil {
								return f, err
							}
						}
					}
				}
				return f, nil
			}
			_, err = readSeries(nil)
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorContains(t, err, tc.what)
			f, err := readSeries(&ReadOptions{Lenient: true})
			require.NoError(t, err)
			require.NotEmpty(t, f.Warnings())
			_, err = readSeries(&ReadOptions{NoVerify: true})
			require.NoError(t, err)
		})
	}
}
