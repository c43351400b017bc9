package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// devCols lists, per device, the columns its points were written to: the
// columns formatRow prints for it, as the reference does.
func devCols(dir *builtDir) map[string][]string {
	set := map[string]map[string]bool{}
	for _, bf := range dir.Files {
		if bf.Spec.Truncate {
			continue // not read
		}
		for _, p := range bf.Points {
			dev := p.Device.String()
			if set[dev] == nil {
				set[dev] = map[string]bool{}
			}
			set[dev][p.Column] = true
		}
	}
	out := map[string][]string{}
	for dev, cs := range set {
		for c := range cs {
			out[dev] = append(out[dev], c)
		}
		sort.Strings(out[dev])
	}
	return out
}

// cellString returns the string of a constant (TAG or device) cell.
func cellString(a arrow.Array, i int) (string, bool) {
	if a.IsNull(i) {
		return "", false
	}
	switch c := a.(type) {
	case *array.Dictionary:
		return c.Dictionary().(*array.String).Value(c.GetValueIndex(i)), true
	case *array.String:
		return c.Value(i), true
	}
	return a.ValueStr(i), true
}

// readDataset reads every table of the directory through Dataset and
// formats the rows as the reference does.
func readDataset(t *testing.T, dir *builtDir, o *arrowconv.Options) refRows {
	t.Helper()
	return readDatasetTables(t, dir, o, false)
}

// mustTables lists the tables of the directory.
func mustTables(t *testing.T, dir *builtDir) []Table {
	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	tables, err := ds.Tables()
	require.NoError(t, err)
	return tables
}

// readDatasetTables is readDataset with the projection cut to the columns
// each table has, and with tablesOnly only the table-model tables (for a
// Where on a TAG).
func readDatasetTables(t *testing.T, dir *builtDir, o *arrowconv.Options, tablesOnly bool) refRows {
	t.Helper()
	return readDatasetWith(t, dir, o, tablesOnly, nil)
}

// readDatasetWith is readDatasetTables with the Dataset's options. A
// table-model device of a table two databases hold is keyed
// "database:device", as the reference keys it.
func readDatasetWith(t *testing.T, dir *builtDir, o *arrowconv.Options, tablesOnly bool, dso *Options) refRows {
	t.Helper()
	ds, err := Open([]string{dir.Root}, dso)
	require.NoError(t, err)
	defer ds.Close()
	cols := devCols(dir)
	tables, err := ds.Tables()
	require.NoError(t, err)
	got := refRows{}
	for _, tb := range tables {
		if tablesOnly && tb.Tree {
			continue
		}
		o := o
		if o != nil && o.Columns != nil {
			s, err := ds.Schema(tb.Ref, nil)
			require.NoError(t, err)
			oo := *o
			oo.Columns = nil
			for _, c := range append([]string{"tag", "device"}, o.Columns...) {
				if len(s.FieldIndices(c)) > 0 {
					oo.Columns = append(oo.Columns, c)
				}
			}
			o = &oo
		}
		rd, err := ds.NewReader(tb.Ref, o)
		require.NoError(t, err, tb.Ref)
		s := rd.Schema()
		var tags []int
		for i, f := range s.Fields() {
			if c, _ := f.Metadata.GetValue(arrowconv.MetaCategory); c == "TAG" || c == "DEVICE" {
				tags = append(tags, i)
			}
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			times := timesOf(rec)
			for row := range times {
				var dev string
				if tb.Tree {
					p, _ := cellString(rec.Column(tags[0]), row)
					dev = tsfile.ParseTreePath(p).String()
				} else {
					segs := []string{tb.Name}
					for _, k := range tags {
						v, _ := cellString(rec.Column(k), row)
						segs = append(segs, v)
					}
					dev = tsfile.NewDeviceID(segs...).String()
				}
				cells := map[string]*int64{}
				names := cols[dev]
				if tb.Ref != tb.Name {
					dev = tb.Database + ":" + dev
				}
				if o != nil && o.Columns != nil {
					names = keepNames(names, o.Columns)
				}
				for _, c := range names {
					idx := s.FieldIndices(c)
					if len(idx) == 0 {
						continue
					}
					a := rec.Column(idx[0]).(*array.Int64)
					if a.IsValid(row) {
						x := a.Value(row)
						cells[c] = &x
					}
				}
				got[dev] = append(got[dev], formatRow(times[row], names, cells))
			}
		}
		require.NoError(t, rd.Err(), tb.Name)
		rd.Release()
	}
	// Files that overlap nothing stream one after another, so a device's
	// rows come in time order within each group of files, not across.
	for dev, rows := range got {
		sort.SliceStable(rows, func(i, j int) bool { return rowTime(rows[i]) < rowTime(rows[j]) })
		got[dev] = rows
	}
	return got
}

