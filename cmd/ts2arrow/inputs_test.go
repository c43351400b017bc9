package main

import (
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
