package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// lzoFixture is a table-model file whose every page, time and value, is LZO-compressed
// by lzokay::compress, the compressor of the C++ TsFile writer. tsarrow does not write
// LZO, so it was made once by a throwaway test that registered an LZO codec piping each
// page through lzokay (built from apache/tsfile cpp/third_party/lzokay at a9f54614bd20,
// each output checked with liblzo2's lzo1x_decompress_safe) and called
// writeLZOFixture(encoding.LZO). Every other byte of the file is what our writer writes
// for writeLZOFixture(encoding.Uncompressed), page for page.
const lzoFixture = "../../testdata/lzo_pages.tsfile"

// writeLZOFixture writes the rows of lzoFixture with every page compressed by comp: two
// devices of table "lzo", 700 rows each in pages of 100, with INT64, DOUBLE, STRING and
// BOOLEAN columns, some of them null.
func writeLZOFixture(comp tsfile.Compression) ([]byte, error) {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{MaxPointsPerPage: 100, TimeCompression: comp})
	if err != nil {
		return nil, err
	}
	fields := []tsfile.Column{
		{Name: "i", DataType: tsfile.Int64},
		{Name: "d", DataType: tsfile.Double},
		{Name: "s", DataType: tsfile.String},
		{Name: "b", DataType: tsfile.Boolean},
	}
	cols := []tsfile.Column{{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag}}
	for _, f := range fields {
		f.Compression, f.Category = comp, tsfile.Field
		cols = append(cols, f)
	}
	if err := w.RegisterTable(tsfile.TableSchema{Name: "lzo", Columns: cols}); err != nil {
		return nil, err
	}
	const rows = 700
	times := make([]int64, rows)
	for i := range times {
		times[i] = 1_700_000_000_000 + int64(i)*1000 + int64(i%7)
	}
	for dev := range 2 {
		var ac []tsfile.AlignedColumn
		for _, f := range fields {
			v := tsfile.NewValues(f.DataType, rows)
			v.Null = make([]bool, rows)
			for r := range rows {
				v.Null[r] = (r+dev)%13 == 0
				switch f.DataType {
				case tsfile.Int64:
					v.Int64s[r] = int64(r*r%1000 - 500 + dev)
				case tsfile.Double:
					v.Float64s[r] = 20 + float64(r%50)/4 + float64(dev)
				case tsfile.String:
					v.Binaries[r] = fmt.Appendf(nil, "state-%d", (r/10)%5)
				case tsfile.Boolean:
					v.Bools[r] = r%3 == dev
				}
			}
			ac = append(ac, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: f.Name, DataType: f.DataType, Compression: comp}, Values: v})
		}
		if err := w.WriteAligned(tsfile.NewDeviceID("lzo", fmt.Sprintf("d%d", dev)), times, ac); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TestLZOPages converts the LZO fixture and requires the rows of its uncompressed twin,
// and inspect names the compression of every chunk.
func TestLZOPages(t *testing.T) {
	plain, err := writeLZOFixture(encoding.Uncompressed)
	require.NoError(t, err)
	twin := filepath.Join(t.TempDir(), "plain.tsfile")
	require.NoError(t, os.WriteFile(twin, plain, 0o644))

	want := convertCSV(t, twin)
	require.Len(t, want, 1+2*700)
	require.Equal(t, want, convertCSV(t, lzoFixture))

	code, out, errOut := runCLI("inspect", lzoFixture)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "compression=LZO")
	require.NotContains(t, out, "compression=UNCOMPRESSED", "every chunk of the fixture is LZO")
	require.Equal(t, 2*5, strings.Count(out, "compression=LZO"), "a time and four value chunks per device:\n%s", out)
}

// TestLZONotWritten: the writer refuses LZO with an error naming it.
func TestLZONotWritten(t *testing.T) {
	_, err := writeLZOFixture(encoding.LZO)
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	require.ErrorContains(t, err, "LZO")
}
