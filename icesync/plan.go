package icesync

// Change detection of an incremental sync: which source files are new,
// changed or gone since the state a writer recorded, and which time
// buckets (days of the table's day(time) partition) must be rewritten
// whole or only appended to. Pure: no file is read here. The caller
// gathers the facts from package dataset (names and versions from
// Dataset.Layout and Versions, device ranges from the .resource files,
// deletions from the mods files, clipped with Deletion.AffectsDevice) and
// the design is docs/dev-notes-iceberg-icedesign.md, part (a).

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrPlan is wrapped by the errors of Plan and NextState: facts or a state
// that contradict themselves (a range whose start is after its end, a file
// named twice).
var ErrPlan = errors.New("icesync: inconsistent sync facts")

// Interval is a closed range of times [Start, End] in the table's time unit.
type Interval struct {
	Start, End int64
}

// DeviceRange is the time range of one device's points in a source file,
// as its .resource gives it (dataset.DeviceTimes).
type DeviceRange struct {
	Device     string // a key that is equal for equal devices (DeviceID.Key)
	Start, End int64
}

// DeletionFacts is one entry of a source file's mods file. Key identifies
// the entry's effect on the file: equal keys delete the same points (a
// digest of kind, pattern or table and predicate, measurements, range, and
// for a v1 entry applied by offset its offset, and the rule in force). Covers
// are the parts of the file's device ranges the deletion overlaps (the
// ranges of the devices it affects, clipped to its time range): the times
// whose rows it may change.
type DeletionFacts struct {
	Key    string
	Covers []Interval
}

// SourceFile is what a sync knows of one source data file when it plans.
type SourceFile struct {
	// Name identifies the file across syncs: IoTDB's path below the data
	// directory (space/database/region/partition/base), or the base name
	// of a loose file.
	Name          string
	Size, ModTime int64
	// Mods identifies the content of the mods file that applies and the
	// rule it applies by ("" without one); a difference makes the planner
	// compare Deletions with the recorded ones.
	Mods string
	// Devices are the file's device ranges; Deletions its mods entries.
	Devices   []DeviceRange
	Deletions []DeletionFacts
}

// Run is a closed range of buckets [From, To].
type Run struct {
	From, To int64
}

// RecordedDeletion is a mods entry as a state records it: its key and the
// buckets it covered.
type RecordedDeletion struct {
	Key     string `json:"key"`
	Buckets []Run  `json:"buckets"`
}

// RecordedFile is a source file as a state records it.
type RecordedFile struct {
	Name      string             `json:"name"`
	Size      int64              `json:"size"`
	ModTime   int64              `json:"mtime"`
	Mods      string             `json:"mods,omitempty"`
	Buckets   []Run              `json:"buckets"`
	Deletions []RecordedDeletion `json:"deletions,omitempty"`
}

// SyncState is what one writer's last committed sync recorded: the source
// files its rows in the table reflect, sorted by name, and the data files
// of the table it owns, by bucket.
type SyncState struct {
	Files     []RecordedFile     `json:"files"`
	DataFiles map[int64][]string `json:"data_files,omitempty"`
}

// PlanOptions configure Plan.
type PlanOptions struct {
	// Bucket maps a time to its bucket (DayBucket for day(time)). It must
	// not decrease as the time grows. Nil puts every time in bucket 0.
	Bucket func(t int64) int64
}

// DayBucket returns the bucket function of Iceberg's day transform for
// times counted in units of which unitsPerDay make a day (86_400_000 for
// milliseconds): days since 1970-01-01 UTC, rounded down, so a time before
// 1970 falls in a negative day as Iceberg's transform puts it.
func DayBucket(unitsPerDay int64) func(int64) int64 {
	return func(t int64) int64 {
		d := t / unitsPerDay
		if t%unitsPerDay < 0 {
			d--
		}
		return d
	}
}

// Task is one range of buckets to write. A rewrite task replaces every data
// file the writer owns in its buckets with the rows of Files read over the
// buckets' times; an append task adds the rows of Files in those times,
// which no row the table holds shares a key with.
type Task struct {
	Run
	Rewrite bool
	Files   []string // source file names, sorted
}

// SyncPlan is what Plan found: the source files by how they changed, and
// the tasks to write. No tasks means nothing to commit.
type SyncPlan struct {
	New, Changed, ModsChanged, Gone, Unchanged []string
	Tasks                                      []Task
}

// Empty reports whether the plan writes nothing: the table already holds
// the rows of the current files.
func (p *SyncPlan) Empty() bool { return len(p.Tasks) == 0 }

// Rewritten returns the buckets the plan rewrites whole, as sorted runs.
func (p *SyncPlan) Rewritten() []Run {
	var s runSet
	for _, t := range p.Tasks {
		if t.Rewrite {
			s.add(t.Run)
		}
	}
	return s.runs()
}

