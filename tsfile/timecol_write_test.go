package tsfile

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// TestWriterTimeColumn: a table schema with a TIME column, standing
// anywhere as the C++ writer allows, is written as given and read back
// column for column; the TAGs around it keep their DeviceID segments.
func TestWriterTimeColumn(t *testing.T) {
	s := TableSchema{Name: "t", Columns: []Column{
		{Name: "a", DataType: String, Category: Tag},
		{Name: "id", DataType: Timestamp, Encoding: encoding.TS2Diff, Compression: encoding.LZ4, Category: TimeCol},
		{Name: "b", DataType: String, Category: Tag},
		{Name: "v", DataType: Int32, Encoding: encoding.TS2Diff, Category: Field},
	}}
	var out bytes.Buffer
	w, err := NewWriter(&out, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(s))
	col := []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int32, Encoding: encoding.TS2Diff}, Values: Values{Type: Int32, Int32s: []int32{1, 2}}}}
	require.NoError(t, w.WriteAligned(NewDeviceID("t", "x", "y"), []int64{5, 9}, col))
	require.NoError(t, w.Close())

	f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	require.NoError(t, err)
	require.Equal(t, s, *f.Metadata.TableSchemas["t"])
	var tags []string
	for _, c := range f.Metadata.TableSchemas["t"].Tags() {
		tags = append(tags, c.Name)
	}
	require.Equal(t, []string{"a", "b"}, tags)
}

// TestWriterTimeColumnRefused: one TIME column at most, holding
// timestamps.
func TestWriterTimeColumnRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cols []Column
		want string
	}{
		{"two", []Column{{Name: "id", DataType: Timestamp, Category: TimeCol}, {Name: "ts", DataType: Int64, Category: TimeCol}}, `two TIME columns, "id" and "ts"`},
		{"type", []Column{{Name: "id", DataType: Double, Category: TimeCol}}, `TIME column "id" must be TIMESTAMP or INT64, not DOUBLE`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(&bytes.Buffer{}, nil)
			require.NoError(t, err)
			require.ErrorContains(t, w.RegisterTable(TableSchema{Name: "t", Columns: tc.cols}), tc.want)
		})
	}
	w, err := NewWriter(&bytes.Buffer{}, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{{Name: "id", DataType: Int64, Category: TimeCol}}}))
}
