package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Tests of the reference (refmodel_test.go) and the builder
// (layout_builder_test.go) against rows written by hand from
// docs/iotdb-rules.md, so that the reference can be trusted to check the
// merge reader.

// treeSeries is a non-aligned group of one device with one series s.
func treeSeries(dev string, times []int64, vals ...int64) specGroup {
	g := specGroup{Kind: treeNonAlign, Device: tsfile.ParseTreePath(dev), Times: times, Cols: []specCol{{Name: "s"}}}
	for _, x := range vals {
		g.Cols[0].Vals = append(g.Cols[0].Vals, v(x))
	}
	return g
}

// tableT is table t(tag, s1, s2, s3) with INT64 fields.
var tableT = tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
	{Name: "tag", DataType: tsfile.String, Category: tsfile.Tag},
	{Name: "s1", DataType: tsfile.Int64, Category: tsfile.Field},
	{Name: "s2", DataType: tsfile.Int64, Category: tsfile.Field},
	{Name: "s3", DataType: tsfile.Int64, Category: tsfile.Field},
}}

func tableRow(dev tsfile.DeviceID, tm int64, s1, s2, s3 *int64) specGroup {
	return specGroup{Kind: tableGroup, Device: dev, Times: []int64{tm}, Cols: []specCol{
		{Name: "s1", Vals: []*int64{s1}}, {Name: "s2", Vals: []*int64{s2}}, {Name: "s3", Vals: []*int64{s3}},
	}}
}

