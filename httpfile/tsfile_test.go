package httpfile

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// wideTable writes a table of 20 devices x 8 DOUBLE columns x 5000 rows.
func wideTable(t *testing.T) []byte {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	cols := []tsfile.Column{{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag}}
	for c := 0; c < 8; c++ {
		cols = append(cols, tsfile.Column{Name: fmt.Sprintf("c%d", c), DataType: tsfile.Double, Category: tsfile.Field})
	}
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: cols}))
	const rows = 5000
	times := make([]int64, rows)
	for i := range times {
		times[i] = int64(i) * 1000
	}
	for d := 0; d < 20; d++ {
		var ac []tsfile.AlignedColumn
		for c := 0; c < 8; c++ {
			v := tsfile.NewValues(tsfile.Double, rows)
			for i := range v.Float64s {
				v.Float64s[i] = float64(d*1000+c) + float64(i)*0.37
			}
			ac = append(ac, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: fmt.Sprintf("c%d", c), DataType: tsfile.Double, Encoding: tsfile.Encoding(0)}, Values: v})
		}
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", fmt.Sprintf("d%02d", d)), times, ac))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func scan(t *testing.T, f *tsfile.File, opts *arrowconv.Options) (rows int64) {
	r, err := arrowconv.NewTableReader(f, "t", opts)
	require.NoError(t, err)
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		rows += rec.NumRows()
	}
	require.NoError(t, r.Err())
	return rows
}

// TestRemoteTsFile: a TsFile read over HTTP gives the same rows as from
// memory, and a one-column query fetches a fraction of the file.
func TestRemoteTsFile(t *testing.T) {
	data := wideTable(t)
	srv, url := newServer(t, data)
	hf, err := Open(context.Background(), url, nil)
	require.NoError(t, err)
	f, err := tsfile.Open(hf, hf.Size(), nil)
	require.NoError(t, err)
	rows := scan(t, f, &arrowconv.Options{Columns: []string{"c3"}})
	require.EqualValues(t, 20*5000, rows)
	oneCol := srv.served.Load()
	t.Logf("file %d bytes; one-column scan fetched %d bytes (%.1f%%) in %d requests", len(data), oneCol, 100*float64(oneCol)/float64(len(data)), hf.Stats().Requests)
	require.Less(t, oneCol, int64(len(data))/4, "one of eight columns should read far less than the file")

	mf, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
	require.NoError(t, err)
	full := scan(t, mf, nil)
	remote := scan(t, f, nil)
	require.Equal(t, full, remote)
}
