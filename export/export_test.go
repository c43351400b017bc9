package export

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// exportSource is an input of the export tests: a function opening a
// fresh reader over the same records each time.
type exportSource struct {
	name string
	open func(t *testing.T, mem memory.Allocator) array.RecordReader
	// rowGroup is the Parquet row group size to write with; it does not
	// divide the batch sizes.
	rowGroup int64
}

func exportSources(t *testing.T) []exportSource {
	srcs := []exportSource{
		{"sample", func(t *testing.T, mem memory.Allocator) array.RecordReader {
			return exportSample(t, mem, 128)
		}, 500},
		{"hand", func(t *testing.T, mem memory.Allocator) array.RecordReader {
			return exportHandReader(t, mem, false)
		}, 10},
		{"hand-string-view", func(t *testing.T, mem memory.Allocator) array.RecordReader {
			return exportHandReader(t, mem, true)
		}, 7},
	}
	return srcs
}

// exportSample opens the one table of testdata/sample.tsfile.
func exportSample(t *testing.T, mem memory.Allocator, batch int) array.RecordReader {
	t.Helper()
	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	tables := f.Tables()
	require.Len(t, tables, 1)
	r, err := arrowconv.NewTableReader(f, tables[0], &arrowconv.Options{Allocator: mem, BatchSize: batch})
	require.NoError(t, err)
	return r
}

var (
	exportTagType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	exportTsMs    = &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
)

// exportBatchSizes are the batch sizes of exportHandReader, an empty batch among
// them.
var exportBatchSizes = []int{7, 1, 13, 0, 20}

