package icesync

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// The tests check Plan against a naive model of rows: source files hold
// points (device, time) and their own deletions; the rows of a set of
// files are resolved point by point as package dataset resolves them (a
// file's deletions remove its own points only, of the surviving copies of
// a point the file of highest priority wins); the table is those rows by
// bucket. Applying a plan's tasks to the table of the previous files must
// give the table of the current ones, and an append task must never meet
// a row the table holds.

const testUnitsPerDay = 10 // times 0..9 are day 0, -1..-10 day -1

var dayOf = DayBucket(testUnitsPerDay)

type mPoint struct {
	dev string
	t   int64
}

type mDel struct {
	dev        string // "" deletes from every device
	start, end int64
}

type mFile struct {
	name        string
	size, mtime int64
	prio        int // higher wins a shared point
	points      []mPoint
	dels        []mDel
	modsID      string
	ruleFlipped bool // the v1 rule in force changed: every deletion key changes
}

func (f *mFile) deleted(p mPoint) bool {
	for _, d := range f.dels {
		if (d.dev == "" || d.dev == p.dev) && p.t >= d.start && p.t <= d.end {
			return true
		}
	}
	return false
}

// resolve returns the rows of files: point -> name of the file whose copy
// wins.
func resolve(files []*mFile) map[mPoint]string {
	type best struct {
		prio int
		name string
	}
	won := map[mPoint]best{}
	for _, f := range files {
		for _, p := range f.points {
			if f.deleted(p) {
				continue
			}
			if b, ok := won[p]; !ok || f.prio > b.prio {
				won[p] = best{f.prio, f.name}
			}
		}
	}
	out := map[mPoint]string{}
	for p, b := range won {
		out[p] = b.name
	}
	return out
}

// facts are what the caller would give Plan for f: device ranges as a
// .resource gives them (deleted points included) and each deletion clipped
// to the ranges of the devices it affects.
func facts(f *mFile) SourceFile {
	sf := SourceFile{Name: f.name, Size: f.size, ModTime: f.mtime, Mods: f.modsID}
	ranges := map[string]*Interval{}
	for _, p := range f.points {
		if r, ok := ranges[p.dev]; ok {
			r.Start, r.End = min(r.Start, p.t), max(r.End, p.t)
		} else {
			ranges[p.dev] = &Interval{p.t, p.t}
		}
	}
	for _, dev := range slices.Sorted(maps.Keys(ranges)) {
		sf.Devices = append(sf.Devices, DeviceRange{dev, ranges[dev].Start, ranges[dev].End})
	}
	for _, d := range f.dels {
		key := fmt.Sprintf("%s:%d:%d", d.dev, d.start, d.end)
		if f.ruleFlipped {
			key += ":whole"
		}
		df := DeletionFacts{Key: key}
		for _, dr := range sf.Devices {
			if d.dev != "" && d.dev != dr.Device {
				continue
			}
			lo, hi := max(d.start, dr.Start), min(d.end, dr.End)
			if lo <= hi {
				df.Covers = append(df.Covers, Interval{lo, hi})
			}
		}
		sf.Deletions = append(sf.Deletions, df)
	}
	return sf
}

func allFacts(files []*mFile) []SourceFile {
	out := make([]SourceFile, len(files))
	for i, f := range files {
		out[i] = facts(f)
	}
	return out
}

// modelTable is the model of one writer's rows in the Iceberg table: bucket ->
// point -> winning file.
type modelTable map[int64]map[mPoint]string

func tableOf(rows map[mPoint]string) modelTable {
	t := modelTable{}
	for p, name := range rows {
		b := dayOf(p.t)
		if t[b] == nil {
			t[b] = map[mPoint]string{}
		}
		t[b][p] = name
	}
	return t
}

