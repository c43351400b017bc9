package icesync

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/internal/testkit"
)

// wantRows reads the table as convert does (the dataset reader) and
// renders each row as text, times in microseconds computed here from the
// milliseconds the reader gives, so that the sync's conversion is checked
// against an independent one.
func wantRows(t *testing.T, roots []string, name string) []string {
	t.Helper()
	ds, err := dataset.Open(roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	rd, err := ds.NewReader(name, &arrowconv.Options{PlainTags: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var out []string
	for rd.Next() {
		out = append(out, render(t, rd.RecordBatch(), func(ms int64) int64 { return ms * 1000 })...)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// render writes each row as "name=value|..." with timestamps as integers
// through conv.
func render(t *testing.T, rec arrow.RecordBatch, conv func(int64) int64) []string {
	t.Helper()
	out := make([]string, rec.NumRows())
	for i := range out {
		var b strings.Builder
		for j, col := range rec.Columns() {
			fmt.Fprintf(&b, "%s=", rec.Schema().Field(j).Name)
			switch {
			case col.IsNull(i):
				b.WriteString("null")
			default:
				if ts, ok := col.(*array.Timestamp); ok {
					fmt.Fprint(&b, conv(int64(ts.Value(i))))
				} else {
					b.WriteString(col.ValueStr(i))
				}
			}
			b.WriteByte('|')
		}
		out[i] = b.String()
	}
	return out
}

// scanRows reads the Iceberg table back through iceberg-go's scan, time
// (in microseconds) first.
func scanRows(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	return scanWith(t, tbl, func(rec arrow.RecordBatch) []string {
		if u := rec.Schema().Field(0).Type.(*arrow.TimestampType).Unit; u != arrow.Microsecond {
			t.Fatalf("time read back in %s, want us", u)
		}
		return render(t, rec, func(us int64) int64 { return us })
	})
}

// scanWith reads the Iceberg table through iceberg-go's scan, each batch's
// rows rendered by row, sorted.
func scanWith(t *testing.T, tbl *table.Table, row func(arrow.RecordBatch) []string) []string {
	t.Helper()
	_, recs, err := tbl.Scan().ToArrowRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, row(rec)...)
		rec.Release()
	}
	slices.Sort(out)
	return out
}

func loadTable(t *testing.T, catURI, wh, to string) *table.Table {
	t.Helper()
	cat, err := OpenCatalog(context.Background(), catURI, wh)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	id, err := identifier(to)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestSyncWeather(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	roots := []string{"../testdata/iotdb"}
	opts := weatherOptions(dir)
	res, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := wantRows(t, roots, "weather")
	if !res.Created || !res.Committed || res.Rows != int64(len(want)) || res.Sources != 4 {
		t.Fatalf("first sync: %+v, want created, committed, %d rows from 4 sources", res, len(want))
	}

	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	got := scanRows(t, tbl)
	if !slices.Equal(got, want) {
		t.Fatalf("scan gives %d rows, convert %d:\n got %q\nwant %q", len(got), len(want), got, want)
	}

	// The table: v2, time required timestamptz in microseconds, day(time).
	meta := tbl.Metadata()
	if meta.Version() != 2 {
		t.Errorf("format version %d, want 2", meta.Version())
	}
	f0 := tbl.Schema().Field(0)
	if f0.Name != "time" || !f0.Required || !f0.Type.Equals(iceberg.TimestampTzType{}) {
		t.Errorf("time column %+v", f0)
	}
	spec := tbl.Spec()
	if spec.NumFields() != 1 || spec.Field(0).Transform.String() != "day" || spec.Field(0).SourceIDs[0] != f0.ID {
		t.Errorf("partition spec %s, want day(time)", spec.String())
	}

	// One snapshot, recording the four source files of database weather.
	snap := tbl.CurrentSnapshot()
	if len(meta.Snapshots()) != 1 || snap == nil {
		t.Fatalf("%d snapshots after the first sync", len(meta.Snapshots()))
	}
	var srcs []Source
	if err := json.Unmarshal([]byte(snap.Summary.Properties[SummaryDelta]), &srcs); err != nil {
		t.Fatalf("summary %s: %v", SummaryDelta, err)
	}
	var names []string
	mods := 0
	for _, s := range srcs {
		names = append(names, s.Name)
		st, err := os.Stat(filepath.Join(roots[0], filepath.FromSlash(s.Name)))
		if err != nil || st.Size() != s.Size {
			t.Errorf("source %s: size %d recorded, file: %v %v", s.Name, s.Size, st, err)
		}
		if s.Mods != "" {
			mods++
		}
		if s.Change != "new" {
			t.Errorf("source %s: change %q in the first sync", s.Name, s.Change)
		}
	}
	wantNames := []string{
		"sequence/weather/1/0/1767225600000-1-0-0.tsfile",
		"sequence/weather/1/0/1767268800000-2-0-0.tsfile",
		"sequence/weather/1/1/1767312000000-4-0-0.tsfile",
		"unsequence/weather/1/0/1767236400000-3-0-0.tsfile",
	}
	if !slices.Equal(names, wantNames) || mods != 2 {
		t.Errorf("sources %q with %d mods, want %q with 2", names, mods, wantNames)
	}

	// Each data file: Parquet with field IDs, one day, with statistics.
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	days := map[any]bool{}
	for _, task := range tasks {
		df := task.File
		checkParquet(t, df.FilePath(), tbl.Schema())
		for _, fld := range tbl.Schema().Fields() {
			if _, ok := df.ValueCounts()[fld.ID]; !ok {
				t.Errorf("%s: no value count of %s", df.FilePath(), fld.Name)
			}
		}
		lo := df.LowerBoundValues()[f0.ID]
		hi := df.UpperBoundValues()[f0.ID]
		if len(lo) != 8 || len(hi) != 8 {
			t.Errorf("%s: time bounds %x..%x", df.FilePath(), lo, hi)
		}
		for _, v := range df.Partition() {
			days[v] = true
		}
	}
	// The rows span 2026-01-01 and 2026-01-02.
	if len(tasks) != 2 || len(days) != 2 {
		t.Errorf("%d data files over %d days; want one file for each of 2 days", len(tasks), len(days))
	}

	// Nothing new: no commit, the same snapshot.
	res2, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Committed || res2.Created || res2.SnapshotID != snap.SnapshotID || res2.DataFiles != 0 {
		t.Fatalf("second sync over the same files: %+v", res2)
	}
	if n := len(loadTable(t, opts.Catalog, opts.Warehouse, opts.To).Metadata().Snapshots()); n != 1 {
		t.Fatalf("%d snapshots after a sync with nothing new", n)
	}
}

// checkParquet opens a data file with arrow-go's Parquet reader and checks
// that every column carries the field ID of its table column.
func checkParquet(t *testing.T, loc string, sc *iceberg.Schema) {
	t.Helper()
	p := strings.TrimPrefix(loc, "file://")
	rdr, err := file.OpenParquetFile(p, false)
	if err != nil {
		t.Fatalf("%s: %v", loc, err)
	}
	defer rdr.Close()
	ps := rdr.MetaData().Schema
	if ps.NumColumns() != len(sc.Fields()) {
		t.Fatalf("%s: %d columns", loc, ps.NumColumns())
	}
	for i, fld := range sc.Fields() {
		n := ps.Column(i).SchemaNode()
		if n.Name() != fld.Name || int(n.FieldID()) != fld.ID {
			t.Errorf("%s: column %d is %s id %d, want %s id %d", loc, i, n.Name(), n.FieldID(), fld.Name, fld.ID)
		}
	}
	for rg := 0; rg < rdr.NumRowGroups(); rg++ {
		for i := range sc.Fields() {
			cc, err := rdr.MetaData().RowGroup(rg).ColumnChunk(i)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := cc.StatsSet(); !ok || err != nil {
				t.Errorf("%s: row group %d column %d without statistics (%v)", loc, rg, i, err)
			}
		}
	}
}

// TestSyncChanged removes a file from a copy of the data directory: the
// next sync rewrites the one day the file covered (its data file
// replaced, the other day's kept) and the table's rows are the dataset
// reader's again.
func TestSyncChanged(t *testing.T) {
	ctx := context.Background()
	dir, root := sampleCopy(t)
	opts := weatherOptions(dir)
	first, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	un := filepath.Join(root, "unsequence/weather/1/0/1767236400000-3-0-0.tsfile")
	for _, p := range []string{un, un + ".resource"} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The unsequence file covers 2026-01-01 03:00..05:00: one day of two.
	if !res.Committed || res.SnapshotID == first.SnapshotID || first.DataFiles != 2 || res.Removed != 1 || res.DataFiles != 1 || res.Sources != 3 {
		t.Fatalf("sync after a removal: %+v (first %+v)", res, first)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	want := wantRows(t, []string{root}, "weather")
	if got := scanRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("scan after the change gives %d rows, convert %d", len(got), len(want))
	}
	if n := len(tbl.Metadata().Snapshots()); n != 2 {
		t.Fatalf("%d snapshots, want 2", n)
	}
	if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpOverwrite {
		t.Errorf("snapshot operation %s, want overwrite", op)
	}
}

// TestSyncDeletion appends a deletion to the .mods2 of the file of
// 2026-01-02: the next sync rewrites that day alone (the data file of
// 2026-01-01 stays, the same file), and the rows are the reader's.
func TestSyncDeletion(t *testing.T) {
	ctx := context.Background()
	dir, root := sampleCopy(t)
	opts := weatherOptions(dir)
	if _, err := Sync(ctx, []string{root}, opts); err != nil {
		t.Fatal(err)
	}
	before := dataFiles(t, loadTable(t, opts.Catalog, opts.Warehouse, opts.To))

	mods := filepath.Join(root, "sequence/weather/1/1/1767312000000-4-0-0.tsfile.mods2")
	old, err := os.ReadFile(mods)
	if err != nil {
		t.Fatal(err)
	}
	// 2026-01-02T03:00Z..05:00Z, every device.
	b, err := dataset.AppendModsV2(old, dataset.Deletion{Kind: dataset.TableDeletion, Table: "weather", Start: 1767322800000, End: 1767330000000})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mods, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := wantRows(t, []string{root}, "weather")
	res, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || res.Removed != 1 || res.DataFiles != 1 || res.Rows >= 92-44 {
		t.Fatalf("sync after a deletion: %+v", res)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if got := scanRows(t, tbl); !slices.Equal(got, want) || len(want) >= 92 {
		t.Fatalf("after the deletion: %d rows, the reader %d (of 92 before)", len(got), len(want))
	}
	after := dataFiles(t, tbl)
	kept := 0
	for p := range after {
		if before[p] {
			kept++
		}
	}
	if len(after) != 2 || kept != 1 {
		t.Fatalf("data files before %v, after %v: want the 2026-01-01 file kept", before, after)
	}
}

// dataFiles lists the paths of the table's current data files.
func dataFiles(t *testing.T, tbl *table.Table) map[string]bool {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, task := range tasks {
		out[task.File.FilePath()] = true
	}
	return out
}

// TestSyncOtherSpec syncs into a table someone created partitioned by
// hour(time): Sync neither reads day by day nor plans days for it, it
// rewrites the whole table, and the rows are the reader's.
func TestSyncOtherSpec(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	roots := []string{"../testdata/iotdb"}
	opts := weatherOptions(dir)
	ds, err := dataset.Open(roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ds.Schema("weather", &arrowconv.Options{PlainTags: true})
	ds.Close()
	if err != nil {
		t.Fatal(err)
	}
	isc, err := icebergSchema(sc)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := OpenCatalog(ctx, opts.Catalog, opts.Warehouse)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateNamespace(ctx, []string{"iot"}, nil); err != nil {
		t.Fatal(err)
	}
	fid := iceberg.PartitionDataIDStart
	spec, err := iceberg.NewPartitionSpecOpts(iceberg.AddPartitionFieldBySourceID(1, "time_hour", iceberg.HourTransform{}, isc, &fid))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, []string{"iot", "weather"}, isc, catalog.WithPartitionSpec(&spec)); err != nil {
		t.Fatal(err)
	}
	res, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || !res.Committed || res.DataFiles < 24 {
		t.Fatalf("sync into an hour-partitioned table: %+v", res)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if got, want := scanRows(t, tbl), wantRows(t, roots, "weather"); !slices.Equal(got, want) {
		t.Fatalf("scan gives %d rows, the reader %d", len(got), len(want))
	}
	if res, err := Sync(ctx, roots, opts); err != nil || res.Committed {
		t.Fatalf("second sync: %+v, %v", res, err)
	}
}

// weatherOptions are the options of a sync of the sample's table weather
// into iot.weather of a SQLite catalog and a warehouse in dir.
func weatherOptions(dir string) Options {
	return Options{
		Table: "weather", To: "iot.weather",
		Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: filepath.Join(dir, "lake"),
	}
}

// sampleCopy copies testdata/iotdb into a new temporary directory dir, as
// dir/iotdb (root), for a test that changes the inputs between syncs.
func sampleCopy(t *testing.T) (dir, root string) {
	t.Helper()
	dir = t.TempDir()
	root = filepath.Join(dir, "iotdb")
	testkit.CopyDir(t, "../testdata/iotdb", root)
	return dir, root
}

// parquetFiles lists the Parquet files under the warehouse.
func parquetFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(dir, "lake"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			out[p] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