// exportHandReader returns batches of every Arrow type the readers produce:
// dictionary columns whose dictionaries grow from batch to batch (each a
// new array extending the last, as the readers build them), utf8 or
// string_view text, nulls everywhere but in time, floats' odd values, and
// timestamps of every unit.
func exportHandReader(t *testing.T, mem memory.Allocator, stringView bool) array.RecordReader {
	t.Helper()
	textType := arrow.DataType(arrow.BinaryTypes.String)
	if stringView {
		textType = arrow.BinaryTypes.StringView
	}
	meta := func(typ, cat string) arrow.Metadata {
		return arrow.NewMetadata([]string{arrowconv.MetaType, arrowconv.MetaCategory}, []string{typ, cat})
	}
	smeta := arrow.NewMetadata([]string{arrowconv.MetaTable, arrowconv.MetaTimeUnit}, []string{"hand", "ms"})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: exportTsMs, Metadata: meta("TIMESTAMP", "TIME")},
		{Name: "region", Type: exportTagType, Nullable: true, Metadata: meta("STRING", "TAG")},
		{Name: "station", Type: exportTagType, Nullable: true, Metadata: meta("STRING", "TAG")},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true, Metadata: meta("BOOLEAN", "FIELD")},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: meta("INT32", "FIELD")},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: meta("INT64", "FIELD")},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true, Metadata: meta("FLOAT", "FIELD")},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: meta("DOUBLE", "FIELD")},
		{Name: "text", Type: textType, Nullable: true, Metadata: meta("TEXT", "FIELD")},
		{Name: "blob", Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: meta("BLOB", "FIELD")},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true, Metadata: meta("DATE", "FIELD")},
		{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}, Nullable: true},
		{Name: "ts_ms", Type: exportTsMs, Nullable: true, Metadata: meta("TIMESTAMP", "FIELD")},
		{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "ts_local", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
	}, &smeta)

	regions := []string{"north", "south", "east", "west", "", "centre"}
	stations := []string{"s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08"}
	f32s := []float32{1.5, float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), -3.25, math.MaxFloat32, math.SmallestNonzeroFloat32}
	f64s := []float64{2.5, math.NaN(), math.Inf(-1), math.Copysign(0, -1), 1e300, -math.MaxFloat64, 0.1}
	texts := []string{"", "short", "a string longer than twelve bytes", "ünïcødé", "x"}

	var recs []arrow.RecordBatch
	row := 0
	for k, n := range exportBatchSizes {
		b := array.NewRecordBuilder(mem, sc)
		// Dictionaries: the first k+2 values, as fresh arrays.
		dictOf := func(vals []string, keep int) arrow.Array {
			sb := array.NewStringBuilder(mem)
			defer sb.Release()
			sb.AppendValues(vals[:min(keep, len(vals))], nil)
			return sb.NewArray()
		}
		rdict, sdict := dictOf(regions, k+2), dictOf(stations, 2*k+2)
		ri := array.NewInt32Builder(mem)
		si := array.NewInt32Builder(mem)
		for j := 0; j < n; j++ {
			r := row + j
			null := func(every int) bool { return r%every == every-1 }
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + int64(r)*1000 - int64(r%3)*7))
			if null(5) {
				ri.AppendNull()
			} else {
				ri.Append(int32((r * 7) % rdict.Len()))
			}
			if null(6) {
				si.AppendNull()
			} else {
				si.Append(int32(sdict.Len() - 1 - r%sdict.Len()))
			}
			appendOrNull := func(i int, every int, f func(array.Builder)) {
				if null(every) {
					b.Field(i).AppendNull()
				} else {
					f(b.Field(i))
				}
			}
			appendOrNull(3, 4, func(x array.Builder) { x.(*array.BooleanBuilder).Append(r%3 == 0) })
			appendOrNull(4, 3, func(x array.Builder) {
				x.(*array.Int32Builder).Append([]int32{math.MinInt32, math.MaxInt32, int32(r), -int32(r)}[r%4])
			})
			appendOrNull(5, 5, func(x array.Builder) {
				x.(*array.Int64Builder).Append([]int64{math.MinInt64, math.MaxInt64, int64(r) << 33, -int64(r)}[r%4])
			})
			appendOrNull(6, 7, func(x array.Builder) { x.(*array.Float32Builder).Append(f32s[r%len(f32s)]) })
			appendOrNull(7, 8, func(x array.Builder) { x.(*array.Float64Builder).Append(f64s[r%len(f64s)]) })
			appendOrNull(8, 4, func(x array.Builder) {
				s := texts[r%len(texts)] + strings.Repeat("z", r%3)
				if sv, ok := x.(*array.StringViewBuilder); ok {
					sv.Append(s)
				} else {
					x.(*array.StringBuilder).Append(s)
				}
			})
			appendOrNull(9, 5, func(x array.Builder) { x.(*array.BinaryBuilder).Append(bytes.Repeat([]byte{byte(r), 0xff, 0}, r%3)) })
			appendOrNull(10, 6, func(x array.Builder) {
				x.(*array.Date32Builder).Append(arrow.Date32(19000 - 400*int32(r%5) + int32(r)))
			})
			appendOrNull(11, 3, func(x array.Builder) { x.(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000 + r)) })
			appendOrNull(12, 4, func(x array.Builder) { x.(*array.TimestampBuilder).Append(arrow.Timestamp(-1_000_000 * int64(r))) })
			appendOrNull(13, 5, func(x array.Builder) {
				x.(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_123_456 + int64(r)))
			})
			appendOrNull(14, 6, func(x array.Builder) {
				x.(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_123_456_789 + int64(r)*1_000_001))
			})
			appendOrNull(15, 7, func(x array.Builder) { x.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(r) * 86_400_001)) })
		}
		row += n
		// Placeholders for the dictionary columns built above.
		b.Field(1).AppendNulls(n)
		b.Field(2).AppendNulls(n)
		rec := b.NewRecordBatch()
		b.Release()
		cols := rec.Columns()
		cols = append([]arrow.Array(nil), cols...)
		ridx, sidx := ri.NewArray(), si.NewArray()
		cols[1] = array.NewDictionaryArray(exportTagType, ridx, rdict)
		cols[2] = array.NewDictionaryArray(exportTagType, sidx, sdict)
		recs = append(recs, array.NewRecordBatch(sc, cols, int64(n)))
		for _, a := range []arrow.Array{cols[1], cols[2], ridx, sidx, rdict, sdict} {
			a.Release()
		}
		ri.Release()
		si.Release()
		rec.Release()
	}
	rr, err := array.NewRecordReader(sc, recs)
	require.NoError(t, err)
	for _, r := range recs {
		r.Release()
	}
	return rr
}

// exportCanon spells value i of a by its value alone, so that the types a
// value may come back as (a dictionary or its values, string_view or
// utf8, timestamp[s] or the timestamp[ms] Parquet stores) compare equal:
// floats by their bits, timestamps in milliseconds when in seconds.
func exportCanon(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return testkit.NullCell
	}
	switch a := a.(type) {
	case *array.Dictionary:
		return exportCanon(a.Dictionary(), a.GetValueIndex(i))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int32:
		return "i:" + strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return "i:" + strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return testkit.CanonFloat32(a.Value(i))
	case *array.Float64:
		return testkit.CanonFloat64(a.Value(i))
	case *array.String:
		return "s:" + a.Value(i)
	case *array.StringView:
		return "s:" + a.Value(i)
	case *array.Binary:
		return "b:" + hex.EncodeToString(a.Value(i))
	case *array.BinaryView:
		return "b:" + hex.EncodeToString(a.Value(i))
	case *array.Date32:
		return "d:" + strconv.Itoa(int(a.Value(i)))
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		v := int64(a.Value(i))
		if unit == arrow.Second {
			v, unit = v*1000, arrow.Millisecond
		}
		return "t" + unit.String() + ":" + strconv.FormatInt(v, 10)
	}
	panic(fmt.Sprintf("exportCanon: unexpected %T", a))
}

