//go:build cgo && duckdb_arrow

package icetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestRowsFixture: DuckDB's rows of the fixture's live files are the rows
// its writer gave iceberg-go (testdata/weather.expected.json), none of
// those its overwrite deleted.
func TestRowsFixture(t *testing.T) {
	dir, err := filepath.Abs("testdata/weather")
	if err != nil {
		t.Fatal(err)
	}
	tbl := ReadBack(t, filepath.Join(dir, fixtureMeta), rebase(dir))
	got := Rows(t, tbl, "SELECT epoch_us(time), device, temperature FROM t ORDER BY 1, 2")
	b, err := os.ReadFile("testdata/weather.expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []struct {
		Time   int64   `json:"time"`
		Device string  `json:"device"`
		Temp   float64 `json:"temperature"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var wantRows [][]any
	for _, w := range want {
		wantRows = append(wantRows, []any{w.Time, w.Device, w.Temp})
	}
	if !reflect.DeepEqual(got, wantRows) {
		t.Errorf("rows:\n got %v\nwant %v", fmt.Sprint(got), fmt.Sprint(wantRows))
	}
	if n := Rows(t, &Table{}, "SELECT count(*) FROM t"); n[0][0] != int64(0) {
		t.Errorf("a table with no data file: count %v, want 0", n[0][0])
	}
}
