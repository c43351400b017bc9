package tsfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// alignedChunkCounts checks what the upstream Java reader needs of an
// aligned device (AbstractAlignedTimeSeriesMetadata.getAlignedChunkMetadata
// in apache/tsfile pairs the i-th value chunk with the i-th time chunk):
// every value column of every aligned device has one chunk per time chunk,
// and the i-th ones lie in the same chunk group, after the time chunk and
// before the next one.
func alignedChunkCounts(f *File) error {
	for _, table := range f.Tables() {
		devs, err := f.Devices(table)
		if err != nil {
			return err
		}
		for _, dev := range devs {
			series, err := f.Series(dev)
			if err != nil {
				return err
			}
			if len(series) == 0 || !series[0].IsTimeColumn() {
				continue
			}
			tc := series[0].Chunks
			for _, s := range series[1:] {
				if len(s.Chunks) != len(tc) {
					return fmt.Errorf("device %s: column %q has %d chunks for %d time chunks", dev, s.Measurement, len(s.Chunks), len(tc))
				}
				for i, c := range s.Chunks {
					if c.Offset < tc[i].Offset || i+1 < len(tc) && c.Offset > tc[i+1].Offset {
						return fmt.Errorf("device %s: chunk %d of column %q at %d is not in the chunk group of time chunk %d at %d", dev, i, s.Measurement, c.Offset, i, tc[i].Offset)
					}
				}
			}
		}
	}
	return nil
}

// TestAlignedChunksPairUp: every aligned device of every file our writer
// makes, and of the bundled and upstream files, has one value chunk per
// column per time chunk, so the upstream Java reader reads it.
func TestAlignedChunksPairUp(t *testing.T) {
	files, err := filepath.Glob("../testdata/iotdb/*/*/*/*/*.tsfile")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	interop, _ := filepath.Glob("../../shared/interop/*.tsfile")
	files = append(append(files, samplePath), interop...)
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		require.NoError(t, err, p)
		require.NoError(t, alignedChunkCounts(f), p)
	}

	col := func(name string, typ DataType, n int, null func(i int) bool) AlignedColumn {
		v := NewValues(typ, n)
		v.Null = make([]bool, n)
		for i := range v.Null {
			v.Null[i] = null(i)
		}
		return AlignedColumn{SeriesSchema: SeriesSchema{Name: name, DataType: typ}, Values: v}
	}
	some := func(i int) bool { return i%3 == 0 }
	times := func(from, n int) []int64 {
		ts := make([]int64, n)
		for i := range ts {
			ts[i] = int64(from + i)
		}
		return ts
	}
	cases := []struct {
		name   string
		groups [][]AlignedColumn // columns of each chunk group of one device, 4 rows each
		table  bool
		empty  map[string]int // column -> chunks with no data expected
	}{
		{"tree column absent from a later group", [][]AlignedColumn{
			{col("a", Int32, 4, some), col("b", Double, 4, some)},
			{col("a", Int32, 4, some)},
			{col("b", Double, 4, some)},
		}, false, map[string]int{"a": 1, "b": 1}},
		{"table FIELD never given", [][]AlignedColumn{
			{col("a", Int32, 4, some)},
			{col("a", Int32, 4, some), col("b", Double, 4, some)},
		}, true, map[string]int{"b": 1, "c": 2}},
		{"all-null column", [][]AlignedColumn{
			{col("a", Int32, 4, some), col("b", Double, 4, func(int) bool { return true })},
		}, false, map[string]int{"b": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, nil)
			require.NoError(t, err)
			dev := NewDeviceID("root.sg.d1")
			if tc.table {
				dev = NewDeviceID("t", "x")
				require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{
					{Name: "tag", DataType: String, Category: Tag},
					{Name: "a", DataType: Int32, Category: Field},
					{Name: "b", DataType: Double, Category: Field},
					{Name: "c", DataType: Text, Category: Field, Compression: encoding.Snappy},
				}}))
			}
			for g, cols := range tc.groups {
				require.NoError(t, w.WriteAligned(dev, times(g*4, 4), cols))
			}
			require.NoError(t, w.Close())
			f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
			require.NoError(t, err)
			require.NoError(t, alignedChunkCounts(f))
			series, err := f.Series(dev)
			require.NoError(t, err)
			empty := map[string]int{}
			for _, s := range series[1:] {
				for _, c := range s.Chunks {
					if c.Statistics.Count == 0 {
						h, err := f.ReadChunkHeader(c.Offset)
						require.NoError(t, err)
						require.Zero(t, h.DataSize, "an empty value chunk stores no page")
						require.True(t, h.IsValueChunk())
						if tc.table && s.Measurement == "c" {
							require.Equal(t, encoding.Snappy, h.Compression, "the schema's compression labels it")
						}
						empty[s.Measurement]++
					}
				}
			}
			require.Equal(t, tc.empty, empty)
			require.NoError(t, readAll(buf.Bytes()))
		})
	}

	// A tree device takes no new column after its first group: the
	// earlier groups could not pair it up.
	w, err := NewWriter(&bytes.Buffer{}, nil)
	require.NoError(t, err)
	dev := NewDeviceID("root.sg.d1")
	require.NoError(t, w.WriteAligned(dev, times(0, 4), []AlignedColumn{col("a", Int32, 4, some)}))
	err = w.WriteAligned(dev, times(4, 4), []AlignedColumn{col("a", Int32, 4, some), col("b", Int32, 4, some)})
	require.ErrorContains(t, err, `column "b" of aligned device root.sg.d1 is new after its first chunk group`)
}