// exportRows reads rr to its end in canonical form and releases it.
func exportRows(t *testing.T, rr array.RecordReader) (rows [][]string, sizes []int) {
	t.Helper()
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		sizes = append(sizes, int(rec.NumRows()))
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = exportCanon(rec.Column(c), i)
			}
			rows = append(rows, row)
		}
	}
	require.NoError(t, rr.Err())
	return rows, sizes
}

// exportParquetType is the Arrow type WriteParquet's output reads back as.
func exportParquetType(dt arrow.DataType) arrow.DataType {
	switch dt.ID() {
	case arrow.STRING_VIEW:
		return arrow.BinaryTypes.String
	case arrow.BINARY_VIEW:
		return arrow.BinaryTypes.Binary
	case arrow.TIMESTAMP:
		if ts := dt.(*arrow.TimestampType); ts.Unit == arrow.Second {
			return &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: ts.TimeZone}
		}
	}
	return dt
}

func TestWriteParquet(t *testing.T) {
	for _, src := range exportSources(t) {
		for _, comp := range append([]string{""}, ParquetCompressions()...) {
			t.Run(src.name+"/"+comp, func(t *testing.T) {
				mem := testkit.CheckedMem(t)
				want, _ := exportRows(t, src.open(t, mem))
				wantSchema := src.open(t, mem)
				inSchema := wantSchema.Schema()
				wantSchema.Release()

				var buf bytes.Buffer
				rr := src.open(t, mem)
				n, err := WriteParquet(&buf, rr, &ParquetOptions{Compression: comp, RowGroupSize: src.rowGroup, Allocator: mem})
				rr.Release()
				require.NoError(t, err)
				require.Equal(t, int64(len(want)), n)

				pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()), file.WithReadProps(parquet.NewReaderProperties(mem)))
				require.NoError(t, err)
				defer pf.Close()
				md := pf.MetaData()
				require.Equal(t, int64(len(want)), md.NumRows)

				// Row groups of exactly RowGroupSize rows but the last,
				// whatever the batch sizes were.
				var groups []int
				for left := len(want); left > 0; left -= int(src.rowGroup) {
					groups = append(groups, min(left, int(src.rowGroup)))
				}
				require.Equal(t, len(groups), md.NumRowGroups())
				codec := compress.Codecs.Zstd
				switch comp {
				case "snappy":
					codec = compress.Codecs.Snappy
				case "gzip":
					codec = compress.Codecs.Gzip
				case "lz4":
					codec = compress.Codecs.Lz4Raw
				case "none":
					codec = compress.Codecs.Uncompressed
				}
				first := 0
				for g, size := range groups {
					rg := md.RowGroup(g)
					require.Equal(t, int64(size), rg.NumRows(), "row group %d", g)
					for c := 0; c < rg.NumColumns(); c++ {
						cc, err := rg.ColumnChunk(c)
						require.NoError(t, err)
						require.Equal(t, codec, cc.Compression())
						requireParquetStats(t, cc, inSchema.Field(c), want[first:first+size], c)
						if inSchema.Field(c).Type.ID() == arrow.DICTIONARY && codec != compress.Codecs.Uncompressed {
							// Dictionary encoded throughout, although the
							// Arrow dictionary changes from batch to batch.
							// (Uncompressed, the writer falls back to
							// plain where a dictionary saves no bytes, as
							// in these tiny row groups.)
							require.True(t, cc.HasDictionaryPage(), "%s row group %d: %v", inSchema.Field(c).Name, g, cc.EncodingStats())
							for _, es := range cc.EncodingStats() {
								if es.PageType.String() != "DICTIONARY_PAGE" {
									require.Equal(t, parquet.Encodings.RLEDict, es.Encoding, inSchema.Field(c).Name)
								}
							}
						}
					}
					first += size
				}

				// Timestamps are UTC-adjusted exactly when they have a zone.
				for c, f := range inSchema.Fields() {
					ts, ok := f.Type.(*arrow.TimestampType)
					if !ok {
						continue
					}
					lt, ok := md.Schema.Column(c).LogicalType().(schema.TimestampLogicalType)
					require.True(t, ok, "%s: %s", f.Name, md.Schema.Column(c).LogicalType())
					require.Equal(t, ts.TimeZone != "", lt.IsAdjustedToUTC(), f.Name)
					wantUnit := map[arrow.TimeUnit]schema.TimeUnitType{arrow.Second: schema.TimeUnitMillis, arrow.Millisecond: schema.TimeUnitMillis,
						arrow.Microsecond: schema.TimeUnitMicros, arrow.Nanosecond: schema.TimeUnitNanos}[ts.Unit]
					require.Equal(t, wantUnit, lt.TimeUnit(), f.Name)
				}
				// The schema metadata is Parquet key-value metadata too.
				kv := md.KeyValueMetadata()
				for i, k := range inSchema.Metadata().Keys() {
					v := kv.FindValue(k)
					require.NotNil(t, v, k)
					require.Equal(t, inSchema.Metadata().Values()[i], *v)
				}
				// The stored Arrow schema is the input's, metadata and
				// dictionaries included, views made plain.
				enc := kv.FindValue("ARROW:schema")
				require.NotNil(t, enc)
				raw, err := base64.StdEncoding.DecodeString(*enc)
				require.NoError(t, err)
				sr, err := ipc.NewReader(bytes.NewReader(raw), ipc.WithAllocator(mem))
				require.NoError(t, err)
				stored := sr.Schema()
				sr.Release()
				require.Equal(t, inSchema.NumFields(), stored.NumFields())
				for c, f := range inSchema.Fields() {
					g := stored.Field(c)
					want := f.Type
					if want.ID() == arrow.STRING_VIEW {
						want = arrow.BinaryTypes.String
					}
					require.True(t, arrow.TypeEqual(want, g.Type), "%s: stored %s", f.Name, g.Type)
					require.Equal(t, f.Metadata, g.Metadata, f.Name)
				}
				require.Equal(t, inSchema.Metadata(), stored.Metadata())

				fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64}, mem)
				require.NoError(t, err)
				tbl, err := fr.ReadTable(context.Background())
				require.NoError(t, err)
				defer tbl.Release()
				got := tbl.Schema()
				require.Equal(t, inSchema.NumFields(), got.NumFields())
				for c, f := range inSchema.Fields() {
					g := got.Field(c)
					require.Equal(t, f.Name, g.Name)
					require.True(t, arrow.TypeEqual(exportParquetType(f.Type), g.Type), "%s: wrote %s, read %s", f.Name, f.Type, g.Type)
					for i, k := range f.Metadata.Keys() {
						v, ok := g.Metadata.GetValue(k)
						require.True(t, ok, "%s lost metadata %s", f.Name, k)
						require.Equal(t, f.Metadata.Values()[i], v)
					}
				}
				rows, _ := exportRows(t, array.NewTableReader(tbl, 100))
				require.Equal(t, want, rows)
			})
		}
	}
}

