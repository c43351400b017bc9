package fromarrow

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/civil"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// cellString spells cell i of a independently of its Arrow representation:
// dictionaries are resolved, every string and binary layout spells alike,
// integers of every width in decimal, floats by the bits of their float64
// value, dates as YYYY-MM-DD and timestamps as nanoseconds.
func cellString(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return testkit.NullCell
	}
	switch a := a.(type) {
	case *array.Dictionary:
		return cellString(a.Dictionary(), a.GetValueIndex(i))
	case *array.Struct: // an OBJECT reference
		return fmt.Sprintf("object:%s:%s", a.Field(0).ValueStr(i), a.Field(1).ValueStr(i))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64:
		return a.ValueStr(i)
	case *array.Float32:
		return testkit.CanonFloat64(float64(a.Value(i)))
	case *array.Float64:
		return testkit.CanonFloat64(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.StringView:
		return a.Value(i)
	case *array.Binary:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.LargeBinary:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.BinaryView:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.FixedSizeBinary:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.Date32:
		return daysString(int64(a.Value(i)))
	case *array.Date64:
		return daysString(int64(a.Value(i)) / 86400000)
	case *array.Timestamp:
		ns := big.NewInt(int64(a.Value(i)))
		for u := a.DataType().(*arrow.TimestampType).Unit; u < arrow.Nanosecond; u++ {
			ns.Mul(ns, big.NewInt(1000))
		}
		return "t:" + ns.String()
	}
	panic(fmt.Sprintf("cellString: unexpected %T", a))
}

func daysString(days int64) string {
	y, m, d := civil.FromDays(days)
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// tsRows reads every record of r as cellString rows and releases r.
func tsRows(t testing.TB, r array.RecordReader) (header []string, rows [][]string) {
	t.Helper()
	defer r.Release()
	header = fieldNames(r.Schema())
	for r.Next() {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = cellString(rec.Column(c), i)
			}
			rows = append(rows, row)
		}
	}
	require.NoError(t, r.Err())
	return header, rows
}

// tsAppend appends v to b, a null for nil. Integers are given as int,
// dates as days, binaries as strings.
func tsAppend(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int8Builder:
		b.Append(int8(v.(int)))
	case *array.Int16Builder:
		b.Append(int16(v.(int)))
	case *array.Int32Builder:
		b.Append(int32(v.(int)))
	case *array.Int64Builder:
		b.Append(int64(v.(int)))
	case *array.Uint8Builder:
		b.Append(uint8(v.(int)))
	case *array.Uint16Builder:
		b.Append(uint16(v.(int)))
	case *array.Uint32Builder:
		b.Append(uint32(v.(int)))
	case *array.Uint64Builder:
		b.Append(uint64(v.(int)))
	case *array.Float32Builder:
		b.Append(v.(float32))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.LargeStringBuilder:
		b.Append(v.(string))
	case *array.StringViewBuilder:
		b.Append(v.(string))
	case *array.BinaryDictionaryBuilder:
		if err := b.AppendString(v.(string)); err != nil {
			panic(err)
		}
	case *array.BinaryBuilder:
		b.Append([]byte(v.(string)))
	case *array.BinaryViewBuilder:
		b.Append([]byte(v.(string)))
	case *array.FixedSizeBinaryBuilder:
		b.Append([]byte(v.(string)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.(int)))
	case *array.Date64Builder:
		b.Append(arrow.Date64(int64(v.(int)) * 86400000))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.(int)))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(int64(v.(int))))
	case *array.ListBuilder:
		b.Append(true)
		b.ValueBuilder().(*array.Int32Builder).Append(int32(v.(int)))
	default:
		panic(fmt.Sprintf("tsAppend: unexpected %T", b))
	}
}

// tsBatches builds record batches of schema from rows, cut at the given
// sizes (the last size repeats).
func tsBatches(t testing.TB, mem memory.Allocator, schema *arrow.Schema, rows [][]any, sizes ...int) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for k := 0; len(rows) > 0; k++ {
		n := min(sizes[min(k, len(sizes)-1)], len(rows))
		for _, row := range rows[:n] {
			for c, v := range row {
				tsAppend(b.Field(c), v)
			}
		}
		out = append(out, b.NewRecordBatch())
		rows = rows[n:]
	}
	return out
}

// writeTs runs WriteTsFile over recs (releasing them) and returns the file.
func writeTs(t testing.TB, schema *arrow.Schema, recs []arrow.RecordBatch, opts *Options) ([]byte, int64, error) {
	t.Helper()
	rr, err := array.NewRecordReader(schema, recs)
	require.NoError(t, err)
	for _, r := range recs {
		r.Release()
	}
	defer rr.Release()
	var buf bytes.Buffer
	n, err := WriteTsFile(&buf, rr, opts)
	return buf.Bytes(), n, err
}

