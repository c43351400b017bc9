package dataset

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
)

// TestDatasetReleasesEverything: after a reader is released, every buffer
// it allocated is back (a merge that kept batches would grow with the data).
func TestDatasetReleasesEverything(t *testing.T) {
	dir := buildLayout(t, mediumLayout(rand.New(rand.NewPCG(4, 4)))...)
	for _, bs := range []int{0, 1000, 7} {
		for _, limit := range []int64{0, 2500} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			ds, err := Open([]string{dir.Root}, nil)
			require.NoError(t, err)
			tables, err := ds.Tables()
			require.NoError(t, err)
			for _, tb := range tables {
				rd, err := ds.NewReader(tb.Name, &arrowconv.Options{Allocator: mem, BatchSize: bs, Limit: limit})
				require.NoError(t, err)
				for rd.Next() {
				}
				require.NoError(t, rd.Err())
				rd.Release()
			}
			ds.Close()
			mem.AssertSize(t, 0)
		}
	}
}
