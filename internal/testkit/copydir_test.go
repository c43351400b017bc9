package testkit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCopyDir(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	files := map[string]string{"a.tsfile": "abc", "x/y/b.mods2": "", "x/c": "ccc"}
	for name, body := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	CopyDir(t, src, dst)
	for name, body := range files {
		p := filepath.Join(dst, name)
		b, err := os.ReadFile(p)
		if err != nil || string(b) != body {
			t.Errorf("%s: %q, %v; want %q", name, b, err, body)
			continue
		}
		if st, _ := os.Stat(p); !st.ModTime().Equal(old) {
			t.Errorf("%s: mtime %v, want %v", name, st.ModTime(), old)
		}
	}
}