func meta(kv ...string) arrow.Metadata {
	var k, v []string
	for i := 0; i < len(kv); i += 2 {
		k, v = append(k, kv[i]), append(v, kv[i+1])
	}
	return arrow.NewMetadata(k, v)
}

func tsField(name string, t arrow.DataType, kv ...string) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true, Metadata: meta(kv...)}
}

func dictOf(index, value arrow.DataType) arrow.DataType {
	return &arrow.DictionaryType{IndexType: index, ValueType: value}
}

// allTypesSchema has a column of every Arrow type WriteTsFile takes.
func allTypesSchema() *arrow.Schema {
	md := meta(arrowconv.MetaTable, "t")
	return arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		tsField("b", arrow.FixedWidthTypes.Boolean),
		tsField("region", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG"),
		tsField("i8", arrow.PrimitiveTypes.Int8),
		tsField("station", dictOf(arrow.PrimitiveTypes.Int16, arrow.BinaryTypes.String), arrowconv.MetaCategory, "TAG"),
		tsField("attr", arrow.BinaryTypes.String, arrowconv.MetaCategory, "ATTRIBUTE"),
		tsField("i16", arrow.PrimitiveTypes.Int16),
		tsField("i32", arrow.PrimitiveTypes.Int32),
		tsField("i32w", arrow.PrimitiveTypes.Int32, arrowconv.MetaType, "INT64"),
		tsField("i64", arrow.PrimitiveTypes.Int64),
		tsField("i64ts", arrow.PrimitiveTypes.Int64, arrowconv.MetaType, "TIMESTAMP"),
		tsField("u8", arrow.PrimitiveTypes.Uint8),
		tsField("u16", arrow.PrimitiveTypes.Uint16),
		tsField("u32", arrow.PrimitiveTypes.Uint32),
		tsField("f32", arrow.PrimitiveTypes.Float32),
		tsField("f32d", arrow.PrimitiveTypes.Float32, arrowconv.MetaType, "DOUBLE"),
		tsField("f64", arrow.PrimitiveTypes.Float64),
		tsField("s", arrow.BinaryTypes.String),
		tsField("txt", arrow.BinaryTypes.String, arrowconv.MetaType, "TEXT"),
		tsField("ls", arrow.BinaryTypes.LargeString),
		tsField("sv", arrow.BinaryTypes.StringView),
		tsField("dict", dictOf(arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String)),
		tsField("bin", arrow.BinaryTypes.Binary),
		tsField("lbin", arrow.BinaryTypes.LargeBinary),
		tsField("bv", arrow.BinaryTypes.BinaryView),
		tsField("fsb", &arrow.FixedSizeBinaryType{ByteWidth: 2}),
		tsField("obj", arrow.BinaryTypes.Binary, arrowconv.MetaType, "OBJECT"),
		tsField("d32", arrow.FixedWidthTypes.Date32),
		tsField("d64", arrow.FixedWidthTypes.Date64),
		tsField("ts", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}),
		tsField("tsi", &arrow.TimestampType{Unit: arrow.Nanosecond}, arrowconv.MetaType, "INT64"),
	}, &md)
}

// allTypesValue returns a random value for column name of a row, null
// about one time in five; obj is null in every row of devices whose
// region is null, so that those devices have no obj series.
func allTypesValue(r *rand.Rand, name string, regionNull bool) any {
	if r.IntN(5) == 0 || (name == "obj" && regionNull) {
		return nil
	}
	words := []string{"", "a", "温度", "café", "x,y", "\x00"}
	switch name {
	case "b":
		return r.IntN(2) == 0
	case "i8":
		return r.IntN(256) - 128
	case "i16":
		return r.IntN(65536) - 32768
	case "i32", "i32w":
		return int(r.Int32()) * (1 - 2*r.IntN(2))
	case "i64", "i64ts":
		return r.IntN(1<<40) - 1<<39
	case "u8":
		return r.IntN(256)
	case "u16":
		return r.IntN(65536)
	case "u32":
		return int(r.Uint32())
	case "f32", "f32d":
		specials := []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), math.MaxFloat32, math.SmallestNonzeroFloat32}
		if r.IntN(4) == 0 {
			return specials[r.IntN(len(specials))]
		}
		return r.Float32()*2000 - 1000
	case "f64":
		if r.IntN(6) == 0 {
			return math.NaN()
		}
		return r.NormFloat64() * 1e6
	case "s", "txt", "ls", "sv", "dict", "attr":
		return words[r.IntN(len(words))]
	case "bin", "lbin", "bv":
		return words[r.IntN(len(words))] + "\xff\x01"
	case "obj":
		// A raw OBJECT cell, in either path form: what a reader that
		// hands out cells as bytes gave.
		path := fmt.Sprintf("%d/MFRGG/%d.bin", r.IntN(9), r.IntN(1000))
		if r.IntN(3) == 0 {
			path = fmt.Sprintf("root/db/d%d/o.dat", r.IntN(9))
		}
		cell, err := tsfile.EncodeObjectCell(nil, int64(r.IntN(1<<20)), path)
		if err != nil {
			panic(err)
		}
		return string(cell)
	case "fsb":
		return string([]byte{byte(r.IntN(256)), byte(r.IntN(256))})
	case "d32", "d64":
		return r.IntN(2932897+719528) - 719528 // years 0 to 9999
	case "ts":
		return r.IntN(1<<41) - 1<<40
	case "tsi":
		return (r.IntN(1<<41) - 1<<40) * 1000 // whole microseconds
	}
	panic(name)
}

