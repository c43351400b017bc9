package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// intPackFile writes a table whose integer FIELD columns (INT32, INT64, TIMESTAMP, DATE) and
// whose time column all use enc, over several pages per chunk and with nulls (the INT64
// column's rows from 20,000 on all null, so its last pages are empty), and returns its path.
func intPackFile(t *testing.T, enc tsfile.Encoding) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{ConfiguredTimeEncoding: true, TimeEncoding: tsfile.TimeEncodingOf(enc)})
	require.NoError(t, err)
	types := map[string]tsfile.DataType{"i32": tsfile.Int32, "i64": tsfile.Int64, "ts": tsfile.Timestamp, "day": tsfile.Date}
	names := []string{"i32", "i64", "ts", "day"}
	cols := []tsfile.Column{{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag}}
	for _, n := range names {
		cols = append(cols, tsfile.Column{Name: n, DataType: types[n], Encoding: enc, Category: tsfile.Field})
	}
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: cols}))
	const rows = 25_000
	times := make([]int64, rows)
	for i := range times {
		times[i] = 1_700_000_000_000 + int64(i)*int64(1+i%7)*997
		if i > 0 && times[i] <= times[i-1] {
			times[i] = times[i-1] + 1
		}
	}
	edges := []int64{0, 1, -1, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	var ac []tsfile.AlignedColumn
	for c, n := range names {
		v := tsfile.NewValues(types[n], rows)
		v.Null = make([]bool, rows)
		for i := range rows {
			x := int64(i*i*(c+3)) - int64(i)<<c
			if i%11 == 0 {
				x = edges[(i/11)%len(edges)]
			}
			switch types[n] {
			case tsfile.Int32:
				v.Int32s[i] = int32(x)
			case tsfile.Date:
				v.Int32s[i] = 20240101 + int32(i%28)
			default:
				v.Int64s[i] = x
			}
			v.Null[i] = i%13 == 5 || (i >= 12_000 && i < 12_500) || (c == 1 && i >= 20_000)
		}
		ac = append(ac, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: n, DataType: types[n], Encoding: enc}, Values: v})
	}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "d1"), times, ac))
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), enc.String()+".tsfile")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// TestTsFile23IntegerEncodings writes a file in each of the TsFile 2.3 integer encodings,
// converts it with ts2arrow convert and compares every cell with the same data written
// PLAIN, and checks that inspect names the encoding.
func TestTsFile23IntegerEncodings(t *testing.T) {
	plain := convertCSV(t, intPackFile(t, encoding.Plain))
	require.Len(t, plain, 25_001)
	for _, enc := range []tsfile.Encoding{encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar} {
		t.Run(enc.String(), func(t *testing.T) {
			p := intPackFile(t, enc)
			require.Equal(t, plain, convertCSV(t, p))

			info := inspectJSON(t, p)
			require.Len(t, info.Tables, 1)
			for _, c := range info.Tables[0].Columns[1:] {
				require.Equal(t, enc.String(), c.Encoding, c.Name)
			}
			for _, d := range info.Tables[0].Devices {
				for _, s := range d.Series {
					require.Equal(t, enc.String(), s.Encoding, s.Measurement)
					if s.Measurement == "i64" {
						// The all-null page is a page of its own, an empty block.
						require.Positive(t, s.EmptyPages, "%d pages", s.Pages)
					}
				}
			}
			code, out, errOut := runCLI("inspect", p)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, enc.String())
		})
	}
	require.True(t, strings.HasPrefix(plain[0], "time,"), plain[0])
}
