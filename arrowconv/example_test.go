package arrowconv_test

import (
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

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