// requireParquetStats checks the statistics of one column chunk: a null count
// matching the rows, and, for the columns that have non-null values, the
// exact min and max of them. Rows are canonical; the min and max come
// from the source values, re-read here from the canonical form's source.
func requireParquetStats(t *testing.T, cc *metadata.ColumnChunkMetaData, f arrow.Field, rows [][]string, c int) {
	t.Helper()
	set, err := cc.StatsSet()
	require.NoError(t, err)
	require.True(t, set, "%s: no statistics", f.Name)
	st, err := cc.Statistics()
	require.NoError(t, err)
	require.True(t, st.HasNullCount(), f.Name)
	nulls := int64(0)
	var vals []any
	for _, r := range rows {
		if r[c] == testkit.NullCell {
			nulls++
			continue
		}
		if v, ok := exportStatFromCanon(f.Type, r[c]); ok {
			vals = append(vals, v)
		}
	}
	require.Equal(t, nulls, st.NullCount(), "%s null count", f.Name)
	if len(vals) == 0 {
		return
	}
	require.True(t, st.HasMinMax(), "%s: no min/max", f.Name)
	lo, hi := vals[0], vals[0]
	for _, v := range vals[1:] {
		if exportStatLess(v, lo) {
			lo = v
		}
		if exportStatLess(hi, v) {
			hi = v
		}
	}
	var gotLo, gotHi any
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		gotLo, gotHi = int64(s.Min()), int64(s.Max())
	case *metadata.Int64Statistics:
		gotLo, gotHi = s.Min(), s.Max()
	case *metadata.Float32Statistics:
		gotLo, gotHi = float64(s.Min()), float64(s.Max())
	case *metadata.Float64Statistics:
		gotLo, gotHi = s.Min(), s.Max()
	case *metadata.BooleanStatistics:
		gotLo, gotHi = s.Min(), s.Max()
	case *metadata.ByteArrayStatistics:
		gotLo, gotHi = string(s.Min()), string(s.Max())
	default:
		t.Fatalf("%s: unexpected statistics %T", f.Name, st)
	}
	if a, ok := lo.(float64); ok {
		// Zero's sign is free in float statistics.
		require.True(t, a == gotLo.(float64) && hi.(float64) == gotHi.(float64), "%s: min/max %v %v, want %v %v", f.Name, gotLo, gotHi, lo, hi)
		return
	}
	require.Equal(t, lo, gotLo, "%s min", f.Name)
	require.Equal(t, hi, gotHi, "%s max", f.Name)
}

