package dataset

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// randomColumn builds n cells of dt (int64, string or bool), some null.
func randomColumn(r *rand.Rand, mem memory.Allocator, dt arrow.DataType, n int, tag string, nulls bool) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := 0; i < n; i++ {
		if nulls && r.IntN(4) == 0 {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(r.Int64N(1000))
		case *array.StringBuilder:
			b.Append(fmt.Sprintf("%s%d", tag, r.IntN(1000)))
		case *array.BooleanBuilder:
			b.Append(r.IntN(2) == 0)
		}
	}
	return b.NewArray()
}

// TestPatchAndFill checks patch (in place and by runs) and fillFrom
// against a naive cell-by-cell model, on sliced inputs.
func TestPatchAndFill(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	cell := func(a arrow.Array, i int) string {
		if a.IsNull(i) {
			return "-"
		}
		return a.ValueStr(i)
	}
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean} {
		for seed := uint64(1); seed <= 30; seed++ {
			r := rand.New(rand.NewPCG(seed, 3))
			// Even seeds: a base without nulls, patched in place.
			full := randomColumn(r, mem, dt, 60, "b", seed%2 == 1)
			base := array.NewSlice(full, 5, 55) // an offset, as batches have
			full.Release()
			n, bOff := 30, r.IntN(20)
			overs := []arrow.Array{randomColumn(r, mem, dt, 40, "x", true), randomColumn(r, mem, dt, 40, "y", true)}
			var ws []rewrite
			want := make([]string, n)
			for i := range want {
				want[i] = cell(base, bOff+i)
			}
			next := []int{0, 0}
			for p := 0; p < n; p++ {
				for src := 0; src < 2; src++ { // lower copy first
					if r.IntN(3) == 0 {
						row := next[src]
						next[src]++
						ws = append(ws, rewrite{pos: p, src: src, row: row})
						if overs[src].IsValid(row) {
							want[p] = cell(overs[src], row)
						}
					}
				}
			}
			got, err := patch(mem, base, bOff, n, overs, ws)
			require.NoError(t, err)
			for i := 0; i < n; i++ {
				require.Equal(t, want[i], cell(got, i), "%s seed %d row %d", dt, seed, i)
			}
			got.Release()

			// fillFrom: base's nulls take over's cells at the same rows.
			oOff := r.IntN(10)
			for i := range want {
				want[i] = cell(base, bOff+i)
				if base.IsNull(bOff+i) && overs[0].IsValid(oOff+i) {
					want[i] = cell(overs[0], oOff+i)
				}
			}
			got, err = fillFrom(mem, base, bOff, n, overs[0], oOff)
			require.NoError(t, err)
			for i := 0; i < n; i++ {
				require.Equal(t, want[i], cell(got, i), "fillFrom %s seed %d row %d", dt, seed, i)
			}
			got.Release()
			base.Release()
			releaseAll(overs)
		}
	}
}

func TestMergeWrites(t *testing.T) {
	var tmp []rewrite
	ws := []rewrite{{1, 0, 0}, {4, 0, 1}, {9, 0, 2}, {0, 1, 0}, {4, 1, 1}, {5, 1, 2}, {12, 1, 3}}
	got := mergeWrites(ws, 3, &tmp)
	require.Equal(t, []rewrite{{0, 1, 0}, {1, 0, 0}, {4, 0, 1}, {4, 1, 1}, {5, 1, 2}, {9, 0, 2}, {12, 1, 3}}, got)
}