// rowTime reads the time back from a formatRow string.
func rowTime(row string) int64 {
	var tm int64
	fmt.Sscanf(row, "t=%d", &tm)
	return tm
}

// keepNames returns the names that are in keep, in names' order.
func keepNames(names, keep []string) []string {
	var out []string
	for _, n := range names {
		for _, k := range keep {
			if n == k {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// parseRow reads a formatRow string back.
func parseRow(row string) (int64, []string, map[string]*int64) {
	fields := strings.Fields(row)
	tm := rowTime(row)
	var names []string
	cells := map[string]*int64{}
	for _, f := range fields[1:] {
		name, val, _ := strings.Cut(f, "=")
		names = append(names, name)
		if val != "-" {
			x, _ := strconv.ParseInt(val, 10, 64)
			cells[name] = &x
		}
	}
	return tm, names, cells
}

// TestDatasetPushdown: projection, time range, devices and limit give the
// rows of the full answer that a query with them must return: the
// reference's rows filtered, a tree row whose projected cells are all null
// dropped (IoTDB's ignoreAllNullRows over the columns queried).
func TestDatasetPushdown(t *testing.T) {
	for seed := uint64(1); seed <= 25; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		dir := buildLayout(t, randomLayout(r, 2+r.IntN(5))...)
		full := reference(t, dir)
		for _, tc := range []struct {
			name string
			o    arrowconv.Options
		}{
			{"columns s1", arrowconv.Options{Columns: []string{"s1"}}},
			{"columns s2 s3", arrowconv.Options{Columns: []string{"s2", "s3", "time"}}},
			{"time 5..12", arrowconv.Options{Time: &arrowconv.TimeRange{Start: 5, End: 12}}},
			{"time 13..13", arrowconv.Options{Time: &arrowconv.TimeRange{Start: 13, End: 13}}},
			{"devices", arrowconv.Options{Devices: []tsfile.DeviceID{tsfile.ParseTreePath("root.db.al"), tsfile.NewDeviceID("t", "b")}}},
			{"where", arrowconv.Options{Where: map[string]string{"tag": "a"}}},
			{"everything", arrowconv.Options{Columns: []string{"s2"}, Time: &arrowconv.TimeRange{Start: 3, End: 20}, BatchSize: 2}},
		} {
			want := refRows{}
			for dev, rows := range full {
				// "db2:t.a" is device t.a of database db2.
				plain := dev[strings.Index(dev, ":")+1:]
				if tc.o.Devices != nil {
					found := false
					for _, d := range tc.o.Devices {
						found = found || d.String() == plain
					}
					if !found {
						continue
					}
				}
				if tc.o.Where != nil && plain != "t.a" {
					continue
				}
				tree := strings.HasPrefix(plain, "root.")
				for _, row := range rows {
					tm, names, cells := parseRow(row)
					if tr := tc.o.Time; tr != nil && (tm < tr.Start || tm > tr.End) {
						continue
					}
					if tc.o.Columns != nil {
						names = keepNames(names, tc.o.Columns)
						any := false
						for _, n := range names {
							any = any || cells[n] != nil
						}
						if tree && !any {
							continue
						}
					}
					want[dev] = append(want[dev], formatRow(tm, names, cells))
				}
			}
			for dev, rows := range want {
				if len(rows) == 0 {
					delete(want, dev)
				}
			}
			got := readDatasetTables(t, dir, &tc.o, tc.o.Where != nil)
			require.Equal(t, want, got, "seed %d: %s", seed, tc.name)
		}
		// Limit: that many rows of the full answer.
		all := 0
		for _, rows := range full {
			all += len(rows)
		}
		for _, limit := range []int64{1, 3, int64(all), int64(all) + 5} {
			got := readDatasetTables(t, dir, &arrowconv.Options{Limit: limit, BatchSize: 2}, false)
			n := 0
			for dev, rows := range got {
				for _, row := range rows {
					require.Contains(t, full[dev], row, "seed %d limit %d", seed, limit)
					n++
				}
			}
			require.LessOrEqual(t, int64(n), limit*int64(len(mustTables(t, dir))), "seed %d", seed)
		}
	}
}

// mediumLayout is a few thousand rows per file: sequence files and
// unsequence files rewriting scattered points and blocks, with nulls, so
// that the merge's long-run and patch paths run (randomLayout's files are
// too small for them).
func mediumLayout(r *rand.Rand) []specFile {
	devT := tsfile.NewDeviceID("t", "a")
	devA := tsfile.ParseTreePath("root.db.al")
	cell := func(nullEvery int) *int64 {
		if r.IntN(nullEvery) == 0 {
			return nil
		}
		return v(int64(r.IntN(1_000_000)))
	}
	group := func(kind groupKind, dev tsfile.DeviceID, times []int64, nullEvery int, cols ...string) specGroup {
		g := specGroup{Kind: kind, Device: dev, Times: times}
		for _, c := range cols {
			sc := specCol{Name: c}
			for range times {
				sc.Vals = append(sc.Vals, cell(nullEvery))
			}
			g.Cols = append(g.Cols, sc)
		}
		return g
	}
	var specs []specFile
	for f := 0; f < 3; f++ {
		var times []int64
		for i := 0; i < 3000; i++ {
			times = append(times, int64(f*3000+i))
		}
		s := specFile{Space: Sequence, Time: int64(f), Version: int64(f + 1), Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
			group(tableGroup, devT, times, 10, "s1", "s2", "s3"),
			group(treeAligned, devA, times, 10, "s1", "s2"),
		}}
		if f == 1 {
			// A large deletion in the middle (the read splits around it)
			// and a small one (filtered after decoding).
			s.ModsV2 = []Deletion{
				{Kind: TableDeletion, Table: "t", Start: 3500, End: 4200},
				{Kind: TreeDeletion, Pattern: ParsePatternMust("root.db.al.**"), Start: 4500, End: 4510},
			}
		}
		specs = append(specs, s)
	}
	for u := 0; u < 2; u++ {
		var times []int64
		for t := int64(r.IntN(50)); t < 9000; t++ {
			switch {
			case r.IntN(20) == 0: // scattered points
				times = append(times, t)
			case r.IntN(400) == 0: // a block
				for e := t + int64(r.IntN(300)); t < e && t < 9000; t++ {
					times = append(times, t)
				}
			}
		}
		s := specFile{Space: Unsequence, Time: int64(10 + u), Version: int64(10 + u), Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
			group(tableGroup, devT, times, 4, "s1", "s2", "s3"),
			group(treeAligned, devA, times, 4, "s1", "s2"),
		}}
		if u == 1 {
			s.ModsV2 = []Deletion{{Kind: TableDeletion, Table: "t", Measurements: []string{"s2"}, Start: 100, End: 4000}}
		}
		specs = append(specs, s)
	}
	return specs
}

// TestDatasetMediumLayouts checks the merge on larger files against the
// reference, with batch sizes that cut runs and windows everywhere.
func TestDatasetMediumLayouts(t *testing.T) {
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		dir := buildLayout(t, mediumLayout(r)...)
		want := reference(t, dir)
		for _, bs := range []int{0, 4096, 1000, 7} {
			require.Equal(t, want, readDataset(t, dir, &arrowconv.Options{BatchSize: bs}), "seed %d batch size %d", seed, bs)
		}
	}
}

