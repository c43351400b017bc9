//go:build cgo && duckdb_arrow

package query_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/duckdb/duckdb-go/v2"

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

// Register the tables of a TsFile on your own DuckDB connection, then
// query them with database/sql and as Arrow.
func ExampleRegister() {
	ctx := context.Background()
	connector, err := duckdb.NewConnector("", nil) // your own DuckDB database
	if err != nil {
		log.Fatal(err)
	}
	sqlDB := sql.OpenDB(connector)
	defer sqlDB.Close()
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	db, err := query.Register(ctx, conn, []string{"../testdata/sample.tsfile"}, &query.Options{
		Warn: func(msg string) { log.Print(msg) }, // skipped files, ...
	})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close() // drops the views; conn stays yours
	var n int64
	err = conn.QueryRowContext(ctx, `SELECT count(*) FROM weather WHERE region = 'north'`).Scan(&n)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "rows of the north")
	rd, err := db.QueryArrow(ctx, `SELECT station, max(temperature) AS t FROM weather WHERE region = ? GROUP BY ALL ORDER BY station`, "north")
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Release() // holds conn until released
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := range int(rec.NumRows()) {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i))
		}
	}
	if err := rd.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1000 rows of the north
	// s01 29.98
	// s02 30.86
}
