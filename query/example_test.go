//go:build cgo && duckdb_arrow

package query_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tsarrow/tsarrow/query"
)

// Open a TsFile, run SQL on it with DuckDB, and read the result as Arrow
// record batches.
func Example() {
	ctx := context.Background()
	db, err := query.Open(ctx, []string{"../testdata/sample.tsfile"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, t := range db.Tables() {
		fmt.Printf("table %s.%s, tags %v\n", t.Schema, t.Name, t.Tags)
	}
	rd, err := db.QueryArrow(ctx, `
		SELECT region, station, count(*) AS n, round(avg(temperature), 2) AS avg_t, min(time) AS first
		FROM weather
		WHERE time >= '2023-11-14 22:15:00'
		GROUP BY ALL ORDER BY region, station`)
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Release()
	fmt.Println(rd.Schema().Field(4).Type)
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := range int(rec.NumRows()) {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i), rec.Column(2).ValueStr(i), rec.Column(3).ValueStr(i), rec.Column(4).ValueStr(i))
		}
	}
	if err := rd.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// table main.weather, tags [region station]
	// timestamp[us, tz=UTC]
	// north s01 400 20.11 2023-11-14T22:15:00Z
	// north s02 400 21.23 2023-11-14T22:15:00Z
	// south s01 400 21.73 2023-11-14T22:15:00Z
}
