package fromarrow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// schemaColumnBytes spells one column of a serialized table schema by
// hand, as the C++ writer's TableSchema::serialize_to writes it
// (apache/tsfile cpp/src/common/schema.h): the name as an i32 length and
// bytes, data type, encoding and compression bytes, an i32 property
// count (none), then the category as an i32.
func schemaColumnBytes(name string, dt tsfile.DataType, enc tsfile.Encoding, comp tsfile.Compression, cat tsfile.ColumnCategory) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	b = append(b, name...)
	b = append(b, byte(dt), byte(enc), byte(comp))
	b = binary.BigEndian.AppendUint32(b, 0)
	return binary.BigEndian.AppendUint32(b, uint32(cat))
}

// TestWriteTimeColumn checks that Options.WriteTimeColumn records the
// time column in the table schema as a TIME column, first, named after the
// input column, with the time chunks' encoding and compression; and that
// without it the schema has no TIME column, as upstream Java needs.
func TestWriteTimeColumn(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		tsField("region", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG"),
		{Name: "ID", Type: arrow.PrimitiveTypes.Int64},
		tsField("temp", arrow.PrimitiveTypes.Float64),
		// Legal beside a TIME column named "id": readers name the time
		// column "id", so nothing collides.
		tsField("time", arrow.PrimitiveTypes.Int32),
		tsField("site", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG"),
	}, nil)
	rows := [][]any{{"north", 1, 1.5, 7, "a"}, {"south", 2, 2.5, nil, "b"}, {"north", 3, nil, 9, "a"}}
	for _, tc := range []struct {
		name     string
		opts     Options
		timeComp tsfile.Compression
	}{
		{name: "defaults", opts: Options{Table: "T", TimeColumn: "ID", WriteTimeColumn: true}, timeComp: encoding.LZ4},
		{name: "time compression", opts: Options{Table: "T", TimeColumn: "ID", WriteTimeColumn: true, TimeCompression: CompressionOf(encoding.Snappy)}, timeComp: encoding.Snappy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := testkit.CheckedMem(t)
			b, n, err := writeTs(t, sc, tsBatches(t, mem, sc, rows, 2), &tc.opts)
			require.NoError(t, err)
			require.EqualValues(t, 3, n)

			want := schemaColumnBytes("id", tsfile.Timestamp, encoding.TS2Diff, tc.timeComp, tsfile.TimeCol)
			// The TIME column is the first of the table's five: the column
			// count, a varint, comes right before it.
			require.True(t, bytes.Contains(b, append([]byte{5}, want...)), "no TIME column %x first in the schema of\n%x", want, b)
			require.Equal(t, 1, bytes.Count(b, want))

			f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			s := f.Metadata.TableSchemas["t"]
			require.NotNil(t, s)
			var names, cats []string
			for _, c := range s.Columns {
				names, cats = append(names, c.Name), append(cats, c.Category.String())
			}
			require.Equal(t, []string{"id", "region", "site", "temp", "time"}, names)
			require.Equal(t, []string{"TIME", "TAG", "TAG", "FIELD", "FIELD"}, cats)
			require.Equal(t, tsfile.Column{Name: "id", DataType: tsfile.Timestamp, Encoding: encoding.TS2Diff, Compression: tc.timeComp, Category: tsfile.TimeCol}, s.Columns[0])
			// DeviceID segments follow the TAGs alone: the TIME column
			// before them takes no segment.
			var tags []string
			for _, c := range s.Tags() {
				tags = append(tags, c.Name)
			}
			require.Equal(t, []string{"region", "site"}, tags)
			devs, err := f.Devices("t")
			require.NoError(t, err)
			var got []string
			for _, d := range devs {
				got = append(got, d.String())
			}
			require.ElementsMatch(t, []string{"t.north.a", "t.south.b"}, got)
		})
	}

	t.Run("default has no TIME column", func(t *testing.T) {
		mem := testkit.CheckedMem(t)
		sc := arrow.NewSchema([]arrow.Field{{Name: "ID", Type: arrow.PrimitiveTypes.Int64}, tsField("temp", arrow.PrimitiveTypes.Float64)}, nil)
		b, _, err := writeTs(t, sc, tsBatches(t, mem, sc, [][]any{{1, 1.5}}, 1), &Options{Table: "t", TimeColumn: "ID"})
		require.NoError(t, err)
		f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
		require.NoError(t, err)
		for _, c := range f.Metadata.TableSchemas["t"].Columns {
			require.NotEqual(t, tsfile.TimeCol, c.Category, "column %q", c.Name)
		}
		require.Equal(t, 0, bytes.Count(b, []byte("\x00\x00\x00\x02id")), "the time column's name is stored")
	})
}

