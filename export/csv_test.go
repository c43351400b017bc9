package export

import (
	"bytes"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
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

// TestWriteDecimal: a DECIMAL column (what DuckDB gives for decimals and
// for sums of integers, HUGEINT) is written exactly, with the digits of
// its scale, as a CSV cell and as a JSON number.
func TestWriteDecimal(t *testing.T) {
	mem := testkit.CheckedMem(t)
	for _, c := range []struct {
		scale int32
		want  string
	}{{2, "1.50,-0.05,0.00,,12345678901234567890123456789.01"}, {0, "150,-5,0,,1234567890123456789012345678901"}} {
		dt := &arrow.Decimal128Type{Precision: 38, Scale: c.scale}
		b := array.NewDecimal128Builder(mem, dt)
		for _, v := range []int64{150, -5, 0} {
			b.Append(decimal128.FromI64(v))
		}
		b.AppendNull()
		big, ok := new(big.Int).SetString("1234567890123456789012345678901", 10)
		require.True(t, ok)
		b.Append(decimal128.FromBigInt(big))
		arr := b.NewArray()
		b.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{arr}, 5)
		arr.Release()
		for _, jsonl := range []bool{false, true} {
			rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
			require.NoError(t, err)
			var buf bytes.Buffer
			if jsonl {
				_, err = WriteJSONL(&buf, rr)
			} else {
				_, err = WriteCSV(&buf, rr)
			}
			rr.Release()
			require.NoError(t, err)
			var want strings.Builder
			if !jsonl {
				want.WriteString("d\n")
			}
			for _, v := range strings.Split(c.want, ",") {
				if jsonl {
					if v == "" {
						v = "null"
					}
					v = `{"d":` + v + "}"
				}
				want.WriteString(v + "\n")
			}
			require.Equal(t, want.String(), buf.String())
		}
		rec.Release()
	}
}
