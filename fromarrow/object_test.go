package fromarrow

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// objectFile writes a table with an OBJECT column whose cells use both
// path forms, and a null.
func objectFile(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
	}}))
	vals := tsfile.Values{Type: tsfile.Object, Null: []bool{false, false, true},
		Binaries: [][]byte{
			tsfile.AppendObjectCell(nil, 3, "1/MQ/N4/1.bin"),
			append([]byte{0, 0, 0, 0, 0, 0, 0, 5}, "root.db/d1/o/2.dat"...), // the plain form
			nil,
		}}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "d1"), []int64{1, 2, 3}, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "o", DataType: tsfile.Object}, Values: vals},
	}))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// readAll reads table t of b with o into its records.
func readAll(t *testing.T, b []byte, o *arrowconv.Options) (*arrow.Schema, []arrow.RecordBatch) {
	t.Helper()
	rd, err := arrowconv.NewTableReader(testkit.OpenBytes(t, b), "t", o)
	require.NoError(t, err)
	defer rd.Release()
	var recs []arrow.RecordBatch
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	require.NoError(t, rd.Err())
	return rd.Schema(), recs
}

// TestObjectReferencesWriteBack: OBJECT references (arrowconv.ObjectType)
// go back into a TsFile as OBJECT cells that read back as the same
// references; the objects' bytes (ObjectBytes) are refused, naming the
// flag, rather than stored as cells no reader could parse.
func TestObjectReferencesWriteBack(t *testing.T) {
	mem := testkit.CheckedMem(t)
	src := objectFile(t)
	sc, recs := readAll(t, src, &arrowconv.Options{Allocator: mem})
	_, want := tsRows(t, mustReader(t, sc, recs))
	b, n, err := writeTs(t, sc, recs, &Options{Table: "t"})
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	ts, ok := testkit.OpenBytes(t, b).SchemaOf("t")
	require.True(t, ok)
	require.Equal(t, tsfile.Object, ts.Fields()[0].DataType)
	sc2, recs2 := readAll(t, b, &arrowconv.Options{Allocator: mem})
	require.True(t, arrow.TypeEqual(arrowconv.ObjectType, sc2.Field(sc2.FieldIndices("o")[0]).Type))
	_, got := tsRows(t, mustReader(t, sc2, recs2))
	for _, r := range recs2 {
		r.Release()
	}
	require.Equal(t, want, got)
	require.Equal(t, "object:3:1/MQ/N4/1.bin", got[0][2])

	root := fstest.MapFS{
		"1/MQ/N4/1.bin":      {Data: []byte("abc")},
		"root.db/d1/o/2.dat": {Data: []byte("hello")},
	}
	sc3, recs3 := readAll(t, src, &arrowconv.Options{Allocator: mem, ObjectBytes: true, ObjectRoot: root})
	_, _, err = writeTs(t, sc3, recs3, &Options{Table: "t"})
	require.ErrorContains(t, err, "--object-bytes")
}

// mustReader is a record reader over recs; the caller keeps its
// references to recs.
func mustReader(t *testing.T, sc *arrow.Schema, recs []arrow.RecordBatch) array.RecordReader {
	t.Helper()
	rr, err := array.NewRecordReader(sc, recs)
	require.NoError(t, err)
	return rr
}