// TestTsFileRoundTripAllTypes writes every supported Arrow type, with nulls
// in every column, null and empty TAGs, and devices interleaved in random
// time order across batches, and reads it back.
func TestTsFileRoundTripAllTypes(t *testing.T) {
	mem := testkit.CheckedMem(t)
	schema := allTypesSchema()
	r := rand.New(rand.NewPCG(7, 11))
	type tags struct{ region, station any }
	devs := []tags{{"north", "s1"}, {"north", nil}, {nil, "s2"}, {nil, nil}, {"", "s1"}, {"south", "s1"}}
	var rows [][]any
	for d, dv := range devs {
		times := r.Perm(60)
		for _, ti := range times {
			row := make([]any, schema.NumFields())
			for c, f := range schema.Fields() {
				switch f.Name {
				case "time":
					row[c] = 1_700_000_000_000_000 + ti*1500 + d
				case "region":
					row[c] = dv.region
				case "station":
					row[c] = dv.station
				default:
					row[c] = allTypesValue(r, f.Name, dv.region == nil)
				}
			}
			rows = append(rows, row)
		}
	}
	// One row without any FIELD value.
	empty := make([]any, schema.NumFields())
	empty[0], empty[2], empty[4] = 1_600_000_000_000_000, "north", "s1"
	rows = append(rows, empty)
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })

	// Expected cells by region, station and time.
	want := map[string]map[string]string{}
	key := func(region, station, time string) string { return region + "\x01" + station + "\x01" + time }
	inRecs := tsBatches(t, mem, schema, rows, 1, 7, 13, 50)
	for _, rec := range inRecs {
		for i := 0; i < int(rec.NumRows()); i++ {
			cells := map[string]string{}
			for c, f := range schema.Fields() {
				cells[f.Name] = cellString(rec.Column(c), i)
			}
			cells["attr"] = testkit.NullCell // attribute values are not stored
			if a := rec.Column(schema.FieldIndices("tsi")[0]); !a.IsNull(i) {
				cells["tsi"] = strconv.FormatInt(int64(a.(*array.Timestamp).Value(i))/1000, 10) // INT64 in µs
			}
			if a := rec.Column(schema.FieldIndices("obj")[0]); !a.IsNull(i) {
				ref, err := tsfile.ParseObjectCell(a.(*array.Binary).Value(i))
				require.NoError(t, err)
				cells["obj"] = fmt.Sprintf("object:%d:%s", ref.Size, ref.Path) // read back as a reference
			}
			if a := rec.Column(schema.FieldIndices("i64ts")[0]); !a.IsNull(i) {
				cells["i64ts"] = "t:" + strconv.FormatInt(a.(*array.Int64).Value(i)*1000, 10) // µs as TIMESTAMP
			}
			want[key(cells["region"], cells["station"], cells["time"])] = cells
		}
	}
	require.Len(t, want, len(rows))

	file, n, err := writeTs(t, schema, inRecs, &Options{TimeUnit: arrowconv.TimeUnitOf(arrow.Microsecond), Write: &tsfile.WriteOptions{MaxPointsPerPage: 8}})
	require.NoError(t, err)
	require.EqualValues(t, len(rows), n)
	f := testkit.OpenBytes(t, file)

	ts, ok := f.SchemaOf("t")
	require.True(t, ok)
	var got []string
	for _, c := range ts.Columns {
		got = append(got, c.Name+" "+c.Category.String()+" "+c.DataType.String())
	}
	require.Equal(t, []string{
		"region TAG STRING", "station TAG STRING", "attr ATTRIBUTE STRING",
		"b FIELD BOOLEAN", "i8 FIELD INT32", "i16 FIELD INT32", "i32 FIELD INT32", "i32w FIELD INT64",
		"i64 FIELD INT64", "i64ts FIELD TIMESTAMP", "u8 FIELD INT32", "u16 FIELD INT32", "u32 FIELD INT64",
		"f32 FIELD FLOAT", "f32d FIELD DOUBLE", "f64 FIELD DOUBLE", "s FIELD STRING", "txt FIELD TEXT",
		"ls FIELD STRING", "sv FIELD STRING", "dict FIELD STRING", "bin FIELD BLOB", "lbin FIELD BLOB",
		"bv FIELD BLOB", "fsb FIELD BLOB", "obj FIELD OBJECT", "d32 FIELD DATE", "d64 FIELD DATE",
		"ts FIELD TIMESTAMP", "tsi FIELD INT64",
	}, got)

	// The devices, with null TAGs as null segments (trailing ones dropped).
	ids, err := f.Devices("t")
	require.NoError(t, err)
	var names []string
	for _, id := range ids {
		names = append(names, fmt.Sprint(id.Segments()))
	}
	require.ElementsMatch(t, []string{
		"[{t false} {north false} {s1 false}]", "[{t false} {north false}]", "[{t false} { false} {s1 false}]",
		"[{t false} { true} {s2 false}]", "[{t false}]", "[{t false} {south false} {s1 false}]",
	}, names)
	obj, err := f.SeriesByName(tsfile.NewDeviceID("t"), "obj")
	require.NoError(t, err)
	require.NotNil(t, obj, "a column null in a whole chunk group gets an empty chunk, as upstream writes it")
	require.Zero(t, obj.Statistics.Count)
	for _, c := range obj.Chunks {
		h, err := f.ReadChunkHeader(c.Offset)
		require.NoError(t, err)
		require.Zero(t, h.DataSize)
	}
	require.Greater(t, len(testkit.Chunks(t, f, tsfile.NewDeviceID("t", "north", "s1"), "")[0].Pages), 1)

	for _, o := range []*arrowconv.Options{
		{Allocator: mem, TimeUnit: arrowconv.TimeUnitOf(arrow.Microsecond), BatchSize: 17},
		{Allocator: mem, TimeUnit: arrowconv.TimeUnitOf(arrow.Microsecond), StringView: true},
		{Allocator: mem, TimeUnit: arrowconv.TimeUnitOf(arrow.Microsecond), PlainTags: true, BatchSize: 1000},
	} {
		rd, err := arrowconv.NewTableReader(f, "t", o)
		require.NoError(t, err)
		header, back := tsRows(t, rd)
		require.Equal(t, []string{"time", "region", "station", "attr"}, header[:4])
		require.ElementsMatch(t, fieldNames(schema), header)
		require.Len(t, back, len(rows))
		bad := 0
		for _, row := range back {
			k := key(row[1], row[2], row[0])
			w, ok := want[k]
			require.True(t, ok, "unexpected row %q", k)
			for c, h := range header {
				if w[h] != row[c] {
					bad++
					if bad < 10 {
						t.Errorf("row %q column %s: want %q, got %q", k, h, w[h], row[c])
					}
				}
			}
		}
		require.Zero(t, bad)
	}
}

