//go:build linux

package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tsarrow/tsarrow/internal/testkit/need"

	"github.com/tsarrow/tsarrow/internal/childproc"
)

// startTimeout bounds how long initdb or the server may take. Starting
// takes a second or two on an idle machine; this is a bound on a hang,
// not a timed assertion.
const startTimeout = 3 * time.Minute

// superuser is the role initdb creates; trust authentication, so no
// password.
const superuser = "tsarrow"

// dirPrefix names the temporary directories; the pid after it says
// whose they are.
const dirPrefix = "tsarrow-pgtest-"

// Start starts a new PostgreSQL server for t and stops it, removing its
// files, when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, tried := findBinDir()
	if bin == "" {
		need.Skipf(t, "pgtest: PostgreSQL not found (%s); install it with apt-get install postgresql", tried)
	}
	begin := time.Now()
	s, err := start(bin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	t.Logf("pgtest: %s on %s, started in %v", s.Version, s.DSN, time.Since(begin).Round(time.Millisecond))
	return s
}

// findBinDir returns the directory holding initdb and postgres, or "" and
// what was tried.
func findBinDir() (string, string) {
	has := func(dir string) bool {
		for _, p := range []string{"initdb", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv("TSARROW_PG_BIN"); d != "" {
		if has(d) {
			return d, ""
		}
		return "", fmt.Sprintf("$TSARROW_PG_BIN=%s has no initdb and postgres", d)
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(r)) {
			return filepath.Dir(r), ""
		}
	}
	// Debian's layout, newest major version first.
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, ""
		}
	}
	return "", "$TSARROW_PG_BIN unset, no initdb on PATH beside a postgres, no /usr/lib/postgresql/*/bin"
}

// majorOf returns the version number in /usr/lib/postgresql/VERSION/bin.
func majorOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// runAs returns the credential the programs must run with: nil when the
// test process is not root, else the postgres user's, since initdb and
// postgres refuse root.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and initdb refuses root: no postgres user to run it as (Debian's postgresql package creates one): %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("user postgres: uid %q gid %q", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

func start(bin string) (*Server, error) {
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	sweepOnce.Do(func() { childproc.SweepTempDirs(dirPrefix) })
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return nil, err
	}
	if cred != nil {
		for _, p := range []string{dir, sock} {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, err
			}
		}
	}
	s := &Server{Host: "127.0.0.1", User: superuser, Database: "postgres", SocketDir: sock, BinDir: bin, dir: dir}
	out, err := run(cred, dir, filepath.Join(bin, "postgres"), "--version")
	if err != nil {
		return nil, fmt.Errorf("postgres --version: %v: %s", err, out)
	}
	s.Version = strings.TrimSpace(string(out))
	tmpl, err := template(cred, bin)
	if err != nil {
		return nil, err
	}
	// A copy of the cluster initdb made once for this process: initdb
	// runs the server three times over and takes seconds, a copy of its
	// 40 MB a fraction of one. cp -a as the user the server runs as keeps
	// the modes postgres insists on (0700 for the data directory).
	if out, err := run(cred, dir, "cp", "-a", tmpl, data); err != nil {
		return nil, fmt.Errorf("copy the initdb cluster %s: %v: %s", tmpl, err, out)
	}
	var last error
	for try := 0; try < 3; try++ {
		port, err := childproc.FreePort()
		if err != nil {
			return nil, err
		}
		args := []string{"-D", data, "-p", strconv.Itoa(port), "-h", s.Host, "-k", sock,
			// Speed over durability, as for any throwaway cluster.
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "dynamic_shared_memory_type=mmap", "-c", "max_connections=100",
			"-c", "shared_buffers=32MB", "-c", "logging_collector=off"}
		p, err := startProc(cred, dir, filepath.Join(bin, "postgres"), args)
		if err != nil {
			return nil, fmt.Errorf("start postgres: %w", err)
		}
		err = waitReady(p, data)
		if err == nil {
			s.Port, s.proc = port, p
			s.DSN = fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", s.User, s.Host, port, s.Database)
			ok = true
			return s, nil
		}
		if !errors.Is(err, errExitedEarly) {
			return nil, err
		}
		last = err // maybe another process took the port: try another
	}
	return nil, last
}

var (
	tmplOnce sync.Once
	tmplDir  string
	tmplErr  error
)

// template returns a cluster made by initdb on first use, in a directory
// of this process's that the sweep of a later process removes.
func template(cred *syscall.Credential, bin string) (string, error) {
	tmplOnce.Do(func() {
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-initdb-", dirPrefix, os.Getpid()))
		if err != nil {
			tmplErr = err
			return
		}
		if cred != nil {
			if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
				tmplErr = err
				return
			}
		}
		// --no-sync: a throwaway cluster need not survive a power cut,
		// and syncing costs seconds on a busy disk.
		data := filepath.Join(dir, "data")
		out, err := run(cred, dir, filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "-A", "trust",
			"-E", "UTF8", "--locale=C", "--no-sync")
		if err != nil {
			os.RemoveAll(dir)
			tmplErr = fmt.Errorf("initdb: %v: %s", err, out)
			return
		}
		tmplDir = data
	})
	return tmplDir, tmplErr
}

// stop asks the server for a fast shutdown (SIGINT: sessions are ended,
// nothing is waited for), kills it if it has not exited within
// startTimeout, and removes its directory.
func (s *Server) stop() error {
	var err error
	s.proc.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.proc.Exited:
	case <-time.After(startTimeout):
		s.proc.Cmd.Process.Kill()
		<-s.proc.Exited
		err = fmt.Errorf("postgres on port %d did not shut down within %v, killed: %s", s.Port, startTimeout, s.proc.Out)
	}
	if rerr := os.RemoveAll(s.dir); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// run runs a program to completion with cred and returns its output.
func run(cred *syscall.Credential, dir, path string, args ...string) ([]byte, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = progEnv()
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	return cmd.CombinedOutput()
}

// progEnv is the environment of the PostgreSQL programs: the test's,
// without the PG* variables that would point them elsewhere, and with a
// C locale.
func progEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG=") {
			env = append(env, kv)
		}
	}
	return append(env, "LC_ALL=C")
}

// waitReady waits until the server's postmaster.pid says it accepts
// connections (its eighth line, "ready", which the server writes once it
// listens) or the server exits.
func waitReady(p *proc, data string) error {
	deadline := time.Now().Add(startTimeout)
	for {
		b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
		if err == nil {
			if lines := strings.Split(string(b), "\n"); len(lines) > 7 && strings.TrimSpace(lines[7]) == "ready" {
				return nil
			}
		}
		select {
		case <-p.Exited:
			return fmt.Errorf("postgres: %w (%v): %s", errExitedEarly, p.Err, p.Out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Cmd.Process.Kill()
			return fmt.Errorf("postgres not ready within %v: %s", startTimeout, p.Out)
		}
	}
}

// errExitedEarly marks a server that exited before it was ready, which a
// lost race for its port explains; start tries another port.
var errExitedEarly = errors.New("exited before it was ready")

// startProc starts the server as cred (nil: as the test process), its
// output kept in a tail buffer, ending with the test process.
func startProc(cred *syscall.Credential, dir, path string, args []string) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = progEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	return childproc.Start(cmd)
}

var sweepOnce sync.Once
