package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExpandInputsGlobstar checks that `**` matches any number of
// directories (zero included), as bash's globstar and DuckDB do, and not
// one level as filepath.Glob's `*` does.
func TestExpandInputsGlobstar(t *testing.T) {
	root := t.TempDir()
	sample, err := os.ReadFile("../../testdata/sample.tsfile")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"a.tsfile", "x/b.tsfile", "x/y/z/c.tsfile", "x/y/d.tsfile"}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, sample, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "x/y/z/notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(root, n))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"globstar", []string{root + "/**/*.tsfile"}, j("a.tsfile", "x/b.tsfile", "x/y/d.tsfile", "x/y/z/c.tsfile")},
		{"globstar mid", []string{root + "/x/**/c.tsfile"}, j("x/y/z/c.tsfile")},
		{"star is one level", []string{root + "/*/*.tsfile"}, j("x/b.tsfile")},
		{"alternatives", []string{root + "/{a,x/b}.tsfile"}, j("a.tsfile", "x/b.tsfile")},
		// A file named by two patterns is read once, in the first place.
		{"dedup", []string{root + "/x/**/*.tsfile", root + "/**/*.tsfile"}, j("x/b.tsfile", "x/y/d.tsfile", "x/y/z/c.tsfile", "a.tsfile")},
		// A directory matched by ** is expanded to its *.tsfile files.
		{"dirs", []string{root + "/x/**/z"}, j("x/y/z/c.tsfile")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expandInputs(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("expandInputs(%q)\n got %q\nwant %q", tc.args, got, tc.want)
			}
		})
	}

	pat := root + "/**/*.parquet"
	_, err = expandInputs([]string{pat})
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), pat) {
		t.Errorf("a pattern matching nothing: %v, want a usage error naming %q", err, pat)
	}

	// End to end: convert reads all four files (4 x 1,500 rows).
	code, out, stderr := runCLI("convert", root+"/**/*.tsfile", "--table", "weather", "--format", "csv", "-o", "-")
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	if n := strings.Count(out, "\n") - 1; n != 4*1500 {
		t.Errorf("convert root/**/*.tsfile: %d rows, want %d", n, 4*1500)
	}
}

// TestInspectJSONKeepsFailedPlace checks that inspect --json puts an
// object naming a file that could not be read in that file's place in the
// array, as the help promises, and still exits 1.
func TestInspectJSONKeepsFailedPlace(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.tsfile")
	if err := os.WriteFile(junk, []byte("junk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sample := "../../testdata/sample.tsfile"
	missing := filepath.Join(dir, "missing.tsfile")
	none := filepath.Join(dir, "none-*.tsfile")
	code, out, stderr := runCLI("inspect", "--json", sample, junk, missing, none, sample)
	if code != 1 {
		t.Errorf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s", err, out)
	}
	want := []struct {
		file, errPart string // errPart "" for a file read
	}{
		{sample, ""},
		{junk, "too short for the magic"},
		{missing, "no such file"},
		{none, "matches no file"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d array items, want %d (the sample named twice is read once):\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		if got[i]["file"] != w.file {
			t.Errorf("item %d: file %v, want %s", i, got[i]["file"], w.file)
		}
		msg, hasErr := got[i]["error"].(string)
		switch {
		case w.errPart == "" && hasErr:
			t.Errorf("item %d: error %q on a file that reads", i, msg)
		case w.errPart == "" && got[i]["tables"] == nil:
			t.Errorf("item %d: no tables", i)
		case w.errPart != "" && !strings.Contains(msg, w.errPart):
			t.Errorf("item %d: error %q, want it to say %q", i, msg, w.errPart)
		case w.errPart != "" && !strings.Contains(stderr, msg):
			t.Errorf("item %d: error %q is not the one on stderr:\n%s", i, msg, stderr)
		}
	}
}