// TestTsFileManyRows writes devices interleaved in time order, as a file
// sorted by time would hold them, through a buffer far smaller than the
// data, with chosen encodings and compressions, and integer TAGs.
func TestTsFileManyRows(t *testing.T) {
	mem := testkit.CheckedMem(t)
	md := meta(arrowconv.MetaTable, "m")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		tsField("site", arrow.BinaryTypes.String),
		tsField("unit", arrow.PrimitiveTypes.Int64),
		tsField("v", arrow.PrimitiveTypes.Int64),
		tsField("x", arrow.PrimitiveTypes.Float64),
		tsField("s", arrow.BinaryTypes.String),
		tsField("flag", arrow.FixedWidthTypes.Boolean),
	}, &md)
	const perDevice = 12000
	type dev struct {
		site string
		unit int
	}
	devs := []dev{{"a", 1}, {"a", -2}, {"b", 1}}
	var rows [][]any
	for k := 0; k < perDevice; k++ {
		for d, dv := range devs {
			var s any = fmt.Sprintf("state-%d", (k/100+d)%7)
			if k%13 == 0 {
				s = nil
			}
			rows = append(rows, []any{1_700_000_000_000 + k*1000, dv.site, dv.unit, k*k + d, float64(k) / 8, s, k%3 == 0})
		}
	}
	recs := tsBatches(t, mem, schema, rows, 4096)
	file, n, err := writeTs(t, schema, recs, &Options{
		Tags:            []string{"site", "unit"},
		Encodings:       map[string]tsfile.Encoding{"v": encoding.TS2Diff, "x": encoding.Gorilla, "s": encoding.Dictionary, "flag": encoding.RLE},
		Compression:     CompressionOf(encoding.LZ4),
		Compressions:    map[string]tsfile.Compression{"s": encoding.Snappy},
		MaxBufferedRows: 5000,
		Write:           &tsfile.WriteOptions{MaxPointsPerPage: 1000},
	})
	require.NoError(t, err)
	require.EqualValues(t, len(rows), n)
	f := testkit.OpenBytes(t, file)

	dev0 := tsfile.NewDeviceID("m", "a", "1")
	require.Greater(t, len(testkit.Chunks(t, f, dev0, "")), 1, "several chunk groups")
	v := testkit.Chunks(t, f, dev0, "v")
	require.Greater(t, len(v[0].Pages), 1, "multi-page testkit.Chunks")
	require.Equal(t, encoding.TS2Diff, v[0].Header.Encoding)
	require.Equal(t, encoding.LZ4, v[0].Header.Compression)
	s := testkit.Chunks(t, f, dev0, "s")[0]
	require.Equal(t, encoding.Dictionary, s.Header.Encoding)
	require.Equal(t, encoding.Snappy, s.Header.Compression)

	rd, err := arrowconv.NewTableReader(f, "m", &arrowconv.Options{Allocator: mem})
	require.NoError(t, err)
	header, back := tsRows(t, rd)
	require.Equal(t, []string{"time", "site", "unit", "v", "x", "s", "flag"}, header)
	require.Len(t, back, len(rows))
	// Devices in index order: (a, -2), (a, 1), (b, 1); rows in time order.
	order := []int{1, 0, 2}
	for i, row := range back {
		d, k := order[i/perDevice], i%perDevice
		in := rows[k*len(devs)+d]
		require.Equal(t, "t:"+strconv.Itoa(in[0].(int)*1_000_000), row[0], "row %d", i)
		require.Equal(t, in[1], row[1])
		require.Equal(t, strconv.Itoa(in[2].(int)), row[2])
		require.Equal(t, strconv.Itoa(in[3].(int)), row[3])
		require.Equal(t, testkit.CanonFloat64(in[4].(float64)), row[4])
		if in[5] == nil {
			require.Equal(t, testkit.NullCell, row[5])
		} else {
			require.Equal(t, in[5], row[5])
		}
		require.Equal(t, strconv.FormatBool(in[6].(bool)), row[6])
	}
}

