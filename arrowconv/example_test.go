package arrowconv_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// ExampleNewTableReader reads a query of a table as Arrow record batches:
// two columns of the devices of one region over five minutes.
func ExampleNewTableReader() {
	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil) // or tsfile.Open(readerAt, size, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	start, err := arrowconv.ParseTime("2023-11-14T22:15:00Z", arrow.Millisecond)
	if err != nil {
		log.Fatal(err)
	}
	end, err := arrowconv.ParseTime("2023-11-14T22:20:00Z", arrow.Millisecond)
	if err != nil {
		log.Fatal(err)
	}
	rdr, err := arrowconv.NewTableReader(f, "weather", &arrowconv.Options{
		Columns: []string{"station", "temperature"},           // projection: only these chunks are read
		Time:    &arrowconv.TimeRange{Start: start, End: end}, // statistics skip chunks and pages
		Where:   map[string]string{"region": "north"},         // TAG filter (or Devices: []tsfile.DeviceID{...})
		Limit:   1000,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer rdr.Release()
	var rows, valid int
	var sum float64
	for rdr.Next() {
		rec := rdr.RecordBatch() // time, TAG columns, FIELD columns; valid until the next Next
		rows += int(rec.NumRows())
		temp := rec.Column(2).(*array.Float64)
		for i := 0; i < temp.Len(); i++ {
			if temp.IsValid(i) {
				valid++
				sum += temp.Value(i)
			}
		}
	}
	if err := rdr.Err(); err != nil { // Next returns false on an error as at the end
		log.Fatal(err)
	}
	for _, field := range rdr.Schema().Fields() {
		fmt.Printf("%s: %s\n", field.Name, field.Type)
	}
	fmt.Printf("%d rows, mean temperature %.2f over %d values\n", rows, sum/float64(valid), valid)
	// Output:
	// time: timestamp[ms, tz=UTC]
	// station: dictionary<values=utf8, indices=int32, ordered=false>
	// temperature: float64
	// 602 rows, mean temperature 20.76 over 527 values
}

// ExampleWriteParquet converts a table to a ZSTD Parquet file.
func ExampleWriteParquet() {
	dir, err := os.MkdirTemp("", "tsarrow-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	rdr, err := arrowconv.NewTableReader(f, "weather", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer rdr.Release()
	out, err := os.Create(filepath.Join(dir, "sample.parquet"))
	if err != nil {
		log.Fatal(err)
	}
	// WriteIPC(out, rdr, &arrowconv.IPCOptions{}) writes an Arrow IPC file instead.
	rows, err := arrowconv.WriteParquet(out, rdr, &arrowconv.ParquetOptions{Compression: "zstd"})
	if cerr := out.Close(); err == nil {
		err = cerr // a failed Close can lose the end of the file
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", rows, "rows")
	// Output:
	// wrote 1500 rows
}

// ExampleWriteTsFile writes Arrow records to a new TsFile: a table whose
// TAG column region names the devices.
func ExampleWriteTsFile() {
	dir, err := os.MkdirTemp("", "tsarrow-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	schema := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: arrow.FixedWidthTypes.Timestamp_ms},
		{Name: "region", Type: arrow.BinaryTypes.String},
		{Name: "temperature", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1700000000000, 1700000001000, 1700000000000}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"north", "north", "south"}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{12.5, 0, 17.25}, []bool{true, false, true})
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec}) // or any array.RecordReader
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	out, err := os.Create(filepath.Join(dir, "weather.tsfile"))
	if err != nil {
		log.Fatal(err)
	}
	rows, err := arrowconv.WriteTsFile(out, rr, &arrowconv.TsFileOptions{Table: "weather", Tags: []string{"region"}})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", rows, "rows")

	f, err := tsfile.OpenFile(filepath.Join(dir, "weather.tsfile"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	devices, err := f.Devices("weather")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(devices)
	// Output:
	// wrote 3 rows
	// [weather.north weather.south]
}
