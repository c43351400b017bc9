//go:build cgo && duckdb_arrow

package query

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestMeasureNativeConversion times DuckDB's own Arrow-to-DataChunk
// conversion (duckdb_data_chunk_from_arrow, through duckdb-go-bindings)
// of the arrowconv scan cut into 2048-row slices: the per-row cost a table
// function would pay if it handed Arrow batches to DuckDB instead of
// copying values one by one. Measures only; TSARROW_SQL_MEASURE=dir as
// TestMeasurePaths (run that first to write m.tsfile).
func TestMeasureNativeConversion(t *testing.T) {
	dir := os.Getenv("TSARROW_SQL_MEASURE")
	if dir == "" {
		t.Skip("set TSARROW_SQL_MEASURE=dir to measure")
	}
	f, err := tsfile.OpenFile(filepath.Join(dir, "m.tsfile"), nil)
	require.NoError(t, err)
	defer f.Close()
	var db bindings.Database
	require.Equal(t, bindings.StateSuccess, bindings.Open("", &db))
	defer bindings.Close(&db)
	var conn bindings.Connection
	require.Equal(t, bindings.StateSuccess, bindings.Connect(db, &conn))
	defer bindings.Disconnect(&conn)

	for _, o := range []*arrowconv.Options{{Columns: []string{"x"}}, {PlainTags: true}, {}} {
		rd, err := arrowconv.NewTableReader(f, "t", o)
		require.NoError(t, err)
		schema, ed := bindings.SchemaFromArrow(conn, rd.Schema())
		require.False(t, bindings.ErrorDataHasError(ed), bindings.ErrorDataMessage(ed))
		bindings.DestroyErrorData(&ed)
		start := time.Now()
		var n int64
		for rd.Next() {
			rec := rd.RecordBatch()
			for off := int64(0); off < rec.NumRows(); off += 2048 {
				s := rec.NewSlice(off, min(off+2048, rec.NumRows()))
				chunk, ed := bindings.DataChunkFromArrow(conn, s, schema)
				require.False(t, bindings.ErrorDataHasError(ed), bindings.ErrorDataMessage(ed))
				bindings.DestroyErrorData(&ed)
				n += int64(bindings.DataChunkGetSize(chunk))
				bindings.DestroyDataChunk(&chunk)
				s.Release()
			}
		}
		require.NoError(t, rd.Err())
		el := time.Since(start)
		rd.Release()
		bindings.DestroyArrowConvertedSchema(&schema)
		require.Equal(t, int64(10_000_000), n)
		var cols []string
		for _, fl := range rd.Schema().Fields() {
			cols = append(cols, fl.Name+":"+fl.Type.String())
		}
		t.Logf("scan + DataChunkFromArrow %v: %.1f ms, %.1f ns/row", cols, float64(el.Microseconds())/1000, float64(el.Nanoseconds())/float64(n))
	}
}