// Plan compares the files a writer's last sync recorded (prev, nil for a
// first sync) with the current ones and says what to write so that the
// writer's part of the table holds the rows of cur, as package dataset
// resolves them, again:
//
//   - a gone file's buckets are rewritten (its rows go, and a compaction
//     may have consumed deletions on the way, so gone plus new is never
//     taken as unchanged);
//   - a file whose data changed (size or mtime) counts as gone and new;
//   - a file whose mods changed rewrites the buckets of the entries added
//     or removed since the record;
//   - a new file rewrites the buckets where one of its devices overlaps the
//     same device in a synced file that is still there (an unsequence file
//     overwriting points, or an out-of-order sequence file); its other
//     buckets are appended, read from the new files alone.
//
// Rewrite tasks read every current file covering their buckets. A file
// with no device range has no rows and covers nothing.
func Plan(prev *SyncState, cur []SourceFile, opts PlanOptions) (*SyncPlan, error) {
	bucket := opts.Bucket
	if bucket == nil {
		bucket = func(int64) int64 { return 0 }
	}
	recorded := map[string]*RecordedFile{}
	if prev != nil {
		for i := range prev.Files {
			f := &prev.Files[i]
			if recorded[f.Name] != nil {
				return nil, fmt.Errorf("%w: the state records %s twice", ErrPlan, f.Name)
			}
			recorded[f.Name] = f
		}
	}
	current := map[string]*SourceFile{}
	for i := range cur {
		f := &cur[i]
		if current[f.Name] != nil {
			return nil, fmt.Errorf("%w: source file %s given twice", ErrPlan, f.Name)
		}
		if err := checkRanges(f); err != nil {
			return nil, err
		}
		current[f.Name] = f
	}

	p := &SyncPlan{}
	var touched runSet
	// covered holds each current file's buckets; synced the files whose
	// rows the table holds and which are still there unchanged in data.
	covered := map[string]*runSet{}
	var synced, fresh []*SourceFile
	for _, name := range slices.Sorted(maps.Keys(current)) {
		f := current[name]
		covered[name] = bucketsOf(f, bucket)
		r := recorded[name]
		switch {
		case r == nil:
			p.New = append(p.New, name)
			fresh = append(fresh, f)
		case r.Size != f.Size || r.ModTime != f.ModTime:
			// Same name, other bytes: IoTDB never does this to a closed
			// file, so something else did; take it as gone and new.
			p.Changed = append(p.Changed, name)
			touched.addAll(r.Buckets)
			touched.addAll(covered[name].runs())
		case r.Mods != f.Mods:
			p.ModsChanged = append(p.ModsChanged, name)
			modsTouched(&touched, r, f, bucket)
			synced = append(synced, f)
		default:
			p.Unchanged = append(p.Unchanged, name)
			synced = append(synced, f)
		}
	}
	if prev != nil {
		for i := range prev.Files {
			r := &prev.Files[i]
			if current[r.Name] == nil {
				p.Gone = append(p.Gone, r.Name)
				touched.addAll(r.Buckets)
			}
		}
		slices.Sort(p.Gone)
	}
	overlapTouched(&touched, synced, fresh, bucket)

	// Rewrite every touched bucket that holds rows now (a touched bucket
	// without any keeps no rows: its owned data files go, see
	// NextState); append the rest of the new files' buckets.
	var all, newOnly []fileRuns
	for _, name := range slices.Sorted(maps.Keys(current)) {
		all = append(all, fileRuns{name, covered[name].runs()})
	}
	for _, f := range fresh {
		newOnly = append(newOnly, fileRuns{f.Name, covered[f.Name].minus(&touched)})
	}
	p.Tasks = append(p.Tasks, sweep(all, &touched, true)...)
	p.Tasks = append(p.Tasks, sweep(newOnly, nil, false)...)
	// Touched buckets no current file covers still need their owned
	// files removed: a rewrite task with no files to read.
	var withRows runSet
	for _, t := range p.Tasks {
		withRows.add(t.Run)
	}
	for _, r := range touched.runs() {
		for _, gap := range (&runSet{list: []Run{r}}).minus(&withRows) {
			p.Tasks = append(p.Tasks, Task{Run: gap, Rewrite: true})
		}
	}
	slices.SortFunc(p.Tasks, func(a, b Task) int { return cmp.Compare(a.From, b.From) })
	return p, nil
}

