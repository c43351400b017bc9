//go:build cgo && duckdb_arrow && linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cpuTicks is the CPU time process pid has used, in clock ticks
// (/proc/PID/stat, utime + stime).
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// TestSQLCtrlC: SIGINT (or SIGTERM) while DuckDB runs a statement
// interrupts it: exit 130 (143), one line on stderr, and no output or
// temporary file left.
func TestSQLCtrlC(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			binary(t)
			dir := t.TempDir()
			out := filepath.Join(dir, "big.parquet")
			// Hours of work for DuckDB: it is still at it when the
			// signal comes.
			r := startBin(t, "sql", sample, "-o", out, "-c", "SELECT sum(a.range * b.range) AS s FROM range(1000000) a, range(1000000) b")
			// Signalled once it has used a second of CPU (DuckDB, not
			// the start of the process, is then running).
			deadline := time.Now().Add(time.Minute)
			for cpuTicks(r.cmd.Process.Pid) < 100 {
				// (stderr is read only once the process is done
				// writing it.)
				if r.exited() {
					t.Fatalf("ended before the signal: %v\n%s", r.err, r.stderr.String())
				}
				if time.Now().After(deadline) {
					t.Fatal("used no CPU for a minute")
				}
				time.Sleep(10 * time.Millisecond)
			}
			require.NoError(t, r.cmd.Process.Signal(sig))
			code := r.wait(t, 30*time.Second)
			require.Equal(t, 128+int(sig), code, r.stderr.String())
			require.Equal(t, "ts2arrow: interrupted; nothing was written\n", r.stderr.String())
			left, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, left)
		})
	}
}