func TestReferenceHandWritten(t *testing.T) {
	devT := tsfile.NewDeviceID("t", "a")
	for _, tc := range []struct {
		name  string
		files []specFile
		want  refRows
	}{{
		name: "disjoint files",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Groups: []specGroup{treeSeries("root.db.d", []int64{1, 2}, 10, 20)}},
			{Space: Sequence, Time: 2, Version: 2, Groups: []specGroup{treeSeries("root.db.d", []int64{3, 4}, 30, 40)}},
			{Space: Unsequence, Time: 3, Version: 3, Groups: []specGroup{treeSeries("root.db.e", []int64{1}, 5)}},
		},
		want: refRows{
			"root.db.d": {"t=1 s=10", "t=2 s=20", "t=3 s=30", "t=4 s=40"},
			"root.db.e": {"t=1 s=5"},
		},
	}, {
		// docs/iotdb-rules.md 1a's example: unseq beats both seq copies.
		name: "identical times seq vs unseq",
		files: []specFile{
			{Space: Sequence, Time: 100, Version: 3, Groups: []specGroup{treeSeries("root.db.d", []int64{1, 2}, 10, 20)}},
			{Space: Sequence, Time: 90, Version: 7, Groups: []specGroup{treeSeries("root.db.d", []int64{2}, 21)}},
			{Space: Unsequence, Time: 50, Version: 1, Groups: []specGroup{treeSeries("root.db.d", []int64{2, 3}, 22, 30)}},
		},
		want: refRows{"root.db.d": {"t=1 s=10", "t=2 s=22", "t=3 s=30"}},
	}, {
		// Without the unseq file the higher version wins over the higher time.
		name: "seq version beats seq time",
		files: []specFile{
			{Space: Sequence, Time: 100, Version: 3, Groups: []specGroup{treeSeries("root.db.d", []int64{1, 2}, 10, 20)}},
			{Space: Sequence, Time: 90, Version: 7, Groups: []specGroup{treeSeries("root.db.d", []int64{2}, 21)}},
		},
		want: refRows{"root.db.d": {"t=1 s=10", "t=2 s=21"}},
	}, {
		name: "point rewritten three times",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Groups: []specGroup{treeSeries("root.db.d", []int64{5, 6}, 1, 60)}},
			{Space: Unsequence, Time: 3, Version: 3, Groups: []specGroup{treeSeries("root.db.d", []int64{5}, 3)}},
			{Space: Unsequence, Time: 2, Version: 2, Groups: []specGroup{treeSeries("root.db.d", []int64{5}, 2)}},
		},
		want: refRows{"root.db.d": {"t=5 s=3", "t=6 s=60"}},
	}, {
		// Two flushes into one unsequence file: the later chunk group (at
		// the larger offset) wins, cell by cell, although it starts
		// earlier; the sequence copy fills what both leave null.
		name: "two flushes into one file",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, v(1), v(2), v(3))}},
			{Space: Unsequence, Time: 2, Version: 2, Tables: []tsfile.TableSchema{tableT}, Overlapping: true, Groups: []specGroup{
				{Kind: tableGroup, Device: devT, Times: []int64{5, 6}, Cols: []specCol{
					{Name: "s1", Vals: []*int64{v(10), v(60)}}, {Name: "s2", Vals: []*int64{nil, v(61)}}, {Name: "s3", Vals: []*int64{nil, nil}}}},
				{Kind: tableGroup, Device: devT, Times: []int64{4, 5}, Cols: []specCol{
					{Name: "s1", Vals: []*int64{v(40), v(11)}}, {Name: "s2", Vals: []*int64{nil, nil}}, {Name: "s3", Vals: []*int64{nil, nil}}}},
			}},
		},
		want: refRows{"t.a": {"t=4 s1=40 s2=- s3=-", "t=5 s1=11 s2=2 s3=3", "t=6 s1=60 s2=61 s3=-"}},
	}, {
		// docs/iotdb-rules.md 2a's example, cell by cell.
		name: "aligned row with nulls overwritten",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, nil, v(2), v(3))}},
			{Space: Unsequence, Time: 2, Version: 2, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, v(10), nil, v(30))}},
		},
		want: refRows{"t.a": {"t=5 s1=10 s2=2 s3=30"}},
	}, {
		name: "aligned row with nulls overwritten twice",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, nil, v(2), v(3))}},
			{Space: Unsequence, Time: 2, Version: 2, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, v(10), nil, v(30))}},
			{Space: Unsequence, Time: 3, Version: 3, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, nil, nil, v(99))}},
		},
		want: refRows{"t.a": {"t=5 s1=10 s2=2 s3=99"}},
	}, {
		// 2a: a cell deleted in the newer file is filled from an older
		// file whose own mods do not delete it (3a).
		name: "deletion is per file",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, v(1), v(2), v(3))}},
			{Space: Unsequence, Time: 2, Version: 2, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(devT, 5, v(10), v(20), v(30))},
				ModsV2: []Deletion{{Kind: TableDeletion, Table: "t", Measurements: []string{"s2"}, Start: 0, End: 10}}},
		},
		want: refRows{"t.a": {"t=5 s1=10 s2=2 s3=30"}},
	}, {
		// 6: a tag predicate and a measurement list; the table row whose
		// fields are all deleted stays (2c); an empty list deletes rows.
		name: "v2 table deletion with predicate and columns",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
				{Kind: tableGroup, Device: tsfile.NewDeviceID("t", "north"), Times: []int64{7, 60, 100}, Cols: []specCol{
					{Name: "s1", Vals: []*int64{v(1), v(2), v(3)}}, {Name: "s2", Vals: []*int64{nil, v(5), v(6)}}, {Name: "s3", Vals: []*int64{v(7), v(8), v(9)}}}},
				{Kind: tableGroup, Device: tsfile.NewDeviceID("t", "south"), Times: []int64{7, 100}, Cols: []specCol{
					{Name: "s1", Vals: []*int64{v(11), v(13)}}, {Name: "s2", Vals: []*int64{v(14), v(16)}}, {Name: "s3", Vals: []*int64{v(17), v(19)}}}},
			}, ModsV2: []Deletion{
				{Kind: TableDeletion, Table: "t", Start: 0, End: 50, Measurements: []string{"s1", "s3"},
					Predicate: TagPredicate{Kind: PredAnd, And: []TagPredicate{{Kind: PredSegmentExactMatch, Segment: 1, Value: "north"}, {Kind: PredSegmentNotNull, Segment: 1}}}},
				{Kind: TableDeletion, Table: "t", Start: 100, End: 100},
				{Kind: TableDeletion, Table: "other", Start: math.MinInt64, End: math.MaxInt64},
			}},
		},
		want: refRows{
			"t.north": {"t=7 s1=- s2=- s3=-", "t=60 s1=2 s2=5 s3=8"},
			"t.south": {"t=7 s1=11 s2=14 s3=17"},
		},
	}, {
		// 5: ** takes one or more nodes, * exactly one.
		name: "tree pattern deletion",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Groups: []specGroup{
				treeSeries("root.db.d1", []int64{1, 200}, 1, 2),
				treeSeries("root.db.a.b", []int64{1, 200}, 3, 4),
				{Kind: treeNonAlign, Device: tsfile.ParseTreePath("root.db.d2"), Times: []int64{1}, Cols: []specCol{{Name: "s", Vals: []*int64{v(5)}}, {Name: "x", Vals: []*int64{v(6)}}}},
			}, ModsV2: []Deletion{
				{Kind: TreeDeletion, Pattern: mustPattern(t, "root.db.**"), Start: 0, End: 100},
			}},
			{Space: Sequence, Time: 2, Version: 2, DB: "root.other", Groups: []specGroup{
				treeSeries("root.other.d1", []int64{1}, 7),
				treeSeries("root.other.a.b", []int64{1}, 8),
			}, ModsV2: []Deletion{
				{Kind: TreeDeletion, Pattern: mustPattern(t, "root.other.*.s"), Start: 0, End: 100},
				{Kind: TreeDeletion, Pattern: mustPattern(t, "root.other.**"), Start: 200, End: 300},
			}},
		},
		want: refRows{
			"root.db.d1":     {"t=200 s=2"},
			"root.db.a.b":    {"t=200 s=4"},
			"root.other.a.b": {"t=1 s=8"},
		},
	}, {
		// 2c: a tree aligned row whose cells are all deleted goes; the
		// same deletion in table form keeps the row.
		name: "all-null rows tree vs table",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
				{Kind: treeAligned, Device: tsfile.ParseTreePath("root.db.al"), Times: []int64{7, 20, 30}, Cols: []specCol{
					{Name: "s1", Vals: []*int64{v(1), v(2), nil}}, {Name: "s2", Vals: []*int64{v(3), nil, nil}}}},
				tableRow(devT, 7, v(1), v(2), nil),
			}, ModsV2: []Deletion{
				{Kind: TreeDeletion, Pattern: mustPattern(t, "root.db.al.s1"), Start: 0, End: 10},
				{Kind: TreeDeletion, Pattern: mustPattern(t, "root.db.al.s2"), Start: 0, End: 10},
				{Kind: TableDeletion, Table: "t", Measurements: []string{"s1", "s2"}, Start: 0, End: 10},
			}},
		},
		want: refRows{
			"root.db.al": {"t=20 s1=2 s2=-"},
			"t.a":        {"t=7 s1=- s2=- s3=-"},
		},
	}, {
		// 3d: v2 ranges are closed; v1 opens a bound at MinInt64/MaxInt64.
		name: "closed and open ranges",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Groups: []specGroup{treeSeries("root.db.d", []int64{4, 5, 6}, 4, 5, 6)},
				ModsV2: []Deletion{{Kind: TreeDeletion, Pattern: mustPattern(t, "root.db.d.s"), Start: 5, End: 5}}},
			{Space: Sequence, Time: 2, Version: 2, Groups: []specGroup{treeSeries("root.db.e", []int64{1, 9}, 1, 9)},
				ModsV1: []Deletion{{Kind: TreeDeletion, Version: ModsV1, Pattern: mustPattern(t, "root.db.e.s"), FileOffset: math.MaxInt64, Start: math.MinInt64, End: 1, OpenStart: true}}},
		},
		want: refRows{"root.db.d": {"t=4 s=4", "t=6 s=6"}, "root.db.e": {"t=9 s=9"}},
	}, {
		// 3d/5: root.db.al.* also names the time column "" of the aligned
		// device, so whole rows go; root.db.al.s1 only nulls s1.
		name: "tree aligned time column deletion",
		files: []specFile{
			{Space: Sequence, Time: 1, Version: 1, Groups: []specGroup{
				{Kind: treeAligned, Device: tsfile.ParseTreePath("root.db.al"), Times: []int64{1, 2, 3}, Cols: []specCol{
					{Name: "s1", Vals: []*int64{v(1), v(2), v(3)}}, {Name: "s2", Vals: []*int64{v(4), v(5), v(6)}}}},
			}, ModsV2: []Deletion{
				{Kind: TreeDeletion, Pattern: mustPattern(t, "root.db.al.*"), Start: 1, End: 1},
				{Kind: TreeDeletion, Pattern: mustPattern(t, "root.db.al.s1"), Start: 2, End: 2},
			}},
			{Space: Unsequence, Time: 2, Version: 2, Groups: []specGroup{
				{Kind: treeAligned, Device: tsfile.ParseTreePath("root.db.al"), Times: []int64{3}, Cols: []specCol{
					{Name: "s1", Vals: []*int64{nil}}, {Name: "s2", Vals: []*int64{v(60)}}}},
			}},
		},
		want: refRows{"root.db.al": {"t=2 s1=- s2=5", "t=3 s1=3 s2=60"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := buildLayout(t, tc.files...)
			require.Equal(t, tc.want, reference(t, dir))
			require.Equal(t, tc.want, readDataset(t, dir, nil), "Dataset")
			require.Equal(t, tc.want, readDataset(t, dir, &arrowconv.Options{BatchSize: 1}), "Dataset, batches of one row")
		})
	}
}

