package icesync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go/table"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// day0 is 2026-01-01 as Iceberg's day transform numbers it, the first day
// of testdata/iotdb.
const day0 = 1767225600000 / msPerDay

// weatherFile writes a data file of table weather (the schema of
// testdata/iotdb) at path with our TsFile writer, and its .resource: for
// each device "region/plant" the given times, temperature base+i.
func weatherFile(t *testing.T, path string, devices []string, times []int64, base float64) {
	t.Helper()
	ref, err := tsfile.OpenFile("../testdata/iotdb/sequence/weather/1/1/1767312000000-4-0-0.tsfile", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := ref.SchemaOf("weather")
	ref.Close()
	if !ok {
		t.Fatal("no weather schema in testdata")
	}
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RegisterTable(*sc); err != nil {
		t.Fatal(err)
	}
	res := &dataset.Resource{IndexType: dataset.IndexArray}
	for _, d := range devices {
		region, plant, _ := strings.Cut(d, "/")
		dev := tsfile.NewDeviceID("weather", region, plant)
		n := len(times)
		temp := tsfile.Values{Type: tsfile.Double, Float64s: make([]float64, n), Null: make([]bool, n)}
		hum := tsfile.Values{Type: tsfile.Float, Float32s: make([]float32, n), Null: make([]bool, n)}
		st := tsfile.Values{Type: tsfile.Text, Binaries: make([][]byte, n), Null: make([]bool, n)}
		for i := range times {
			temp.Float64s[i] = base + float64(i)
			hum.Float32s[i] = 50
			st.Binaries[i] = []byte("ok")
		}
		err := w.WriteAligned(dev, times, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "temperature", DataType: tsfile.Double}, Values: temp},
			{SeriesSchema: tsfile.SeriesSchema{Name: "humidity", DataType: tsfile.Float}, Values: hum},
			{SeriesSchema: tsfile.SeriesSchema{Name: "status", DataType: tsfile.Text}, Values: st},
		})
		if err != nil {
			t.Fatal(err)
		}
		res.Devices = append(res.Devices, dataset.DeviceTimes{Device: dev, Start: slices.Min(times), End: slices.Max(times)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rb, err := res.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+dataset.ResourceSuffix, rb, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hours returns n times an hour apart from the start of day d.
func hours(d int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = d*msPerDay + int64(i)*3600_000
	}
	return out
}

// addDeletion appends a table deletion of [start, end] to a data file's
// .mods2 (dataset.AppendModsV2, the writer dataset's tests use).
func addDeletion(t *testing.T, data string, start, end int64) {
	t.Helper()
	mods := data + dataset.ModsV2Suffix
	old, err := os.ReadFile(mods)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	b, err := dataset.AppendModsV2(old, dataset.Deletion{Kind: dataset.TableDeletion, Table: "weather", Start: start, End: end})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mods, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// bucketList lists the buckets of runs.
func bucketList(runs []Run) []int64 {
	var out []int64
	for _, r := range runs {
		for b := r.From; b <= r.To; b++ {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// liveFiles maps the table's current data files to their day.
func liveFiles(t *testing.T, tbl *table.Table) map[string]int64 {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spec := tbl.Spec()
	fid := spec.Field(0).FieldID
	out := map[string]int64{}
	for _, task := range tasks {
		d, ok := partitionDay(task.File, fid)
		if !ok {
			t.Fatalf("%s: no day", task.File.FilePath())
		}
		out[task.File.FilePath()] = d
	}
	return out
}

// TestSyncIncrementalEndToEnd: sync; a new sequence file of a new day is
// appended (no day rewritten); a sync with nothing new commits nothing;
// a .mods2 deletion in one day and an unsequence file overwriting points of
// another rewrite exactly those two days (the third day's data file stays)
// and the rows equal convert's (the dataset reader's) for the same inputs.
func TestSyncIncrementalEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir, root := sampleCopy(t)
	opts := weatherOptions(dir)
	check := func(step string) *table.Table {
		t.Helper()
		tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
		if got, want := scanRows(t, tbl), wantRows(t, []string{root}, "weather"); !slices.Equal(got, want) {
			t.Fatalf("%s: the table has %d rows, convert %d", step, len(got), len(want))
		}
		return tbl
	}
	if _, err := Sync(ctx, []string{root}, opts); err != nil {
		t.Fatal(err)
	}
	before := liveFiles(t, check("first sync"))

	// A flush of 2026-01-03, after every synced point: appended.
	seq := filepath.Join(root, "sequence/weather/1/1/1767398400000-5-0-0.tsfile")
	weatherFile(t, seq, []string{"north/p1", "south/p2"}, hours(day0+2, 24), 30)
	// And a new device on 2026-01-02, a day with synced rows of others:
	// appended too, read from the new files alone.
	east := filepath.Join(root, "sequence/weather/1/1/1767312000000-7-0-0.tsfile")
	weatherFile(t, east, []string{"east/p3"}, hours(day0+1, 24), 60)
	res, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tbl := check("append")
	if !res.Committed || res.Removed != 0 || len(res.Rewritten) != 0 || !slices.Equal(bucketList(res.Appended), []int64{day0 + 1, day0 + 2}) || res.Rows != 72 {
		t.Fatalf("sync of a new day: %+v", res)
	}
	if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpAppend {
		t.Fatalf("operation %s, want append", op)
	}
	afterAppend := liveFiles(t, tbl)
	for p := range before {
		if _, ok := afterAppend[p]; !ok {
			t.Errorf("the append took %s out", p)
		}
	}
	if len(afterAppend) != len(before)+2 {
		t.Fatalf("%d data files after the append, want %d", len(afterAppend), len(before)+2)
	}
	var delta []Source
	if err := json.Unmarshal([]byte(tbl.CurrentSnapshot().Summary.Properties[SummaryDelta]), &delta); err != nil {
		t.Fatal(err)
	}
	if len(delta) != 2 || delta[0].Name != "sequence/weather/1/1/1767312000000-7-0-0.tsfile" || delta[1].Name != "sequence/weather/1/1/1767398400000-5-0-0.tsfile" || delta[1].Change != "new" || delta[1].Size == 0 {
		t.Fatalf("delta %+v", delta)
	}

	// Nothing new.
	snaps := len(tbl.Metadata().Snapshots())
	res, err = Sync(ctx, []string{root}, opts)
	if err != nil || res.Committed || res.DataFiles != 0 {
		t.Fatalf("sync with nothing new: %+v, %v", res, err)
	}
	if n := len(loadTable(t, opts.Catalog, opts.Warehouse, opts.To).Metadata().Snapshots()); n != snaps {
		t.Fatalf("%d snapshots after a sync with nothing new, want %d", n, snaps)
	}

	// A deletion on 2026-01-02 (03:00..05:00) in the .mods2 of its file,
	// and an unsequence file overwriting 2026-01-03 06:00..09:00 of north.
	addDeletion(t, filepath.Join(root, "sequence/weather/1/1/1767312000000-4-0-0.tsfile"), 1767322800000, 1767330000000)
	weatherFile(t, filepath.Join(root, "unsequence/weather/1/1/1767420000000-6-0-0.tsfile"), []string{"north/p1"}, hours(day0+2, 10)[6:], 99)
	want := wantRows(t, []string{root}, "weather")
	if !slices.ContainsFunc(want, func(r string) bool { return strings.Contains(r, "temperature=99|") }) {
		t.Fatal("the unsequence file overwrites nothing convert sees")
	}
	res, err = Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tbl = check("deletion and overwrite")
	if !res.Committed || !slices.Equal(bucketList(res.Rewritten), []int64{day0 + 1, day0 + 2}) || len(res.Appended) != 0 || res.Removed != 3 {
		t.Fatalf("sync of a deletion and an overwrite: %+v", res)
	}
	if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpOverwrite {
		t.Fatalf("operation %s, want overwrite", op)
	}
	after := liveFiles(t, tbl)
	for p, d := range afterAppend {
		_, kept := after[p]
		if kept != (d == day0) {
			t.Errorf("data file %s of day %d: kept %v; only day %d's should stay", p, d-day0, kept, 0)
		}
	}
	if err := json.Unmarshal([]byte(tbl.CurrentSnapshot().Summary.Properties[SummaryDelta]), &delta); err != nil {
		t.Fatal(err)
	}
	var changes []string
	for _, s := range delta {
		changes = append(changes, s.Change+" "+s.Name)
	}
	wantChanges := []string{"mods sequence/weather/1/1/1767312000000-4-0-0.tsfile", "new unsequence/weather/1/1/1767420000000-6-0-0.tsfile"}
	if !slices.Equal(changes, wantChanges) {
		t.Fatalf("delta %q, want %q", changes, wantChanges)
	}
	// The state the property names lists every source file, and only the
	// current state file is left.
	loc := tbl.Properties()[stateProp(res.Writer)]
	if loc == "" || tbl.CurrentSnapshot().Summary.Properties[SummaryState] != loc {
		t.Fatalf("state property %q, summary %q", loc, tbl.CurrentSnapshot().Summary.Properties[SummaryState])
	}
	fsys, _ := tbl.FS(ctx)
	st, _, err := loadState(fsys, tbl, res.Writer)
	if err != nil || len(st.Files) != 7 {
		t.Fatalf("state: %v, %v", st, err)
	}
	states, _ := filepath.Glob(filepath.Join(strings.TrimPrefix(loc, "file://"), "..", "*"))
	if len(states) != 1 {
		t.Fatalf("state files %v, want the current one only", states)
	}
}

// TestSyncStateMissing: a writer whose state file is gone is refused
// rather than appending what the table holds again.
func TestSyncStateMissing(t *testing.T) {
	ctx := context.Background()
	dir, root := sampleCopy(t)
	opts := weatherOptions(dir)
	res, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if err := os.Remove(strings.TrimPrefix(tbl.Properties()[stateProp(res.Writer)], "file://")); err != nil {
		t.Fatal(err)
	}
	weatherFile(t, filepath.Join(root, "sequence/weather/1/1/1767398400000-5-0-0.tsfile"), []string{"north/p1"}, hours(day0+2, 3), 30)
	if _, err := Sync(ctx, []string{root}, opts); err == nil || !strings.Contains(err.Error(), ErrStateMissing.Error()) {
		t.Fatalf("sync without its state: %v, want %v", err, ErrStateMissing)
	}
}

// writerDir lays out a data directory of its own data region: region r of
// database weather, devices r<r>/p1 and r<r>/p2, days 0 and 1 in sequence
// files, an unsequence file overwriting part of day 1.
func writerDir(t *testing.T, root string, r int) {
	t.Helper()
	devs := []string{fmt.Sprintf("r%d/p1", r), fmt.Sprintf("r%d/p2", r)}
	base := filepath.Join(root, "sequence", "weather", fmt.Sprint(r), "0")
	weatherFile(t, filepath.Join(base, "1767225600000-1-0-0.tsfile"), devs, hours(day0, 24), float64(r*100))
	weatherFile(t, filepath.Join(base, "1767312000000-2-0-0.tsfile"), devs, hours(day0+1, 24), float64(r*100+40))
	un := filepath.Join(root, "unsequence", "weather", fmt.Sprint(r), "0", "1767315600000-3-0-0.tsfile")
	weatherFile(t, un, devs[:1], hours(day0+1, 5)[2:], float64(r*100+90))
}

// barrier makes the first commit attempt of k syncs wait until all k
// have planned, so that all of them plan on the same table and all but one
// lose the race: the retries are certain, not left to timing.
func barrier(t *testing.T, k int) {
	var wg sync.WaitGroup
	wg.Add(k)
	testBeforeCommit = func(attempt int) {
		if attempt == 0 {
			wg.Done()
			wg.Wait()
		}
	}
	t.Cleanup(func() { testBeforeCommit = nil })
}

// TestSyncManyWriters runs four syncs at once, each over its own data
// directory (its own region) into one table on the SQLite catalog, twice:
// a first sync, then after each directory gained a file and a deletion.
// Each time the table holds exactly the union of the directories' rows
// and every sync's ID is in exactly one snapshot. A writer syncing a
// region another writer claimed is refused, naming both.
func TestSyncManyWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const writers = 4
	var roots []string
	for i := range writers {
		root := filepath.Join(dir, fmt.Sprintf("node%d", i))
		writerDir(t, root, i+1)
		roots = append(roots, root)
	}
	opts := Options{
		Table: "weather", To: "iot.weather",
		Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: filepath.Join(dir, "lake"),
		Retry: RetryPolicy{MaxAttempts: 50},
	}
	round := func(name string) {
		t.Helper()
		barrier(t, writers)
		results := make([]*Result, writers)
		errs := make([]error, writers)
		done := make(chan int)
		for i := range writers {
			go func() {
				o := opts
				o.Writer = fmt.Sprintf("node%d", i)
				results[i], errs[i] = Sync(ctx, []string{roots[i]}, o)
				done <- i
			}()
		}
		for range writers {
			<-done
		}
		tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
		var want []string
		for i := range writers {
			if errs[i] != nil {
				t.Fatalf("%s: writer %d: %v", name, i, errs[i])
			}
			if !results[i].Committed {
				t.Fatalf("%s: writer %d committed nothing: %+v", name, i, results[i])
			}
			n := 0
			for _, s := range tbl.Metadata().Snapshots() {
				if s.Summary != nil && s.Summary.Properties[SummarySyncID] == results[i].SyncID {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: sync %s of writer %d is in %d snapshots", name, results[i].SyncID, i, n)
			}
			want = append(want, wantRows(t, []string{roots[i]}, "weather")...)
			if owner := tbl.Properties()[PropRegionPrefix+"weather."+fmt.Sprint(i+1)]; owner != fmt.Sprintf("node%d", i) {
				t.Errorf("region %d claimed by %q", i+1, owner)
			}
		}
		attempts := 0
		for _, r := range results {
			attempts += r.Attempts
		}
		if attempts < 2*writers-1 {
			t.Fatalf("%s: %d commit attempts; the barrier should have made %d lose once", name, attempts, writers-1)
		}
		slices.Sort(want)
		if got := scanRows(t, tbl); !slices.Equal(got, want) {
			t.Fatalf("%s: the table has %d rows, the union of the directories %d", name, len(got), len(want))
		}
		if got, all := len(want), wantRows(t, roots, "weather"); got != len(all) {
			t.Fatalf("%s: the directories overlap: union %d, convert of all %d", name, got, len(all))
		}
	}
	round("first syncs")
	for i, root := range roots {
		devs := []string{fmt.Sprintf("r%d/p1", i+1)}
		weatherFile(t, filepath.Join(root, "sequence", "weather", fmt.Sprint(i+1), "0", "1767398400000-4-0-0.tsfile"), devs, hours(day0+2, 12), 7)
		addDeletion(t, filepath.Join(root, "sequence", "weather", fmt.Sprint(i+1), "0", "1767225600000-1-0-0.tsfile"), day0*msPerDay+3600_000, day0*msPerDay+5*3600_000)
	}
	round("incremental syncs")
	testBeforeCommit = nil

	// Writer node1 given node0's directory: its region is node0's.
	o := opts
	o.Writer = "node1"
	_, err := Sync(ctx, []string{roots[0]}, o)
	if err == nil || !strings.Contains(err.Error(), ErrRegionClaimed.Error()) || !strings.Contains(err.Error(), `"node0"`) || !strings.Contains(err.Error(), `"node1"`) {
		t.Fatalf("a writer syncing another's region: %v", err)
	}
	o.TakeOver = true
	if _, err := Sync(ctx, []string{roots[0]}, o); err == nil || !strings.Contains(err.Error(), "still holds") {
		t.Fatalf("taking over a region whose owner holds its rows: %v", err)
	}

	// A region moves from node0 to node1: node0 syncs without it (its
	// rows go), then node1 takes it over; the table is the union again.
	writerDir(t, roots[0], 9)
	o.Writer, o.TakeOver = "node0", false
	if _, err := Sync(ctx, []string{roots[0]}, o); err != nil {
		t.Fatal(err)
	}
	for _, space := range []string{"sequence", "unsequence"} {
		if err := os.Rename(filepath.Join(roots[0], space, "weather", "9"), filepath.Join(roots[1], space, "weather", "9")); err != nil {
			t.Fatal(err)
		}
	}
	o.Writer = "node1"
	if _, err := Sync(ctx, []string{roots[1]}, o); err == nil || !strings.Contains(err.Error(), ErrRegionClaimed.Error()) {
		t.Fatalf("syncing a moved region without --take-over: %v", err)
	}
	o.TakeOver = true
	if _, err := Sync(ctx, []string{roots[1]}, o); err == nil || !strings.Contains(err.Error(), "still holds") {
		t.Fatalf("taking over before the old owner dropped the region: %v", err)
	}
	o.Writer, o.TakeOver = "node0", false
	if _, err := Sync(ctx, []string{roots[0]}, o); err != nil {
		t.Fatal(err)
	}
	o.Writer, o.TakeOver = "node1", true
	if _, err := Sync(ctx, []string{roots[1]}, o); err != nil {
		t.Fatal(err)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if owner := tbl.Properties()[PropRegionPrefix+"weather.9"]; owner != "node1" {
		t.Fatalf("region 9 owned by %q after the take-over", owner)
	}
	if got, want := scanRows(t, tbl), wantRows(t, roots, "weather"); !slices.Equal(got, want) {
		t.Fatalf("after the take-over the table has %d rows, convert of all directories %d", len(got), len(want))
	}
}

// TestSyncSameWriterTwice runs the same sync twice at once (a cron job
// that overlaps itself), on a new table and after a change: the rows are
// never doubled, one of the two commits and the other finds nothing to
// do, and no data file is left that no snapshot holds.
func TestSyncSameWriterTwice(t *testing.T) {
	ctx := context.Background()
	dir, root := sampleCopy(t)
	opts := weatherOptions(dir)
	twice := func(name string) {
		t.Helper()
		barrier(t, 2)
		var res [2]*Result
		var errs [2]error
		done := make(chan bool)
		for i := range 2 {
			go func() {
				res[i], errs[i] = Sync(ctx, []string{root}, opts)
				done <- true
			}()
		}
		<-done
		<-done
		for i := range 2 {
			if errs[i] != nil {
				t.Fatalf("%s: run %d: %v", name, i, errs[i])
			}
		}
		tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
		if got, want := scanRows(t, tbl), wantRows(t, []string{root}, "weather"); !slices.Equal(got, want) {
			t.Fatalf("%s: the table has %d rows, convert %d", name, len(got), len(want))
		}
		if res[0].Committed == res[1].Committed || res[0].Attempts+res[1].Attempts != 3 {
			t.Fatalf("%s: %+v and %+v; want one commit, and the other run planning again and finding nothing", name, res[0], res[1])
		}
		live := map[string]bool{}
		for _, s := range tbl.Metadata().Snapshots() {
			for _, p := range mustPlan(t, tbl, s.SnapshotID) {
				live[strings.TrimPrefix(p, "file://")] = true
			}
		}
		for p := range parquetFiles(t, dir) {
			if !live[p] {
				t.Errorf("%s: data file %s in no snapshot", name, p)
			}
		}
	}
	twice("first sync")
	addDeletion(t, filepath.Join(root, "sequence/weather/1/1/1767312000000-4-0-0.tsfile"), 1767322800000, 1767330000000)
	weatherFile(t, filepath.Join(root, "sequence/weather/1/1/1767398400000-5-0-0.tsfile"), []string{"north/p1"}, hours(day0+2, 6), 30)
	twice("after a change")
}