// exportStatFromCanon turns a canonical cell back into the value statistics
// compare.
func exportStatFromCanon(dt arrow.DataType, cell string) (any, bool) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dt = d.ValueType
	}
	_, rest, _ := strings.Cut(cell, ":")
	switch dt.ID() {
	case arrow.BOOL:
		return cell == "true", true
	case arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP:
		v, _ := strconv.ParseInt(rest, 10, 64)
		return v, true
	case arrow.FLOAT32:
		b, _ := strconv.ParseUint(rest, 16, 32)
		v := float64(math.Float32frombits(uint32(b)))
		return v, !math.IsNaN(v)
	case arrow.FLOAT64:
		b, _ := strconv.ParseUint(rest, 16, 64)
		v := math.Float64frombits(b)
		return v, !math.IsNaN(v)
	case arrow.STRING, arrow.STRING_VIEW:
		return rest, true
	case arrow.BINARY, arrow.BINARY_VIEW:
		b, _ := hex.DecodeString(rest)
		return string(b), true
	}
	panic(fmt.Sprintf("exportStatFromCanon: unexpected %s", dt))
}

func exportStatLess(a, b any) bool {
	switch a := a.(type) {
	case bool:
		return !a && b.(bool)
	case int64:
		return a < b.(int64)
	case float64:
		return a < b.(float64)
	case string:
		return a < b.(string)
	}
	panic("exportStatLess")
}

func TestWriteIPC(t *testing.T) {
	for _, src := range exportSources(t) {
		for _, stream := range []bool{false, true} {
			for _, comp := range append([]string{""}, IPCCompressions()...) {
				name := fmt.Sprintf("%s/file/%s", src.name, comp)
				if stream {
					name = fmt.Sprintf("%s/stream/%s", src.name, comp)
				}
				t.Run(name, func(t *testing.T) {
					mem := testkit.CheckedMem(t)
					want, wantSizes := exportRows(t, src.open(t, mem))
					var buf bytes.Buffer
					rr := src.open(t, mem)
					inSchema := rr.Schema()
					n, err := WriteIPC(&buf, rr, &IPCOptions{Stream: stream, Compression: comp, Allocator: mem})
					rr.Release()
					require.NoError(t, err)
					require.Equal(t, int64(len(want)), n)

					var got array.RecordReader
					if stream {
						got, err = ipc.NewReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(mem))
						require.NoError(t, err)
					} else {
						require.Equal(t, "ARROW1\x00\x00", string(buf.Bytes()[:8]))
						fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(mem))
						require.NoError(t, err)
						defer fr.Close()
						require.Equal(t, len(wantSizes), fr.NumRecords())
						if src.name != "sample" {
							// Two dictionary columns, each first written
							// whole and then extended by deltas: region
							// grows at each of the 5 batches, station at
							// the first 4 (its last batch has the same
							// dictionary as the one before).
							require.Equal(t, 5+4, fr.NumDictionaries())
						}
						got = &ipcFileRecords{fr: fr}
					}
					require.True(t, inSchema.Equal(got.Schema()), "wrote %s\nread %s", inSchema, got.Schema())
					require.Equal(t, inSchema.Metadata(), got.Schema().Metadata())
					for i, f := range inSchema.Fields() {
						require.Equal(t, f.Metadata, got.Schema().Field(i).Metadata)
					}
					rows, sizes := exportRows(t, got)
					require.Equal(t, want, rows)
					require.Equal(t, wantSizes, sizes)
				})
			}
		}
	}
}