// apply runs plan's tasks on tbl, reading cur's files, and returns per task
// the data files it would have written (one per bucket with rows).
func apply(t *testing.T, tbl modelTable, plan *SyncPlan, cur []*mFile, step int) []map[int64][]string {
	t.Helper()
	byName := map[string]*mFile{}
	for _, f := range cur {
		byName[f.name] = f
	}
	var written []map[int64][]string
	for i, task := range plan.Tasks {
		var read []*mFile
		for _, n := range task.Files {
			f := byName[n]
			if f == nil {
				t.Fatalf("step %d: task %+v reads %s, not a current file", step, task, n)
			}
			read = append(read, f)
		}
		if task.Rewrite {
			for b := range tbl {
				if b >= task.From && b <= task.To {
					delete(tbl, b)
				}
			}
		}
		w := map[int64][]string{}
		for p, name := range resolve(read) {
			b := dayOf(p.t)
			if b < task.From || b > task.To {
				continue
			}
			if tbl[b] == nil {
				tbl[b] = map[mPoint]string{}
			}
			if old, ok := tbl[b][p]; ok && !task.Rewrite {
				t.Fatalf("step %d: append task %+v adds %v from %s, already held from %s", step, task, p, name, old)
			}
			tbl[b][p] = name
			w[b] = []string{fmt.Sprintf("s%d-t%d-b%d.parquet", step, i, b)}
		}
		written = append(written, w)
	}
	return written
}

func equalTables(a, b modelTable) bool {
	return maps.EqualFunc(a, b, func(x, y map[mPoint]string) bool { return maps.Equal(x, y) })
}

// step plans from prev to cur, applies the plan to tbl and checks the
// result against the model; it returns the next state.
func step(t *testing.T, n int, prev *SyncState, tbl modelTable, cur []*mFile) (*SyncState, *SyncPlan) {
	t.Helper()
	cf := allFacts(cur)
	plan, err := Plan(prev, cf, PlanOptions{Bucket: dayOf})
	if err != nil {
		t.Fatalf("step %d: Plan: %v", n, err)
	}
	written := apply(t, tbl, plan, cur, n)
	want := tableOf(resolve(cur))
	if !equalTables(tbl, want) {
		t.Fatalf("step %d: after the plan %+v\nthe table holds %v\nwant %v", n, plan, tbl, want)
	}
	next, err := NextState(prev, cf, plan, written, PlanOptions{Bucket: dayOf})
	if err != nil {
		t.Fatalf("step %d: NextState: %v", n, err)
	}
	// The state owns data files in exactly the buckets holding rows.
	owned := slices.Sorted(maps.Keys(next.DataFiles))
	held := slices.Sorted(maps.Keys(want))
	if !slices.Equal(owned, held) {
		t.Fatalf("step %d: state owns data files in buckets %v, rows are in %v", n, owned, held)
	}
	return next, plan
}

func pts(dev string, times ...int64) []mPoint {
	out := make([]mPoint, len(times))
	for i, tm := range times {
		out[i] = mPoint{dev, tm}
	}
	return out
}

func clone(files []*mFile) []*mFile {
	out := make([]*mFile, len(files))
	for i, f := range files {
		c := *f
		c.points = slices.Clone(f.points)
		c.dels = slices.Clone(f.dels)
		out[i] = &c
	}
	return out
}

func without(files []*mFile, name string) []*mFile {
	return slices.DeleteFunc(clone(files), func(f *mFile) bool { return f.name == name })
}

func find(files []*mFile, name string) *mFile {
	for _, f := range files {
		if f.name == name {
			return f
		}
	}
	return nil
}

// base: two sequence files of devices a and b over days 0..2 and 3..4.
func base() []*mFile {
	return []*mFile{
		{name: "seq/1-1-0-0.tsfile", size: 100, mtime: 1, prio: 1, points: append(pts("a", 1, 5, 12, 25), pts("b", 2, 18)...)},
		{name: "seq/2-2-0-0.tsfile", size: 100, mtime: 2, prio: 2, points: append(pts("a", 31, 44), pts("b", 33)...)},
	}
}

