package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// touch creates empty files under root, making their folders.
func touch(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// dataDir lays out an IoTDB data directory with every kind of companion
// and of temporary a running server leaves.
func dataDir(t *testing.T) string {
	root := filepath.Join(t.TempDir(), "data")
	touch(t, root,
		"sequence/root.sg/1/0/1000-1-0-0.tsfile",
		"sequence/root.sg/1/0/1000-1-0-0.tsfile.resource",
		"sequence/root.sg/1/0/1000-1-0-0.tsfile.mods",
		"sequence/root.sg/1/0/2000-2-0-0.tsfile",
		"sequence/root.sg/1/0/2000-2-0-0.tsfile.resource",
		"sequence/root.sg/1/0/2000-2-0-0.tsfile.mods2",
		// Not yet closed: no resource.
		"sequence/root.sg/1/0/5000-5-0-0.tsfile",
		// Temporaries of running compactions, settles and rewrites.
		"sequence/root.sg/1/0/3000-3-1-0.inner",
		"sequence/root.sg/1/0/4000-4-0-1.cross",
		"sequence/root.sg/1/0/5000-5-1-0.settle",
		"sequence/root.sg/1/0/1000-1-0-0.tsfile.compaction.mods2",
		"sequence/root.sg/1/0/1000-1-0-0.tsfile.compaction.mods",
		"sequence/root.sg/1/0/1000-1-0-0.tsfile.mods.settle",
		"sequence/root.sg/1/0/2000-2-0-0.tsfile.resource.temp",
		"sequence/root.sg/1/0/3000-3-1-0.inner.resource",
		"sequence/root.sg/1/0/1-0-0-0.inner-compaction.log",
		"sequence/root.sg/1/0/1-0-0-0.cross-compaction.log",
		"sequence/root.sg/1/0/1-0-0-0.settle-compaction.log",
		"sequence/root.sg/1/0/1-0-0-0.insertion-compaction.log",
		"sequence/root.sg/1/0/6000-6-0-0.tsfile.broken",
		// A companion whose data file a compaction removed.
		"sequence/root.sg/1/0/9000-9-0-0.tsfile.resource",
		"sequence/root.sg/1/0/notes.txt",
		"sequence/root.sg/1/0/bad-name.tsfile",
		"sequence/root.sg/1/-1/500-7-0-0.tsfile",
		"sequence/root.sg/2/0/100-1-0-0.tsfile",
		"sequence/root.sg/10/0/100-1-0-0.tsfile",
		"sequence/root.sg/stray.tsfile",
		"unsequence/root.sg/1/0/1500-10-0-0.tsfile",
		"unsequence/root.sg/1/0/1500-10-0-0.tsfile.mods2",
		// Beside the spaces: not walked.
		"wal/1-1-0-0.tsfile",
	)
	return root
}

func TestDiscoverDataDir(t *testing.T) {
	root := dataDir(t)
	seq := filepath.Join(root, "sequence", "root.sg")
	p10 := filepath.Join(seq, "1", "0")
	file := func(space Space, dir, region, partition, base string, n Name) File {
		p := filepath.Join(dir, base)
		return File{Path: p, Space: space, Database: "root.sg", Region: region, Partition: partition, Name: n, Named: true}
	}
	f1 := file(Sequence, p10, "1", "0", "1000-1-0-0.tsfile", Name{1000, 1, 0, 0})
	f1.Resource, f1.ModsV1 = f1.Path+".resource", f1.Path+".mods"
	f2 := file(Sequence, p10, "1", "0", "2000-2-0-0.tsfile", Name{2000, 2, 0, 0})
	f2.Resource, f2.ModsV2 = f2.Path+".resource", f2.Path+".mods2"
	u := file(Unsequence, filepath.Join(root, "unsequence", "root.sg", "1", "0"), "1", "0", "1500-10-0-0.tsfile", Name{1500, 10, 0, 0})
	u.ModsV2 = u.Path + ".mods2"
	want := []File{
		file(Sequence, filepath.Join(seq, "1", "-1"), "1", "-1", "500-7-0-0.tsfile", Name{500, 7, 0, 0}),
		f1, f2,
		file(Sequence, p10, "1", "0", "5000-5-0-0.tsfile", Name{5000, 5, 0, 0}),
		file(Sequence, filepath.Join(seq, "2", "0"), "2", "0", "100-1-0-0.tsfile", Name{100, 1, 0, 0}),
		file(Sequence, filepath.Join(seq, "10", "0"), "10", "0", "100-1-0-0.tsfile", Name{100, 1, 0, 0}),
		u,
	}
	l, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Files, want) {
		t.Errorf("files:\n%s\nwant:\n%s", dump(l.Files), dump(want))
	}
	wantSkipped := map[string]string{
		"3000-3-1-0.inner":                        "inner-space compaction",
		"4000-4-0-1.cross":                        "cross-space compaction",
		"5000-5-1-0.settle":                       "settle",
		"1000-1-0-0.tsfile.compaction.mods2":      "during a running compaction",
		"1000-1-0-0.tsfile.compaction.mods":       "during a running compaction",
		"1000-1-0-0.tsfile.mods.settle":           "settle",
		"2000-2-0-0.tsfile.resource.temp":         "being written",
		"3000-3-1-0.inner.resource":               "inner-space compaction",
		"1-0-0-0.inner-compaction.log":            "log of a running inner-space",
		"1-0-0-0.cross-compaction.log":            "log of a running cross-space",
		"1-0-0-0.settle-compaction.log":           "log of a running settle",
		"1-0-0-0.insertion-compaction.log":        "log of a running insertion",
		"6000-6-0-0.tsfile.broken":                "broken",
		"9000-9-0-0.tsfile.resource":              "not there",
		"notes.txt":                               "not a data file",
		"bad-name.tsfile":                         "not an IoTDB TsFile name",
		filepath.Join("..", "..", "stray.tsfile"): "not in a {database}/{region}/{partition} folder",
	}
	got := map[string]string{}
	for _, s := range l.Skipped {
		rel, err := filepath.Rel(p10, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		got[rel] = s.Reason
	}
	for name, why := range wantSkipped {
		if r, ok := got[name]; !ok || !strings.Contains(r, why) {
			t.Errorf("skipped %s: reason %q (listed %v), want one saying %q", name, r, ok, why)
		}
	}
	if len(got) != len(wantSkipped) {
		t.Errorf("skipped %d files, want %d: %v", len(got), len(wantSkipped), got)
	}
	// A companion whose data file is gone is warned of (its rows are
	// missing if the data file was lost); a compaction's temporaries are
	// IoTDB's normal work and are not.
	wantUnusual := map[string]bool{"9000-9-0-0.tsfile.resource": true, "3000-3-1-0.inner": false, "2000-2-0-0.tsfile.resource.temp": false}
	for _, s := range l.Skipped {
		rel, _ := filepath.Rel(p10, s.Path)
		if want, ok := wantUnusual[rel]; ok && s.Unusual != want {
			t.Errorf("skipped %s: Unusual %v, want %v", rel, s.Unusual, want)
		}
	}
	for i := 1; i < len(l.Skipped); i++ {
		if l.Skipped[i-1].Path >= l.Skipped[i].Path {
			t.Errorf("skipped list not sorted at %d", i)
		}
	}

	// Any folder inside keeps its place; a root given twice lists once.
	for _, sub := range []struct {
		root string
		n    int
	}{
		{filepath.Join(root, "sequence"), 6},
		{seq, 6},
		{filepath.Join(seq, "1"), 4},
		{p10, 3},
		{f2.Path, 1},
	} {
		l2, err := Discover(sub.root, sub.root)
		if err != nil {
			t.Fatal(err)
		}
		if len(l2.Files) != sub.n {
			t.Errorf("Discover(%s): %d files, want %d:\n%s", sub.root, len(l2.Files), sub.n, dump(l2.Files))
			continue
		}
		for _, f := range l2.Files {
			if !containsFile(want, f) {
				t.Errorf("Discover(%s): %+v is not as found from the data directory", sub.root, f)
			}
		}
	}
	l3, err := Discover(f2.Path)
	if err != nil || len(l3.Skipped) != 0 || !reflect.DeepEqual(l3.Files, []File{f2}) {
		t.Errorf("Discover(one file) = %+v, %v", l3, err)
	}
}

func TestDiscoverLoose(t *testing.T) {
	root := t.TempDir()
	touch(t, root,
		"a.tsfile",
		"a.tsfile.mods2",
		"sub/7-3-0-0.tsfile",
		"sub/7-3-0-0.tsfile.resource",
		"sub/8-3-0-0.cross",
	)
	l, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	a := File{Path: filepath.Join(root, "a.tsfile"), ModsV2: filepath.Join(root, "a.tsfile.mods2")}
	b := File{Path: filepath.Join(root, "sub", "7-3-0-0.tsfile"), Name: Name{7, 3, 0, 0}, Named: true,
		Resource: filepath.Join(root, "sub", "7-3-0-0.tsfile.resource")}
	if want := []File{a, b}; !reflect.DeepEqual(l.Files, want) {
		t.Errorf("files:\n%s\nwant:\n%s", dump(l.Files), dump(want))
	}
	if len(l.Skipped) != 1 || !strings.HasSuffix(l.Skipped[0].Path, "8-3-0-0.cross") {
		t.Errorf("skipped %+v", l.Skipped)
	}
	// A loose file named on its own, and a list of both kinds.
	l, err = Discover(filepath.Join(root, "sub", "7-3-0-0.tsfile"), filepath.Join(root, "a.tsfile"))
	if err != nil || len(l.Files) != 2 || l.Files[0].Path != a.Path {
		t.Errorf("list: %+v, %v", l, err)
	}
	for _, bad := range []string{filepath.Join(root, "a.tsfile.mods2"), filepath.Join(root, "missing.tsfile")} {
		if _, err := Discover(bad); err == nil {
			t.Errorf("Discover(%s) did not fail", bad)
		}
	}
	if _, err := Discover(); err == nil {
		t.Error("Discover() did not fail")
	}
}

func containsFile(fs []File, f File) bool {
	for _, g := range fs {
		if reflect.DeepEqual(f, g) {
			return true
		}
	}
	return false
}

func dump(fs []File) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  ")
		b.WriteString(strings.ReplaceAll(filepathToSlash(f.Path), "\n", " "))
		b.WriteString(" ")
		b.WriteString(f.Space.String() + " " + f.Database + "/" + f.Region + "/" + f.Partition)
		if f.Resource != "" {
			b.WriteString(" +resource")
		}
		if f.ModsV1 != "" {
			b.WriteString(" +mods")
		}
		if f.ModsV2 != "" {
			b.WriteString(" +mods2")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func filepathToSlash(p string) string { return filepath.ToSlash(p) }
