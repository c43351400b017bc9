package tsfile_test

import (
	"fmt"
	"log"

	"github.com/tsarrow/tsarrow/tsfile"
)

// Example walks a file's index without reading any data: its tables, their
// schemas, and each device's series with the statistics the index keeps.
func Example() {
	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil) // or tsfile.Open(readerAt, size, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for _, table := range f.Tables() {
		if schema, ok := f.SchemaOf(table); ok {
			fmt.Printf("table %s: %d columns\n", table, len(schema.Columns))
		}
		devices, err := f.Devices(table)
		if err != nil {
			log.Fatal(err)
		}
		for _, dev := range devices {
			series, err := f.Series(dev)
			if err != nil {
				log.Fatal(err)
			}
			for _, s := range series {
				if s.IsTimeColumn() { // the aligned time column covers every row
					fmt.Printf("  %s: %d rows\n", dev, s.Statistics.Count)
				}
			}
		}
	}
	// Output:
	// table weather: 12 columns
	//   weather.north.s01: 500 rows
	//   weather.north.s02: 500 rows
	//   weather.south.s01: 500 rows
}
