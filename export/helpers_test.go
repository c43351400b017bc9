package export

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestTimeColumnName keeps this package's name of the time column that
// of the readers it is tuned for.
func TestTimeColumnName(t *testing.T) {
	require.Equal(t, arrowconv.TimeColumn, timeColumn)
}

// TestParquetTimeColumnNamed: the time column of a table whose schema
// records a TIME column "id" (testdata/timecolumn.tsfile) is kept out of
// dictionary encoding as "time" is, found by its category; the FIELD named
// "time" beside it is dictionary encoded like any other column.
func TestParquetTimeColumnNamed(t *testing.T) {
	f, err := tsfile.OpenFile(filepath.Join("..", "testdata", "timecolumn.tsfile"), nil)
	require.NoError(t, err)
	defer f.Close()
	rr, err := arrowconv.NewTableReader(f, "plant", nil)
	require.NoError(t, err)
	defer rr.Release()
	require.Equal(t, "id", timeFieldName(rr.Schema()))
	var buf bytes.Buffer
	_, err = WriteParquet(&buf, rr, &ParquetOptions{Compression: "zstd"})
	require.NoError(t, err)
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	defer pf.Close()
	rg := pf.MetaData().RowGroup(0)
	dict := map[string]bool{}
	for c := 0; c < rg.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		require.NoError(t, err)
		dict[pf.MetaData().Schema.Column(c).Name()] = cc.HasDictionaryPage()
	}
	require.Equal(t, map[string]bool{"id": false, "region": true, "station": true, "temp": true, "time": true}, dict)
}