// NextState is the state a writer records after committing plan: the
// current files, and the data files it owns, those of the rewritten
// buckets replaced by the ones written. written gives, per task of the
// plan (same order), the data files the task wrote, each in one bucket
// (by bucket).
func NextState(prev *SyncState, cur []SourceFile, plan *SyncPlan, written []map[int64][]string, opts PlanOptions) (*SyncState, error) {
	bucket := opts.Bucket
	if bucket == nil {
		bucket = func(int64) int64 { return 0 }
	}
	if len(written) != len(plan.Tasks) {
		return nil, fmt.Errorf("%w: %d tasks but files written for %d", ErrPlan, len(plan.Tasks), len(written))
	}
	next := &SyncState{DataFiles: map[int64][]string{}}
	if prev != nil {
		for b, files := range prev.DataFiles {
			next.DataFiles[b] = slices.Clone(files)
		}
	}
	for i, t := range plan.Tasks {
		if t.Rewrite {
			for b := range next.DataFiles {
				if b >= t.From && b <= t.To {
					delete(next.DataFiles, b)
				}
			}
		}
		for b, files := range written[i] {
			if b < t.From || b > t.To {
				return nil, fmt.Errorf("%w: task %d..%d wrote a data file in bucket %d", ErrPlan, t.From, t.To, b)
			}
			next.DataFiles[b] = append(next.DataFiles[b], files...)
		}
	}
	for b, files := range next.DataFiles {
		if len(files) == 0 {
			delete(next.DataFiles, b)
		} else {
			slices.Sort(files)
		}
	}
	for i := range cur {
		f := &cur[i]
		if err := checkRanges(f); err != nil {
			return nil, err
		}
		r := RecordedFile{Name: f.Name, Size: f.Size, ModTime: f.ModTime, Mods: f.Mods, Buckets: bucketsOf(f, bucket).runs()}
		for _, d := range f.Deletions {
			r.Deletions = append(r.Deletions, RecordedDeletion{Key: d.Key, Buckets: deletionBuckets(d, bucket).runs()})
		}
		slices.SortFunc(r.Deletions, func(a, b RecordedDeletion) int { return cmp.Compare(a.Key, b.Key) })
		next.Files = append(next.Files, r)
	}
	slices.SortFunc(next.Files, func(a, b RecordedFile) int { return cmp.Compare(a.Name, b.Name) })
	for i := 1; i < len(next.Files); i++ {
		if next.Files[i].Name == next.Files[i-1].Name {
			return nil, fmt.Errorf("%w: source file %s given twice", ErrPlan, next.Files[i].Name)
		}
	}
	return next, nil
}

func checkRanges(f *SourceFile) error {
	for _, d := range f.Devices {
		if d.Start > d.End {
			return fmt.Errorf("%w: %s: device %s starts at %d after its end %d (an unsealed resource?)", ErrPlan, f.Name, d.Device, d.Start, d.End)
		}
	}
	for _, d := range f.Deletions {
		for _, c := range d.Covers {
			if c.Start > c.End {
				return fmt.Errorf("%w: %s: deletion %s covers [%d, %d]", ErrPlan, f.Name, d.Key, c.Start, c.End)
			}
		}
	}
	return nil
}

func bucketsOf(f *SourceFile, bucket func(int64) int64) *runSet {
	s := &runSet{}
	for _, d := range f.Devices {
		s.add(Run{bucket(d.Start), bucket(d.End)})
	}
	return s
}

func deletionBuckets(d DeletionFacts, bucket func(int64) int64) *runSet {
	s := &runSet{}
	for _, c := range d.Covers {
		s.add(Run{bucket(c.Start), bucket(c.End)})
	}
	return s
}

// modsTouched adds the buckets of the deletions in the symmetric
// difference of the recorded and current entries: an added entry deletes
// in its buckets, a removed one (a settled mods file) un-deletes in the
// buckets it covered. Entries in both change nothing: deletions are
// idempotent.
func modsTouched(touched *runSet, r *RecordedFile, f *SourceFile, bucket func(int64) int64) {
	old := map[string]bool{}
	for _, d := range r.Deletions {
		old[d.Key] = true
	}
	now := map[string]bool{}
	for _, d := range f.Deletions {
		now[d.Key] = true
		if !old[d.Key] {
			touched.addAll(deletionBuckets(d, bucket).runs())
		}
	}
	for _, d := range r.Deletions {
		if !now[d.Key] {
			touched.addAll(d.Buckets)
		}
	}
}

// overlapTouched adds the buckets where a device of a new file overlaps
// the same device of a synced file in time: there the new file's points
// may overwrite synced ones (or lose to them), so the bucket is resolved
// again from all its files. Each device's synced ranges are merged into a
// sorted union first, so that a new range after them all (the common case,
// a flush) costs one binary search.
func overlapTouched(touched *runSet, synced, fresh []*SourceFile, bucket func(int64) int64) {
	if len(fresh) == 0 || len(synced) == 0 {
		return
	}
	byDevice := map[string][]Interval{}
	for _, f := range synced {
		for _, d := range f.Devices {
			byDevice[d.Device] = append(byDevice[d.Device], Interval{d.Start, d.End})
		}
	}
	for dev, list := range byDevice {
		byDevice[dev] = union(list)
	}
	for _, f := range fresh {
		for _, d := range f.Devices {
			list := byDevice[d.Device]
			// The first merged range that does not end before d starts.
			i, _ := slices.BinarySearchFunc(list, d.Start, func(r Interval, t int64) int { return cmp.Compare(r.End, t) })
			for ; i < len(list) && list[i].Start <= d.End; i++ {
				lo, hi := max(d.Start, list[i].Start), min(d.End, list[i].End)
				touched.add(Run{bucket(lo), bucket(hi)})
			}
		}
	}
}

