package icesync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// renderByName renders each row as "name=value|..." with the columns in
// name order, timestamps as integers through conv, so that tables whose
// columns come in different orders compare.
func renderByName(rec arrow.RecordBatch, conv func(int64) int64, extra string) []string {
	names := make([]string, 0, rec.NumCols())
	for _, f := range rec.Schema().Fields() {
		names = append(names, f.Name)
	}
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
	out := make([]string, rec.NumRows())
	for i := range out {
		var b strings.Builder
		b.WriteString(extra)
		for _, j := range order {
			col := rec.Column(j)
			fmt.Fprintf(&b, "%s=", names[j])
			switch ts, ok := col.(*array.Timestamp); {
			case col.IsNull(i):
				b.WriteString("null")
			case ok:
				fmt.Fprint(&b, conv(int64(ts.Value(i))))
			default:
				b.WriteString(col.ValueStr(i))
			}
			b.WriteByte('|')
		}
		out[i] = b.String()
	}
	return out
}

// readerRows reads the dataset table ref as convert does, each row
// rendered by name with extra before it, times in microseconds computed
// here from the reader's milliseconds; columns of absent are rendered
// null, as a table column a database lacks reads.
func readerRows(t *testing.T, roots []string, ref, extra string, absent ...string) []string {
	t.Helper()
	ds, err := dataset.Open(roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	rd, err := ds.NewReader(ref, &arrowconv.Options{PlainTags: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var out []string
	for rd.Next() {
		rows := renderByName(rd.RecordBatch(), func(ms int64) int64 { return ms * 1000 }, "")
		for _, r := range rows {
			cells := strings.Split(strings.TrimSuffix(r, "|"), "|")
			for _, a := range absent {
				cells = append(cells, a+"=null")
			}
			if extra != "" {
				cells = append(cells, extra)
			}
			sort.Strings(cells)
			out = append(out, strings.Join(cells, "|")+"|")
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// tableRows reads the Iceberg table through iceberg-go's scan, rows
// rendered by name.
func tableRows(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	return scanWith(t, tbl, func(rec arrow.RecordBatch) []string {
		return renderByName(rec, func(us int64) int64 { return us }, "")
	})
}

// partitionOf computes, independently of iceberg-go's transforms, the
// partition value of field f for row i of rec: hours, days, months or
// years since 1970 of the time, a TAG's value or its first W characters.
// ok is unset for a bucket, whose hash it does not recompute.
func partitionOf(t *testing.T, f iceberg.PartitionField, col arrow.Array, i int) (any, bool) {
	t.Helper()
	if col.IsNull(i) {
		return nil, true
	}
	switch tr := f.Transform.(type) {
	case iceberg.HourTransform, iceberg.DayTransform, iceberg.MonthTransform, iceberg.YearTransform:
		us := int64(col.(*array.Timestamp).Value(i))
		tm := time.UnixMicro(us).UTC()
		switch tr.(type) {
		case iceberg.HourTransform:
			h := us / 3600e6
			if us < 0 && us%3600e6 != 0 {
				h--
			}
			return h, true
		case iceberg.DayTransform:
			d := time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC)
			return d.Unix() / 86400, true
		case iceberg.MonthTransform:
			return int64((tm.Year()-1970)*12 + int(tm.Month()) - 1), true
		default:
			return int64(tm.Year() - 1970), true
		}
	case iceberg.IdentityTransform:
		return col.ValueStr(i), true
	case iceberg.TruncateTransform:
		s := col.ValueStr(i)
		n := 0
		for j := range s {
			if n == tr.Width {
				return s[:j], true
			}
			n++
		}
		return s, true
	}
	return nil, false
}

// normPartition turns a partition value iceberg-go reports into what
// partitionOf computes.
func normPartition(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return x
	case int32:
		return int64(x)
	case int64:
		return x
	case iceberg.Date:
		return int64(x)
	}
	return fmt.Sprint(v)
}

// checkPartitions reads every data file of tbl and checks that each row's
// partition values, computed here, are those the manifest records for
// its file.
func checkPartitions(t *testing.T, tbl *table.Table) {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spec := tbl.Spec()
	for _, task := range tasks {
		df := task.File
		u, err := url.Parse(df.FilePath())
		if err != nil {
			t.Fatal(err)
		}
		path := u.Path
		pf, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		at, err := fr.ReadTable(context.Background())
		pf.Close()
		if err != nil {
			t.Fatal(err)
		}
		rr := array.NewTableReader(at, 1<<20)
		part := df.Partition()
		if len(part) != spec.NumFields() {
			t.Errorf("%s: partition %v for a spec of %d fields", path, part, spec.NumFields())
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for _, f := range spec.Fields() {
				src, _ := tbl.Schema().FindFieldByID(f.SourceIDs[0])
				col := rec.Column(rec.Schema().FieldIndices(src.Name)[0])
				for i := 0; i < int(rec.NumRows()); i++ {
					want, ok := partitionOf(t, f, col, i)
					if got := normPartition(part[f.FieldID]); ok && got != want {
						t.Fatalf("%s: row %d has %s %v, the file's partition %v", path, i, f.Name, want, got)
					}
				}
			}
		}
		rr.Release()
		at.Release()
	}
}

// TestSyncPartitions syncs testdata/iotdb's weather with each partition
// choice: the table has that spec and the properties, the scan gives the
// dataset reader's rows, each data file holds only rows of its partition,
// a second sync commits nothing, and one asking another spec is refused.
func TestSyncPartitions(t *testing.T) {
	ctx := context.Background()
	roots := []string{"../testdata/iotdb"}
	want := readerRows(t, roots, "weather", "")
	for _, spec := range []string{"", "day(time)", "hour(time)", "month(time)", "year(time)", "none", "region",
		"day(time),region", "bucket(3, plant)", "truncate(1, region),month(time)"} {
		// (A subtest named "" would be "#00", and a '#' in the
		// catalog's path cuts it short: a DSN fragment.)
		t.Run("spec="+spec, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{
				Table: "weather", To: "iot.weather", Partition: spec,
				Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: filepath.Join(dir, "lake"),
			}
			res, err := Sync(ctx, roots, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Created || !res.Committed {
				t.Fatalf("first sync %+v", res)
			}
			tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
			// Created with every property: no metadata commit between
			// the table's creation and its snapshot's.
			if n := len(slices.Collect(tbl.Metadata().PreviousFiles())); n != 1 {
				t.Errorf("%d metadata files before the current one, want 1 (the created table's)", n)
			}
			fields, _ := ParsePartition(spec)
			if got := specText(tbl.Spec(), tbl.Schema()); got != fieldsText(fields) {
				t.Errorf("spec %s, want %s", got, fieldsText(fields))
			}
			props := tbl.Properties()
			for k, v := range map[string]string{PropSourceTable: "weather", PropTimeUnit: "ms", PropPartition: fieldsText(fields), PropDatabases: "weather"} {
				if props[k] != v {
					t.Errorf("property %s = %q, want %q", k, props[k], v)
				}
			}
			if props[PropVersion] == "" {
				t.Errorf("no %s", PropVersion)
			}
			if got := tableRows(t, tbl); !slices.Equal(got, want) {
				t.Fatalf("scan gives %d rows, the reader %d:\n got %q\nwant %q", len(got), len(want), got, want)
			}
			checkPartitions(t, tbl)
			if res, err := Sync(ctx, roots, opts); err != nil || res.Committed {
				t.Fatalf("second sync: %+v, %v", res, err)
			}
			if n := len(loadTable(t, opts.Catalog, opts.Warehouse, opts.To).Metadata().Snapshots()); n != 1 {
				t.Errorf("%d snapshots after two syncs", n)
			}
			other := opts
			other.Partition = "year(time),plant"
			if _, err := Sync(ctx, roots, other); !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), "applies only when a sync creates") {
				t.Errorf("sync asking another spec: %v", err)
			}
		})
	}
}

// tcol is a FIELD column of a test file.
type tcol struct {
	name string
	vals tsfile.Values
}

// dbFile is a one-device file of table t(region TAG, FIELDs...) in a
// database of an IoTDB data directory.
type dbFile struct {
	db      string
	version int64
	region  string
	times   []int64
	cols    []tcol
}

// writeDBFiles lays the files out under root with their .resource files,
// as IoTDB does: sequence/DB/1/0/TIME-VERSION-0-0.tsfile.
func writeDBFiles(t *testing.T, root string, files ...dbFile) {
	t.Helper()
	for _, f := range files {
		dir := filepath.Join(root, "sequence", f.db, "1", "0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, dataset.Name{Time: f.times[0], Version: f.version}.String())
		dev := tsfile.NewDeviceID("t", f.region)
		cols := []tsfile.Column{{Name: "region", DataType: tsfile.String, Category: tsfile.Tag}}
		var acols []tsfile.AlignedColumn
		for _, c := range f.cols {
			cols = append(cols, tsfile.Column{Name: c.name, DataType: c.vals.Type, Category: tsfile.Field})
			acols = append(acols, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: c.name, DataType: c.vals.Type}, Values: c.vals})
		}
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: cols}); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteAligned(dev, f.times, acols); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		res := &dataset.Resource{IndexType: dataset.IndexArray, Devices: []dataset.DeviceTimes{{Device: dev, Start: f.times[0], End: f.times[len(f.times)-1]}}}
		b, err := res.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+dataset.ResourceSuffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func i32s(xs ...int32) tsfile.Values   { return tsfile.Values{Type: tsfile.Int32, Int32s: xs} }
func i64s(xs ...int64) tsfile.Values   { return tsfile.Values{Type: tsfile.Int64, Int64s: xs} }
func f32s(xs ...float32) tsfile.Values { return tsfile.Values{Type: tsfile.Float, Float32s: xs} }
func texts(xs ...string) tsfile.Values {
	v := tsfile.Values{Type: tsfile.Text}
	for _, x := range xs {
		v.Binaries = append(v.Binaries, []byte(x))
	}
	return v
}

// jan1Ms is 2026-01-01 in milliseconds.
const jan1Ms = int64(1767225600000)

// TestSyncDatabases syncs table t of two databases (db2's with a FIELD
// more, and v as INT64 where db1 has INT32) into one Iceberg table with a
// database column: its rows are each database's reader rows with the
// database added (and null for the FIELD db1 lacks), partitioned by
// database too, and the properties name both databases.
func TestSyncDatabases(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeDBFiles(t, root,
		dbFile{db: "db1", version: 1, region: "north", times: []int64{jan1Ms, jan1Ms + 3600e3, jan1Ms + 86400e3}, cols: []tcol{{"v", i32s(1, 2, 3)}}},
		dbFile{db: "db2", version: 2, region: "north", times: []int64{jan1Ms, jan1Ms + 2*86400e3}, cols: []tcol{{"v", i64s(1<<40, -5)}, {"w", texts("a", "b")}}},
	)
	roots := []string{root}
	dir := t.TempDir()
	opts := Options{
		Table: "*.t", To: "iot.t", Partition: "day(time),database",
		Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: filepath.Join(dir, "lake"),
	}
	res, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || res.Rows != 5 || res.Sources != 2 {
		t.Fatalf("sync %+v, want 5 rows of 2 sources", res)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	var names []string
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name+" "+f.Type.String())
	}
	if want := []string{"time timestamptz", "database string", "region string", "v long", "w string"}; !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
	// db1's v is INT32, widened to the table's long; the reader's
	// rendering of an int32 is the same digits.
	want := append(readerRows(t, roots, "db1.t", "database=db1", "w"), readerRows(t, roots, "db2.t", "database=db2")...)
	slices.Sort(want)
	if got := tableRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("scan:\n got %q\nwant %q", got, want)
	}
	checkPartitions(t, tbl)
	if p := tbl.Properties(); p[PropDatabases] != "db1,db2" || p[PropSourceTable] != "*.t" {
		t.Errorf("properties %v", p)
	}
	if res, err := Sync(ctx, roots, opts); err != nil || res.Committed {
		t.Fatalf("second sync: %+v, %v", res, err)
	}
	// The same table synced from one database is refused: its rows
	// would have no database.
	one := opts
	one.Table, one.Partition = "db1.t", ""
	if _, err := Sync(ctx, roots, one); !errors.Is(err, ErrSchemaChanged) || !strings.Contains(err.Error(), "--database '*'") {
		t.Errorf("sync of one database into it: %v", err)
	}
	none := opts
	none.Table = "*.nope"
	if _, err := Sync(ctx, roots, none); err == nil || !strings.Contains(err.Error(), `no database of the inputs holds a table-model table "nope"`) {
		t.Errorf("sync of a table no database holds: %v", err)
	}
}

