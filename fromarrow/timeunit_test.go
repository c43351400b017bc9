package fromarrow

import (
	"math"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestTsFileTimeUnitDefault: whatever the input's timestamp unit, the file
// stores milliseconds unless asked (IoTDB's default precision), the instants
// read back unchanged, and digits below the stored unit are refused with an
// OptionError for TimeUnit, in the time column as in a TIMESTAMP field.
func TestTsFileTimeUnitDefault(t *testing.T) {
	mem := testkit.CheckedMem(t)
	const ms = int64(1_700_000_000_123) // 2023-11-14T22:13:20.123Z
	scale := map[arrow.TimeUnit]int64{arrow.Second: 0, arrow.Millisecond: 1, arrow.Microsecond: 1000, arrow.Nanosecond: 1_000_000}
	for _, tc := range []struct {
		name   string
		in     arrow.TimeUnit
		opt    arrowconv.TimeUnit
		meta   string // MetaTimeUnit, if any
		sub    int64  // added to the time, in the input unit
		field  int64  // added to the TIMESTAMP field, in the input unit
		stored arrow.TimeUnit
		err    string
	}{
		{name: "s to ms", in: arrow.Second, stored: arrow.Millisecond},
		{name: "ms", in: arrow.Millisecond, stored: arrow.Millisecond},
		{name: "us to ms", in: arrow.Microsecond, stored: arrow.Millisecond},
		{name: "ns to ms", in: arrow.Nanosecond, stored: arrow.Millisecond},
		{name: "us digits refused", in: arrow.Microsecond, sub: 7, err: `row 1 time: 1700000001123007us (2023-11-14T22:13:21.123007Z) has digits below ms, the unit stored by default`},
		{name: "ns digits in a field refused", in: arrow.Nanosecond, field: 5, err: `row 0 column "seen": 1700000000123000005ns (2023-11-14T22:13:20.123000005Z) has digits below ms`},
		{name: "us kept", in: arrow.Microsecond, opt: arrowconv.TimeUnitOf(arrow.Microsecond), sub: 7, field: 3, stored: arrow.Microsecond},
		{name: "ns kept", in: arrow.Nanosecond, opt: arrowconv.TimeUnitOf(arrow.Nanosecond), sub: 7, field: 3, stored: arrow.Nanosecond},
		{name: "ns to us", in: arrow.Nanosecond, opt: arrowconv.TimeUnitOf(arrow.Microsecond), sub: 7000, stored: arrow.Microsecond},
		{name: "recorded unit kept", in: arrow.Microsecond, meta: "us", sub: 7, stored: arrow.Microsecond},
		{name: "s up to us", in: arrow.Second, opt: arrowconv.TimeUnitOf(arrow.Microsecond), stored: arrow.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := ms * scale[tc.in]
			if tc.in == arrow.Second {
				base = ms / 1000
			}
			step := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1000, arrow.Microsecond: 1_000_000, arrow.Nanosecond: 1_000_000_000}[tc.in]
			var md *arrow.Metadata
			if tc.meta != "" {
				m := meta(arrowconv.MetaTimeUnit, tc.meta)
				md = &m
			}
			schema := arrow.NewSchema([]arrow.Field{
				{Name: "time", Type: &arrow.TimestampType{Unit: tc.in}},
				tsField("seen", &arrow.TimestampType{Unit: tc.in}),
			}, md)
			in := []int64{base, base + step + tc.sub}
			rows := [][]any{{int(in[0]), int(in[0] + tc.field)}, {int(in[1]), nil}}
			file, _, err := writeTs(t, schema, tsBatches(t, mem, schema, rows, 1), &Options{Table: "u", Tags: []string{}, TimeUnit: tc.opt})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				var oe *OptionError
				require.ErrorAs(t, err, &oe)
				require.Equal(t, "TimeUnit", oe.Option)
				require.Contains(t, oe.Remedy, tc.in.String())
				return
			}
			require.NoError(t, err)

			// The stored numbers are in the stored unit, computed here
			// from the nanosecond instant.
			nanos := func(v int64) int64 {
				switch tc.in {
				case arrow.Second:
					return v * 1e9
				case arrow.Millisecond:
					return v * 1e6
				case arrow.Microsecond:
					return v * 1e3
				}
				return v
			}
			per := map[arrow.TimeUnit]int64{arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}[tc.stored]
			f := testkit.OpenBytes(t, file)
			ss, err := f.Series(tsfile.NewDeviceID("u"))
			require.NoError(t, err)
			cols, err := f.ReadAligned(ss)
			require.NoError(t, err)
			require.Equal(t, []int64{nanos(in[0]) / per, nanos(in[1]) / per}, cols.Times)
			require.Equal(t, nanos(in[0]+tc.field)/per, cols.Columns["seen"].Int64s[0])

			// Read in the stored unit, the instants are the input's.
			rd, err := arrowconv.NewTableReader(f, "u", &arrowconv.Options{Allocator: mem, TimeUnit: arrowconv.TimeUnitOf(tc.stored)})
			require.NoError(t, err)
			_, got := tsRows(t, rd)
			ns := func(v int64) string { return "t:" + strconv.FormatInt(nanos(v), 10) }
			require.Equal(t, [][]string{{ns(in[0]), ns(in[0] + tc.field)}, {ns(in[1]), testkit.NullCell}}, got)
		})
	}
}

