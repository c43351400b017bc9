//go:build unix

package durable

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
)

// TestTempModes: CreateTemp and MkdirTemp give what os.Create and os.Mkdir
// give under each umask (0o666 and 0o777 less it), where os.CreateTemp
// and os.MkdirTemp give 0o600 and 0o700 whatever the umask. The umask is
// the process's: no test of this package runs in parallel with this one.
func TestTempModes(t *testing.T) {
	dir := t.TempDir()
	name := regexp.MustCompile(`^\.out\.tmp-[0-9]+\.x$`)
	for _, umask := range []int{0o022, 0o027, 0o002, 0o077, 0} {
		old := syscall.Umask(umask)
		f, err := CreateTemp(dir, ".out.tmp-*.x")
		var d string
		var derr error
		if err == nil {
			d, derr = MkdirTemp(dir, ".out.tmp-*.x")
		}
		ref, rerr := os.Create(filepath.Join(dir, "ref"))
		syscall.Umask(old)
		if err != nil || derr != nil || rerr != nil {
			t.Fatal(err, derr, rerr)
		}
		f.Close()
		ref.Close()
		check := func(p string, want fs.FileMode) {
			t.Helper()
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != want {
				t.Errorf("umask %03o: %s has mode %03o, want %03o", umask, filepath.Base(p), got, want)
			}
			if !name.MatchString(filepath.Base(p)) {
				t.Errorf("name %s does not follow the pattern", filepath.Base(p))
			}
		}
		check(f.Name(), fs.FileMode(0o666&^umask))
		check(d, fs.FileMode(0o777&^umask))
		st, err := os.Stat(ref.Name())
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != fs.FileMode(0o666&^umask) {
			t.Errorf("umask %03o: os.Create gave %03o", umask, st.Mode().Perm())
		}
		os.Remove(f.Name())
		os.Remove(d)
		os.Remove(ref.Name())
	}
	if _, err := CreateTemp(dir, "a/b*"); err == nil {
		t.Error("a pattern with a separator was taken")
	}
}