// TestTsFileReverseFiles reads real files, writes them back with their own
// encodings and compressions, and compares every cell with the original.
func TestTsFileReverseFiles(t *testing.T) {
	for _, path := range []string{
		"../testdata/sample.tsfile",
		testkit.J01 + ".tsfile",
		"j02_table_multipage_default_encodings.tsfile",
	} {
		t.Run(path, func(t *testing.T) {
			if !strings.Contains(path, "/") {
				path = testkit.InteropPath(t, path)
			} else if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			f, err := tsfile.OpenFile(path, nil)
			require.NoError(t, err)
			defer f.Close()
			mem := testkit.CheckedMem(t)
			for _, table := range f.Tables() {
				orig, ok := f.SchemaOf(table)
				if !ok {
					continue
				}
				rd, err := arrowconv.NewTableReader(f, table, &arrowconv.Options{Allocator: mem})
				require.NoError(t, err)
				header, want := tsRows(t, rd)
				encs, comps := map[string]tsfile.Encoding{}, map[string]tsfile.Compression{}
				for _, c := range orig.Fields() {
					encs[c.Name], comps[c.Name] = c.Encoding, c.Compression
				}
				for _, o := range []arrowconv.Options{{BatchSize: 333}, {StringView: true}, {PlainTags: true, BatchSize: 4096}} {
					o.Allocator = mem
					rd, err := arrowconv.NewTableReader(f, table, &o)
					require.NoError(t, err)
					var buf bytes.Buffer
					n, err := WriteTsFile(&buf, rd, &Options{Encodings: encs, Compressions: comps, MaxBufferedRows: 10000})
					rd.Release()
					require.NoError(t, err)
					require.EqualValues(t, len(want), n)

					g := testkit.OpenBytes(t, buf.Bytes())
					back, ok := g.SchemaOf(table)
					require.True(t, ok)
					require.Equal(t, len(orig.Columns), len(back.Columns))
					for i, c := range orig.Columns {
						b := back.Columns[i]
						require.Equal(t, [5]string{c.Name, c.Category.String(), c.DataType.String(), "", ""},
							[5]string{b.Name, b.Category.String(), b.DataType.String(), "", ""})
						if c.Category == tsfile.Field {
							require.Equal(t, c.Encoding, b.Encoding, c.Name)
							require.Equal(t, c.Compression, b.Compression, c.Name)
						}
					}
					od, err := f.Devices(table)
					require.NoError(t, err)
					bd, err := g.Devices(table)
					require.NoError(t, err)
					require.Equal(t, od, bd)

					rd2, err := arrowconv.NewTableReader(g, table, &arrowconv.Options{Allocator: mem})
					require.NoError(t, err)
					h2, got := tsRows(t, rd2)
					require.Equal(t, header, h2)
					require.Equal(t, len(want), len(got))
					for i := range want {
						require.Equal(t, want[i], got[i], "row %d", i)
					}
				}
			}
		})
	}
}

