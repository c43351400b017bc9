package arrowconv

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// v3Twin writes one tree-model dataset as TsFile format version v: an
// aligned device stored under a redundantly quoted path, a non-aligned
// one, and a device of five path nodes.
func v3Twin(t *testing.T, v byte) *tsfile.File {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{Version: v, MaxPointsPerPage: 3})
	require.NoError(t, err)
	n := 10
	times := make([]int64, n)
	vals := tsfile.Values{Type: tsfile.Int32, Int32s: make([]int32, n), Null: make([]bool, n)}
	for i := range times {
		times[i] = int64(100 + i*10)
		vals.Int32s[i] = int32(i * i)
		vals.Null[i] = i%4 == 1
	}
	require.NoError(t, w.WriteAligned(tsfile.ParseTreePath("root.sg.`d1`"), times, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "a", DataType: tsfile.Int32}, Values: vals},
	}))
	require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath("root.sg.d2"), []tsfile.NonAlignedSeries{
		{SeriesSchema: tsfile.SeriesSchema{Name: "a", DataType: tsfile.Int32}, Times: times[:4], Values: tsfile.Values{Type: tsfile.Int32, Int32s: vals.Int32s[:4]}},
		{SeriesSchema: tsfile.SeriesSchema{Name: "b", DataType: tsfile.String}, Times: times[2:5], Values: tsfile.Values{Type: tsfile.String, Binaries: [][]byte{[]byte("x"), []byte("y"), []byte("z")}}},
	}))
	require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath("root.sg.area.d3.x"), []tsfile.NonAlignedSeries{
		{SeriesSchema: tsfile.SeriesSchema{Name: "b", DataType: tsfile.String}, Times: times[:1], Values: tsfile.Values{Type: tsfile.String, Binaries: [][]byte{[]byte("w")}}},
	}))
	require.NoError(t, w.Close())
	f, err := tsfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	require.NoError(t, err)
	require.Equal(t, v, f.Version)
	return f
}

// TestTreeReaderV3 reads a TsFile v3 with NewTreeReader: the same schema
// and rows as its v4 twin, whole and with Devices, Columns and Time
// pushed down (Devices through the v3 Bloom filter, which hashes the
// stored path).
func TestTreeReaderV3(t *testing.T) {
	f3, f4 := v3Twin(t, tsfile.VersionV3), v3Twin(t, tsfile.Version)
	require.Equal(t, f4.Tables(), f3.Tables())
	s3, err := TreeArrowSchema(f3, "", nil)
	require.NoError(t, err)
	s4, err := TreeArrowSchema(f4, "", nil)
	require.NoError(t, err)
	require.True(t, s3.Equal(s4), "%s\n%s", s3, s4)
	for name, o := range map[string]Options{
		"all":     {},
		"devices": {Devices: []tsfile.DeviceID{tsfile.NewDeviceID("root.sg", "d1"), tsfile.NewDeviceID("root.sg.area", "d3", "x")}},
		"query":   {Columns: []string{"device", "a"}, Time: &TimeRange{Start: 120, End: 170}, Where: map[string]string{"device": "root.sg.d1"}},
		"absent":  {Devices: []tsfile.DeviceID{tsfile.NewDeviceID("root.sg", "nope")}},
	} {
		mem := checkedMem(t)
		o.Allocator = mem
		r3, err := NewTreeReader(f3, "", &o)
		require.NoError(t, err, name)
		got := drain(t, r3)
		r4, err := NewTreeReader(f4, "", &o)
		require.NoError(t, err, name)
		want := drain(t, r4)
		require.Equal(t, want.header, got.header, name)
		require.Equal(t, want.rows, got.rows, name)
		if name != "absent" {
			require.NotEmpty(t, got.rows, name)
		}
	}
}