// union sorts and merges overlapping intervals (adjacent ones need not
// merge: their union covers the same times either way).
func union(list []Interval) []Interval {
	slices.SortFunc(list, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	out := list[:0]
	for _, r := range list {
		if n := len(out); n > 0 && r.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

type fileRuns struct {
	name string
	runs []Run
}

// sweep cuts the buckets the files cover (within limit, when set) into
// runs over which the set of covering files is constant, and returns a
// task per run, adjacent runs of equal file sets merged.
func sweep(files []fileRuns, limit *runSet, rewrite bool) []Task {
	type event struct {
		at    int64 // first bucket of a change
		name  string
		start bool
	}
	var ev []event
	for _, f := range files {
		runs := f.runs
		if limit != nil {
			runs = (&runSet{list: runs}).intersect(limit)
		}
		for _, r := range runs {
			ev = append(ev, event{r.From, f.name, true})
			if r.To < maxBucket {
				ev = append(ev, event{r.To + 1, f.name, false})
			}
		}
	}
	slices.SortFunc(ev, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	active := map[string]int{}
	var tasks []Task
	for i := 0; i < len(ev); {
		at := ev[i].at
		for ; i < len(ev) && ev[i].at == at; i++ {
			if ev[i].start {
				active[ev[i].name]++
			} else if active[ev[i].name]--; active[ev[i].name] == 0 {
				delete(active, ev[i].name)
			}
		}
		if len(active) == 0 {
			continue
		}
		end := int64(maxBucket)
		if i < len(ev) {
			end = ev[i].at - 1
		}
		names := slices.Sorted(maps.Keys(active))
		if n := len(tasks); n > 0 && tasks[n-1].To == at-1 && slices.Equal(tasks[n-1].Files, names) {
			tasks[n-1].To = end
			continue
		}
		tasks = append(tasks, Task{Run: Run{at, end}, Rewrite: rewrite, Files: names})
	}
	return tasks
}

const maxBucket = int64(^uint64(0) >> 1)

// runSet is a set of buckets as sorted, disjoint, non-adjacent runs.
type runSet struct {
	list []Run
}

func (s *runSet) add(r Run) {
	if r.From > r.To {
		return
	}
	// Fast paths: runs mostly come in order (a file's devices, a sweep).
	if n := len(s.list); n == 0 || s.list[n-1].To < r.From && s.list[n-1].To+1 < r.From {
		s.list = append(s.list, r)
		return
	} else if last := &s.list[n-1]; r.From >= last.From {
		last.To = max(last.To, r.To)
		return
	}
	out := make([]Run, 0, len(s.list)+1)
	placed := false
	for _, x := range s.list {
		switch {
		case x.To < r.From && x.To+1 < r.From:
			out = append(out, x)
		case r.To < x.From && r.To+1 < x.From:
			if !placed {
				out = append(out, r)
				placed = true
			}
			out = append(out, x)
		default: // overlapping or adjacent: merge into r
			r = Run{min(r.From, x.From), max(r.To, x.To)}
		}
	}
	if !placed {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Run) int { return cmp.Compare(a.From, b.From) })
	s.list = out
}

func (s *runSet) addAll(rs []Run) {
	for _, r := range rs {
		s.add(r)
	}
}

func (s *runSet) runs() []Run { return slices.Clone(s.list) }

// intersect returns the parts of s inside o.
func (s *runSet) intersect(o *runSet) []Run {
	var out []Run
	for _, a := range s.list {
		for _, b := range o.list {
			lo, hi := max(a.From, b.From), min(a.To, b.To)
			if lo <= hi {
				out = append(out, Run{lo, hi})
			}
		}
	}
	return out
}

// minus returns the parts of s outside o.
func (s *runSet) minus(o *runSet) []Run {
	var out []Run
	for _, a := range s.list {
		cur := a
		ok := true
		for _, b := range o.list {
			if b.To < cur.From || b.From > cur.To {
				continue
			}
			if b.From > cur.From {
				out = append(out, Run{cur.From, b.From - 1})
			}
			if b.To >= cur.To {
				ok = false
				break
			}
			cur.From = b.To + 1
		}
		if ok {
			out = append(out, cur)
		}
	}
	return out
}