// TestTsFileTimeUnits converts timestamps to the stored unit exactly.
func TestTsFileTimeUnits(t *testing.T) {
	mem := testkit.CheckedMem(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		tsField("seen", &arrow.TimestampType{Unit: arrow.Second}),
	}, nil)
	rows := [][]any{{3_000_000, 5}, {1_000_000, nil}, {-2_000_000, -1}}
	file, n, err := writeTs(t, schema, tsBatches(t, mem, schema, rows, 2), &Options{Table: "u", TimeUnit: arrowconv.TimeUnitOf(arrow.Millisecond), Tags: []string{}})
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	rd, err := arrowconv.NewTableReader(testkit.OpenBytes(t, file), "u", &arrowconv.Options{Allocator: mem})
	require.NoError(t, err)
	_, got := tsRows(t, rd)
	require.Equal(t, [][]string{{"t:-2000000", "t:-1000000000"}, {"t:1000000", testkit.NullCell}, {"t:3000000", "t:5000000000"}}, got)

	// Seconds, selected with TimeUnitOf; the time column then fails to convert.
	rows = [][]any{{3_000_000_000, 5}, {1_500_000_000, nil}}
	_, _, err = writeTs(t, schema, tsBatches(t, mem, schema, rows, 5), &Options{Table: "u", TimeUnit: arrowconv.TimeUnitOf(arrow.Second)})
	require.ErrorContains(t, err, "row 1 time: 1500000000ns (1970-01-01T00:00:01.5Z) has digits below s, the unit asked for")
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "TimeUnit", oe.Option)

	// An int64 time column is in the unit of the schema metadata.
	md := meta(arrowconv.MetaTable, "u", arrowconv.MetaTimeUnit, "us")
	schema = arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		tsField("seen", &arrow.TimestampType{Unit: arrow.Millisecond}),
	}, &md)
	file, _, err = writeTs(t, schema, tsBatches(t, mem, schema, [][]any{{7, 2}}, 1), nil)
	require.NoError(t, err)
	rd, err = arrowconv.NewTableReader(testkit.OpenBytes(t, file), "u", &arrowconv.Options{Allocator: mem, TimeUnit: arrowconv.TimeUnitOf(arrow.Microsecond)})
	require.NoError(t, err)
	_, got = tsRows(t, rd)
	require.Equal(t, [][]string{{"t:7000", "t:2000000"}}, got)
}

// TestTsFileDuplicates: equal times of a device in one buffer fail, or
// keep the last row with KeepLast.
func TestTsFileDuplicates(t *testing.T) {
	mem := testkit.CheckedMem(t)
	md := meta(arrowconv.MetaTable, "t")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		tsField("dev", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG"),
		tsField("v", arrow.PrimitiveTypes.Int32),
		tsField("w", arrow.PrimitiveTypes.Int32),
	}, &md)
	rows := [][]any{{2, "a", 1, 1}, {1, "a", 2, 2}, {2, "b", 3, 3}, {2, "a", 4, nil}, {3, "a", 5, 5}}
	_, _, err := writeTs(t, schema, tsBatches(t, mem, schema, rows, 2), nil)
	require.ErrorContains(t, err, "rows 0 and 3 of device t.a have the same time 2")
	// The option that settles it is told apart, for programs that name
	// their own settings instead.
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "KeepLast", oe.Option)
	require.ErrorContains(t, err, "Options.KeepLast")

	file, n, err := writeTs(t, schema, tsBatches(t, mem, schema, rows, 2), &Options{KeepLast: true})
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	rd, err := arrowconv.NewTableReader(testkit.OpenBytes(t, file), "t", &arrowconv.Options{Allocator: mem})
	require.NoError(t, err)
	_, got := tsRows(t, rd)
	require.Equal(t, [][]string{
		{"t:1000000", "a", "2", "2"}, {"t:2000000", "a", "4", testkit.NullCell}, {"t:3000000", "a", "5", "5"}, {"t:2000000", "b", "3", "3"},
	}, got)
}