// ParsePatternMust parses a pattern known to be valid.
func ParsePatternMust(p string) Pattern {
	pat, err := ParsePattern(p)
	if err != nil {
		panic(err)
	}
	return pat
}

func TestSplitRange(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int64
		rows   []span
		want   []span
	}{
		{0, 999, nil, []span{{0, 999}}},
		{0, 999, []span{{100, 199}}, []span{{0, 99}, {200, 999}}},
		{0, 999, []span{{100, 101}}, []span{{0, 999}}},                                          // small: filtered after decoding
		{0, 999, []span{{0, 199}}, []span{{0, 999}}},                                            // touches an end: narrowing's job
		{math.MinInt64, math.MaxInt64, []span{{-5, 5}}, []span{{math.MinInt64, math.MaxInt64}}}, // 1/64 of 2^64
		{math.MinInt64, math.MaxInt64, []span{{math.MinInt64 + 1, 0}}, []span{{math.MinInt64, math.MinInt64}, {1, math.MaxInt64}}},
	} {
		require.Equal(t, tc.want, splitRange(tc.lo, tc.hi, uint64(tc.hi-tc.lo), tc.rows), "%+v", tc)
	}
	var many []span
	for i := int64(0); i < 40; i++ {
		many = append(many, span{i*200 + 10, i*200 + 160 + i})
	}
	got := splitRange(0, 9999, 9999, many)
	require.Len(t, got, 16, "at most 15 cuts")
	require.Equal(t, span{0, 5009}, got[0], "the largest cuts are kept")
	require.Equal(t, span{39*200 + 160 + 39 + 1, 9999}, got[15])
}