func TestPlanCases(t *testing.T) {
	tests := []struct {
		name    string
		change  func([]*mFile) []*mFile
		rewrite []Run // buckets rewritten whole
		appends []Run // buckets appended to
		classes map[string][]string
	}{
		{
			name:   "nothing changed",
			change: func(fs []*mFile) []*mFile { return fs },
		},
		{
			name: "new sequence file after every device's last point",
			change: func(fs []*mFile) []*mFile {
				return append(fs, &mFile{name: "seq/3-3-0-0.tsfile", size: 50, mtime: 3, prio: 3, points: append(pts("a", 47, 52), pts("b", 61)...)})
			},
			appends: []Run{{4, 6}},
			classes: map[string][]string{"new": {"seq/3-3-0-0.tsfile"}},
		},
		{
			name: "new device in a day already synced appends",
			change: func(fs []*mFile) []*mFile {
				return append(fs, &mFile{name: "seq/3-3-0-0.tsfile", size: 50, mtime: 3, prio: 3, points: pts("c", 11, 12)})
			},
			appends: []Run{{1, 1}},
		},
		{
			name: "unsequence file overwriting day 1 only",
			change: func(fs []*mFile) []*mFile {
				return append(fs, &mFile{name: "unseq/4-4-0-0.tsfile", size: 10, mtime: 4, prio: 10, points: pts("a", 12, 14)})
			},
			rewrite: []Run{{1, 1}},
		},
		{
			name: "unsequence file overlapping day 1 and reaching past the data",
			change: func(fs []*mFile) []*mFile {
				// a's synced range is [1, 44]; the new range [15, 70]
				// overlaps it in days 1..4 and is new in days 5..7.
				return append(fs, &mFile{name: "unseq/4-4-0-0.tsfile", size: 10, mtime: 4, prio: 10, points: pts("a", 15, 70)})
			},
			rewrite: []Run{{1, 4}},
			// By ranges, not points: the new range covers days 5..7,
			// whose rows (day 7 only) the task reads with a time filter.
			appends: []Run{{5, 7}},
		},
		{
			name: "new deletion in one day",
			change: func(fs []*mFile) []*mFile {
				f := find(fs, "seq/1-1-0-0.tsfile")
				f.dels = append(f.dels, mDel{"a", 10, 19})
				f.modsID = "mods2:30"
				return fs
			},
			rewrite: []Run{{1, 1}},
			classes: map[string][]string{"mods": {"seq/1-1-0-0.tsfile"}},
		},
		{
			name: "deletion of a whole device clipped to the file's range",
			change: func(fs []*mFile) []*mFile {
				f := find(fs, "seq/2-2-0-0.tsfile")
				f.dels = append(f.dels, mDel{"b", -1 << 40, 1 << 40})
				f.modsID = "mods2:30"
				return fs
			},
			rewrite: []Run{{3, 3}},
		},
		{
			name: "mods file rewritten with the same entries",
			change: func(fs []*mFile) []*mFile {
				f := find(fs, "seq/1-1-0-0.tsfile")
				f.modsID = "mods2:0:settled"
				return fs
			},
			classes: map[string][]string{"mods": {"seq/1-1-0-0.tsfile"}},
		},
		{
			name: "file gone",
			change: func(fs []*mFile) []*mFile {
				return without(fs, "seq/2-2-0-0.tsfile")
			},
			rewrite: []Run{{3, 4}},
			classes: map[string][]string{"gone": {"seq/2-2-0-0.tsfile"}},
		},
		{
			name: "compaction that consumed a deletion",
			change: func(fs []*mFile) []*mFile {
				// 1-1 and 2-2 merged into 1-1-1-0, b@18 deleted on the way.
				fs = without(without(fs, "seq/1-1-0-0.tsfile"), "seq/2-2-0-0.tsfile")
				return append(fs, &mFile{name: "seq/1-1-1-0.tsfile", size: 180, mtime: 5, prio: 2, points: append(pts("a", 1, 5, 12, 25, 31, 44), pts("b", 2, 33)...)})
			},
			rewrite: []Run{{0, 4}},
		},
		{
			name: "data file rewritten in place with more days",
			change: func(fs []*mFile) []*mFile {
				f := find(fs, "seq/2-2-0-0.tsfile")
				f.points = append(f.points, pts("b", 95)...)
				f.size++
				return fs
			},
			rewrite: []Run{{3, 9}}, // b now spans [33, 95]
			classes: map[string][]string{"changed": {"seq/2-2-0-0.tsfile"}},
		},
		{
			name: "data file touched",
			change: func(fs []*mFile) []*mFile {
				find(fs, "seq/2-2-0-0.tsfile").mtime = 99
				return fs
			},
			rewrite: []Run{{3, 4}},
			classes: map[string][]string{"changed": {"seq/2-2-0-0.tsfile"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := base()
			if tc.name != "nothing changed" {
				// Give the first file a deletion before the first sync for
				// the mods cases to change.
				find(files, "seq/1-1-0-0.tsfile").dels = []mDel{{"b", 0, 3}}
				find(files, "seq/1-1-0-0.tsfile").modsID = "mods2:15"
			}
			tbl := modelTable{}
			state, first := step(t, 0, nil, tbl, files)
			if first.Rewritten() != nil {
				t.Fatalf("first sync rewrites %v, want appends only", first.Rewritten())
			}
			if len(first.New) != len(files) {
				t.Fatalf("first sync: new %v", first.New)
			}
			cur := tc.change(clone(files))
			_, plan := step(t, 1, state, tbl, cur)
			if got := plan.Rewritten(); !slices.Equal(got, tc.rewrite) {
				t.Errorf("rewritten %v, want %v", got, tc.rewrite)
			}
			var appended runSet
			for _, task := range plan.Tasks {
				if !task.Rewrite {
					appended.add(task.Run)
				}
			}
			if got := appended.runs(); !slices.Equal(got, tc.appends) {
				t.Errorf("appended %v, want %v", got, tc.appends)
			}
			if (tc.rewrite == nil && tc.appends == nil) != plan.Empty() {
				t.Errorf("Empty() = %v for tasks %+v", plan.Empty(), plan.Tasks)
			}
			for class, want := range tc.classes {
				got := map[string][]string{"new": plan.New, "changed": plan.Changed, "mods": plan.ModsChanged, "gone": plan.Gone}[class]
				if !slices.Equal(got, want) {
					t.Errorf("%s: %v, want %v", class, got, want)
				}
			}
		})
	}
}

// TestPlanRandomHistories runs seeded random histories of a live data
// directory (flushes, out-of-order writes, deletions, settles, compactions,
// lost files, touched files, a rule flip) through Plan and the model.
func TestPlanRandomHistories(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 41))
		var files []*mFile
		var state *SyncState
		tbl := modelTable{}
		next := 0
		newFile := func(space string, pts []mPoint) *mFile {
			next++
			return &mFile{name: fmt.Sprintf("%s/%d-%d-0-0.tsfile", space, next, next), size: int64(len(pts)), mtime: int64(next), prio: next, points: pts}
		}
		last := map[string]int64{}
		randPoints := func(lo, hi int64) []mPoint {
			var out []mPoint
			for _, dev := range []string{"a", "b", "c"} {
				if rng.IntN(3) == 0 {
					continue
				}
				for range 1 + rng.IntN(4) {
					out = append(out, mPoint{dev, lo + rng.Int64N(hi-lo+1)})
				}
			}
			return out
		}
		for n := range 12 {
			files = clone(files)
			switch op := rng.IntN(8); {
			case op <= 1 || len(files) == 0: // flush a sequence file after every device's last point
				var p []mPoint
				for _, dev := range []string{"a", "b", "c"} {
					if rng.IntN(2) == 0 {
						continue
					}
					start := last[dev] + 1 + rng.Int64N(15)
					for i := range 1 + rng.IntN(3) {
						p = append(p, mPoint{dev, start + int64(i)*rng.Int64N(9)})
					}
				}
				for _, q := range p {
					last[q.dev] = max(last[q.dev], q.t)
				}
				files = append(files, newFile("seq", p))
			case op == 2: // out-of-order writes, negative times included
				files = append(files, newFile("unseq", randPoints(-25, 60)))
			case op == 3: // a deletion
				f := files[rng.IntN(len(files))]
				lo := rng.Int64N(70) - 20
				f.dels = append(f.dels, mDel{[]string{"", "a", "b"}[rng.IntN(3)], lo, lo + rng.Int64N(20)})
				f.modsID = fmt.Sprintf("mods2:%d:%d", n, len(f.dels))
			case op == 4: // a settle drops a deletion
				f := files[rng.IntN(len(files))]
				if len(f.dels) > 0 {
					f.dels = f.dels[1:]
					f.modsID = fmt.Sprintf("mods2:%d:settled", n)
				}
			case op == 5 && len(files) >= 2: // compaction of two files
				i := rng.IntN(len(files) - 1)
				a, b := files[i], files[i+1]
				rows := resolve([]*mFile{a, b})
				var p []mPoint
				for q := range rows {
					p = append(p, q)
				}
				slices.SortFunc(p, func(x, y mPoint) int { return int(x.t - y.t) })
				target := newFile("seq", p)
				target.prio = max(a.prio, b.prio)
				files = append(without(without(files, a.name), b.name), target)
			case op == 6: // a file lost, touched, or rewritten in place
				f := files[rng.IntN(len(files))]
				switch rng.IntN(3) {
				case 0:
					files = without(files, f.name)
				case 1:
					f.mtime += 1000
				default:
					f.points = randPoints(-25, 80)
					f.size, f.mtime = int64(len(f.points))+1000, f.mtime+1000
				}
			default: // the v1 rule in force flips for a file with deletions
				f := files[rng.IntN(len(files))]
				f.ruleFlipped = !f.ruleFlipped
				f.modsID += ":flip"
			}
			var plan *SyncPlan
			state, plan = step(t, n, state, tbl, files)
			// A second sync over the same files has nothing to do.
			if again, err := Plan(state, allFacts(files), PlanOptions{Bucket: dayOf}); err != nil || !again.Empty() {
				t.Fatalf("seed %d step %d: sync again after %+v: %+v, %v", seed, n, plan, again, err)
			}
		}
	}
}