// TestTsFileNamesLowerCase: table and column names are stored in lower
// case, which upstream readers need (tsfile.Writer.RegisterTable refuses
// others); options still name the input's columns; two columns that lower
// to one name are refused.
func TestTsFileNamesLowerCase(t *testing.T) {
	mem := testkit.CheckedMem(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "Time", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
		tsField("Region", arrow.BinaryTypes.String),
		tsField("Temp", arrow.PrimitiveTypes.Float64),
	}, nil)
	rows := [][]any{{1, "North", 1.5}, {2, "North", 2.5}}
	file, _, err := writeTs(t, schema, tsBatches(t, mem, schema, rows, 2), &Options{Table: "Weather", TimeColumn: "Time", Tags: []string{"Region"},
		Encodings: map[string]tsfile.Encoding{"Temp": encoding.Gorilla}})
	require.NoError(t, err)
	f := testkit.OpenBytes(t, file)
	ts, ok := f.SchemaOf("weather")
	require.True(t, ok, "tables %v", f.Tables())
	var names []string
	for _, c := range ts.Columns {
		names = append(names, c.Name+" "+c.Category.String()+" "+c.Encoding.String())
	}
	require.Equal(t, []string{"region TAG PLAIN", "temp FIELD GORILLA"}, names)
	rd, err := arrowconv.NewTableReader(f, "weather", &arrowconv.Options{Allocator: mem})
	require.NoError(t, err)
	header, got := tsRows(t, rd)
	require.Equal(t, []string{"time", "region", "temp"}, header)
	require.Len(t, got, 2)
	require.Equal(t, "North", got[0][1], "TAG values keep their case")

	schema = arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		tsField("Temp", arrow.PrimitiveTypes.Float64),
		tsField("temp", arrow.PrimitiveTypes.Float64),
	}, nil)
	_, _, err = writeTs(t, schema, tsBatches(t, mem, schema, [][]any{{1, 1.0, 2.0}}, 1), &Options{Table: "w", Tags: []string{}})
	require.ErrorContains(t, err, `columns "Temp" and "temp" would both be stored as "temp"`)
}

// TestTsFileGorillaV1NaN: the writer's refusal of NaN under GORILLA_V1
// (which upstream readers take for the end of the page) reaches a
// fromarrow caller as an error naming the column and the remedy.
func TestTsFileGorillaV1NaN(t *testing.T) {
	mem := testkit.CheckedMem(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		tsField("v", arrow.PrimitiveTypes.Float64),
	}, nil)
	rows := [][]any{{1, 1.5}, {2, math.NaN()}, {3, 2.5}}
	opts := &Options{Table: "w", Tags: []string{}, Encodings: map[string]tsfile.Encoding{"v": encoding.GorillaV1}}
	_, _, err := writeTs(t, schema, tsBatches(t, mem, schema, rows, 3), opts)
	require.ErrorIs(t, err, tsfile.ErrUnsupportedOption)
	require.ErrorContains(t, err, `column "v": NaN at time 2 cannot be written in GORILLA_V1`)
	require.ErrorContains(t, err, "choose GORILLA")

	opts.Encodings["v"] = encoding.Gorilla
	_, _, err = writeTs(t, schema, tsBatches(t, mem, schema, rows, 3), opts)
	require.NoError(t, err)
}