// TestDatasetDeletionSkipsAndCounts: deletions covering parts of a device
// skip what they cover unread (fewer rows decoded than stored), and with
// CountDeletions every deleted row is decoded and counted; the rows are
// the same.
func TestDatasetDeletionSkipsAndCounts(t *testing.T) {
	dev := tsfile.NewDeviceID("t", "a")
	var times []int64
	var vals []*int64
	for i := int64(0); i < 10000; i++ {
		times = append(times, i)
		vals = append(vals, v(i))
	}
	dir := buildLayout(t, specFile{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
		{Kind: tableGroup, Device: dev, Times: times, Cols: []specCol{{Name: "s1", Vals: vals}, {Name: "s2", Vals: vals}, {Name: "s3", Vals: vals}}},
	}, ModsV2: []Deletion{
		{Kind: TableDeletion, Table: "t", Start: 1000, End: 2999},
		{Kind: TableDeletion, Table: "t", Start: 5000, End: 5009},
		{Kind: TableDeletion, Table: "t", Start: 9000, End: math.MaxInt64},
		{Kind: TableDeletion, Table: "t", Measurements: []string{"s2"}, Start: 0, End: 99},
	}})
	read := func(count bool) ReadStats {
		ds, err := Open([]string{dir.Root}, &Options{CountDeletions: count})
		require.NoError(t, err)
		defer ds.Close()
		rd, err := ds.NewReader("t", &arrowconv.Options{BatchSize: 1000})
		require.NoError(t, err)
		defer rd.Release()
		for rd.Next() {
		}
		require.NoError(t, rd.Err())
		return rd.Stats()
	}
	skip, count := read(false), read(true)
	require.Equal(t, int64(6990), skip.RowsOut)
	require.Equal(t, int64(6990), count.RowsOut)
	require.Equal(t, int64(10000), count.RowsRead)
	require.Equal(t, int64(3010), count.RowsDeleted)
	require.Equal(t, int64(100), count.CellsDeleted)
	require.Less(t, skip.RowsRead, int64(10000-2000), "the large deletions' pages are skipped: %+v", skip)
	require.Equal(t, readDataset(t, dir, nil), reference(t, dir))
}