func TestPlanErrors(t *testing.T) {
	good := SourceFile{Name: "x.tsfile", Devices: []DeviceRange{{"a", 1, 2}}}
	tests := []struct {
		name string
		prev *SyncState
		cur  []SourceFile
	}{
		{"reversed device range", nil, []SourceFile{{Name: "x.tsfile", Devices: []DeviceRange{{"a", 5, 1}}}}},
		{"reversed deletion", nil, []SourceFile{{Name: "x.tsfile", Deletions: []DeletionFacts{{Key: "k", Covers: []Interval{{3, 2}}}}}}},
		{"file twice", nil, []SourceFile{good, good}},
		{"state records a file twice", &SyncState{Files: []RecordedFile{{Name: "x.tsfile"}, {Name: "x.tsfile"}}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Plan(tc.prev, tc.cur, PlanOptions{Bucket: dayOf}); !errors.Is(err, ErrPlan) {
				t.Fatalf("Plan: %v, want ErrPlan", err)
			}
		})
	}
	plan, err := Plan(nil, []SourceFile{good}, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NextState(nil, []SourceFile{good}, plan, nil, PlanOptions{}); !errors.Is(err, ErrPlan) {
		t.Fatalf("NextState without written files per task: %v", err)
	}
	if _, err := NextState(nil, []SourceFile{good}, plan, []map[int64][]string{{7: {"f"}}}, PlanOptions{}); !errors.Is(err, ErrPlan) {
		t.Fatalf("NextState with a file outside its task: %v", err)
	}
}

func TestDayBucket(t *testing.T) {
	day := DayBucket(86_400_000)
	tests := []struct {
		t, want int64
	}{
		{0, 0}, {86_399_999, 0}, {86_400_000, 1}, {-1, -1}, {-86_400_000, -1}, {-86_400_001, -2},
		{1 << 62, (1 << 62) / 86_400_000},
		{-1 << 63, (-1<<63)/86_400_000 - 1},
	}
	for _, tc := range tests {
		if got := day(tc.t); got != tc.want {
			t.Errorf("day(%d) = %d, want %d", tc.t, got, tc.want)
		}
	}
}

func TestRunSet(t *testing.T) {
	var s runSet
	for _, r := range []Run{{5, 6}, {1, 2}, {3, 3}, {10, 12}, {8, 8}, {7, 7}, {20, 19}} {
		s.add(r)
	}
	if got, want := s.runs(), []Run{{1, 3}, {5, 8}, {10, 12}}; !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	o := runSet{list: []Run{{0, 1}, {4, 4}, {11, 30}}}
	if got, want := s.minus(&o), []Run{{2, 3}, {5, 8}, {10, 10}}; !slices.Equal(got, want) {
		t.Errorf("minus %v, want %v", got, want)
	}
	if got, want := s.intersect(&o), []Run{{1, 1}, {11, 12}}; !slices.Equal(got, want) {
		t.Errorf("intersect %v, want %v", got, want)
	}
}
