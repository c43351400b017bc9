package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// psql runs Debian's psql (beside the server's programs) with args and
// returns its trimmed output: a client that is not ours, so the test does
// not take the helper's word for the server's state.
func psql(t *testing.T, s *Server, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(s.BinDir, "psql"), append([]string{"-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"}, args...)...)
	cmd.Env = progEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql %v: %v: %s\nserver log: %s", args, err, out, s.Log())
	}
	return strings.TrimSpace(string(out))
}

// TestStart: the server answers over TCP at DSN and over its unix socket,
// keeps what is written between connections, and after the test its
// process is gone and its directory removed.
func TestStart(t *testing.T) {
	var s *Server
	t.Run("server", func(t *testing.T) {
		s = Start(t)
		psql(t, s, s.DSN, "-c", "CREATE TABLE t (k int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'one'), (2, 'two')")
		if got := psql(t, s, s.DSN, "-c", "SELECT string_agg(k || '=' || v, ',' ORDER BY k) FROM t"); got != "1=one,2=two" {
			t.Errorf("over TCP: got %q, want 1=one,2=two", got)
		}
		sock := "host=" + s.SocketDir + " port=" + strconv.Itoa(s.Port) + " user=" + s.User + " dbname=" + s.Database
		if got := psql(t, s, sock, "-c", "SELECT count(*) FROM t"); got != "2" {
			t.Errorf("over the unix socket: got %q, want 2", got)
		}
		if got := psql(t, s, s.DSN, "-c", "SHOW fsync"); got != "off" {
			t.Errorf("fsync = %q, want off (the server's settings were not applied)", got)
		}
	})
	if s == nil {
		return // skipped
	}
	select {
	case <-s.proc.Exited:
	default:
		t.Errorf("postgres (pid %d) still running after its test ended", s.proc.Cmd.Process.Pid)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("%s still there after the test ended: %v", s.dir, err)
	}
}

// TestStartTwice: two servers at once get ports and directories of their
// own, so parallel tests do not share a catalog by accident.
func TestStartTwice(t *testing.T) {
	a, b := Start(t), Start(t)
	if a.Port == b.Port || a.dir == b.dir {
		t.Fatalf("two servers share port %d / %d or directory %s / %s", a.Port, b.Port, a.dir, b.dir)
	}
	psql(t, a, a.DSN, "-c", "CREATE TABLE only_in_a (k int)")
	if got := psql(t, b, b.DSN, "-c", "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'"); got != "0" {
		t.Errorf("b sees a's table: %q", got)
	}
}
