package arrowconv

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// timeColumnStart is the first timestamp of testdata/timecolumn.tsfile
// (tsfile's writeTimeColumnSample documents the file).
const timeColumnStart = 1_700_000_000_000

func openTimeColumnFile(t testing.TB) *tsfile.File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "timecolumn.tsfile"))
	require.NoError(t, err)
	return openBytes(t, b)
}

// plantRows is a naive model of table plant of timecolumn.tsfile: rows
// (id, region, station, temp, time) of the devices in index order, each
// with five rows at timeColumnStart + i*1000 where temp is 10*d + i and
// the FIELD time is 100*d + i, kept when keep(timestamp) holds.
func plantRows(keep func(ts int64) bool) [][]string {
	var out [][]string
	for d, tags := range [][2]string{{"north", "s1"}, {"north", "s2"}, {"south", "s1"}} {
		for i := range 5 {
			ts := timeColumnStart + int64(i)*1000
			if keep != nil && !keep(ts) {
				continue
			}
			out = append(out, []string{strconv.FormatInt(ts, 10), tags[0], tags[1],
				canonFloat64(float64(10*d + i)), strconv.Itoa(100*d + i)})
		}
	}
	return out
}

// pick returns the columns idx of rows.
func pick(rows [][]string, idx ...int) [][]string {
	out := make([][]string, len(rows))
	for r, row := range rows {
		for _, i := range idx {
			out[r] = append(out[r], row[i])
		}
	}
	return out
}

// TestTimeColumnNamed: a table whose schema records its time column as a
// column of category TIME (the C++ and Python writers of TsFile 2.5) reads
// with the Arrow time field named after it, first, timestamp[ms, UTC],
// non-null, category TIME; the TIME column standing between two TAGs
// takes no DeviceID segment, so station is the second; a FIELD named
// "time" beside it is an ordinary column with its own values; projection,
// Where and the time range work on it; a TIME column named "time" (the
// Python writer's default) reads as before.
func TestTimeColumnNamed(t *testing.T) {
	f := openTimeColumnFile(t)
	ts, ok := f.SchemaOf("plant")
	require.True(t, ok)
	require.Equal(t, "id", TimeFieldName(ts))

	s, err := TableArrowSchema(f, "plant", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"id", "region", "station", "temp", "time"}, fieldNames(s))
	tf := s.Field(0)
	require.True(t, arrow.TypeEqual(&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, tf.Type), "%s", tf.Type)
	require.False(t, tf.Nullable)
	cat, _ := tf.Metadata.GetValue(MetaCategory)
	require.Equal(t, "TIME", cat)
	typ, _ := tf.Metadata.GetValue(MetaType)
	require.Equal(t, "TIMESTAMP", typ)
	cat, _ = s.Field(4).Metadata.GetValue(MetaCategory)
	require.Equal(t, "FIELD", cat, "the FIELD named time")
	i, ok := TimeField(s)
	require.True(t, ok)
	require.Equal(t, 0, i)
	require.Equal(t, "id", TimeFieldNameOf(s))

	pl, err := PlanTable(f, "plant", nil)
	require.NoError(t, err)
	require.Equal(t, "id", pl.Schema.Field(0).Name)
	rows, _ := pl.Totals(0)
	require.EqualValues(t, 15, rows)

	all := plantRows(nil)
	mid := func(ts int64) bool { return ts >= timeColumnStart+1000 && ts <= timeColumnStart+3000 }
	for _, c := range []struct {
		name   string
		opts   Options
		header []string
		rows   [][]string
	}{
		{"all", Options{}, []string{"id", "region", "station", "temp", "time"}, all},
		{"plain tags", Options{PlainTags: true}, []string{"id", "region", "station", "temp", "time"}, all},
		{"a field", Options{Columns: []string{"temp"}}, []string{"id", "temp"}, pick(all, 0, 3)},
		{"the FIELD time", Options{Columns: []string{"time"}}, []string{"id", "time"}, pick(all, 0, 4)},
		{"time column named", Options{Columns: []string{"id", "time"}}, []string{"id", "time"}, pick(all, 0, 4)},
		{"time column named last", Options{Columns: []string{"time", "station", "id"}}, []string{"id", "time", "station"}, pick(all, 0, 4, 2)},
		{"time column alone", Options{Columns: []string{"id"}}, []string{"id"}, pick(all, 0)},
		{"second tag", Options{Columns: []string{"station"}, Where: map[string]string{"station": "s2"}}, []string{"id", "station"}, pick(all[5:10], 0, 2)},
		{"first tag", Options{Where: map[string]string{"region": "south"}}, []string{"id", "region", "station", "temp", "time"}, all[10:]},
		{"time range", Options{Time: &TimeRange{Start: timeColumnStart + 1000, End: timeColumnStart + 3000}}, []string{"id", "region", "station", "temp", "time"}, plantRows(mid)},
		{"limit", Options{Columns: []string{"temp"}, Limit: 7}, []string{"id", "temp"}, pick(all[:7], 0, 3)},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.opts
			got := drainQuiet(t, f, "plant", &o)
			require.Equal(t, c.header, got.header)
			require.Equal(t, c.rows, got.rows)
			require.Zero(t, got.nulls[0])
		})
	}

	// An unknown name lists the time column under its own name.
	_, err = NewTableReader(f, "plant", &Options{Columns: []string{"nope"}})
	require.ErrorContains(t, err, `(columns: id, region, station, temp, time)`)
	// Where is for TAGs, not the time column.
	_, err = NewTableReader(f, "plant", &Options{Where: map[string]string{"id": "1"}})
	require.Error(t, err)

	// The Python writer's TIME column named "time".
	py := drainQuiet(t, f, "py", nil)
	require.Equal(t, []string{"time", "device", "value"}, py.header)
	require.Equal(t, [][]string{{"1", "d1", "7"}, {"2", "d1", "8"}, {"3", "d1", "9"}}, py.rows)
}

