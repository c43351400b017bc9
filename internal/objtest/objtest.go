// Package objtest starts real object stores on 127.0.0.1 for tests:
// versitygw (S3, with its posix backend), Azurite (Azure Blob) and
// fake-gcs-server (Google Cloud Storage), and a fault-injecting reverse
// proxy to put in front of them. Fixtures are put and results read back
// with each cloud's own SDK or plain HTTP, never through package objstore,
// so that a test does not take the code under test's word for what a
// bucket holds.
//
// Each server starts once per test binary, on first use, and is shared by
// every test in it; a test takes buckets (or containers) of its own, so
// tests do not see each other's objects. A missing server program skips
// the test, or fails it under CI=true (see internal/testkit/need): .ci/run
// installs them and exports where they are.
//
// Lifetime: a server lives as long as the test process. Stopping it from
// a test's Cleanup would restart it for every test (Azurite takes seconds
// to start), and a package has no hook after its last test without a
// TestMain of its own, which every user of this package would have to
// write. Instead, on Linux, the server is started with a parent-death
// signal (SIGKILL when the test process ends, however it ends), from an
// OS thread that never exits, since the kernel sends that signal when the
// starting thread ends, not the process. The servers' data directories
// live under the system temp directory named after the test process's pid,
// and the next start removes those whose process is gone.
package objtest

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsarrow/tsarrow/internal/testkit/need"

	"github.com/tsarrow/tsarrow/internal/childproc"
)

// startTimeout bounds how long a server may take to answer its first
// request. Azurite needs some 15 s on a busy 2-core machine; this is a
// bound on a hang, not a timed assertion.
const startTimeout = 3 * time.Minute

// findProgram returns the path of a server program: the file $env names
// when it is set, else name on PATH, else each of fallback that exists.
// It returns "" and what was tried when none is found; a set $env naming
// no file is an error, since someone asked for that file.
func findProgram(env, name string, fallback ...string) (string, string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", "", fmt.Errorf("$%s=%s: %w", env, p, err)
		}
		return p, "", nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, "", nil
	}
	for _, p := range fallback {
		if _, err := os.Stat(p); err == nil {
			return p, "", nil
		}
	}
	tried := fmt.Sprintf("$%s unset, no %s on PATH", env, name)
	if len(fallback) > 0 {
		tried += ", none of " + strings.Join(fallback, ", ")
	}
	return "", tried, nil
}

// once starts a shared server on first use and gives every later caller
// the same result: the server, or the reason it is missing (skip) or
// failed (err).
type once[T any] struct {
	once sync.Once
	srv  T
	skip string
	err  error
}

// get starts the server with start on first use, then reports skip or err
// on t and returns the server.
func (o *once[T]) get(t testing.TB, start func() (T, string, error)) T {
	t.Helper()
	o.once.Do(func() { o.srv, o.skip, o.err = start() })
	if o.err != nil {
		t.Fatalf("objtest: %v", o.err)
	}
	if o.skip != "" {
		need.Skipf(t, "objtest: %s", o.skip)
	}
	return o.srv
}

// startProc starts path with args in dir, its output kept in a tail
// buffer, ending with the test process (on Linux).
func startProc(dir, path string, args []string, env []string) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	return childproc.Start(cmd)
}

// proc is a started server process.
type proc = childproc.Proc

// waitHTTP waits until url answers an HTTP request (any status: the
// servers answer an unsigned request with 400 or 403) or p exits.
func waitHTTP(p *proc, name, url string) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(startTimeout)
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-p.Exited:
			return fmt.Errorf("%s: %w before answering at %s (%v): %s", name, errExitedEarly, url, p.Err, p.Out)
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Cmd.Process.Kill()
			return fmt.Errorf("%s did not answer at %s within %v: %v: %s", name, url, startTimeout, err, p.Out)
		}
	}
}

// errExitedEarly marks a server that exited before answering, which a
// lost race for its port explains; the caller tries another port.
var errExitedEarly = errors.New("exited early")

// startServer starts a server on a free port, up to three times when it
// exits before answering (another process may have taken the port between
// freePort and the server's listen). args builds the command line for a
// port; url is what waitHTTP polls.
func startServer(name, dir, path string, env []string, args func(port int) []string, url func(port int) string) (*proc, int, error) {
	var last error
	for try := 0; try < 3; try++ {
		port, err := childproc.FreePort()
		if err != nil {
			return nil, 0, err
		}
		p, err := startProc(dir, path, args(port), env)
		if err != nil {
			return nil, 0, fmt.Errorf("start %s: %w", name, err)
		}
		err = waitHTTP(p, name, url(port))
		if err == nil {
			return p, port, nil
		}
		if !errors.Is(err, errExitedEarly) {
			return nil, 0, err
		}
		last = err // maybe the port was taken: try another
	}
	return nil, 0, last
}

// dataDirPrefix names the temporary directories of the servers' data;
// the pid after it says whose they are.
const dataDirPrefix = "tsarrow-objtest-"

var sweepOnce sync.Once

// dataDir makes a temporary directory for a server's data, named after
// this process, after removing those left by test processes that ended.
func dataDir(kind string) (string, error) {
	sweepOnce.Do(func() { childproc.SweepTempDirs(dataDirPrefix) })
	return os.MkdirTemp("", fmt.Sprintf("%s%d-%s-", dataDirPrefix, os.Getpid(), kind))
}

var nameSeq atomic.Int64

// uniqueName returns a bucket or container name made from the test's
// name, unique in this process: lower-case letters, digits and '-',
// 3 to 63 characters, starting and ending with a letter or digit (the
// rules S3, Azure and GCS share).
func uniqueName(t testing.TB) string {
	var b strings.Builder
	dash := true // no leading dash, no runs of dashes
	for _, r := range strings.ToLower(t.Name()) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	base := strings.TrimRight(b.String(), "-")
	suffix := fmt.Sprintf("-%d", nameSeq.Add(1))
	if max := 63 - len(suffix); len(base) > max {
		base = strings.TrimRight(base[:max], "-")
	}
	if base == "" {
		base = "t"
	}
	return base + suffix
}
