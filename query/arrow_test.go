//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
)

// TestArrowQuery reads a query over the table function back as an
// array.RecordReader (the duckdb_arrow build tag): DuckDB's result in
// Arrow, with no row-by-row scan in Go.
func TestArrowQuery(t *testing.T) {
	const devices, rows = 3, 5000
	db, _ := openTable(t, devices, rows)
	err := func() error {
		res, err := db.QueryArrow(context.Background(),
			"SELECT region, count(*) AS n, sum(v)::BIGINT AS s FROM t WHERE v >= ? GROUP BY region ORDER BY region", 10)
		if err != nil {
			return err
		}
		defer res.Release()
		var got []string
		for res.Next() {
			rec := res.RecordBatch()
			for i := range int(rec.NumRows()) {
				got = append(got, fmt.Sprintf("%s %d %d", rec.Column(0).ValueStr(i),
					rec.Column(1).(*array.Int64).Value(i), rec.Column(2).(*array.Int64).Value(i)))
			}
		}
		if err := res.Err(); err != nil {
			return err
		}
		want := int64(rows)*int64(rows-1)/2 - 45
		require.Equal(t, []string{
			fmt.Sprintf("r0000 %d %d", rows-10, want),
			fmt.Sprintf("r0001 %d %d", rows-10, want),
			fmt.Sprintf("r0002 %d %d", rows-10, want),
		}, got)
		return nil
	}()
	require.NoError(t, err)
}
