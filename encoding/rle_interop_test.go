package encoding_test

import (
	"compress/gzip"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
	"github.com/tsarrow/tsarrow/tsfile"
)

const rleInteropDir = "../../shared/interop/"

// rleExpectedColumn reads one column of an expected CSV for the rows whose key column (1 is the
// device of a tree file or the first TAG of a table file) is key, as a map from time to the
// cell's text; empty cells (absent points, nulls) are left out.
func rleExpectedColumn(t *testing.T, path, key, column string) map[int64]string {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	require.NoError(t, err)
	r := csv.NewReader(zr)
	header, err := r.Read()
	require.NoError(t, err)
	col := -1
	for i, h := range header {
		if h == column {
			col = i
		}
	}
	require.NotEqual(t, -1, col, "column %s", column)
	want := map[int64]string{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if rec[1] != key || rec[col] == "" {
			continue
		}
		ts, err := strconv.ParseInt(rec[0], 10, 64)
		require.NoError(t, err)
		want[ts] = rec[col]
	}
	return want
}

// TestRLEInteropTreeNonAligned reads the RLE columns of the upstream-written j10 file (the
// BOOLEAN column is UNCOMPRESSED, so it depends on no compression codec) and compares every
// point with the expected rows.
func TestRLEInteropTreeNonAligned(t *testing.T) {
	t.Parallel()
	path := rleInteropDir + "j10_tree_nonaligned.tsfile"
	if _, err := os.Stat(path); err != nil {
		need.Skipf(t, "interop file absent: %v", err)
	}
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()

	format := map[string]func(v *tsfile.Values, i int) string{
		"s_bool": func(v *tsfile.Values, i int) string { return strconv.FormatBool(v.Bools[i]) },
		"s_date": func(v *tsfile.Values, i int) string {
			// DATE is the INT32 yyyymmdd.
			d := v.Int32s[i]
			return time.Date(int(d/10000), time.Month(d/100%100), int(d%100), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		},
	}
	for _, dev := range [][]string{{"root.sg1", "d1"}, {"root.sg1", "d2"}, {"root.sg2", "d3"}} {
		for _, m := range []string{"s_bool", "s_date"} {
			name := strings.Join(dev, ".") + "." + m
			t.Run(name, func(t *testing.T) {
				series, err := f.Series(tsfile.NewDeviceID(dev...))
				require.NoError(t, err)
				var ts *tsfile.TimeseriesMetadata
				for i := range series {
					if series[i].Measurement == m {
						ts = &series[i]
					}
				}
				require.NotNil(t, ts, "series %s", name)
				times, vals, err := f.ReadNonAligned(ts)
				if errors.Is(err, encoding.ErrUnsupported) {
					t.Skipf("needs a codec not yet available: %v", err)
				}
				require.NoError(t, err)
				want := rleExpectedColumn(t, rleInteropDir+"j10_tree_nonaligned.expected.csv.gz", strings.Join(dev, "."), m)
				require.Len(t, times, len(want))
				require.NotEmpty(t, times)
				for i, tm := range times {
					require.False(t, vals.IsNull(i))
					require.Equal(t, want[tm], format[m](&vals, i), "%s at time %d", name, tm)
				}
			})
		}
	}
}

// TestRLEInteropTableBoolean reads the BOOLEAN RLE column of the upstream-written j02 file
// (LZ4, several pages per chunk, an empty value page mid-chunk).
func TestRLEInteropTableBoolean(t *testing.T) {
	t.Parallel()
	path := rleInteropDir + "j02_table_multipage_default_encodings.tsfile"
	if _, err := os.Stat(path); err != nil {
		need.Skipf(t, "interop file absent: %v", err)
	}
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	devs, err := f.Devices("machines")
	require.NoError(t, err)
	require.NotEmpty(t, devs)
	for _, dev := range devs {
		machine, ok := dev.Segment(1)
		require.True(t, ok)
		t.Run(machine, func(t *testing.T) {
			all, err := f.Series(dev)
			require.NoError(t, err)
			var series []tsfile.TimeseriesMetadata
			for _, s := range all {
				if s.IsTimeColumn() || s.Measurement == "running" {
					series = append(series, s)
				}
			}
			require.Len(t, series, 2)
			cols, err := f.ReadAligned(series)
			if errors.Is(err, encoding.ErrUnsupported) {
				t.Skipf("needs a codec not yet available: %v", err)
			}
			require.NoError(t, err)
			want := rleExpectedColumn(t, rleInteropDir+"j02_table_multipage_default_encodings.expected.csv.gz", machine, "running")
			running := cols.Columns["running"]
			require.NotNil(t, running)
			points := 0
			for i, tm := range cols.Times {
				w, present := want[tm]
				require.Equal(t, !present, running.IsNull(i), "null at time %d", tm)
				if present {
					require.Equal(t, w, strconv.FormatBool(running.Bools[i]), "time %d", tm)
					points++
				}
			}
			require.Equal(t, len(want), points)
		})
	}
}