func TestSubtractSpans(t *testing.T) {
	for _, tc := range []struct{ a, b, want []span }{
		{[]span{{0, 10}}, nil, []span{{0, 10}}},
		{[]span{{0, 10}}, []span{{0, 10}}, nil},
		{[]span{{0, 10}}, []span{{3, 4}}, []span{{0, 2}, {5, 10}}},
		{[]span{{0, 10}, {20, 30}}, []span{{5, 25}}, []span{{0, 4}, {26, 30}}},
		{[]span{{0, 10}}, []span{{-5, 2}, {8, 50}}, []span{{3, 7}}},
		{[]span{{math.MinInt64, math.MaxInt64}}, []span{{0, math.MaxInt64}}, []span{{math.MinInt64, -1}}},
	} {
		require.Equal(t, tc.want, subtractSpans(tc.a, tc.b), "%v - %v", tc.a, tc.b)
	}
}

// TestDatasetStatsAddUp: with CountDeletions every row read is returned,
// deleted, overwritten or dropped (a tree row left without a value), so
// inspect's figures add up.
func TestDatasetStatsAddUp(t *testing.T) {
	check := func(t *testing.T, dir *builtDir, what string) {
		ds, err := Open([]string{dir.Root}, &Options{CountDeletions: true})
		require.NoError(t, err)
		defer ds.Close()
		tables, err := ds.Tables()
		require.NoError(t, err)
		for _, tb := range tables {
			rd, err := ds.NewReader(tb.Ref, &arrowconv.Options{BatchSize: 5})
			require.NoError(t, err)
			for rd.Next() {
			}
			require.NoError(t, rd.Err())
			st := rd.Stats()
			rd.Release()
			require.Equal(t, st.RowsRead-st.RowsDeleted-st.RowsOverwritten-st.RowsDropped, st.RowsOut, "%s table %s: %+v", what, tb.Name, st)
		}
	}
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		check(t, buildLayout(t, randomLayout(r, 2+r.IntN(5))...), fmt.Sprintf("seed %d", seed))
	}
	check(t, buildLayout(t, mediumLayout(rand.New(rand.NewPCG(1, 1)))...), "medium")
}

// TestReadStatsAdd: Add sums every field (a field left out would be a
// count lost between the tables of a partitioned conversion).
func TestReadStatsAdd(t *testing.T) {
	var one ReadStats
	v := reflect.ValueOf(&one).Elem()
	for i := 0; i < v.NumField(); i++ {
		v.Field(i).SetInt(int64(i + 1))
	}
	sum := one
	sum.Add(one)
	w := reflect.ValueOf(sum)
	for i := 0; i < w.NumField(); i++ {
		require.Equal(t, int64(2*(i+1)), w.Field(i).Int(), v.Type().Field(i).Name)
	}
}

// TestDatasetConcurrentReaders: readers of one Dataset run at once (a
// Flight server's streams) and each returns the reference's rows; run
// under the race detector in CI.
func TestDatasetConcurrentReaders(t *testing.T) {
	dir := buildLayout(t, mediumLayout(rand.New(rand.NewPCG(2, 2)))...)
	want := reference(t, dir)
	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	count := func(table string) (int64, error) {
		rd, err := ds.NewReader(table, &arrowconv.Options{BatchSize: 500})
		if err != nil {
			return 0, err
		}
		defer rd.Release()
		var n int64
		for rd.Next() {
			n += rd.RecordBatch().NumRows()
		}
		return n, rd.Err()
	}
	wantRows := map[string]int64{"t": int64(len(want["t.a"])), "root.db": int64(len(want["root.db.al"]))}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		table := []string{"t", "root.db"}[g%2]
		go func() {
			n, err := count(table)
			if err == nil && n != wantRows[table] {
				err = fmt.Errorf("table %s: %d rows, want %d", table, n, wantRows[table])
			}
			errs <- err
		}()
	}
	for g := 0; g < 8; g++ {
		require.NoError(t, <-errs)
	}
}
