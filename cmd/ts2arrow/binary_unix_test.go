//go:build unix

package main

// The built binary under signals and on a terminal: a conversion stopped
// by SIGTERM or SIGINT leaves nothing behind, one stopped by SIGKILL leaves
// no OUT, and under tmux the progress bar draws in place and ends at 100%.

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/testkit/need"
)

// running is a started ts2arrow process.
type running struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
	err    error // cmd.Wait's, once done is closed
}

// startBin starts ts2arrow with args; the test's cleanup kills it if it
// is still running.
func startBin(t *testing.T, args ...string) *running {
	t.Helper()
	return startBinEnv(t, nil, args...)
}

// startBinEnv is startBin with extra environment variables (KEY=value).
func startBinEnv(t *testing.T, env []string, args ...string) *running {
	t.Helper()
	r := &running{cmd: exec.Command(binary(t), args...), done: make(chan struct{})}
	if env != nil {
		r.cmd.Env = append(r.cmd.Environ(), env...)
	}
	r.cmd.Stderr = &r.stderr
	require.NoError(t, r.cmd.Start())
	go func() {
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

func (r *running) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// wait waits for the process to end and returns its exit code, -1 when a
// signal killed it.
func (r *running) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(timeout):
		t.Fatalf("ts2arrow still running %v after the signal", timeout)
	}
	var ee *exec.ExitError
	switch {
	case r.err == nil:
		return 0
	case errors.As(r.err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(r.err)
	return 0
}

// written returns the bytes of the files matching pattern, and of every
// file under a matching directory; -1 when nothing matches.
func written(pattern string) int64 {
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		return -1
	}
	var n int64
	for _, p := range m {
		filepath.WalkDir(p, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					n += info.Size()
				}
			}
			return nil
		})
	}
	return n
}

// interrupt starts a long conversion and, once its temporary output exists
// and holds data (the first Parquet row group, or the first part of a
// partitioned output: a few hundred milliseconds in, about a third of the
// way through on any machine), sends sig. It returns the exit code and
// what ts2arrow printed.
func interrupt(t *testing.T, sig os.Signal, out, tmpPattern string, args ...string) (int, string) {
	t.Helper()
	return interruptCommand(t, sig, tmpPattern, append([]string{"convert", bigFile(t), "-o", out}, args...)...)
}

// interruptCommand runs ts2arrow with args and sends sig once a file
// matching tmpPattern holds data, as interrupt does.
func interruptCommand(t *testing.T, sig os.Signal, tmpPattern string, args ...string) (int, string) {
	t.Helper()
	binary(t) // the binary's build does not count in the timing
	start := time.Now()
	r := startBin(t, args...)
	deadline := start.Add(30 * time.Second)
	var n int64
	for n = written(tmpPattern); n <= 0; n = written(tmpPattern) {
		if r.exited() {
			t.Fatalf("ts2arrow ended before %s held data: %v\n%s", tmpPattern, r.err, r.stderr.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s held no data after 30 s", tmpPattern)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := r.cmd.Process.Signal(sig); err != nil || r.exited() && r.err == nil {
		<-r.done
		t.Fatalf("the conversion finished before the signal (%v, %v); the big input is too small for this machine", err, r.err)
	}
	sent := time.Now()
	code := r.wait(t, 30*time.Second)
	t.Logf("%v %v after the start, %d bytes written: exit %d %v later; stderr: %q", sig, sent.Sub(start).Round(time.Millisecond), n,
		code, time.Since(sent).Round(time.Millisecond), r.stderr.String())
	return code, r.stderr.String()
}

// TestBinarySignalLeavesNothing: SIGTERM or SIGINT in the middle of a
// conversion (or a recover) stops it with status 143 or 130 (the process
// handles the signal rather than dying of it), and neither OUT nor the
// temporary file beside it remains.
func TestBinarySignalLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("converts a large file")
	}
	for _, tc := range []struct {
		name      string
		sig       os.Signal
		partition bool
		recover   bool
	}{
		{"SIGTERM", syscall.SIGTERM, false, false},
		{"SIGINT", syscall.SIGINT, false, false},
		{"SIGTERM-partitioned", syscall.SIGTERM, true, false},
		{"SIGINT-recover", syscall.SIGINT, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "OUT.parquet")
			args := []string(nil)
			if tc.partition {
				out = filepath.Join(dir, "OUT")
				args = []string{"--partition-by", "device"}
			}
			var code int
			var stderr string
			if tc.recover {
				code, stderr = interruptCommand(t, tc.sig, filepath.Join(dir, "."+filepath.Base(out)+".tsarrow-tmp-*"), "recover", bigFile(t), "-o", out)
			} else {
				code, stderr = interrupt(t, tc.sig, out, filepath.Join(dir, "."+filepath.Base(out)+".tsarrow-tmp-*"), args...)
			}
			// 128 + the signal's number, as a shell reports a command the
			// signal killed; but the process handled it (-1: it died of it).
			require.Equal(t, 128+int(tc.sig.(syscall.Signal)), code, stderr)
			require.Contains(t, stderr, "interrupted")
			require.NotContains(t, stderr, "\r", "no progress bar off a terminal")
			require.NoFileExists(t, out)
			require.NoDirExists(t, out)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			require.Empty(t, names, "left behind")
		})
	}
}

