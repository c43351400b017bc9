package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// bigModsTargets are the deletions of TestDatasetBigMods as the reference
// model applies them: one closed range per entry, few entries.
func bigModsTargets() []Deletion {
	devA := TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, Value: "a"}
	segB := TagPredicate{Kind: PredAnd, And: []TagPredicate{
		{Kind: PredSegmentExactMatch, Segment: 1, Value: "b"},
		{Kind: PredSegmentNotNull, Segment: 1},
	}}
	return []Deletion{
		{Kind: TableDeletion, Table: "t", Predicate: devA, Measurements: []string{"s1"}, Start: 100, End: 199},
		{Kind: TableDeletion, Table: "t", Predicate: devA, Measurements: []string{"s1"}, Start: 500, End: 599},
		{Kind: TableDeletion, Table: "t", Start: 1000, End: 1099},
		{Kind: TableDeletion, Table: "t", Predicate: segB, Measurements: []string{"s2", "s3"}, Start: 0, End: 49},
		{Kind: TableDeletion, Table: "t", Predicate: segB, Measurements: []string{"s2", "s3"}, Start: 2000, End: 2999},
	}
}

// bigModsFile returns a mods2 of at least size bytes deleting exactly
// what targets delete: each range cut into overlapping pieces, each piece
// written many times, in a shuffled order, among entries of noise targets
// (a table the data file does not hold) that repeat too. It returns the
// file and its number of entries and distinct targets.
func bigModsFile(t testing.TB, targets []Deletion, noise int, size int) ([]byte, int, int) {
	r := rand.New(rand.NewPCG(40, 3))
	var pieces []Deletion
	for _, d := range targets {
		for lo := d.Start; lo <= d.End; lo += 7 {
			p := d
			p.Start, p.End = lo, min(lo+9, d.End) // overlaps the next piece
			pieces = append(pieces, p)
		}
	}
	for i := range noise {
		pieces = append(pieces, Deletion{Kind: TableDeletion, Table: "zz", Predicate: TagPredicate{
			Kind: PredFullExactMatch, Device: tsfile.NewDeviceID("zz", fmt.Sprintf("d%03d", i))}, Start: int64(i), End: int64(i) + 5})
		pieces = append(pieces, Deletion{Kind: TreeDeletion, Pattern: mustPattern(t, fmt.Sprintf("root.noise.d%03d.*", i)), Start: 0, End: int64(i)})
	}
	var buf []byte
	n := 0
	for len(buf) < size {
		r.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
		var err error
		buf, err = AppendModsV2(buf, pieces...)
		require.NoError(t, err)
		n += len(pieces)
	}
	distinct := 3 + 2*noise
	return buf, n, distinct
}

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestDatasetBigMods: a mods2 of 24 MB (600 thousand entries of 103
// targets) opens into a Dataset that keeps a few kilobytes of it, and the
// rows read are those the reference model gives for the five deletions
// the file's entries add up to. Before the entries were merged as they
// streamed, the Dataset kept every entry (over 60 MB of live heap).
func TestDatasetBigMods(t *testing.T) {
	var times []int64
	var vals []*int64
	for i := int64(0); i < 3000; i++ {
		times = append(times, i)
		vals = append(vals, v(i))
	}
	cols := []specCol{{Name: "s1", Vals: vals}, {Name: "s2", Vals: vals}, {Name: "s3", Vals: vals}}
	targets := bigModsTargets()
	dir := buildLayout(t, specFile{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
		{Kind: tableGroup, Device: tsfile.NewDeviceID("t", "a"), Times: times, Cols: cols},
		{Kind: tableGroup, Device: tsfile.NewDeviceID("t", "b"), Times: times, Cols: cols},
	}, ModsV2: targets})
	want := reference(t, dir)
	require.Equal(t, want, readDataset(t, dir, nil), "the small mods file")

	const size = 24 << 20
	big, entries, distinct := bigModsFile(t, targets, 50, size)
	require.NoError(t, os.WriteFile(dir.Files[0].Path+ModsV2Suffix, big, 0o644))
	bigLen := len(big)
	big = nil
	require.Equal(t, want, readDataset(t, dir, nil), "the big mods file")

	before := liveHeap()
	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	kept := int64(liveHeap()) - int64(before)
	rules := ds.Rules()
	require.Contains(t, strings.Join(rules, "\n"), fmt.Sprintf("holds %d deletions", entries))
	runtime.KeepAlive(ds)
	t.Logf("%d bytes of mods2, %d entries, %d targets: the Dataset keeps %d bytes", bigLen, entries, distinct, kept)
	require.Less(t, kept, int64(2<<20), "live heap kept by a Dataset over a %d-byte mods2", bigLen)
	require.NoError(t, ds.Close())
}

