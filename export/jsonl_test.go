package export

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestWriteJSONL(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
		{Name: "tag", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "x", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1, 2, 3}, nil)
	tb := rb.Field(1).(*array.BinaryDictionaryBuilder)
	require.NoError(t, tb.AppendString("a\"b"))
	tb.AppendNull()
	require.NoError(t, tb.AppendString("a\"b"))
	rb.Field(2).(*array.Float64Builder).AppendValues([]float64{1.5, math.NaN(), math.Inf(-1)}, nil)
	rb.Field(3).(*array.Float32Builder).AppendValues([]float32{0.1, 0, 0}, []bool{true, false, true})
	rb.Field(4).(*array.Int32Builder).AppendValues([]int32{-7, 0, math.MaxInt32}, nil)
	rb.Field(5).(*array.BooleanBuilder).AppendValues([]bool{true, false, false}, []bool{true, true, false})
	rb.Field(6).(*array.StringBuilder).AppendValues([]string{"line\nnext\t\x01", "", "bad\xffutf8 ü"}, []bool{true, true, true})
	rb.Field(7).(*array.BinaryBuilder).AppendValues([][]byte{{0xde, 0xad}, nil, {}}, []bool{true, false, true})
	rb.Field(8).(*array.Date32Builder).AppendValues([]arrow.Date32{0, 19000, 0}, []bool{true, true, false})
	rec := rb.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	require.NoError(t, err)
	defer rr.Release()

	var out bytes.Buffer
	n, err := WriteJSONL(&out, rr)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 3)
	want := []map[string]any{
		{"time": "1970-01-01T00:00:00.001", "tag": "a\"b", "d": 1.5, "f": 0.1, "i": -7.0, "b": true, "s": "line\nnext\t\x01", "x": "0xdead", "day": "1970-01-01"},
		{"time": "1970-01-01T00:00:00.002", "tag": nil, "d": "NaN", "f": nil, "i": 0.0, "b": false, "s": "", "x": nil, "day": "2022-01-08"},
		{"time": "1970-01-01T00:00:00.003", "tag": "a\"b", "d": "-Infinity", "f": 0.0, "i": float64(math.MaxInt32), "b": nil, "s": "bad\ufffdutf8 ü", "x": "0x", "day": nil},
	}
	for i, l := range lines {
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &got), l)
		require.Equal(t, want[i], got, l)
		// Keys come in schema order.
		dec := json.NewDecoder(strings.NewReader(l))
		_, _ = dec.Token()
		for _, f := range schema.Fields() {
			k, err := dec.Token()
			require.NoError(t, err)
			require.Equal(t, f.Name, k)
			var skip any
			require.NoError(t, dec.Decode(&skip))
		}
	}
}
