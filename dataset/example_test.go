package dataset_test

import (
	"fmt"
	"log"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
)

// Read a table of an IoTDB data directory as the server answers it: the
// unsequence file's corrections win, the mods files' deletions apply.
func Example() {
	ds, err := dataset.Open([]string{"../testdata/iotdb"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	rd, err := ds.NewReader("weather", &arrowconv.Options{
		Columns: []string{"region", "temperature"},
		Time:    &arrowconv.TimeRange{Start: 1767236400000, End: 1767243600000}, // 03:00..05:00
		Where:   map[string]string{"region": "north"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Release()
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(2).ValueStr(i))
		}
	}
	if err := rd.Err(); err != nil {
		log.Fatal(err)
	}
	st := rd.Stats()
	fmt.Printf("%d rows, %d copies overwritten\n", st.RowsOut, st.RowsOverwritten)
	// Output:
	// 2026-01-01T03:00:00Z -1
	// 2026-01-01T04:00:00Z -1
	// 2026-01-01T05:00:00Z -1
	// 3 rows, 3 copies overwritten
}