// ipcFileRecords reads the records of an IPC file in order as a RecordReader.
type ipcFileRecords struct {
	fr  *ipc.FileReader
	i   int
	cur arrow.RecordBatch
	err error
}

func (r *ipcFileRecords) Schema() *arrow.Schema { return r.fr.Schema() }
func (r *ipcFileRecords) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.i >= r.fr.NumRecords() {
		return false
	}
	r.cur, r.err = r.fr.RecordBatchAt(r.i)
	r.i++
	return r.err == nil
}
func (r *ipcFileRecords) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *ipcFileRecords) Record() arrow.RecordBatch      { return r.cur }
func (r *ipcFileRecords) Err() error                     { return r.err }
func (r *ipcFileRecords) Retain()                        {}
func (r *ipcFileRecords) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

// exportDictBatches builds one-column batches of dictionary<idx, utf8> with the
// given dictionaries and indices (-1 for null).
func exportDictBatches(t *testing.T, mem memory.Allocator, idxType arrow.DataType, dicts [][]string, indices [][]int) array.RecordReader {
	t.Helper()
	dt := &arrow.DictionaryType{IndexType: idxType, ValueType: arrow.BinaryTypes.String}
	sc := arrow.NewSchema([]arrow.Field{{Name: "tag", Type: dt, Nullable: true}}, nil)
	var recs []arrow.RecordBatch
	for k := range dicts {
		sb := array.NewStringBuilder(mem)
		sb.AppendValues(dicts[k], nil)
		dict := sb.NewArray()
		sb.Release()
		vals := make([]int64, len(indices[k]))
		valid := make([]bool, len(indices[k]))
		for i, x := range indices[k] {
			vals[i], valid[i] = int64(x), x >= 0
		}
		idx, err := newIndices(mem, idxType, vals, valid)
		require.NoError(t, err)
		col := array.NewDictionaryArray(dt, idx, dict)
		recs = append(recs, array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len())))
		col.Release()
		idx.Release()
		dict.Release()
	}
	rr, err := array.NewRecordReader(sc, recs)
	require.NoError(t, err)
	for _, r := range recs {
		r.Release()
	}
	return rr
}

// TestWriteIPCDictionaryReplacement writes dictionaries that do not extend
// the previous one: the stream format writes replacements, the file format
// unifies them into one growing dictionary, and both read back the same
// values.
func TestWriteIPCDictionaryReplacement(t *testing.T) {
	dicts := [][]string{{"a", "b"}, {"c", "a"}, {"a"}, {"a", "b", "c", "d"}, {"d", "e", "a", "e"}, {}, {"b"}}
	indices := [][]int{{0, 1, -1}, {0, 1, 1, -1}, {0, 0}, {3, 2, 1, 0}, {3, 1, 0, 2, -1}, {-1}, {0}}
	for _, idxType := range []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", idxType, stream), func(t *testing.T) {
				mem := testkit.CheckedMem(t)
				want, _ := exportRows(t, exportDictBatches(t, mem, idxType, dicts, indices))
				rr := exportDictBatches(t, mem, idxType, dicts, indices)
				var buf bytes.Buffer
				_, err := WriteIPC(&buf, rr, &IPCOptions{Stream: stream, Allocator: mem})
				rr.Release()
				require.NoError(t, err)
				var got array.RecordReader
				if stream {
					got, err = ipc.NewReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(mem))
					require.NoError(t, err)
				} else {
					fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(mem))
					require.NoError(t, err)
					defer fr.Close()
					got = &ipcFileRecords{fr: fr}
				}
				rows, _ := exportRows(t, got)
				require.Equal(t, want, rows)
			})
		}
	}

	t.Run("index overflow", func(t *testing.T) {
		mem := testkit.CheckedMem(t)
		var a, b []string
		for i := 0; i < 100; i++ {
			a = append(a, fmt.Sprint("a", i))
			b = append(b, fmt.Sprint("b", i))
		}
		rr := exportDictBatches(t, mem, arrow.PrimitiveTypes.Int8, [][]string{a, b}, [][]int{{0}, {99}})
		defer rr.Release()
		_, err := WriteIPC(&bytes.Buffer{}, rr, &IPCOptions{Allocator: mem})
		require.ErrorContains(t, err, `export: ipc: column "tag": unified dictionary of 200 values overflows int8 indices`)
	})

	// A dictionary nested in a struct is beyond the unifier: its
	// replacement is an error for the file format only.
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("nested/stream=%v", stream), func(t *testing.T) {
			mem := testkit.CheckedMem(t)
			dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
			st := arrow.StructOf(arrow.Field{Name: "d", Type: dt, Nullable: true})
			sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: st}}, nil)
			var recs []arrow.RecordBatch
			for _, vals := range [][]string{{"x", "y"}, {"z"}} {
				sb := array.NewStringBuilder(mem)
				sb.AppendValues(vals, nil)
				dict := sb.NewArray()
				ib := array.NewInt32Builder(mem)
				ib.Append(0)
				idx := ib.NewArray()
				d := array.NewDictionaryArray(dt, idx, dict)
				s, err := array.NewStructArrayWithFields([]arrow.Array{d}, st.Fields())
				require.NoError(t, err)
				recs = append(recs, array.NewRecordBatch(sc, []arrow.Array{s}, 1))
				for _, a := range []arrow.Array{s, d, idx, dict} {
					a.Release()
				}
				sb.Release()
				ib.Release()
			}
			rr, err := array.NewRecordReader(sc, recs)
			require.NoError(t, err)
			for _, r := range recs {
				r.Release()
			}
			defer rr.Release()
			var buf bytes.Buffer
			n, err := WriteIPC(&buf, rr, &IPCOptions{Stream: stream, Allocator: mem})
			if stream {
				require.NoError(t, err)
				require.Equal(t, int64(2), n)
				return
			}
			require.ErrorContains(t, err, "export: ipc: ")
			require.ErrorContains(t, err, "was replaced, not extended; the IPC file format allows one dictionary per column")
			require.Equal(t, int64(1), n)
			// The half-written file has no footer.
			_, err = ipc.NewFileReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(mem))
			require.Error(t, err)
		})
	}
}

