package icesync

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tsarrow/tsarrow/dataset"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

const msPerDay = 86_400_000

// copyIoTDBTestdata copies the data directory testdata/iotdb to a temporary one the
// test may change.
func copyIoTDBTestdata(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	testkit.CopyDir(t, filepath.Join("..", "testdata", "iotdb"), dst)
	return dst
}

func gather(t *testing.T, dir string) []SourceFile {
	t.Helper()
	l, err := dataset.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := GatherFacts(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	return facts
}

// fakeWritten names one data file per bucket of every task, as a sync
// writes them.
func fakeWritten(plan *SyncPlan) []map[int64][]string {
	var out []map[int64][]string
	for _, task := range plan.Tasks {
		w := map[int64][]string{}
		if len(task.Files) > 0 {
			for b := task.From; b <= task.To; b++ {
				w[b] = []string{"f.parquet"}
			}
		}
		out = append(out, w)
	}
	return out
}

// TestGatherFactsIncremental syncs the IoTDB data directory of testdata,
// then plans again after nothing, after a new deletion in one file and
// after a file is gone.
func TestGatherFactsIncremental(t *testing.T) {
	dir := copyIoTDBTestdata(t)
	opts := PlanOptions{Bucket: DayBucket(msPerDay)}
	facts := gather(t, dir)
	var names []string
	for _, f := range facts {
		names = append(names, f.Name)
		if len(f.Devices) == 0 {
			t.Errorf("%s: no device ranges", f.Name)
		}
		if strings.HasSuffix(f.Name, "1767268800000-2-0-0.tsfile") && (f.Mods == "" || len(f.Deletions) == 0) {
			t.Errorf("%s: its .mods2 was not read: %+v", f.Name, f)
		}
		for _, d := range f.Deletions {
			for _, c := range d.Covers {
				inside := slices.ContainsFunc(f.Devices, func(r DeviceRange) bool { return c.Start >= r.Start && c.End <= r.End })
				if !inside {
					t.Errorf("%s: deletion %s covers %v outside every device range", f.Name, d.Key, c)
				}
			}
		}
	}
	want := []string{
		"sequence/root.sg/1/0/1767225600000-1-0-0.tsfile",
		"sequence/weather/1/0/1767225600000-1-0-0.tsfile",
		"sequence/weather/1/0/1767268800000-2-0-0.tsfile",
		"sequence/weather/1/1/1767312000000-4-0-0.tsfile",
		"unsequence/weather/1/0/1767236400000-3-0-0.tsfile",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}

	first, err := Plan(nil, facts, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Rewritten() != nil || len(first.New) != len(facts) || first.Empty() {
		t.Fatalf("first sync: %+v", first)
	}
	state, err := NextState(nil, facts, first, fakeWritten(first), opts)
	if err != nil {
		t.Fatal(err)
	}

	again, err := Plan(state, gather(t, dir), opts)
	if err != nil || !again.Empty() || len(again.Unchanged) != len(facts) {
		t.Fatalf("sync again: %+v, %v", again, err)
	}

	// A DELETE on the table in the first file, which had no mods file:
	// only the day of the deleted range (clipped to the file) is rewritten.
	target := filepath.Join(dir, "sequence", "weather", "1", "0", "1767225600000-1-0-0.tsfile")
	res, err := dataset.ReadResourceFile(target + dataset.ResourceSuffix)
	if err != nil {
		t.Fatal(err)
	}
	dev := res.Devices[0]
	del := dataset.Deletion{Kind: dataset.TableDeletion, Table: dev.Device.Table(), Start: dev.Start, End: dev.Start}
	b, err := dataset.AppendModsV2(nil, del)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target+dataset.ModsV2Suffix, b, 0o644); err != nil {
		t.Fatal(err)
	}
	facts = gather(t, dir)
	plan, err := Plan(state, facts, opts)
	if err != nil {
		t.Fatal(err)
	}
	day := DayBucket(msPerDay)(dev.Start)
	if got, want := plan.Rewritten(), []Run{{day, day}}; !slices.Equal(got, want) || !slices.Equal(plan.ModsChanged, []string{"sequence/weather/1/0/1767225600000-1-0-0.tsfile"}) {
		t.Fatalf("after a deletion: rewritten %v (want %v), mods changed %v", got, want, plan.ModsChanged)
	}
	for _, task := range plan.Tasks {
		if !task.Rewrite || !slices.Contains(task.Files, "sequence/weather/1/0/1767225600000-1-0-0.tsfile") {
			t.Errorf("task %+v", task)
		}
	}
	if state, err = NextState(state, facts, plan, fakeWritten(plan), opts); err != nil {
		t.Fatal(err)
	}

	// The unsequence file gone (compacted away, say): its days are
	// rewritten from the files left.
	gone := filepath.Join(dir, "unsequence", "weather", "1", "0", "1767236400000-3-0-0.tsfile")
	goneRes, err := dataset.ReadResourceFile(gone + dataset.ResourceSuffix)
	if err != nil {
		t.Fatal(err)
	}
	var days runSet
	for _, d := range goneRes.Devices {
		days.add(Run{DayBucket(msPerDay)(d.Start), DayBucket(msPerDay)(d.End)})
	}
	for _, p := range []string{gone, gone + dataset.ResourceSuffix} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	plan, err = Plan(state, gather(t, dir), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Rewritten(); !slices.Equal(got, days.runs()) || !slices.Equal(plan.Gone, []string{"unsequence/weather/1/0/1767236400000-3-0-0.tsfile"}) {
		t.Fatalf("after a file went: rewritten %v (want %v), gone %v", got, days.runs(), plan.Gone)
	}
}

func TestGatherFactsNoResource(t *testing.T) {
	dir := copyIoTDBTestdata(t)
	if err := os.Remove(filepath.Join(dir, "sequence", "weather", "1", "1", "1767312000000-4-0-0.tsfile.resource")); err != nil {
		t.Fatal(err)
	}
	l, err := dataset.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GatherFacts(l, nil); !errors.Is(err, ErrNoResource) {
		t.Fatalf("GatherFacts: %v, want ErrNoResource", err)
	}
}