// TestReferenceV1OffsetRule: docs/iotdb-rules.md 3b. A v1 deletion hits the
// chunks whose header offset is strictly below its FileOffset.
func TestReferenceV1OffsetRule(t *testing.T) {
	// TsFile v3: a directory of IoTDB 1.x, whose rule ModsV1Auto follows.
	spec := specFile{Space: Sequence, Time: 1, Version: 1, V3: true, Groups: []specGroup{
		treeSeries("root.db.d", []int64{10, 50}, 1, 5),
		treeSeries("root.db.d", []int64{60, 90}, 6, 9),
	}}
	// A first build tells where the second chunk starts; the writer is
	// deterministic, so the second build puts it at the same offset.
	probe := buildLayout(t, spec)
	second := probe.Files[0].Points[2].Chunk
	require.Equal(t, int64(60), probe.Files[0].Points[2].Time)
	require.Greater(t, second, probe.Files[0].Points[0].Chunk)

	for _, tc := range []struct {
		name   string
		offset int64
		want   []string
	}{
		{"below the second chunk", second, []string{"t=60 s=6", "t=90 s=9"}},
		{"just past its header", second + 1, nil},
		{"whole file", math.MaxInt64, nil},
		{"before every chunk", 0, []string{"t=10 s=1", "t=50 s=5", "t=60 s=6", "t=90 s=9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec
			s.ModsV1 = []Deletion{{Kind: TreeDeletion, Version: ModsV1, Pattern: mustPattern(t, "root.db.d.s"), FileOffset: tc.offset, Start: 0, End: 100}}
			dir := buildLayout(t, s)
			require.Equal(t, second, dir.Files[0].Points[2].Chunk)
			want := refRows{}
			if tc.want != nil {
				want["root.db.d"] = tc.want
			}
			require.Equal(t, want, reference(t, dir))
			require.Equal(t, want, readDataset(t, dir, nil), "Dataset")
		})
	}

	// 3c: with a .mods2 beside it (an interrupted 2.x upgrade) the .mods2
	// is read, here empty: nothing is deleted.
	s := spec
	s.ModsV1 = []Deletion{{Kind: TreeDeletion, Version: ModsV1, Pattern: mustPattern(t, "root.db.d.s"), FileOffset: math.MaxInt64, Start: 0, End: 100}}
	s.WriteEmptyV2 = true
	dir := buildLayout(t, s)
	require.Len(t, reference(t, dir)["root.db.d"], 4)
}

