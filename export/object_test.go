package export

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// objectRecords reads a table with an OBJECT column o: references 1/A/1.bin
// (size 3), a null, and "2/a,\"b\"/2.bin" (size 40, a path CSV must
// quote), each batch sliced from one past its first row so that the
// writers meet struct columns with an offset.
func objectRecords(t *testing.T) (array.RecordReader, func()) {
	t.Helper()
	mem := testkit.CheckedMem(t)
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
	}}))
	vals := tsfile.Values{Type: tsfile.Object, Null: []bool{false, false, true, false},
		Binaries: [][]byte{tsfile.AppendObjectCell(nil, 9, "9/Z/9.bin"), tsfile.AppendObjectCell(nil, 3, "1/A/1.bin"), nil, tsfile.AppendObjectCell(nil, 40, `2/a,"b"/2.bin`)}}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "d"), []int64{0, 1, 2, 3}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "o", DataType: tsfile.Object}, Values: vals},
	}))
	require.NoError(t, w.Close())
	f, err := tsfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	require.NoError(t, err)
	r, err := arrowconv.NewTableReader(f, "t", &arrowconv.Options{Allocator: mem, PlainTags: true})
	require.NoError(t, err)
	defer r.Release()
	require.True(t, r.Next())
	rec := r.RecordBatch()
	require.EqualValues(t, 4, rec.NumRows())
	s := rec.NewSlice(1, 4)
	rr, err := array.NewRecordReader(s.Schema(), []arrow.RecordBatch{s})
	require.NoError(t, err)
	s.Release()
	return rr, rr.Release
}

// TestExportObjects: an OBJECT reference column is written by CSV as the
// text of its JSON object (quoted as CSV quotes text), by JSONL as that
// object, and by Parquet and IPC as the struct itself, read back equal.
func TestExportObjects(t *testing.T) {
	rr, done := objectRecords(t)
	var csv bytes.Buffer
	_, err := WriteCSVWith(&csv, rr, &TextOptions{Time: TimeEpoch})
	done()
	require.NoError(t, err)
	require.Equal(t, "time,dev,o\n"+
		`1,d,"{""size"":3,""path"":""1/A/1.bin""}"`+"\n"+
		"2,d,\n"+
		`3,d,"{""size"":40,""path"":""2/a,\""b\""/2.bin""}"`+"\n", csv.String())

	rr, done = objectRecords(t)
	var jl bytes.Buffer
	_, err = WriteJSONLWith(&jl, rr, &TextOptions{Time: TimeEpoch})
	done()
	require.NoError(t, err)
	require.Equal(t, `{"time":1,"dev":"d","o":{"size":3,"path":"1/A/1.bin"}}`+"\n"+
		`{"time":2,"dev":"d","o":null}`+"\n"+
		`{"time":3,"dev":"d","o":{"size":40,"path":"2/a,\"b\"/2.bin"}}`+"\n", jl.String())

	// The struct's rows, as the readers give them back.
	refs := func(rr array.RecordReader) []string {
		var out []string
		for rr.Next() {
			rec := rr.RecordBatch()
			c := rec.Column(int(rec.NumCols()) - 1).(*array.Struct)
			require.True(t, arrow.TypeEqual(arrowconv.ObjectType, c.DataType()), "%s", c.DataType())
			for i := 0; i < c.Len(); i++ {
				if c.IsNull(i) {
					out = append(out, "null")
					continue
				}
				out = append(out, c.Field(1).(*array.String).Value(i))
			}
		}
		require.NoError(t, rr.Err())
		return out
	}
	want := []string{"1/A/1.bin", "null", `2/a,"b"/2.bin`}

	mem := testkit.CheckedMem(t)
	rr, done = objectRecords(t)
	var pq bytes.Buffer
	_, err = WriteParquet(&pq, rr, &ParquetOptions{Allocator: mem})
	done()
	require.NoError(t, err)
	pf, err := file.NewParquetReader(bytes.NewReader(pq.Bytes()), file.WithReadProps(parquet.NewReaderProperties(mem)))
	require.NoError(t, err)
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 100}, mem)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 100)
	require.Equal(t, want, refs(tr))
	tr.Release()

	rr, done = objectRecords(t)
	var ar bytes.Buffer
	_, err = WriteIPC(&ar, rr, &IPCOptions{Allocator: mem})
	done()
	require.NoError(t, err)
	ifr, err := ipc.NewFileReader(bytes.NewReader(ar.Bytes()), ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer ifr.Close()
	require.Equal(t, want, refs(&ipcFileRecords{fr: ifr}))
}
