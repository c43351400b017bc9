package arrowconv

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

const j01 = testkit.J01

// manifestTable is the part of manifest.json the tests check.
type manifestTable struct {
	Name      string `json:"name"`
	TotalRows int    `json:"total_rows"`
	Columns   []struct {
		Name      string `json:"name"`
		Category  string `json:"category"`
		Type      string `json:"type"`
		NullCount *int   `json:"null_count"`
	} `json:"columns"`
}

func manifest(t *testing.T, file string) manifestTable {
	t.Helper()
	b, err := os.ReadFile(interopPath(t, "manifest.json"))
	require.NoError(t, err)
	var m struct {
		Files []struct {
			Path   string          `json:"path"`
			Tables []manifestTable `json:"tables"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	for _, f := range m.Files {
		if f.Path == file {
			require.Len(t, f.Tables, 1)
			return f.Tables[0]
		}
	}
	t.Fatalf("%s is not in the manifest", file)
	return manifestTable{}
}

func openInterop(t testing.TB, name string) *tsfile.File {
	t.Helper()
	f, err := tsfile.OpenFile(interopPath(t, name+".tsfile"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func TestJ01Schema(t *testing.T) {
	f := openInterop(t, j01)
	m := manifest(t, j01+".tsfile")
	s, err := TableArrowSchema(f, "weather", nil)
	require.NoError(t, err)
	require.Equal(t, 1+len(m.Columns), s.NumFields())
	require.Equal(t, "time", s.Field(0).Name)
	require.False(t, s.Field(0).Nullable)
	require.Equal(t, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, s.Field(0).Type)
	want := map[string]arrow.DataType{
		"STRING": arrow.BinaryTypes.String, "TEXT": arrow.BinaryTypes.String, "BOOLEAN": arrow.FixedWidthTypes.Boolean,
		"INT32": arrow.PrimitiveTypes.Int32, "INT64": arrow.PrimitiveTypes.Int64, "FLOAT": arrow.PrimitiveTypes.Float32,
		"DOUBLE": arrow.PrimitiveTypes.Float64, "BLOB": arrow.BinaryTypes.Binary, "DATE": arrow.FixedWidthTypes.Date32,
		"TIMESTAMP": &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
	}
	for i, c := range m.Columns {
		fld := s.Field(1 + i)
		require.Equal(t, c.Name, fld.Name)
		require.True(t, fld.Nullable)
		wt := want[c.Type]
		if c.Category == "TAG" {
			wt = tagDictType
		}
		require.True(t, arrow.TypeEqual(wt, fld.Type), "%s: %s", c.Name, fld.Type)
		typ, _ := fld.Metadata.GetValue(MetaType)
		cat, _ := fld.Metadata.GetValue(MetaCategory)
		require.Equal(t, c.Type, typ)
		require.Equal(t, c.Category, cat)
	}
	tbl, _ := s.Metadata().GetValue(MetaTable)
	unit, _ := s.Metadata().GetValue(MetaTimeUnit)
	require.Equal(t, "weather", tbl)
	require.Equal(t, "ms", unit)

	us, err := TableArrowSchema(f, "weather", &Options{TimeUnit: TimeUnitOf(arrow.Nanosecond)})
	require.NoError(t, err)
	require.Equal(t, arrow.Nanosecond, us.Field(0).Type.(*arrow.TimestampType).Unit)

	for _, c := range []struct {
		opts *Options
		want arrow.TimeUnit
	}{
		{&Options{BatchSize: 5}, arrow.Millisecond},
		{&Options{}, arrow.Millisecond},
		{&Options{TimeUnit: TimeUnitOf(arrow.Second)}, arrow.Second},
		{&Options{TimeUnit: TimeUnitOf(arrow.Microsecond)}, arrow.Microsecond},
	} {
		s, err := TableArrowSchema(f, "weather", c.opts)
		require.NoError(t, err)
		require.Equal(t, c.want, s.Field(0).Type.(*arrow.TimestampType).Unit)
		require.Equal(t, c.want, s.Field(len(s.Fields())-1).Type.(*arrow.TimestampType).Unit)
		unit, _ := s.Metadata().GetValue(MetaTimeUnit)
		require.Equal(t, c.want.String(), unit)
	}
	_, err = TableArrowSchema(f, "weather", &Options{TimeUnit: TimeUnitOf(9)})
	require.ErrorContains(t, err, "time unit")
	_, err = TableArrowSchema(f, "nope", nil)
	require.ErrorContains(t, err, "no table")
	_, err = NewTreeReader(f, "weather", nil)
	require.ErrorContains(t, err, "table-model")
}

// TestJ01Rows checks every cell of j01 against the upstream expectation,
// the per-column null counts against the manifest, and the CSV writer.
func TestJ01Rows(t *testing.T) {
	f := openInterop(t, j01)
	m := manifest(t, j01+".tsfile")
	mem := checkedMem(t)

	r, err := NewTableReader(f, "weather", &Options{Allocator: mem})
	require.NoError(t, err)
	schema := r.Schema()
	got := drain(t, r)
	want := readGzipCSV(t, interopPath(t, j01+".expected.csv.gz"), schema)
	require.Len(t, got.rows, 900)
	require.Equal(t, m.TotalRows, len(got.rows))
	key := []int{1, 2, 0} // region, station, time
	requireSameSet(t, want, got, key)
	// Devices in index order and time order within a device is also the
	// order the writer used, so the rows match in sequence too.
	require.Equal(t, want.rows, got.rows)

	require.Zero(t, got.nulls[0])
	for i, c := range m.Columns {
		if c.NullCount != nil {
			require.Equal(t, *c.NullCount, got.nulls[1+i], "null count of %s", c.Name)
		}
	}

	r, err = NewTableReader(f, "weather", &Options{Allocator: mem})
	require.NoError(t, err)
	var buf bytes.Buffer
	n, err := export.WriteCSVWith(&buf, r, &export.TextOptions{Time: export.TimeEpoch}) // the corpus writes epoch integers
	r.Release()
	require.NoError(t, err)
	require.EqualValues(t, 900, n)
	requireSameSet(t, want, readCSV(t, &buf, schema), key)
}

func TestJ01BatchSizes(t *testing.T) {
	f := openInterop(t, j01)
	r, err := NewTableReader(f, "weather", &Options{Allocator: checkedMem(t)})
	require.NoError(t, err)
	ref := drain(t, r)
	require.Equal(t, 1, ref.records)
	require.Len(t, ref.rows, 900)
	requireBatches(t, ref.rows, []int{1, 7, 299, 300, 301, 1000}, func(o *Options) (*Reader, error) {
		return NewTableReader(f, "weather", o)
	})
}

// TestReaderLifetime checks that records outlive Next when retained, and
// that releasing a reader mid-stream frees everything.
func TestReaderLifetime(t *testing.T) {
	f := openInterop(t, j01)
	mem := checkedMem(t)
	r, err := NewTableReader(f, "weather", &Options{Allocator: mem, BatchSize: 100})
	require.NoError(t, err)
	require.True(t, r.Next())
	first := r.RecordBatch()
	first.Retain()
	require.True(t, r.Next())
	require.Same(t, r.Record(), r.RecordBatch())
	r.Retain()
	r.Release()
	r.Release()
	require.EqualValues(t, 100, first.NumRows())
	require.Equal(t, "1700000000000", canonArrow(first.Column(0), 0))
	first.Release()
}

// TestInteropRows checks every cell of the upstream files that use the
// reference writer's default encodings (RLE, TS_2DIFF, GORILLA) and every
// compression (LZ4 in j02; SNAPPY, GZIP, ZSTD, LZMA2 and DICTIONARY in
// j10) against their expected rows, at several batch sizes.
func TestInteropRows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table bool
		key   []int // columns that identify a row
		rows  int
	}{
		{"j02_table_multipage_default_encodings", true, []int{1, 0}, 100000},
		{"j10_tree_nonaligned", false, []int{1, 0}, 26500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := openInterop(t, tc.name)
			mem := checkedMem(t)
			open := func(o *Options) (*Reader, error) {
				if tc.table {
					return NewTableReader(f, f.Tables()[0], o)
				}
				return NewTreeReader(f, "", o)
			}
			r, err := open(&Options{Allocator: mem})
			require.NoError(t, err)
			schema := r.Schema()
			got := drain(t, r)
			want := readGzipCSV(t, interopPath(t, tc.name+".expected.csv.gz"), schema)
			require.Len(t, got.rows, tc.rows)
			requireSameSet(t, want, got, tc.key)
			if tc.table {
				m := manifest(t, tc.name+".tsfile")
				for i, c := range m.Columns {
					if c.NullCount != nil {
						require.Equal(t, *c.NullCount, got.nulls[1+i], "null count of %s", c.Name)
					}
				}
			}
			for _, size := range []int{4096, 9999} {
				r, err := open(&Options{Allocator: mem, BatchSize: size})
				require.NoError(t, err)
				requireSameSet(t, want, drain(t, r), tc.key)
			}
		})
	}
}

func TestJ10TreeSchema(t *testing.T) {
	f := openInterop(t, "j10_tree_nonaligned")
	s, err := TreeArrowSchema(f, "", nil)
	require.NoError(t, err)
	want := readGzipCSV(t, interopPath(t, "j10_tree_nonaligned.expected.csv.gz"), s) // checks the header against the schema
	require.Equal(t, "device", want.header[1])
	for _, fld := range s.Fields()[2:] {
		cat, _ := fld.Metadata.GetValue(MetaCategory)
		require.Equal(t, "MEASUREMENT", cat)
	}
}

func BenchmarkTableReaderJ01(b *testing.B) {
	path := interopPath(b, j01+".tsfile")
	data, err := os.ReadFile(path)
	require.NoError(b, err)
	f := openBytes(b, data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewTableReader(f, "weather", nil)
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		for r.Next() {
			rows += int(r.RecordBatch().NumRows())
		}
		if r.Err() != nil || rows != 900 {
			b.Fatal(r.Err(), rows)
		}
		r.Release()
	}
}