// TestWriteEmpty writes streams of no rows: a valid, empty output.
func TestWriteEmpty(t *testing.T) {
	mem := testkit.CheckedMem(t)
	sc := arrow.NewSchema([]arrow.Field{{Name: "time", Type: exportTsMs}, {Name: "tag", Type: exportTagType, Nullable: true}}, nil)
	empty := func() array.RecordReader {
		rr, err := array.NewRecordReader(sc, nil)
		require.NoError(t, err)
		return rr
	}
	var pq bytes.Buffer
	n, err := WriteParquet(&pq, empty(), &ParquetOptions{Allocator: mem})
	require.NoError(t, err)
	require.Zero(t, n)
	pf, err := file.NewParquetReader(bytes.NewReader(pq.Bytes()), file.WithReadProps(parquet.NewReaderProperties(mem)))
	require.NoError(t, err)
	require.Equal(t, 0, pf.NumRowGroups())
	require.NoError(t, pf.Close())

	var f bytes.Buffer
	_, err = WriteIPC(&f, empty(), &IPCOptions{Allocator: mem})
	require.NoError(t, err)
	fr, err := ipc.NewFileReader(bytes.NewReader(f.Bytes()), ipc.WithAllocator(mem))
	require.NoError(t, err)
	require.Equal(t, 0, fr.NumRecords())
	require.True(t, sc.Equal(fr.Schema()))
	require.NoError(t, fr.Close())
}

func TestWriteOptionErrors(t *testing.T) {
	mem := testkit.CheckedMem(t)
	rr := exportHandReader(t, mem, false)
	defer rr.Release()
	_, err := WriteParquet(&bytes.Buffer{}, rr, &ParquetOptions{Compression: "brotli"})
	require.EqualError(t, err, `export: parquet: unknown compression "brotli" (want "zstd", "snappy", "gzip", "lz4" or "none")`)
	_, err = WriteParquet(&bytes.Buffer{}, rr, &ParquetOptions{RowGroupSize: -1})
	require.EqualError(t, err, "export: parquet: negative row group size -1")
	_, err = WriteIPC(&bytes.Buffer{}, rr, &IPCOptions{Compression: "snappy"})
	require.EqualError(t, err, `export: ipc: unknown compression "snappy" (want "none", "zstd" or "lz4")`)
}

// exportFailingReader yields the batches of r, then fails.
type exportFailingReader struct {
	array.RecordReader
	err error
}

func (r *exportFailingReader) Next() bool { return r.RecordReader.Next() }
func (r *exportFailingReader) Err() error { return r.err }

type exportCloser struct {
	bytes.Buffer
	closed bool
}

func (c *exportCloser) Close() error { c.closed = true; return nil }