// TestSyncEvolve: a second sync whose inputs gained a FIELD adds it (the
// older rows read null) and one whose column IoTDB changed from INT32 to
// INT64 promotes it; a column gone from every input stays; a change to
// TEXT is refused with the column and both types named, and the table
// stays as it was.
func TestSyncEvolve(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeDBFiles(t, root,
		dbFile{db: "db", version: 1, region: "r", times: []int64{jan1Ms, jan1Ms + 1000}, cols: []tcol{{"v", i32s(7, -7)}, {"f", f32s(0.5, 1.5)}}})
	roots := []string{root}
	dir := t.TempDir()
	opts := Options{
		Table: "t", To: "iot.t",
		Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: filepath.Join(dir, "lake"),
	}
	if _, err := Sync(ctx, roots, opts); err != nil {
		t.Fatal(err)
	}
	// The next file (another day) has v as INT64, a new FIELD w, and no f.
	writeDBFiles(t, root,
		dbFile{db: "db", version: 2, region: "r", times: []int64{jan1Ms + 86400e3}, cols: []tcol{{"v", i64s(1 << 40)}, {"w", texts("new")}}})
	res, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed {
		t.Fatalf("second sync %+v", res)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	var cols []string
	for _, f := range tbl.Schema().Fields() {
		cols = append(cols, fmt.Sprintf("%d:%s %s", f.ID, f.Name, f.Type))
	}
	if want := []string{"1:time timestamptz", "2:region string", "3:v long", "4:f float", "5:w string"}; !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	want := []string{
		fmt.Sprintf("f=0.5|region=r|time=%d|v=7|w=null|", jan1Ms*1000),
		fmt.Sprintf("f=1.5|region=r|time=%d|v=-7|w=null|", (jan1Ms+1000)*1000),
		fmt.Sprintf("f=null|region=r|time=%d|v=1099511627776|w=new|", (jan1Ms+86400e3)*1000),
	}
	if got := tableRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("after the evolution:\n got %q\nwant %q", got, want)
	}

	// The first file goes (compacted away, say): f is in no input now,
	// and stays in the table, null in the rows left.
	old, err := filepath.Glob(filepath.Join(root, "sequence", "db", "1", "0", dataset.Name{Time: jan1Ms, Version: 1}.String()+"*"))
	if err != nil || len(old) != 2 {
		t.Fatalf("first file and resource: %q %v", old, err)
	}
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := Sync(ctx, roots, opts); err != nil || !res.Committed {
		t.Fatalf("sync after the first file went: %+v, %v", res, err)
	}
	tbl = loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if got := tableRows(t, tbl); !slices.Equal(got, want[2:]) || tbl.Schema().NumFields() != 5 {
		t.Fatalf("after the first file went: %d columns,\n got %q\nwant %q", tbl.Schema().NumFields(), got, want[2:])
	}
	snaps := len(tbl.Metadata().Snapshots())

	// v turns TEXT: IoTDB casts it, Iceberg cannot.
	writeDBFiles(t, root,
		dbFile{db: "db", version: 3, region: "r", times: []int64{jan1Ms + 2*86400e3}, cols: []tcol{{"v", texts("x")}}})
	_, err = Sync(ctx, roots, opts)
	if !errors.Is(err, ErrSchemaChanged) || !strings.Contains(err.Error(), `column "v" is long in the table and string in the inputs`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("sync after v became TEXT: %v", err)
	}
	tbl = loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if n := len(tbl.Metadata().Snapshots()); n != snaps || tbl.Schema().NumFields() != 5 {
		t.Errorf("the refused sync changed the table: %d snapshots, %d columns", n, tbl.Schema().NumFields())
	}
}