// TestBinarySIGKILLLeavesNoOutput: a killed process cannot clean up, so
// its temporary file may remain; what the write-then-rename guarantees is
// that OUT never exists half-written. The next run into the same OUT
// removes the temporary, saying so.
func TestBinarySIGKILLLeavesNoOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("converts a large file")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "OUT.parquet")
	code, _ := interrupt(t, syscall.SIGKILL, out, filepath.Join(dir, ".OUT.parquet.tsarrow-tmp-*"))
	require.Equal(t, -1, code)
	require.NoFileExists(t, out)
	// Nothing else is there; the temporary file is, as nobody was left
	// to remove it.
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	left := entries[0].Name()
	require.True(t, strings.HasPrefix(left, ".OUT.parquet.tsarrow-tmp-"), left)

	r := runBin(t, "convert", sample, "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `^ts2arrow: removed stale temporary file `+regexp.QuoteMeta(filepath.Join(dir, left))+` left by process \d+\n$`, r.stderr)
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, "OUT.parquet", entries[0].Name())
}

// shQuote quotes s for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// tmuxServer is a private tmux server (its own socket, no user
// configuration) whose sessions have a fixed size.
type tmuxServer struct {
	t    *testing.T
	tmux string
	dir  string
	sock string
	env  []string
}

// newTmux starts nothing yet; it skips the test when tmux is missing.
// Sessions are killed with the server when the test ends.
func newTmux(t *testing.T) *tmuxServer {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		need.Skipf(t, "tmux is not installed")
	}
	// A short directory: the server's socket path must fit in sun_path.
	dir, err := os.MkdirTemp("", "tmux")
	require.NoError(t, err)
	s := &tmuxServer{t: t, tmux: tmux, dir: dir, sock: filepath.Join(dir, "s"), env: os.Environ()}
	if term := os.Getenv("TERM"); term == "" || term == "dumb" {
		// tmux wants a terminal type of its own; inside the session
		// TERM is tmux's default-terminal anyway.
		s.env = append(s.env, "TERM=xterm-256color")
	}
	t.Cleanup(func() {
		s.run("kill-server")
		os.RemoveAll(dir)
	})
	return s
}