// TestTsFileErrors checks the errors for input WriteTsFile cannot write,
// and that option errors leave the output empty.
func TestTsFileErrors(t *testing.T) {
	mem := testkit.CheckedMem(t)
	timeField := arrow.Field{Name: "time", Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	tag := tsField("dev", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG")
	md := meta(arrowconv.MetaTable, "t")
	for _, tc := range []struct {
		name   string
		fields []arrow.Field
		rows   [][]any
		opts   *Options
		noMeta bool
		want   []string
		unsup  bool
		empty  bool // nothing written
	}{
		{name: "uint64", fields: []arrow.Field{timeField, tsField("big", arrow.PrimitiveTypes.Uint64)}, want: []string{`"big"`, "uint64"}, unsup: true, empty: true},
		{name: "decimal", fields: []arrow.Field{timeField, tsField("dec", &arrow.Decimal128Type{Precision: 10, Scale: 2})}, want: []string{`"dec"`, "decimal", "Options.DecimalAsDouble"}, empty: true},
		{name: "tree without device column", fields: []arrow.Field{timeField, tsField("s", arrow.PrimitiveTypes.Int32)}, noMeta: true, opts: &Options{Tree: true}, want: []string{`no device column "device"`, "Options.DeviceColumn"}, empty: true},
		{name: "tree with tags", fields: []arrow.Field{timeField, tag}, opts: &Options{Tree: true, Tags: []string{"dev"}}, want: []string{"tree model"}, empty: true},
		{name: "aligned table", fields: []arrow.Field{timeField, tag}, opts: &Options{Aligned: true}, want: []string{"Options.Aligned applies to the tree model"}, empty: true},
		{name: "tree int device", fields: []arrow.Field{timeField, tsField("device", arrow.PrimitiveTypes.Int32)}, noMeta: true, opts: &Options{Tree: true}, want: []string{`device column "device" is int32`}, unsup: true, empty: true},
		{name: "tree dotted measurement", fields: []arrow.Field{timeField, tsField("device", arrow.BinaryTypes.String), tsField("a.b", arrow.PrimitiveTypes.Int32)}, noMeta: true, opts: &Options{Tree: true}, want: []string{`"a.b"`, "no dot"}, empty: true},
		{
			name: "tree path without root", fields: []arrow.Field{timeField, tsField("device", arrow.BinaryTypes.String), tsField("s", arrow.PrimitiveTypes.Int32)},
			noMeta: true, opts: &Options{Tree: true}, rows: [][]any{{1, "root.sg.d1", 1}, {2, "sg.d1", 2}},
			want: []string{`row 1 device column "device"`, `"sg.d1" does not start with "root."`},
		},
		{
			name: "tree null device", fields: []arrow.Field{timeField, tsField("device", arrow.BinaryTypes.String), tsField("s", arrow.PrimitiveTypes.Int32)},
			noMeta: true, opts: &Options{Tree: true}, rows: [][]any{{1, nil, 1}},
			want: []string{`row 0: the device column "device" is null`},
		},
		{
			name: "tree empty node", fields: []arrow.Field{timeField, tsField("device", arrow.BinaryTypes.String), tsField("s", arrow.PrimitiveTypes.Int32)},
			noMeta: true, opts: &Options{Tree: true}, rows: [][]any{{1, "root.sg..d1", 1}},
			want: []string{`"root.sg..d1" has an empty node`},
		},
		{name: "list", fields: []arrow.Field{timeField, tsField("l", arrow.ListOf(arrow.PrimitiveTypes.Int32))}, want: []string{`"l"`, "list"}, unsup: true, empty: true},
		{name: "float tag", fields: []arrow.Field{timeField, tsField("ft", arrow.PrimitiveTypes.Float64, arrowconv.MetaCategory, "TAG")}, want: []string{`"ft"`, "TAG"}, unsup: true, empty: true},
		{name: "metadata type", fields: []arrow.Field{timeField, tsField("i", arrow.PrimitiveTypes.Int32, arrowconv.MetaType, "STRING")}, want: []string{`"i"`, "STRING", "int32"}, unsup: true, empty: true},
		{name: "time type", fields: []arrow.Field{{Name: "time", Type: arrow.BinaryTypes.String}}, want: []string{`"time"`, "utf8"}, unsup: true, empty: true},
		{name: "no time", fields: []arrow.Field{tag}, want: []string{`no time column "time"`}, empty: true},
		{name: "unknown table", fields: []arrow.Field{timeField}, noMeta: true, want: []string{"no table name"}, empty: true},
		{name: "missing tag", fields: []arrow.Field{timeField, tag}, opts: &Options{Tags: []string{"dev", "nope"}}, want: []string{`TAG column "nope" is not in the input`}, empty: true},
		{name: "tag twice", fields: []arrow.Field{timeField, tag}, opts: &Options{Attributes: []string{"dev"}}, want: []string{`"dev"`, "both"}, empty: true},
		{name: "field named time", fields: []arrow.Field{{Name: "ts", Type: arrow.PrimitiveTypes.Int64}, tsField("time", arrow.PrimitiveTypes.Int64)}, opts: &Options{TimeColumn: "ts"}, want: []string{"collide"}, empty: true},
		{name: "encoding of unknown column", fields: []arrow.Field{timeField, tag}, opts: &Options{Encodings: map[string]tsfile.Encoding{"dev": encoding.RLE}}, want: []string{`"dev"`, "not a FIELD"}, empty: true},
		{name: "encoding for type", fields: []arrow.Field{timeField, tsField("i", arrow.PrimitiveTypes.Int32)}, opts: &Options{Encodings: map[string]tsfile.Encoding{"i": encoding.Camel}}, want: []string{`"i"`, "CAMEL", "INT32"}, empty: true},
		{name: "compression", fields: []arrow.Field{timeField, tsField("i", arrow.PrimitiveTypes.Int32)}, opts: &Options{Compression: CompressionOf(encoding.LZO)}, want: []string{"LZO", "Options.Compression", "ZSTD"}, empty: true},
		{name: "column compression", fields: []arrow.Field{timeField, tsField("i", arrow.PrimitiveTypes.Int32)}, opts: &Options{Compressions: map[string]tsfile.Compression{"i": encoding.LZO}}, want: []string{`"i"`, "LZO", "Options.Compressions"}, empty: true},
		{name: "time compression", fields: []arrow.Field{timeField}, opts: &Options{TimeCompression: CompressionOf(5)}, want: []string{"time column", "COMPRESSION(5)", "Options.TimeCompression"}, empty: true},
		{name: "gorilla text", fields: []arrow.Field{timeField, tsField("s", arrow.BinaryTypes.String, arrowconv.MetaType, "TEXT")}, opts: &Options{Encodings: map[string]tsfile.Encoding{"s": encoding.Gorilla}}, want: []string{`column "s" is TEXT, which GORILLA cannot encode`, "Options.Encodings", "PLAIN, DICTIONARY)"}, empty: true},
		{name: "time unit", fields: []arrow.Field{timeField}, opts: &Options{TimeUnit: arrowconv.TimeUnitOf(7)}, want: []string{"time unit"}, empty: true},
		{
			name: "null time", fields: []arrow.Field{timeField, tag},
			rows: [][]any{{1, "a"}, {2, "a"}, {3, "a"}, {nil, "a"}},
			want: []string{"row 3: null time"},
		},
		{
			name: "decreasing time across flushes", fields: []arrow.Field{timeField, tag},
			rows: [][]any{{5, "a"}, {6, "a"}, {1, "b"}, {4, "a"}},
			opts: &Options{MaxBufferedRows: 2},
			want: []string{"row 3", "time 4 of device t.a is not after 6"},
		},
		{
			name: "date out of range", fields: []arrow.Field{timeField, tsField("d", arrow.FixedWidthTypes.Date32)},
			rows: [][]any{{1, 0}, {2, -719529}},
			want: []string{`row 1 column "d"`, "date -1-12-31"},
		},
		{
			name: "date64 not whole days", fields: []arrow.Field{timeField, tsField("d", arrow.FixedWidthTypes.Date64)},
			rows: [][]any{{1, 0}}, // replaced below
			want: []string{`row 0 column "d"`, "whole number of days"},
		},
		{
			name: "invalid STRING", fields: []arrow.Field{timeField, tsField("s", arrow.BinaryTypes.String)},
			rows: [][]any{{1, "ok"}, {2, "\xffno"}},
			want: []string{`row 1 column "s"`, "UTF-8"},
		},
		{
			name: "invalid TAG", fields: []arrow.Field{timeField, tag},
			rows: [][]any{{1, "ok"}, {2, "ok"}, {3, "\xc3"}},
			want: []string{`row 2 TAG column "dev"`, "UTF-8"},
		},
		{
			name: "timestamp overflow", fields: []arrow.Field{timeField, tsField("ts", &arrow.TimestampType{Unit: arrow.Second})},
			rows: [][]any{{1, math.MaxInt64 / 10}},
			want: []string{`row 0 column "ts"`, "overflows"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sm *arrow.Metadata
			if !tc.noMeta {
				sm = &md
			}
			schema := arrow.NewSchema(tc.fields, sm)
			var recs []arrow.RecordBatch
			if tc.rows != nil {
				recs = tsBatches(t, mem, schema, tc.rows, 3)
			}
			if tc.name == "date64 not whole days" {
				recs[0].Release()
				b := array.NewRecordBuilder(mem, schema)
				b.Field(0).(*array.Int64Builder).Append(1)
				b.Field(1).(*array.Date64Builder).Append(arrow.Date64(1))
				recs[0] = b.NewRecordBatch()
				b.Release()
			}
			out, _, err := writeTs(t, schema, recs, tc.opts)
			require.Error(t, err)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
			if tc.unsup {
				require.ErrorIs(t, err, tsfile.ErrUnsupported)
			}
			if tc.empty {
				require.Empty(t, out)
			}
		})
	}
}