// TestTimeFieldOf: TimeField finds the time field by its category, at any
// position and under any name, and falls back to the name "time" for a
// schema without the metadata; TimeFieldName gives "time" without a TIME
// column, as for a tree stream.
func TestTimeFieldOf(t *testing.T) {
	md := func(cat string) arrow.Metadata { return arrow.NewMetadata([]string{MetaCategory}, []string{cat}) }
	ts := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	for _, c := range []struct {
		name   string
		fields []arrow.Field
		idx    int
		ok     bool
		named  string
	}{
		{"category", []arrow.Field{{Name: "time", Type: arrow.PrimitiveTypes.Int64, Metadata: md("FIELD")}, {Name: "id", Type: ts, Metadata: md("TIME")}}, 1, true, "id"},
		{"by name", []arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}, {Name: "time", Type: ts}}, 1, true, "time"},
		{"none", []arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, -1, false, "time"},
	} {
		sc := arrow.NewSchema(c.fields, nil)
		i, ok := TimeField(sc)
		require.Equal(t, c.ok, ok, c.name)
		if ok {
			require.Equal(t, c.idx, i, c.name)
		}
		require.Equal(t, c.named, TimeFieldNameOf(sc), c.name)
	}
	_, ok := TimeField(nil)
	require.False(t, ok)
	require.Equal(t, "time", TimeFieldName(nil))
	require.Equal(t, "time", TimeFieldName(&tsfile.TableSchema{Columns: []tsfile.Column{{Name: "v", Category: tsfile.Field}}}))
}

// TestTimeColumnTwice: a schema with two columns of category TIME is
// refused as corrupt, naming both, rather than one picked at random.
func TestTimeColumnTwice(t *testing.T) {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "a", DataType: tsfile.Timestamp, Category: tsfile.TimeCol},
		{Name: "b", DataType: tsfile.Timestamp, Category: tsfile.TimeCol},
		{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
	}}))
	v := tsfile.NewValues(tsfile.Int64, 1)
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t"), []int64{1}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64}, Values: v},
	}))
	require.NoError(t, w.Close())
	f := openBytes(t, buf.Bytes())
	_, err = NewTableReader(f, "t", nil)
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.ErrorContains(t, err, `2 columns of category TIME ("a", "b")`)
}

// TestTimeColumnNamesASeries: a value series named like the table's TIME
// column (here the schema's column names damaged so: the TIME column
// "ab" renamed "vv", the name of the FIELD series, and that FIELD
// renamed "cd") is refused by a strict read, as any series the schema does
// not list as a FIELD, and by a lenient one too, which would otherwise
// make it an extra column of the time column's name.
func TestTimeColumnNamesASeries(t *testing.T) {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "ab", DataType: tsfile.Timestamp, Category: tsfile.TimeCol},
		{Name: "vv", DataType: tsfile.Int64, Category: tsfile.Field},
	}}))
	v := tsfile.NewValues(tsfile.Int64, 2)
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t"), []int64{1, 2}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "vv", DataType: tsfile.Int64}, Values: v},
	}))
	require.NoError(t, w.Close())
	b := buf.Bytes()
	// The schema's column names are i32-length strings followed by the
	// data type byte; nothing else in the file is spelled so.
	patch := func(from, to string, typ tsfile.DataType) {
		old := append([]byte{0, 0, 0, 2}, from...)
		old = append(old, byte(typ))
		require.Equal(t, 1, bytes.Count(b, old), "%s in the schema", from)
		copy(b[bytes.Index(b, old)+4:], to)
	}
	patch("vv", "cd", tsfile.Int64)
	patch("ab", "vv", tsfile.Timestamp)

	f := openBytes(t, b)
	ts, _ := f.SchemaOf("t")
	require.Equal(t, "vv", TimeFieldName(ts))
	_, err = NewTableReader(f, "t", nil)
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.ErrorContains(t, err, `series "vv"`)

	lf, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: true})
	require.NoError(t, err)
	_, err = NewTableReader(lf, "t", nil)
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.ErrorContains(t, err, `has the name of the table's TIME column`)
}