func (s *tmuxServer) run(args ...string) (string, error) {
	cmd := exec.Command(s.tmux, append([]string{"-f", "/dev/null", "-S", s.sock}, args...)...)
	cmd.Env = s.env
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// start runs a shell script in a new detached 120x20 session.
func (s *tmuxServer) start(session, script string) {
	s.t.Helper()
	path := filepath.Join(s.dir, session+".sh")
	require.NoError(s.t, os.WriteFile(path, []byte(script), 0o755))
	if o, err := s.run("new-session", "-d", "-s", session, "-x", "120", "-y", "20", "sh "+shQuote(path)); err != nil {
		s.t.Fatalf("tmux new-session: %v: %s", err, o)
	}
}

func (s *tmuxServer) capture(session string) string {
	s.t.Helper()
	o, err := s.run("capture-pane", "-p", "-t", session)
	if err != nil {
		s.t.Fatalf("tmux capture-pane: %v: %s", err, o)
	}
	return o
}

// poll captures the session's screen until done accepts it.
func (s *tmuxServer) poll(session, what string, timeout time.Duration, done func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var screen string
	for time.Now().Before(deadline) {
		if screen = s.capture(session); done(screen) {
			return screen
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("no %s on the terminal after %v; the screen:\n%s", what, timeout, screen)
	return ""
}

// barLine matches a line of the progress bar and captures its percentage
// and row count.
var barLine = regexp.MustCompile(`\[[= ]+\]\s+(\d+)% (\S+) rows `)

// partWay reports whether screen shows the bar with rows done, short of
// 100%.
func partWay(screen string) bool {
	m := barLine.FindStringSubmatch(screen)
	if m == nil {
		return false
	}
	pct, _ := strconv.Atoi(m[1])
	return pct > 0 && pct < 100 && m[2] != "0"
}

// convertScript is the shell script of a session: the conversion, then
// its exit status, then a pause that keeps the screen to read.
func convertScript(bin, in, out string, args ...string) string {
	cmd := []string{shQuote(bin), "convert", shQuote(in), "-o", shQuote(out)}
	for _, a := range args {
		cmd = append(cmd, shQuote(a))
	}
	return strings.Join(cmd, " ") + "; echo EXIT=$?; sleep 60\n"
}

// TestBinaryProgressBarInTmux runs conversions on a real terminal (a
// detached tmux session of fixed size) and reads the screen: the bar draws
// part way, redraws in place (one line, not one per update), and ends at
// 100% with the row count before the shell prints the exit status. The
// bar of a partitioned conversion, which has no row estimate and counts
// bytes, too.
func TestBinaryProgressBarInTmux(t *testing.T) {
	tm := newTmux(t)
	if testing.Short() {
		t.Skip("converts a large file")
	}
	for _, tc := range []struct {
		name, out string
		args      []string
	}{
		{"single", "out.parquet", nil},
		{"partitioned", "parts", []string{"--partition-by", "device"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(tm.dir, tc.out)
			tm.start(tc.name, convertScript(binary(t), bigFile(t), out, tc.args...))
			start := time.Now()
			midway := tm.poll(tc.name, "progress bar part way", 60*time.Second, partWay)
			t.Logf("after %v:\n%s", time.Since(start).Round(time.Millisecond), strings.TrimRight(midway, "\n"))
			final := tm.poll(tc.name, "exit status", 60*time.Second, func(s string) bool { return strings.Contains(s, "EXIT=") })
			t.Logf("after %v:\n%s", time.Since(start).Round(time.Millisecond), strings.TrimRight(final, "\n"))
			require.Contains(t, final, "EXIT=0")

			screen := strings.Split(final, "\n")
			var bars []int
			exitLine := -1
			for i, l := range screen {
				if barLine.MatchString(l) {
					bars = append(bars, i)
				}
				if strings.HasPrefix(l, "EXIT=") && exitLine < 0 {
					exitLine = i
				}
			}
			require.Len(t, bars, 1, "the bar redraws in place; the screen:\n%s", final)
			bar := screen[bars[0]]
			require.Regexp(t, `^\[=+\] 100% `, bar)
			require.Contains(t, bar, fmt.Sprintf(" %s rows ", count(bigRows)))
			require.NotContains(t, bar, "ETA")
			require.Equal(t, bars[0]+1, exitLine, "the bar ends its line just before the shell's next output:\n%s", final)
			_, err := os.Stat(out)
			require.NoError(t, err)
		})
	}
}

// TestBinaryCtrlCInTmux types Ctrl-C on the terminal part way through a
// conversion: the bar's line is ended, the one-line message follows on its
// own line, the status is an error and no output or temporary file is
// left.
func TestBinaryCtrlCInTmux(t *testing.T) {
	tm := newTmux(t)
	if testing.Short() {
		t.Skip("converts a large file")
	}
	out := filepath.Join(tm.dir, "out.parquet")
	// Ctrl-C signals the terminal's whole foreground process group; the
	// trap keeps the shell alive to print the status (and is reset to
	// the default in ts2arrow, as for a command typed at a prompt).
	tm.start("ctrlc", "trap : INT\n"+convertScript(binary(t), bigFile(t), out))
	tm.poll("ctrlc", "progress bar part way", 60*time.Second, partWay)
	if o, err := tm.run("send-keys", "-t", "ctrlc", "C-c"); err != nil {
		t.Fatalf("tmux send-keys: %v: %s", err, o)
	}
	final := tm.poll("ctrlc", "exit status", 60*time.Second, func(s string) bool { return strings.Contains(s, "EXIT=") })
	t.Logf("the screen:\n%s", strings.TrimRight(final, "\n"))
	require.NotContains(t, final, "EXIT=0")
	require.Regexp(t, `(?m)^ts2arrow: interrupted; nothing was written\nEXIT=130$`, final)
	require.Regexp(t, `(?m)^.*\[[= ]+\]\s+\d+% .*\nts2arrow: interrupted`, final)
	require.NoFileExists(t, out)
	left, err := filepath.Glob(filepath.Join(tm.dir, ".out.parquet.tsarrow-tmp-*"))
	require.NoError(t, err)
	require.Empty(t, left)
}

// TestBinaryReadersInterrupted: inspect, schema and head write only to
// standard output; SIGINT or SIGTERM ends them at once with 130 or 143, as
// convert ends after cleaning up. Each is caught waiting for a URL input
// whose server does not answer, so the signal surely comes mid-command.
func TestBinaryReadersInterrupted(t *testing.T) {
	asked := make(chan struct{}, 16)
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	for _, tc := range []struct {
		cmd string
		sig syscall.Signal
	}{
		{"inspect", syscall.SIGINT},
		{"schema", syscall.SIGTERM},
		{"head", syscall.SIGINT},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			r := startBin(t, tc.cmd, srv.URL+"/x.tsfile")
			select {
			case <-asked:
			case <-r.done:
				t.Fatalf("%s ended before reading its input: %v\n%s", tc.cmd, r.err, r.stderr.String())
			}
			require.NoError(t, r.cmd.Process.Signal(tc.sig))
			require.Equal(t, 128+int(tc.sig), r.wait(t, 30*time.Second), r.stderr.String())
		})
	}
}
