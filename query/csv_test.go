//go:build cgo && duckdb_arrow

package query

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
)

// csvCell renders an upstream expected-CSV cell (../shared/interop/README.md
// conventions) in cellOf's canonical form for a column of Arrow type dt.
func csvCell(t testing.TB, v string, dt arrow.DataType) string {
	if v == "" {
		return "NULL"
	}
	switch dt.ID() {
	case arrow.TIMESTAMP:
		return "ts:" + v // epoch milliseconds, the tables' unit here
	case arrow.BOOL, arrow.INT32, arrow.INT64:
		return v
	case arrow.FLOAT32:
		f, err := strconv.ParseFloat(v, 32)
		require.NoError(t, err)
		return fmt.Sprintf("f32:%08x", math.Float32bits(float32(f)))
	case arrow.FLOAT64:
		f, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err)
		return fmt.Sprintf("f64:%016x", math.Float64bits(f))
	case arrow.BINARY:
		return "b:" + strings.TrimPrefix(v, "0x")
	case arrow.DATE32:
		d, err := time.Parse("2006-01-02", v)
		require.NoError(t, err)
		return "d:" + strconv.FormatInt(d.Unix()/86400, 10)
	}
	return "s:" + v
}

// TestRowsEqualUpstreamCSV: DuckDB's rows of the interop files equal the
// rows upstream's Java reader returns (the expected CSVs), an oracle
// independent of this repository's readers. A tree file's CSV holds every
// device: each tree table's rows are those of its devices, in its columns.
func TestRowsEqualUpstreamCSV(t *testing.T) {
	files, _ := filepath.Glob("../../shared/interop/*.tsfile")
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			fh, err := os.Open(strings.TrimSuffix(path, ".tsfile") + ".expected.csv.gz")
			require.NoError(t, err)
			defer fh.Close()
			zr, err := gzip.NewReader(fh)
			require.NoError(t, err)
			recs, err := csv.NewReader(zr).ReadAll()
			require.NoError(t, err)
			header := recs[0]
			db, err := Open(context.Background(), []string{path}, nil)
			require.NoError(t, err)
			defer db.Close()
			for _, tb := range db.Tables() {
				var want [][]string
				devCol := slices.Index(header, "device")
				for _, rec := range recs[1:] {
					if devCol >= 0 && !strings.HasPrefix(rec[devCol]+".", tb.Name+".") {
						continue
					}
					row := make([]string, tb.Arrow.NumFields())
					for i, f := range tb.Arrow.Fields() {
						c := slices.Index(header, f.Name)
						require.GreaterOrEqual(t, c, 0, "CSV column %s", f.Name)
						row[i] = csvCell(t, rec[c], f.Type)
					}
					want = append(want, row)
				}
				slices.SortFunc(want, func(a, b []string) int { return slices.Compare(a, b) })
				rd, err := db.QueryArrow(context.Background(), fmt.Sprintf("SELECT * FROM %s", quoteIdent(tb.Name)))
				require.NoError(t, err)
				got := rowsOf(t, rd, arrow.Millisecond)
				rd.Release()
				require.NotEmpty(t, want)
				require.Equal(t, len(want), len(got), tb.Name)
				for i := range want {
					require.Equal(t, want[i], got[i], "%s row %d", tb.Name, i)
				}
			}
		})
	}
}