// TestBuilderLayout: Discover finds what the builder wrote, in its order
// (space, database, region, partition, version, time), with companions;
// the resource holds each device's time range; chunk offsets are those of
// the file.
func TestBuilderLayout(t *testing.T) {
	dir := buildLayout(t,
		specFile{Space: Unsequence, Time: 50, Version: 1, Groups: []specGroup{treeSeries("root.db.d", []int64{2}, 1)}},
		specFile{Space: Sequence, Time: 90, Version: 7, Groups: []specGroup{treeSeries("root.db.d", []int64{2, 9}, 1, 2)},
			ModsV1: []Deletion{{Kind: TreeDeletion, Version: ModsV1, Pattern: mustPattern(t, "root.db.d.s"), FileOffset: 1, Start: 0, End: 1}}},
		specFile{Space: Sequence, Time: 100, Version: 3, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(tsfile.NewDeviceID("t", "a"), 4, v(1), nil, nil)},
			ModsV2: []Deletion{{Kind: TableDeletion, Table: "t", Start: 0, End: 1}}},
		specFile{Space: Sequence, Part: "1", Time: 80, Version: 8, Groups: []specGroup{treeSeries("root.db.d", []int64{604800001}, 1)}},
	)
	l, err := Discover(dir.Root)
	require.NoError(t, err)
	require.Empty(t, l.Skipped)
	type got struct {
		space         Space
		part          string
		version, time int64
		v1, v2        bool
	}
	var files []got
	for _, f := range l.Files {
		require.True(t, f.Named)
		require.Equal(t, "root.db", f.Database)
		require.Equal(t, "1", f.Region)
		require.Equal(t, f.Path+ResourceSuffix, f.Resource)
		files = append(files, got{f.Space, f.Partition, f.Name.Version, f.Name.Time, f.ModsV1 != "", f.ModsV2 != ""})
	}
	require.Equal(t, []got{
		{Sequence, "0", 3, 100, false, true},
		{Sequence, "0", 7, 90, true, false},
		{Sequence, "1", 8, 80, false, false},
		{Unsequence, "0", 1, 50, false, false},
	}, files)

	// Priority across the discovered files: unseq first, then version.
	best := l.Files[0]
	for i := range l.Files {
		if l.Files[i].Priority(0).Compare(best.Priority(0)) > 0 {
			best = l.Files[i]
		}
	}
	require.Equal(t, Unsequence, best.Space)

	bf := dir.Files[1]
	r, err := ReadResourceFile(bf.Path + ResourceSuffix)
	require.NoError(t, err)
	require.Len(t, r.Devices, 1)
	require.Equal(t, "root.db.d", r.Devices[0].Device.String())
	require.Equal(t, [2]int64{2, 9}, [2]int64{r.Devices[0].Start, r.Devices[0].End})

	f, err := tsfile.OpenFile(bf.Path, nil)
	require.NoError(t, err)
	defer f.Close()
	ss, err := f.Series(tsfile.ParseTreePath("root.db.d"))
	require.NoError(t, err)
	require.Len(t, ss, 1)
	require.Equal(t, ss[0].Chunks[0].Offset, bf.Points[0].Chunk)

	// The table file's aligned points carry the time chunk's offset, which
	// is below each value chunk's.
	tp := dir.Files[2].Points
	require.Len(t, tp, 3)
	for _, p := range tp {
		require.Less(t, p.TimeChunk, p.Chunk, p.Column)
	}
	_, err = os.Stat(filepath.Join(dir.Root, "sequence", "root.db", "1", "0", "100-3-0-0.tsfile.mods2"))
	require.NoError(t, err)
}

