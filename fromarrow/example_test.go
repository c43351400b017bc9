package fromarrow_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/tsfile"
)

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
	rows, err := fromarrow.WriteTsFile(out, rr, &fromarrow.Options{Table: "weather", Tags: []string{"region"}})
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
