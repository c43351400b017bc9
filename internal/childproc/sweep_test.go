package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func TestSweepTempDirs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Alive tells a gone process only on Linux")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	const prefix = "tsarrow-sweeptest-"
	mk := func(name string, dir bool) string {
		p := filepath.Join(tmp, name)
		var err error
		if dir {
			err = os.Mkdir(p, 0o755)
		} else {
			err = os.WriteFile(p, nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := mk(fmt.Sprintf("%s%d-a", prefix, dead.Process.Pid), true)
	goneToo := mk(fmt.Sprintf("%s%d-initdb-b", prefix, dead.Process.Pid), true)
	keep := []string{
		mk(fmt.Sprintf("%s%d-a", prefix, os.Getpid()), true), // this process
		mk(fmt.Sprintf("%s%d-a", prefix, 1), true),           // alive
		mk(fmt.Sprintf("%s%d-file", prefix, dead.Process.Pid), false),
		mk(fmt.Sprintf("other-%d-a", dead.Process.Pid), true),
		mk(prefix+"x-a", true),
		mk(fmt.Sprintf("%s%d", prefix, dead.Process.Pid), true), // no "-" after the pid
	}
	SweepTempDirs(prefix)
	for _, p := range []string{gone, goneToo} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want removed", p, err)
		}
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v, want kept", p, err)
		}
	}
}
