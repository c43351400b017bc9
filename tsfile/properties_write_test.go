package tsfile

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/aead"
)

// userProperties returns the footer properties of the file in b after the
// three encryption properties the writer puts first.
func userProperties(t *testing.T, b []byte) []Property {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	props := f.Metadata.Properties
	require.GreaterOrEqual(t, len(props), 3)
	require.Equal(t, []string{aead.LegacyPropLevel, aead.LegacyPropType, aead.LegacyPropKey}, []string{props[0].Key, props[1].Key, props[2].Key})
	return props[3:]
}

// requireSameProperties compares properties by key, null flag and bytes,
// so that a null and an empty value differ and nil and empty bytes do not.
func requireSameProperties(t *testing.T, want, got []Property) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Key, got[i].Key, "property %d", i)
		require.Equal(t, want[i].Null, got[i].Null, "property %q null", want[i].Key)
		require.True(t, bytes.Equal(want[i].Value, got[i].Value), "property %q: %x, want %x", want[i].Key, got[i].Value, want[i].Value)
	}
}

// TestWriterPropertiesRoundTrip: TsFile 2.5's binary property values
// survive the writer as given: null apart from empty, bytes that are not
// UTF-8, and a table point count, which the writer does not touch unless
// TablePointCount asks.
func TestWriterPropertiesRoundTrip(t *testing.T) {
	props := []Property{
		{Key: "null", Null: true},
		{Key: "empty", Value: []byte{}},
		{Key: "binary", Value: []byte{0xff, 0x00, 0xfe, 0x80}},
		{Key: "text", Value: []byte("0xff")},
		{Key: TablePointCountPrefix + "t", Value: binary.BigEndian.AppendUint64(nil, 12345)},
		{Key: "SEV:TableRename:t", Value: []byte("u")},
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{Properties: props})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{{Name: "v", DataType: Int32, Category: Field}}}))
	require.NoError(t, w.WriteAligned(NewDeviceID("t"), []int64{1}, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int32}, Values: Values{Type: Int32, Int32s: []int32{7}}}}))
	require.NoError(t, w.Close())
	requireSameProperties(t, props, userProperties(t, out.Bytes()))
}

// TestWriterTablePointCount: WriteOptions.TablePointCount counts the
// non-null FIELD values of each registered table, over chunk groups,
// into tablePointCount.<table> as 8 bytes big-endian, and drops the
// counts it was given, which describe another file.
func TestWriterTablePointCount(t *testing.T) {
	given := []Property{
		{Key: "keep", Value: []byte("x")},
		{Key: TablePointCountPrefix + "a", Value: binary.BigEndian.AppendUint64(nil, 999)},
		{Key: TablePointCountPrefix + "gone", Value: []byte("7")},
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{Properties: given, TablePointCount: true, MaxPointsPerPage: 2})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "a", Columns: []Column{
		{Name: "tag", DataType: String, Category: Tag},
		{Name: "x", DataType: Int32, Category: Field},
		{Name: "y", DataType: Double, Category: Field},
	}}))
	require.NoError(t, w.RegisterTable(TableSchema{Name: "b", Columns: []Column{{Name: "z", DataType: Int64, Category: Field}}}))
	require.NoError(t, w.RegisterTable(TableSchema{Name: "empty", Columns: []Column{{Name: "z", DataType: Int64, Category: Field}}}))

	// The naive count: every non-null value of every FIELD written.
	var want = map[string]uint64{"a": 0, "b": 0, "empty": 0}
	write := func(dev DeviceID, times []int64, cols []AlignedColumn) {
		require.NoError(t, w.WriteAligned(dev, times, cols))
		for _, c := range cols {
			for i := range times {
				if c.Values.Null == nil || !c.Values.Null[i] {
					want[dev.Table()]++
				}
			}
		}
	}
	x := func(vs []int32, null []bool) AlignedColumn {
		return AlignedColumn{SeriesSchema: SeriesSchema{Name: "x", DataType: Int32}, Values: Values{Type: Int32, Int32s: vs, Null: null}}
	}
	y := func(vs []float64, null []bool) AlignedColumn {
		return AlignedColumn{SeriesSchema: SeriesSchema{Name: "y", DataType: Double}, Values: Values{Type: Double, Float64s: vs, Null: null}}
	}
	write(NewDeviceID("a", "d1"), []int64{1, 2, 3, 4, 5}, []AlignedColumn{x([]int32{1, 0, 3, 0, 5}, []bool{false, true, false, true, false}), y([]float64{1, 2, 3, 4, 5}, nil)})
	write(NewDeviceID("a", "d2"), []int64{1, 2}, []AlignedColumn{y([]float64{0, 0}, []bool{true, true})})
	write(NewDeviceID("a", "d1"), []int64{9}, []AlignedColumn{x([]int32{9}, nil)})
	write(NewDeviceID("b"), []int64{1, 2, 3}, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "z", DataType: Int64}, Values: Values{Type: Int64, Int64s: []int64{1, 2, 3}}}})
	require.NoError(t, w.Close())
	require.Equal(t, map[string]uint64{"a": 9, "b": 3, "empty": 0}, want)

	count := func(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
	requireSameProperties(t, []Property{
		{Key: "keep", Value: []byte("x")},
		{Key: TablePointCountPrefix + "a", Value: count(want["a"])},
		{Key: TablePointCountPrefix + "b", Value: count(want["b"])},
		{Key: TablePointCountPrefix + "empty", Value: count(want["empty"])},
	}, userProperties(t, out.Bytes()))

	_, err = NewWriter(&bytes.Buffer{}, &WriteOptions{Version: VersionV3, TablePointCount: true})
	require.ErrorContains(t, err, "no properties")
}

// TestWriterTablePointCountEncrypted: in a Page AEAD file the counts come
// before the metadata authentication tag, which stays last and verifies.
func TestWriterTablePointCountEncrypted(t *testing.T) {
	reg := testKeys(t)
	c := aeadConfigs()["v3-gcm256"]
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{Encryption: &c, Keys: reg, TablePointCount: true})
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{{Name: "v", DataType: Int32, Category: Field}}}))
	require.NoError(t, w.WriteAligned(NewDeviceID("t"), []int64{1, 2}, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int32}, Values: Values{Type: Int32, Int32s: []int32{7, 8}}}}))
	require.NoError(t, w.Close())
	f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), &ReadOptions{Keys: reg})
	require.NoError(t, err)
	require.True(t, f.Encryption().MetadataAuthenticated)
	props := f.Metadata.Properties
	require.Equal(t, MetadataAuthProperty, props[len(props)-1].Key)
	v, ok := f.Metadata.Property(TablePointCountPrefix + "t")
	require.True(t, ok)
	require.Equal(t, binary.BigEndian.AppendUint64(nil, 2), v)
}
