//go:build linux

package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The system calls of one traced run, as strace -y prints them.
var (
	traceRename = regexp.MustCompile(`^renameat2?\(AT_FDCWD[^,]*, "([^"]+)", AT_FDCWD[^,]*, "([^"]+)"(?:, [A-Z_0-9|]+)?\)\s*= 0$|^rename\("([^"]+)", "([^"]+)"\)\s*= 0$`)
	traceFsync  = regexp.MustCompile(`^f(?:data)?sync\(\d+<([^>]+)>\)\s*= 0$`)
	tracePid    = regexp.MustCompile(`^(\d+)\s+`)
)

// syscallStep is a rename (from, to) or an fsync (to only) that succeeded.
type syscallStep struct{ op, from, to string }

// straceRun runs the built CLI under strace and returns the renames and
// fsyncs it made, in order. It skips the test where strace is missing or
// cannot trace (a container without ptrace): the durable-step tests of
// durable_unix_test.go are the ones CI relies on; this one checks the
// same thing on the real system calls, where it can.
func straceRun(t *testing.T, args ...string) []syscallStep {
	t.Helper()
	st, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed")
	}
	if exec.Command(st, "-qq", "-o", os.DevNull, "true").Run() != nil {
		t.Skip("strace cannot trace here")
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(st, append([]string{"-f", "-qq", "-y", "-e", "signal=none",
		"-e", "trace=rename,renameat,renameat2,fsync,fdatasync", "-o", trace, binary(t)}, args...)...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Run(), errOut.String())
	b, err := os.ReadFile(trace)
	require.NoError(t, err)
	var steps []syscallStep
	pending := map[string]string{} // pid -> the start of an unfinished call
	for _, line := range strings.Split(string(b), "\n") {
		pid := tracePid.FindString(line)
		line = strings.TrimPrefix(line, pid)
		pid = strings.TrimSpace(pid)
		if i := strings.Index(line, " <unfinished ...>"); i >= 0 {
			pending[pid] = line[:i]
			continue
		}
		if strings.HasPrefix(line, "<... ") {
			_, rest, ok := strings.Cut(line, " resumed>")
			if !ok {
				continue
			}
			line = pending[pid] + rest
			delete(pending, pid)
		}
		if m := traceRename.FindStringSubmatch(line); m != nil {
			if m[1] != "" {
				steps = append(steps, syscallStep{"rename", m[1], m[2]})
			} else {
				steps = append(steps, syscallStep{"rename", m[3], m[4]})
			}
		} else if m := traceFsync.FindStringSubmatch(line); m != nil {
			steps = append(steps, syscallStep{op: "fsync", to: m[1]})
		}
	}
	return steps
}

func indexStep(steps []syscallStep, from, to int, match func(syscallStep) bool) int {
	for i := from; i < min(to, len(steps)); i++ {
		if match(steps[i]) {
			return i
		}
	}
	return -1
}

// TestOutputsFsyncedUnderStrace: on the real system calls, a file output's
// temporary is fsynced before its rename and its directory after it; a
// dataset's directories are all fsynced before the tree's rename and OUT's
// directory after it.
func TestOutputsFsyncedUnderStrace(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		args    []string
		out     string
		dataset bool
	}{
		{"file", []string{"convert", sample, "--format", "csv"}, filepath.Join(dir, "x.csv"), false},
		{"dataset", []string{"convert", sample, "--partition-by", "device"}, filepath.Join(dir, "ds"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			steps := straceRun(t, append(c.args, "-o", c.out, "--quiet")...)
			end := len(steps)
			r := -1
			for i, s := range steps {
				if s.op == "rename" && s.to == c.out {
					r = i
				}
			}
			require.GreaterOrEqual(t, r, 0, "no rename to %s: %v", c.out, steps)
			tmp := steps[r].from
			require.GreaterOrEqual(t, indexStep(steps, r+1, end, func(s syscallStep) bool {
				return s.op == "fsync" && s.to == filepath.Dir(c.out)
			}), 0, "%s is not fsynced after the rename: %v", filepath.Dir(c.out), steps)
			if !c.dataset {
				require.GreaterOrEqual(t, indexStep(steps, 0, r, func(s syscallStep) bool {
					return s.op == "fsync" && s.to == tmp
				}), 0, "the temporary is not fsynced before the rename: %v", steps)
				return
			}
			dirs := 0
			require.NoError(t, filepath.WalkDir(c.out, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return err
				}
				dirs++
				rel, _ := filepath.Rel(c.out, p)
				was := filepath.Join(tmp, rel)
				require.GreaterOrEqual(t, indexStep(steps, 0, r, func(s syscallStep) bool {
					return s.op == "fsync" && s.to == was
				}), 0, "directory %s is not fsynced before the tree's rename: %v", rel, steps)
				return nil
			}))
			require.Greater(t, dirs, 2)
		})
	}
}
