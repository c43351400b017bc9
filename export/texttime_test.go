package export

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

// TestAppendISOTime holds the ISO form to hand-written values per unit,
// before 1970 and beyond four-digit years included.
func TestAppendISOTime(t *testing.T) {
	for _, c := range []struct {
		v    int64
		unit arrow.TimeUnit
		want string
	}{
		{1_700_000_000, arrow.Second, "2023-11-14T22:13:20Z"},
		{1_700_000_000_123, arrow.Millisecond, "2023-11-14T22:13:20.123Z"},
		{1_700_000_000_000, arrow.Millisecond, "2023-11-14T22:13:20.000Z"},
		{1_700_000_000_123_456, arrow.Microsecond, "2023-11-14T22:13:20.123456Z"},
		{1_700_000_000_123_456_789, arrow.Nanosecond, "2023-11-14T22:13:20.123456789Z"},
		{0, arrow.Nanosecond, "1970-01-01T00:00:00.000000000Z"},
		{-1, arrow.Millisecond, "1969-12-31T23:59:59.999Z"},
		{-1, arrow.Second, "1969-12-31T23:59:59Z"},
		{-86_400_000, arrow.Millisecond, "1969-12-31T00:00:00.000Z"},
		{-86_400_001, arrow.Millisecond, "1969-12-30T23:59:59.999Z"},
		{951_782_400_000, arrow.Millisecond, "2000-02-29T00:00:00.000Z"}, // leap day
		{-62_135_596_800, arrow.Second, "0001-01-01T00:00:00Z"},
		{253_402_300_799_999, arrow.Millisecond, "9999-12-31T23:59:59.999Z"},
		{253_402_300_800_000, arrow.Millisecond, "+10000-01-01T00:00:00.000Z"},
		{-62_167_219_201, arrow.Second, "-0001-12-31T23:59:59Z"},
		{1<<63 - 1, arrow.Nanosecond, "2262-04-11T23:47:16.854775807Z"},
		{-1 << 63, arrow.Nanosecond, "1677-09-21T00:12:43.145224192Z"},
		{-1 << 63, arrow.Millisecond, "-292275055-05-16T16:47:04.192Z"},
	} {
		require.Equal(t, c.want, string(AppendISOTime(nil, c.v, c.unit)), "%d %s", c.v, c.unit)
	}
}

// TestISOTimeAgainstTime compares the ISO form with the time package's
// for random values, in runs that share a day (the cached date) and
// jumps that do not.
func TestISOTimeAgainstTime(t *testing.T) {
	layouts := map[arrow.TimeUnit]string{
		arrow.Second:      "2006-01-02T15:04:05Z",
		arrow.Millisecond: "2006-01-02T15:04:05.000Z",
		arrow.Microsecond: "2006-01-02T15:04:05.000000Z",
		arrow.Nanosecond:  "2006-01-02T15:04:05.000000000Z",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for unit, layout := range layouts {
		per, _ := unitScale(unit)
		iso := newISOTime(&arrow.TimestampType{Unit: unit, TimeZone: "UTC"})
		lo, hi := int64(-62_135_596_800), int64(253_402_300_799) // 0001..9999, in seconds
		if unit == arrow.Nanosecond {
			lo, hi = -9_223_372_036, 9_223_372_035
		}
		v := lo * per
		for i := 0; i < 20000; i++ {
			if i%7 == 0 {
				v = (lo+rng.Int64N(hi-lo))*per + rng.Int64N(per)
			} else {
				v += rng.Int64N(3 * per) // neighbours, mostly the same day
			}
			want := time.Unix(v/per, v%per*(1e9/per)).UTC()
			if v%per < 0 {
				want = time.Unix(v/per-1, (v%per+per)*(1e9/per)).UTC()
			}
			require.Equal(t, want.Format(layout), string(iso.append(nil, v)), "%d %s", v, unit)
		}
	}
}

// textTimeReader is one batch of a UTC ms time column, a us TIMESTAMP
// column with a null and a wall-clock (zoneless) s column.
func textTimeReader(t *testing.T, mem memory.Allocator) array.RecordReader {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "seen", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "wall", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_700_000_000_123, -1}, nil)
	rb.Field(1).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_700_000_000_123_456, 0}, []bool{true, false})
	rb.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_700_000_000, 0}, nil)
	rec := rb.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	require.NoError(t, err)
	return rr
}