// TestWriteTimeColumnInput covers an input a reader named after a TIME
// column: written as before unless asked, and a FIELD named "time" beside
// it then needs WriteTimeColumn.
func TestWriteTimeColumnInput(t *testing.T) {
	timeField := tsField("id", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, arrowconv.MetaCategory, "TIME", arrowconv.MetaType, "TIMESTAMP")
	md := meta(arrowconv.MetaTable, "t")
	t.Run("written as today", func(t *testing.T) {
		mem := testkit.CheckedMem(t)
		sc := arrow.NewSchema([]arrow.Field{timeField, tsField("v", arrow.PrimitiveTypes.Int32)}, &md)
		b, _, err := writeTs(t, sc, tsBatches(t, mem, sc, [][]any{{5, 1}}, 1), nil)
		require.NoError(t, err)
		f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
		require.NoError(t, err)
		require.Equal(t, []tsfile.Column{{Name: "v", DataType: tsfile.Int32, Encoding: encoding.TS2Diff, Compression: encoding.LZ4, Category: tsfile.Field}}, f.Metadata.TableSchemas["t"].Columns)
	})
	t.Run("asked", func(t *testing.T) {
		mem := testkit.CheckedMem(t)
		sc := arrow.NewSchema([]arrow.Field{timeField, tsField("time", arrow.PrimitiveTypes.Int32)}, &md)
		b, _, err := writeTs(t, sc, tsBatches(t, mem, sc, [][]any{{5, 1}}, 1), &Options{WriteTimeColumn: true})
		require.NoError(t, err)
		f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
		require.NoError(t, err)
		cols := f.Metadata.TableSchemas["t"].Columns
		require.Len(t, cols, 2)
		require.Equal(t, "id", cols[0].Name)
		require.Equal(t, tsfile.TimeCol, cols[0].Category)
		require.Equal(t, "time", cols[1].Name)
		require.Equal(t, tsfile.Field, cols[1].Category)
	})
	t.Run("field named time without it", func(t *testing.T) {
		mem := testkit.CheckedMem(t)
		sc := arrow.NewSchema([]arrow.Field{timeField, tsField("time", arrow.PrimitiveTypes.Int32)}, &md)
		b, _, err := writeTs(t, sc, tsBatches(t, mem, sc, [][]any{{5, 1}}, 1), nil)
		var oe *OptionError
		require.True(t, errors.As(err, &oe), "%v", err)
		require.Equal(t, "WriteTimeColumn", oe.Option)
		require.Contains(t, err.Error(), `"id"`)
		require.Empty(t, b)
	})
}

// TestWriteTimeColumnErrors covers what WriteTimeColumn refuses.
func TestWriteTimeColumnErrors(t *testing.T) {
	md := meta(arrowconv.MetaTable, "t")
	for _, tc := range []struct {
		name   string
		fields []arrow.Field
		opts   Options
		want   string
	}{
		{name: "tree", fields: []arrow.Field{{Name: "time", Type: arrow.PrimitiveTypes.Int64}, tsField("device", arrow.BinaryTypes.String)},
			opts: Options{Tree: true, WriteTimeColumn: true}, want: "tree model"},
		{name: "tag named as the time column", fields: []arrow.Field{{Name: "ts", Type: arrow.PrimitiveTypes.Int64}, tsField("TS2", arrow.BinaryTypes.String), tsField("Ts", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG")},
			opts: Options{TimeColumn: "ts", WriteTimeColumn: true}, want: `TAG column "Ts" would collide with the time column, which readers name "ts"`},
		{name: "field named as the time column", fields: []arrow.Field{{Name: "ts", Type: arrow.PrimitiveTypes.Int64}, tsField("TS", arrow.PrimitiveTypes.Int32)},
			opts: Options{TimeColumn: "ts", WriteTimeColumn: true}, want: `FIELD column "TS" would collide with the time column, which readers name "ts"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := testkit.CheckedMem(t)
			sc := arrow.NewSchema(tc.fields, &md)
			b, _, err := writeTs(t, sc, tsBatches(t, mem, sc, nil, 1), &tc.opts)
			require.ErrorContains(t, err, tc.want)
			require.Empty(t, b)
		})
	}
}

// TestWriteTimeColumnReadsBack: a file with a TIME column reads back
// through arrowconv with the rows written; the time field is found by its
// category, first, whatever the reader names it.
func TestWriteTimeColumnReadsBack(t *testing.T) {
	mem := testkit.CheckedMem(t)
	md := meta(arrowconv.MetaTable, "t")
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		tsField("dev", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG"),
		tsField("v", arrow.PrimitiveTypes.Float64),
	}, &md)
	b, _, err := writeTs(t, sc, tsBatches(t, mem, sc, [][]any{{2, "x", 1.5}, {1, "x", nil}, {1, "y", 3.0}}, 2), &Options{TimeColumn: "id", WriteTimeColumn: true})
	require.NoError(t, err)
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	r, err := arrowconv.NewTableReader(f, "t", nil)
	require.NoError(t, err)
	c, _ := r.Schema().Field(0).Metadata.GetValue(arrowconv.MetaCategory)
	require.Equal(t, "TIME", c)
	header, rows := tsRows(t, r)
	require.Equal(t, []string{"dev", "v"}, header[1:])
	require.Equal(t, [][]string{{"t:1000000", "x", testkit.NullCell}, {"t:2000000", "x", testkit.CanonFloat64(1.5)}, {"t:1000000", "y", testkit.CanonFloat64(3)}}, rows)
}
