package fromarrow

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/tsfile"
)

// sensorBatches are rows as a Parquet export of sensor data holds them:
// devices interleaved in time order, one reading a second each, with
// temperatures and humidities to a hundredth and a tenth that wander, a
// slowly varying pressure, an energy counter, a mostly-true status and a
// mode of a few values.
func sensorBatches(devices, perDevice int) (*arrow.Schema, []arrow.RecordBatch) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.FixedWidthTypes.Timestamp_ms},
		tsField("device", arrow.BinaryTypes.String, arrowconv.MetaCategory, "TAG"),
		tsField("temperature", arrow.PrimitiveTypes.Float64),
		tsField("humidity", arrow.PrimitiveTypes.Float32),
		tsField("pressure", arrow.PrimitiveTypes.Int32),
		tsField("energy", arrow.PrimitiveTypes.Int64),
		tsField("ok", arrow.FixedWidthTypes.Boolean),
		tsField("mode", arrow.BinaryTypes.String),
	}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	type state struct {
		temp, hum float64
		press     int32
		energy    int64
	}
	st := make([]state, devices)
	names := make([]string, devices)
	for d := range st {
		st[d] = state{temp: 15 + rng.Float64()*10, hum: 40 + rng.Float64()*20, press: 1000 + rng.Int32N(30)}
		names[d] = "sensor-" + string(rune('a'+d%26)) + string(rune('a'+d/26))
	}
	modes := []string{"auto", "auto", "auto", "eco", "boost"}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var out []arrow.RecordBatch
	for k := range perDevice {
		for d := range st {
			s := &st[d]
			s.temp += rng.NormFloat64() * 0.05
			s.hum += rng.NormFloat64() * 0.1
			if rng.IntN(60) == 0 {
				s.press += rng.Int32N(3) - 1
			}
			s.energy += int64(rng.IntN(5))
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + int64(k)*1000))
			b.Field(1).(*array.StringBuilder).Append(names[d])
			b.Field(2).(*array.Float64Builder).Append(math.Round(s.temp*100) / 100)
			b.Field(3).(*array.Float32Builder).Append(float32(math.Round(s.hum*10) / 10))
			b.Field(4).(*array.Int32Builder).Append(s.press)
			b.Field(5).(*array.Int64Builder).Append(s.energy)
			b.Field(6).(*array.BooleanBuilder).Append(rng.IntN(500) != 0)
			b.Field(7).(*array.StringBuilder).Append(modes[(k/600+d)%len(modes)])
			if b.Field(0).Len() == 64<<10 {
				out = append(out, b.NewRecordBatch())
			}
		}
	}
	if b.Field(0).Len() > 0 {
		out = append(out, b.NewRecordBatch())
	}
	return schema, out
}

// BenchmarkWriteSensors writes sensorBatches as a TsFile with IoTDB's
// defaults and all PLAIN and UNCOMPRESSED (what the reverse path wrote
// before), and as Parquet with export's defaults, reporting the rows per
// second and the size of the file.
func BenchmarkWriteSensors(b *testing.B) {
	schema, recs := sensorBatches(20, 10_000)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	rows := 0
	for _, r := range recs {
		rows += int(r.NumRows())
	}
	plain := map[string]tsfile.Encoding{}
	for _, f := range schema.Fields()[2:] {
		plain[f.Name] = encoding.Plain
	}
	for _, bc := range []struct {
		name  string
		write func(w io.Writer, rr array.RecordReader) error
	}{
		{"tsfile-iotdb", func(w io.Writer, rr array.RecordReader) error {
			_, err := WriteTsFile(w, rr, &Options{Table: "s"})
			return err
		}},
		{"tsfile-plain", func(w io.Writer, rr array.RecordReader) error {
			_, err := WriteTsFile(w, rr, &Options{Table: "s", Encodings: plain, Compression: CompressionOf(encoding.Uncompressed)})
			return err
		}},
		{"parquet-zstd", func(w io.Writer, rr array.RecordReader) error {
			_, err := export.WriteParquet(w, rr, nil)
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				rr, err := array.NewRecordReader(schema, recs)
				if err != nil {
					b.Fatal(err)
				}
				if err := bc.write(&buf, rr); err != nil {
					b.Fatal(err)
				}
				rr.Release()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(buf.Len()), "file-bytes")
		})
	}
}