// TestReferenceRandomInvariants checks properties of the reference on
// random layouts: its answer does not depend on the order of the files;
// without mods every written (device, time) that has a non-null cell (or
// is a table row) comes out; mods only remove rows. Discover finds every
// file.
func TestReferenceRandomInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 28))
		specs := randomLayout(r, 2+r.IntN(5))
		dir := buildLayout(t, specs...)
		got := reference(t, dir)
		require.Equal(t, got, readDataset(t, dir, nil), "seed %d: Dataset", seed)
		require.Equal(t, got, readDataset(t, dir, &arrowconv.Options{BatchSize: 3}), "seed %d: Dataset, batches of 3", seed)
		for _, rule := range []ModsV1Rule{ModsV1Offset, ModsV1Whole} {
			require.Equal(t, referenceRule(t, dir, rule), readDatasetWith(t, dir, nil, false, &Options{ModsV1: rule}), "seed %d: Dataset, .mods rule %s", seed, rule)
		}

		l, err := Discover(dir.Root)
		require.NoError(t, err)
		require.Len(t, l.Files, len(specs))

		shuffled := append([]specFile(nil), specs...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		require.Equal(t, got, reference(t, buildLayout(t, shuffled...)), "seed %d: file order changed the answer", seed)

		bare := append([]specFile(nil), specs...)
		for i := range bare {
			bare[i].ModsV1, bare[i].ModsV2 = nil, nil
		}
		all := reference(t, buildLayout(t, bare...))
		rowTimes := func(rows refRows) map[string]bool {
			m := map[string]bool{}
			for dev, rs := range rows {
				for _, row := range rs {
					// "db2:t.a" is device t.a of database db2.
					m[dev[strings.Index(dev, ":")+1:]+" "+strings.Fields(row)[0]] = true
				}
			}
			return m
		}
		want := map[string]bool{}
		for _, bf := range dir.Files {
			if bf.Spec.Truncate {
				continue // left out: IoTDB had not finished it
			}
			for _, p := range bf.Points {
				if !p.Null || p.Kind == tableGroup {
					want[fmt.Sprintf("%s t=%d", p.Device, p.Time)] = true
				}
			}
		}
		require.Equal(t, want, rowTimes(all), "seed %d", seed)
		for k := range rowTimes(got) {
			require.True(t, want[k], "seed %d: %s appears only with mods", seed, k)
		}
	}
}
