package export

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

func TestCSVCells(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"}, {"", `""`}, {" lead", " lead"}, {"a,b", `"a,b"`},
		{`say "hi"`, `"say ""hi"""`}, {"cr\r", "\"cr\r\""}, {"lf\n", "\"lf\n\""}, {"温度", "温度"},
	} {
		require.Equal(t, c.want, string(appendCSVString(nil, c.in)), c.in)
	}
	for _, c := range []struct {
		v    float64
		bits int
		want string
	}{
		{math.NaN(), 64, "NaN"}, {math.Inf(1), 32, "Infinity"}, {math.Inf(-1), 64, "-Infinity"},
		{math.Copysign(0, -1), 64, "-0"}, {float64(float32(0.1)), 32, "0.1"}, {0.1, 64, "0.1"},
		{float64(math.SmallestNonzeroFloat32), 32, "1e-45"},
	} {
		require.Equal(t, c.want, string(appendJavaFloat(nil, c.v, c.bits)))
	}
	for _, c := range []struct {
		ymd  int32
		want string
	}{{19700101, "1970-01-01"}, {101, "0000-01-01"}, {9991231, "0999-12-31"}, {100000101, "+10000-01-01"}} {
		d := time.Date(int(c.ymd/10000), time.Month(c.ymd/100%100), int(c.ymd%100), 0, 0, 0, 0, time.UTC).Unix() / 86400
		require.Equal(t, c.want, string(appendDate(nil, d)))
	}
	require.Equal(t, "-0001-12-31", string(appendDate(nil, -719529)))
}

// TestWriteCSVDictionary covers Arrow inputs the readers do not produce
// yet, such as dictionary-encoded tags.
func TestWriteCSVDictionary(t *testing.T) {
	mem := testkit.CheckedMem(t)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	require.NoError(t, b.AppendString("x,y"))
	b.AppendNull()
	require.NoError(t, b.AppendString("z"))
	arr := b.NewArray()
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "tag", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{arr}, 3)
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	require.NoError(t, err)
	defer rr.Release()
	var buf bytes.Buffer
	n, err := WriteCSV(&buf, rr)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	require.Equal(t, "tag\n\"x,y\"\n\nz\n", buf.String())
}
