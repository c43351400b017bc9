package fromarrow

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestTsFileTree writes the tree model, aligned and not, and reads every
// row back with the tree reader, against a naive model of what it must
// return: the rows of each device in time order, its measurements as
// given, a row with no value at all absent from a non-aligned device.
func TestTsFileTree(t *testing.T) {
	mem := testkit.CheckedMem(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
		tsField("dev", arrow.BinaryTypes.String),
		tsField("Temp", arrow.PrimitiveTypes.Float64),
		tsField("n", arrow.PrimitiveTypes.Int32),
		tsField("s", arrow.BinaryTypes.String),
	}, nil)
	devs := []string{"root.sg.d1", "root.sg.d2", "root.ln.wf01.wt01"}
	r := rand.New(rand.NewPCG(3, 4))
	// Devices interleave in time order; MaxBufferedRows below makes
	// several chunk groups per device.
	var rows [][]any
	for ti := range 40 {
		for _, k := range r.Perm(len(devs)) {
			d := devs[k]
			row := []any{1_700_000_000_000 + ti*1000, d, nil, nil, nil}
			if ti%3 != 0 {
				row[2] = float64(ti) / 4
			}
			if ti%5 != 0 {
				row[3] = ti
			}
			if ti%7 == 1 {
				row[4] = fmt.Sprint("v", ti)
			}
			rows = append(rows, row)
		}
	}

	for _, tc := range []struct {
		name    string
		aligned bool
	}{{"non-aligned", false}, {"aligned", true}} {
		t.Run(tc.name, func(t *testing.T) {
			// The model: device -> time -> cells, and the rows stored.
			want := map[string][]string{}
			stored := 0
			for _, row := range rows {
				if !tc.aligned && row[2] == nil && row[3] == nil && row[4] == nil {
					continue
				}
				stored++
				cells := []string{fmt.Sprintf("t:%d", int64(row[0].(int))*1_000_000), row[1].(string)}
				for _, v := range row[2:] {
					switch v := v.(type) {
					case nil:
						cells = append(cells, testkit.NullCell)
					case float64:
						cells = append(cells, testkit.CanonFloat64(v))
					default:
						cells = append(cells, fmt.Sprint(v))
					}
				}
				want[row[1].(string)] = append(want[row[1].(string)], strings.Join(cells, "|"))
			}
			recs := tsBatches(t, mem, schema, rows, 17)
			file, n, err := writeTs(t, schema, recs, &Options{Tree: true, DeviceColumn: "dev", TimeColumn: "ts", Aligned: tc.aligned, MaxBufferedRows: 50})
			require.NoError(t, err)
			require.EqualValues(t, stored, n)
			f := testkit.OpenBytes(t, file)
			for _, tb := range f.Tables() {
				_, ok := f.SchemaOf(tb)
				require.False(t, ok, "a tree-model file has no table schema")
			}
			rdr, err := arrowconv.NewTreeReader(f, "", nil)
			require.NoError(t, err)
			header, got := tsRows(t, rdr)
			require.Equal(t, []string{"time", "device", "Temp", "n", "s"}, header)
			gotBy := map[string][]string{}
			for _, row := range got {
				gotBy[row[1]] = append(gotBy[row[1]], strings.Join(row, "|"))
			}
			for d := range want {
				sort.Strings(want[d]) // same-width times sort as numbers
			}
			require.Equal(t, want, gotBy)
			// Each device is as aligned as asked.
			for _, d := range devs {
				id := tsfile.ParseTreePath(d)
				series, err := f.Series(id)
				require.NoError(t, err, d)
				al := false
				for _, sr := range series {
					al = al || sr.DataType == tsfile.Vector
				}
				require.Equal(t, tc.aligned, al, d)
			}
		})
	}
}

// TestTsFileDecimal stores decimals as DOUBLE only when asked, rounded to
// the nearest double.
func TestTsFileDecimal(t *testing.T) {
	mem := testkit.CheckedMem(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		tsField("price", &arrow.Decimal128Type{Precision: 20, Scale: 3}),
	}, &[]arrow.Metadata{meta(arrowconv.MetaTable, "t")}[0])
	// 0.1 (not exact in binary), a value past 2^53 that must round, a
	// negative, a null, and one whose nearest double arrow-go's
	// Num.ToFloat64 misses by one ulp (it multiplies by an inexact 1e-3).
	vals := []any{"0.100", "12345678901234567.891", "-2.500", nil, "73220195173308.330"}
	build := func() []arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		for i, v := range vals {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			if v == nil {
				b.Field(1).AppendNull()
				continue
			}
			n, err := decimal128.FromString(v.(string), 20, 3)
			require.NoError(t, err)
			b.Field(1).(*array.Decimal128Builder).Append(n)
		}
		return []arrow.RecordBatch{b.NewRecordBatch()}
	}
	_, _, err := writeTs(t, schema, build(), nil)
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "DecimalAsDouble", oe.Option)
	require.ErrorContains(t, err, `column "price" is decimal(20, 3)`)

	file, _, err := writeTs(t, schema, build(), &Options{DecimalAsDouble: true})
	require.NoError(t, err)
	rdr, err := arrowconv.NewTableReader(testkit.OpenBytes(t, file), "t", nil)
	require.NoError(t, err)
	_, got := tsRows(t, rdr)
	// The nearest doubles, as Go's parser (correctly rounded) gives them.
	require.Equal(t, [][]string{
		{"t:0", testkit.CanonFloat64(0.1)},
		{"t:1000000", testkit.CanonFloat64(12345678901234567.891)},
		{"t:2000000", testkit.CanonFloat64(-2.5)},
		{"t:3000000", testkit.NullCell},
		{"t:4000000", testkit.CanonFloat64(73220195173308.330)},
	}, got)
}