// TestWriteReaderError returns the reader's error unchanged, leaks
// nothing, and leaves a writer that is an io.Closer open.
func TestWriteReaderError(t *testing.T) {
	boom := errors.New("boom")
	for _, format := range []string{"parquet", "arrow", "arrows"} {
		t.Run(format, func(t *testing.T) {
			mem := testkit.CheckedMem(t)
			rr := &exportFailingReader{exportHandReader(t, mem, false), boom}
			defer rr.Release()
			var w exportCloser
			var n int64
			var err error
			switch format {
			case "parquet":
				n, err = WriteParquet(&w, rr, &ParquetOptions{Allocator: mem, RowGroupSize: 5})
			default:
				n, err = WriteIPC(&w, rr, &IPCOptions{Allocator: mem, Stream: format == "arrows"})
			}
			require.Same(t, boom, err)
			require.Equal(t, int64(41), n)
			require.False(t, w.closed)
			// The output is cut short, not completed: no Parquet footer, no
			// IPC file footer, no end-of-stream marker.
			require.NotZero(t, w.Len())
			switch format {
			case "parquet":
				_, err = file.NewParquetReader(bytes.NewReader(w.Bytes()))
				require.Error(t, err)
			case "arrow":
				_, err = ipc.NewFileReader(bytes.NewReader(w.Bytes()))
				require.Error(t, err)
			case "arrows":
				// Readers take a stream cut at a message boundary for a
				// whole one; the end-of-stream marker is what is missing.
				require.False(t, bytes.HasSuffix(w.Bytes(), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}))
			}
		})
	}
	mem := testkit.CheckedMem(t)
	rr := exportHandReader(t, mem, false)
	defer rr.Release()
	var w exportCloser
	_, err := WriteParquet(&w, rr, &ParquetOptions{Allocator: mem})
	require.NoError(t, err)
	require.False(t, w.closed, "WriteParquet closed its writer")
}

// TestWriteInterop converts the upstream files through both formats and
// reads back what a fresh reader gives.
func TestWriteInterop(t *testing.T) {
	for _, name := range []string{"j01_table_all_types_plain.tsfile", "j02_table_multipage_default_encodings.tsfile", "j10_tree_nonaligned.tsfile"} {
		t.Run(name, func(t *testing.T) {
			path := testkit.InteropPath(t, name)
			mem := testkit.CheckedMem(t)
			open := func() array.RecordReader {
				f, err := tsfile.OpenFile(path, nil)
				require.NoError(t, err)
				t.Cleanup(func() { f.Close() })
				var model []string
				for _, tb := range f.Tables() {
					if _, ok := f.SchemaOf(tb); ok {
						model = append(model, tb)
					}
				}
				var r *arrowconv.Reader
				if len(model) == 1 {
					r, err = arrowconv.NewTableReader(f, model[0], &arrowconv.Options{Allocator: mem, BatchSize: 4096})
				} else {
					r, err = arrowconv.NewTreeReader(f, "", &arrowconv.Options{Allocator: mem, BatchSize: 4096})
				}
				require.NoError(t, err)
				return r
			}
			want, _ := exportRows(t, open())

			var pq bytes.Buffer
			rr := open()
			_, err := WriteParquet(&pq, rr, &ParquetOptions{Allocator: mem, RowGroupSize: 30000})
			rr.Release()
			require.NoError(t, err)
			pf, err := file.NewParquetReader(bytes.NewReader(pq.Bytes()), file.WithReadProps(parquet.NewReaderProperties(mem)))
			require.NoError(t, err)
			defer pf.Close()
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 10000}, mem)
			require.NoError(t, err)
			tbl, err := fr.ReadTable(context.Background())
			require.NoError(t, err)
			defer tbl.Release()
			rows, _ := exportRows(t, array.NewTableReader(tbl, 10000))
			require.Equal(t, want, rows)

			var ar bytes.Buffer
			rr = open()
			_, err = WriteIPC(&ar, rr, &IPCOptions{Allocator: mem, Compression: "zstd"})
			rr.Release()
			require.NoError(t, err)
			ifr, err := ipc.NewFileReader(bytes.NewReader(ar.Bytes()), ipc.WithAllocator(mem))
			require.NoError(t, err)
			defer ifr.Close()
			rows, _ = exportRows(t, &ipcFileRecords{fr: ifr})
			require.Equal(t, want, rows)
		})
	}
}

// TestCompressionListsImmutable checks that a caller changing the list it got
// does not change what the writers accept or what the next caller sees.
func TestCompressionListsImmutable(t *testing.T) {
	for name, list := range map[string]func() []string{"ipc": IPCCompressions, "parquet": ParquetCompressions} {
		want := slices.Clone(list())
		got := list()
		got[0] = "bogus"
		require.Equal(t, want, list(), name)
	}
}