func TestTextTimeFormats(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(io.Writer, array.RecordReader) (int64, error)
		want  string
	}{
		{"csv default", WriteCSV, "time,seen,wall\n" +
			"2023-11-14T22:13:20.123Z,2023-11-14T22:13:20.123456Z,2023-11-14T22:13:20\n" +
			"1969-12-31T23:59:59.999Z,,1970-01-01T00:00:00\n"},
		{"csv epoch", func(w io.Writer, r array.RecordReader) (int64, error) {
			return WriteCSVWith(w, r, &TextOptions{Time: TimeEpoch})
		}, "time,seen,wall\n1700000000123,1700000000123456,1700000000\n-1,,0\n"},
		{"jsonl default", WriteJSONL,
			`{"time":"2023-11-14T22:13:20.123Z","seen":"2023-11-14T22:13:20.123456Z","wall":"2023-11-14T22:13:20"}` + "\n" +
				`{"time":"1969-12-31T23:59:59.999Z","seen":null,"wall":"1970-01-01T00:00:00"}` + "\n"},
		{"jsonl epoch", func(w io.Writer, r array.RecordReader) (int64, error) {
			return WriteJSONLWith(w, r, &TextOptions{Time: TimeEpoch})
		}, `{"time":1700000000123,"seen":1700000000123456,"wall":1700000000}` + "\n" +
			`{"time":-1,"seen":null,"wall":0}` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := testkit.CheckedMem(t)
			rr := textTimeReader(t, mem)
			defer rr.Release()
			var buf bytes.Buffer
			n, err := c.write(&buf, rr)
			require.NoError(t, err)
			require.EqualValues(t, 2, n)
			require.Equal(t, c.want, buf.String())
			if strings.HasPrefix(c.name, "jsonl") {
				for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
					require.True(t, json.Valid([]byte(l)), l)
				}
			}
		})
	}
}

func TestParseTimeFormat(t *testing.T) {
	for name, want := range map[string]TimeFormat{"iso": TimeISO, "rfc3339": TimeISO, "epoch": TimeEpoch, "raw": TimeEpoch} {
		got, err := ParseTimeFormat(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
	for _, bad := range []string{"", "ISO", "unix", "iso8601"} {
		_, err := ParseTimeFormat(bad)
		require.ErrorContains(t, err, "want iso or epoch", bad)
	}
	require.Equal(t, []string{"iso", "epoch", "rfc3339", "raw"}, TimeFormatNames())
	require.Equal(t, "iso", TimeISO.String())
	require.Equal(t, "epoch", TimeEpoch.String())
}

// benchTextReader is rows of a ms time column one second apart and a
// double column, in batches of 64Ki rows, as arrowconv hands them out.
func benchTextReader(b *testing.B, rows int) array.RecordReader {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	mem := memory.NewGoAllocator()
	var recs []arrow.RecordBatch
	for off := 0; off < rows; off += 1 << 16 {
		n := min(1<<16, rows-off)
		rb := array.NewRecordBuilder(mem, schema)
		for i := off; i < off+n; i++ {
			rb.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + int64(i)*1000 + int64(i%1000)))
			rb.Field(1).(*array.Float64Builder).Append(float64(i) * 0.25)
		}
		recs = append(recs, rb.NewRecordBatch())
		rb.Release()
	}
	rr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return rr
}

func BenchmarkWriteText(b *testing.B) {
	const rows = 1 << 18
	for _, c := range []struct {
		name  string
		write func(io.Writer, array.RecordReader) (int64, error)
	}{
		{"csv/iso", WriteCSV},
		{"csv/epoch", func(w io.Writer, r array.RecordReader) (int64, error) {
			return WriteCSVWith(w, r, &TextOptions{Time: TimeEpoch})
		}},
		{"jsonl/iso", WriteJSONL},
		{"jsonl/epoch", func(w io.Writer, r array.RecordReader) (int64, error) {
			return WriteJSONLWith(w, r, &TextOptions{Time: TimeEpoch})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				iters++
				b.StopTimer()
				rr := benchTextReader(b, rows)
				b.StartTimer()
				if _, err := c.write(io.Discard, rr); err != nil {
					b.Fatal(err)
				}
				rr.Release()
			}
			b.ReportMetric(float64(rows)*float64(iters)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