// TestSyncTimeUnit: inputs read in microseconds keep their values in the
// table; in nanoseconds they are refused with one line (a v2 table would
// cut them); a later sync reading the table's inputs in another unit is
// refused (its times would be off by 1000), and a stale property is set
// right by the next sync.
func TestSyncTimeUnit(t *testing.T) {
	ctx := context.Background()
	roots := []string{"../testdata/iotdb"}
	dir := t.TempDir()
	opts := Options{
		Table: "weather", To: "iot.weather", TimeUnit: arrowconv.TimeUnitOf(arrow.Nanosecond),
		Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: filepath.Join(dir, "lake"),
	}
	_, err := Sync(ctx, roots, opts)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "holds ns times") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("sync in ns: %v", err)
	}
	opts.TimeUnit = arrowconv.TimeUnitOf(arrow.Microsecond)
	if _, err := Sync(ctx, roots, opts); err != nil {
		t.Fatal(err)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	// The reader's stored values, read as milliseconds, are the table's
	// microseconds as they are.
	want := readerRows(t, roots, "weather", "")
	for i := range want {
		want[i] = regexpTime.ReplaceAllStringFunc(want[i], func(s string) string {
			var ms int64
			fmt.Sscanf(s, "time=%d|", &ms)
			return fmt.Sprintf("time=%d|", ms/1000)
		})
	}
	if got := tableRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("us table:\n got %q\nwant %q", got, want)
	}
	if tbl.Properties()[PropTimeUnit] != "us" {
		t.Errorf("time unit property %q", tbl.Properties()[PropTimeUnit])
	}
	ms := opts
	ms.TimeUnit = arrowconv.TimeUnit{}
	if _, err := Sync(ctx, roots, ms); !errors.Is(err, ErrSchemaChanged) || !strings.Contains(err.Error(), "--time-unit us") {
		t.Fatalf("sync in ms into the us table: %v", err)
	}

	// A stale property (as an older tsarrow left it) is made current.
	tx := tbl.NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{PropVersion: "v0.0.1", PropPartition: "stale"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := Sync(ctx, roots, opts); err != nil || res.Committed {
		t.Fatalf("third sync: %+v, %v", res, err)
	}
	p := loadTable(t, opts.Catalog, opts.Warehouse, opts.To).Properties()
	if p[PropVersion] == "v0.0.1" || p[PropPartition] != "day(time)" {
		t.Errorf("properties not made current: %v", p)
	}
}

// regexpTime finds the time cell of a rendered row.
var regexpTime = regexp.MustCompile(`time=-?\d+\|`)
