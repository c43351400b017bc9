package icesync

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestSyncWriteProps: the table a sync creates carries the Parquet writer
// settings of withWriteProps, and its data files are written by them:
// ZSTD and version 1 data pages. (The time column's dictionary is not
// seen in the files: the writer drops a dictionary that saves nothing at
// the end of a chunk either way; the property spares it the hashing.)
// The rows read back by the other tests (TestSyncWeather, the Avro and
// DuckDB read-backs) come from such files.
func TestSyncWriteProps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := weatherOptions(dir)
	if _, err := Sync(ctx, []string{"../testdata/iotdb"}, opts); err != nil {
		t.Fatal(err)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	props := tbl.Properties()
	timeName := tbl.Schema().Field(0).Name
	for k, v := range map[string]string{
		propDictColumn + timeName:         "false",
		"write.parquet.dict-size-bytes":   "262144",
		"write.parquet.page-version":      "1",
		"write.parquet.compression-codec": "zstd",
	} {
		if props[k] != v {
			t.Errorf("table property %s = %q, want %q", k, props[k], v)
		}
	}
	files := dataFiles(t, tbl)
	if len(files) == 0 {
		t.Fatal("no data files")
	}
	for loc := range files {
		rdr, err := file.OpenParquetFile(strings.TrimPrefix(loc, "file://"), false)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		for rg := 0; rg < rdr.NumRowGroups(); rg++ {
			rgr := rdr.RowGroup(rg)
			md := rdr.MetaData().RowGroup(rg)
			for c := 0; c < md.NumColumns(); c++ {
				cc, err := md.ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				name := rdr.MetaData().Schema.Column(c).Name()
				if cc.Compression() != compress.Codecs.Zstd {
					t.Errorf("%s: column %s compressed with %s, want ZSTD", loc, name, cc.Compression())
				}
				pr, err := rgr.GetColumnPageReader(c)
				if err != nil {
					t.Fatal(err)
				}
				for pr.Next() {
					if _, v2 := pr.Page().(*file.DataPageV2); v2 {
						t.Errorf("%s: column %s has a version 2 data page", loc, name)
					}
				}
				if err := pr.Err(); err != nil {
					t.Fatal(err)
				}
			}
		}
		rdr.Close()
	}
}

// TestConformMillis: the conformer multiplies millisecond times into
// microseconds on both of its paths (without and with nulls), shares the
// other columns, and refuses a value whose microseconds overflow.
func TestConformMillis(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	in := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	out := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	const lim = math.MaxInt64 / 1000
	for _, tc := range []struct {
		name  string
		times []int64
		valid []bool
		err   error
	}{
		{"plain", []int64{0, 1, -1, 1_700_000_000_123, lim, -lim}, nil, nil},
		{"nulls", []int64{5, 0, -7}, []bool{true, false, true}, nil},
		{"overflow", []int64{1, lim + 1}, nil, ErrTimeRange},
		{"overflow with nulls", []int64{-lim - 1, 0}, []bool{true, false}, ErrTimeRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := array.NewTimestampBuilder(mem, in.Field(0).Type.(*arrow.TimestampType))
			defer tb.Release()
			vb := array.NewInt64Builder(mem)
			defer vb.Release()
			for i, v := range tc.times {
				tb.AppendValues([]arrow.Timestamp{arrow.Timestamp(v)}, []bool{tc.valid == nil || tc.valid[i]})
				vb.Append(int64(i))
			}
			ta, va := tb.NewArray(), vb.NewArray()
			rec := array.NewRecordBatch(in, []arrow.Array{ta, va}, int64(len(tc.times)))
			ta.Release()
			va.Release()
			defer rec.Release()
			got, err := (&conformer{mem: mem, out: out}).conform(rec)
			if !errors.Is(err, tc.err) {
				t.Fatalf("conform: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			defer got.Release()
			if !got.Schema().Equal(out) || got.Column(1) != rec.Column(1) {
				t.Fatalf("schema %s, value column shared %v", got.Schema(), got.Column(1) == rec.Column(1))
			}
			gt := got.Column(0).(*array.Timestamp)
			for i, v := range tc.times {
				null := tc.valid != nil && !tc.valid[i]
				if gt.IsNull(i) != null || (!null && int64(gt.Value(i)) != v*1000) {
					t.Errorf("row %d: got %v (null %v), want %d µs (null %v)", i, gt.Value(i), gt.IsNull(i), v*1000, null)
				}
			}
		})
	}
}