// TestModsTooLargeNamesFlag: the limit error says how to raise it.
func TestModsTooLargeNamesFlag(t *testing.T) {
	dir := buildLayout(t, specFile{Space: Sequence, Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT},
		Groups: []specGroup{tableRow(tsfile.NewDeviceID("t", "a"), 1, v(1), nil, nil)},
		ModsV2: bigModsTargets()})
	_, err := Open([]string{dir.Root}, &Options{Mods: &ModsOptions{MaxSize: 10}})
	require.ErrorIs(t, err, ErrModsTooLarge)
	require.Contains(t, err.Error(), "--max-mods-size")
	require.Contains(t, err.Error(), ModsV2Suffix)
	ds, err := Open([]string{dir.Root}, &Options{Mods: &ModsOptions{MaxSize: 1 << 20}})
	require.NoError(t, err)
	require.NoError(t, ds.Close())
}

// splitDeletions returns ds with every entry written twice and each
// closed range also cut into two overlapping pieces, shuffled: the same
// deletions, as many entries of one target.
func splitDeletions(r *rand.Rand, ds []Deletion) []Deletion {
	var out []Deletion
	for _, d := range ds {
		out = append(out, d, d)
		if !d.OpenStart && !d.OpenEnd && d.Start < d.End && d.End-d.Start < 1<<40 {
			mid := d.Start + (d.End-d.Start)/2
			a, b := d, d
			a.End, b.Start = mid, max(d.Start, mid-1)
			out = append(out, a, b)
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestDatasetSplitMods: random layouts whose mods entries are repeated and
// cut into overlapping pieces read as the reference model applies the
// entries one by one, under each v1 rule: merging entries per target
// (and, under the 1.x rule, per offset) changes no row.
func TestDatasetSplitMods(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 40))
		specs := randomLayout(r, 2+r.IntN(5))
		n := 0
		for i := range specs {
			specs[i].ModsV1 = splitDeletions(r, specs[i].ModsV1)
			specs[i].ModsV2 = splitDeletions(r, specs[i].ModsV2)
			n += len(specs[i].ModsV1) + len(specs[i].ModsV2)
		}
		if n == 0 {
			continue
		}
		dir := buildLayout(t, specs...)
		require.Equal(t, reference(t, dir), readDataset(t, dir, nil), "seed %d", seed)
		for _, rule := range []ModsV1Rule{ModsV1Offset, ModsV1Whole} {
			require.Equal(t, referenceRule(t, dir, rule), readDatasetWith(t, dir, nil, false, &Options{ModsV1: rule}), "seed %d: .mods rule %s", seed, rule)
		}
	}
}

// TestDatasetModsV1OffsetsNotMerged: under the 1.x rule, v1 entries of
// one path but different offsets apply to different chunks, so they stay
// in different sets: one deletes everything from the first chunk only,
// the other time 12 from both, each written twice.
func TestDatasetModsV1OffsetsNotMerged(t *testing.T) {
	pat := mustPattern(t, "root.db.d.s")
	below2 := Deletion{Kind: TreeDeletion, Version: ModsV1, Pattern: pat, FileOffset: -2, Start: math.MinInt64, End: math.MaxInt64, OpenStart: true, OpenEnd: true}
	after := Deletion{Kind: TreeDeletion, Version: ModsV1, Pattern: pat, FileOffset: math.MaxInt64, Start: 12, End: 12}
	for _, order := range [][]Deletion{{below2, after, below2, after}, {after, below2, after, below2}} {
		dir := buildLayout(t, specFile{Space: Sequence, Time: 1, Version: 1, V3: true, Groups: []specGroup{
			treeSeries("root.db.d", []int64{1, 2, 3}, 1, 2, 3),
			treeSeries("root.db.d", []int64{11, 12, 13}, 11, 12, 13),
		}, ModsV1: order})
		want := referenceRule(t, dir, ModsV1Offset)
		got := readDatasetWith(t, dir, nil, false, &Options{ModsV1: ModsV1Offset})
		require.Equal(t, want, got)
		require.Len(t, got["root.db.d"], 2, "times 11 and 13 survive: %v", got)
	}
}
