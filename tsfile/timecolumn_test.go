package tsfile

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// timeColumnPath is a table-model file whose schema records its time
// column, as the C++ and Python writers of TsFile 2.5 do and upstream Java
// cannot: package arrowconv, dataset, flight, query and the CLI read it.
const timeColumnPath = "../testdata/timecolumn.tsfile"

// timeColumnStart is the first timestamp of the rows of timecolumn.tsfile;
// row i of a device is at TimeColumnStart + i*1000.
const timeColumnStart = 1_700_000_000_000

// writeTimeColumnSample writes testdata/timecolumn.tsfile:
//
//   - table "plant": TAG region, TIME id (TIMESTAMP), TAG station, FIELD
//     temp (DOUBLE), FIELD time (INT64). The TIME column stands between
//     the TAGs, so a reader that counted it among them would shift
//     station's DeviceID segment; the FIELD named "time" is legal beside a
//     time column named "id". Devices (north, s1), (north, s2), (south,
//     s1), five rows each at timeColumnStart + i*1000; temp is 10*d + i,
//     time is 100*d + i (never a timestamp, so reading the timestamps for
//     it shows).
//   - table "py": TIME time (TIMESTAMP) first, TAG device, FIELD value
//     (INT32), as the Python dataframe_to_tsfile writes a table (apache/
//     tsfile python/tsfile/utils.py): a TIME column named "time". Device
//     d1, three rows.
//
// It is deterministic so the committed file can be checked against it.
func writeTimeColumnSample(out io.Writer) error {
	w, err := NewWriter(out, nil)
	if err != nil {
		return err
	}
	if err := w.RegisterTable(TableSchema{Name: "plant", Columns: []Column{
		{Name: "region", DataType: String, Category: Tag},
		{Name: "id", DataType: Timestamp, Category: TimeCol},
		{Name: "station", DataType: String, Category: Tag},
		{Name: "temp", DataType: Double, Category: Field},
		{Name: "time", DataType: Int64, Category: Field},
	}}); err != nil {
		return err
	}
	if err := w.RegisterTable(TableSchema{Name: "py", Columns: []Column{
		{Name: "time", DataType: Timestamp, Category: TimeCol},
		{Name: "device", DataType: String, Category: Tag},
		{Name: "value", DataType: Int32, Category: Field},
	}}); err != nil {
		return err
	}
	for d, tags := range [][]string{{"north", "s1"}, {"north", "s2"}, {"south", "s1"}} {
		times := make([]int64, 5)
		temp, tv := NewValues(Double, 5), NewValues(Int64, 5)
		for i := range times {
			times[i] = timeColumnStart + int64(i)*1000
			temp.Float64s[i] = float64(10*d + i)
			tv.Int64s[i] = int64(100*d + i)
		}
		if err := w.WriteAligned(NewDeviceID(append([]string{"plant"}, tags...)...), times, []AlignedColumn{
			{SeriesSchema: SeriesSchema{Name: "temp", DataType: Double}, Values: temp},
			{SeriesSchema: SeriesSchema{Name: "time", DataType: Int64}, Values: tv},
		}); err != nil {
			return err
		}
	}
	v := NewValues(Int32, 3)
	v.Int32s = []int32{7, 8, 9}
	if err := w.WriteAligned(NewDeviceID("py", "d1"), []int64{1, 2, 3}, []AlignedColumn{
		{SeriesSchema: SeriesSchema{Name: "value", DataType: Int32}, Values: v},
	}); err != nil {
		return err
	}
	return w.Close()
}

// TestTimeColumnSample: the committed file is what the generator writes
// (go test ./tsfile -run TestTimeColumnSample -update rewrites it), its
// schema bytes hold the TIME column as the C++ TableSchema::serialize_to
// lays a column out (apache/tsfile cpp/src/common/schema.h: name, type,
// encoding, compression, property count, then the category as an i32), and
// the schema reads back with the TIME column in place: TimeColumn finds
// it, Tags skips it, so station is the DeviceID's second TAG segment.
func TestTimeColumnSample(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, writeTimeColumnSample(&buf))
	if *update {
		require.NoError(t, os.WriteFile(timeColumnPath, buf.Bytes(), 0o644))
	}
	committed, err := os.ReadFile(timeColumnPath)
	require.NoError(t, err)
	require.Equal(t, buf.Bytes(), committed, "testdata/timecolumn.tsfile differs from its generator; rerun with -update")

	// The column "id" as C++ serializes it, byte by byte: i32 length and
	// name, data type TIMESTAMP (8), encoding, compression, i32 property
	// count 0, i32 category TIME (3). Built here, not by our writer.
	want := binary.BigEndian.AppendUint32(nil, 2)
	want = append(want, "id"...)
	want = append(want, byte(Timestamp))
	at := bytes.Index(committed, want)
	require.Positive(t, at, "the schema's column id")
	tail := committed[at+len(want)+2:] // past encoding and compression
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 3}, tail[:8], "property count 0, category TIME")

	f, err := Open(bytes.NewReader(committed), int64(len(committed)), nil)
	require.NoError(t, err)
	defer f.Close()
	plant, ok := f.SchemaOf("plant")
	require.True(t, ok)
	tc, ok := plant.TimeColumn()
	require.True(t, ok)
	require.Equal(t, Column{Name: "id", DataType: Timestamp, Encoding: tc.Encoding, Compression: tc.Compression, Category: TimeCol}, tc)
	var tags []string
	for _, c := range plant.Tags() {
		tags = append(tags, c.Name)
	}
	require.Equal(t, []string{"region", "station"}, tags)
	var fields []string
	for _, c := range plant.Fields() {
		fields = append(fields, c.Name)
	}
	require.Equal(t, []string{"temp", "time"}, fields)
	devs, err := f.Devices("plant")
	require.NoError(t, err)
	require.Len(t, devs, 3)
	for _, d := range devs {
		require.Equal(t, 3, d.Len(), "table name and two TAG segments: %s", d)
	}
	require.NoError(t, f.CheckTable("plant", nil), "a TIME column has no series and is not a FIELD the index lacks")

	py, ok := f.SchemaOf("py")
	require.True(t, ok)
	tc, ok = py.TimeColumn()
	require.True(t, ok)
	require.Equal(t, "time", tc.Name)
	_, ok = (&TableSchema{Columns: []Column{{Name: "v", Category: Field}}}).TimeColumn()
	require.False(t, ok)
}
