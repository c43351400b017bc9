package icescan

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/iceref"
	"github.com/tsarrow/tsarrow/icesync"
)

// synced syncs testdata/iotdb's weather table into a SQLite catalog in a
// temporary directory (once per test binary) and returns the input that
// names it.
var synced = sync.OnceValues(func() (string, error) {
	dir, err := tempDir()
	if err != nil {
		return "", err
	}
	cat := "sqlite:" + filepath.Join(dir, "cat.db")
	_, err = icesync.Sync(context.Background(), []string{"../testdata/iotdb"}, icesync.Options{
		Table: "weather", To: "iot.weather", Catalog: cat, Warehouse: filepath.Join(dir, "lake"),
	})
	return iceref.Prefix + cat + "#iot.weather", err
})

var tempDirs []string

func tempDir() (string, error) {
	d, err := osMkdirTemp()
	if err == nil {
		tempDirs = append(tempDirs, d)
	}
	return d, err
}

func openSynced(t *testing.T) *Table {
	t.Helper()
	in, err := synced()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := iceref.ParseInput(in)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tbl.Close() })
	return tbl
}

// rowsOf renders every row of rdr as a line, cells by their Arrow
// string form (timestamps as ISO strings), and releases it.
func rowsOf(t *testing.T, rdr array.RecordReader) []string {
	t.Helper()
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := range int(rec.NumRows()) {
			var cells []string
			for _, c := range rec.Columns() {
				cells = append(cells, cell(c, i))
			}
			out = append(out, strings.Join(cells, ","))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func cell(c arrow.Array, i int) string {
	if c.IsNull(i) {
		return "null"
	}
	switch a := c.(type) {
	case *array.Timestamp:
		u := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(u).UTC().Format(time.RFC3339Nano)
	case *array.Dictionary:
		return a.Dictionary().ValueStr(a.GetValueIndex(i))
	}
	return c.ValueStr(i)
}

// want reads the same rows through package dataset, the rows sync wrote.
func want(t *testing.T, o *arrowconv.Options) []string {
	t.Helper()
	ds, err := dataset.Open([]string{"../testdata/iotdb"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	rd, err := ds.NewReader("weather", o)
	if err != nil {
		t.Fatal(err)
	}
	return rowsOf(t, rd)
}

func TestReadBack(t *testing.T) {
	tbl := openSynced(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	day := func(d int) int64 { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC).UnixMilli() }
	for _, tc := range []struct {
		name  string
		q     Query
		o     arrowconv.Options
		files int
	}{
		{name: "all", files: 2},
		{name: "columns", q: Query{Columns: []string{"status", "region"}}, o: arrowconv.Options{Columns: []string{"status", "region"}}, files: 2},
		{name: "one day", q: Query{Time: &arrowconv.TimeRange{Start: day(2), End: day(3) - 1}}, o: arrowconv.Options{Time: &arrowconv.TimeRange{Start: day(2), End: day(3) - 1}}, files: 1},
		{name: "hours", q: Query{Time: &arrowconv.TimeRange{Start: day(1) + 3600_000, End: day(1) + 5*3600_000}}, o: arrowconv.Options{Time: &arrowconv.TimeRange{Start: day(1) + 3600_000, End: day(1) + 5*3600_000}}, files: 1},
		{name: "tag", q: Query{Tags: map[string]TagValues{"region": {Values: []string{"south"}}}}, o: arrowconv.Options{Where: map[string]string{"region": "south"}}, files: 2},
		{name: "tag and day", q: Query{Tags: map[string]TagValues{"plant": {Values: []string{"p1"}}}, Time: &arrowconv.TimeRange{Start: day(1), End: day(2) - 1}},
			o: arrowconv.Options{Where: map[string]string{"plant": "p1"}, Time: &arrowconv.TimeRange{Start: day(1), End: day(2) - 1}}, files: 1},
		// No file's region bounds (north..south) hold these: the
		// statistics prune every file.
		{name: "tag outside bounds", q: Query{Tags: map[string]TagValues{"region": {Values: []string{"aaa", "zzz"}}}}, files: 0},
		{name: "empty range", q: Query{Time: &arrowconv.TimeRange{Start: day(5), End: day(6)}}, files: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Allocator = mem
			p, err := tbl.Plan(context.Background(), &tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if p.Files() != tc.files {
				t.Errorf("planned %d files, want %d", p.Files(), tc.files)
			}
			rdr, err := p.NewReader(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := rowsOf(t, rdr)
			var exp []string
			if tc.files > 0 {
				tc.o.PlainTags = true
				exp = want(t, &tc.o)
			}
			// The Iceberg table holds a file per day, each device by
			// device; the dataset reads device by device over all days.
			// Same rows, another order: compare them sorted.
			slices.Sort(got)
			slices.Sort(exp)
			if !slices.Equal(got, exp) {
				t.Fatalf("rows differ:\n got %d %q\nwant %d %q", len(got), got, len(exp), exp)
			}
			if tc.files > 0 && len(got) == 0 {
				t.Fatal("no rows")
			}
		})
	}
}

func TestSchema(t *testing.T) {
	tbl := openSynced(t)
	sc, err := tbl.Schema(&Query{Unit: arrowconv.TimeUnitOf(arrow.Microsecond)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range sc.Fields() {
		c, _ := f.Metadata.GetValue(arrowconv.MetaCategory)
		ty, _ := f.Metadata.GetValue(arrowconv.MetaType)
		got = append(got, fmt.Sprintf("%s %s %s %s %v", f.Name, f.Type, c, ty, f.Nullable))
	}
	exp := []string{
		"time timestamp[us, tz=UTC] TIME TIMESTAMP false",
		"region utf8 TAG STRING true",
		"plant utf8 TAG STRING true",
		"temperature float64 FIELD DOUBLE true",
		"humidity float32 FIELD FLOAT true",
		"status utf8 FIELD TEXT true",
	}
	if !slices.Equal(got, exp) {
		t.Fatalf("schema\n got %q\nwant %q", got, exp)
	}
}

func TestLimit(t *testing.T) {
	tbl := openSynced(t)
	rdr, err := tbl.NewReader(context.Background(), &Query{Limit: 5, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, rdr); len(got) != 5 {
		t.Fatalf("%d rows, want 5", len(got))
	}
}

func TestOpenErrors(t *testing.T) {
	in, err := synced()
	if err != nil {
		t.Fatal(err)
	}
	cat := strings.TrimSuffix(strings.TrimPrefix(in, iceref.Prefix), "#iot.weather")
	for _, tc := range []struct{ in, want string }{
		{iceref.Prefix + cat + "#iot.nothere", "no table iot.nothere"},
		{iceref.Prefix + cat + "#nons.weather", "no table nons.weather"},
		{iceref.Prefix + "sqlite:" + filepath.Join(t.TempDir(), "missing.db") + "#iot.weather", "no such file"},
	} {
		ref, err := iceref.ParseInput(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(context.Background(), ref)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.in, err, tc.want)
		}
	}
	tbl := openSynced(t)
	for _, q := range []Query{
		{Columns: []string{"nope"}},
		{Tags: map[string]TagValues{"humidity": {Values: []string{"1"}}}},
		{Tags: map[string]TagValues{"nope": {Values: []string{"1"}}}},
	} {
		if _, err := tbl.Plan(context.Background(), &q); !errors.Is(err, ErrQuery) {
			t.Errorf("%+v: %v, want ErrQuery", q, err)
		}
	}
}
