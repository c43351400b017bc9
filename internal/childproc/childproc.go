// Package childproc starts the server programs tests run against (the
// object-store servers of internal/objtest, PostgreSQL of internal/pgtest)
// so that they end with the test process however it ends, and keeps the
// tail of their output for the message when one fails to start.
//
// On Linux a started process gets SIGKILL when the test process ends: a
// parent-death signal, which the kernel sends when the thread that
// started the child ends, so every child is started from one OS thread
// that lives as long as the process. Elsewhere a server outlives an
// interrupted test process.
package childproc

import (
	"bytes"
	"net"
	"os/exec"
	"runtime"
	"sync"
)

// Proc is a started process.
type Proc struct {
	Cmd    *exec.Cmd
	Out    *TailBuffer   // the last 16 KiB of its standard output and error
	Exited chan struct{} // closed when the process has exited
	Err    error         // Wait's result, once Exited is closed
}

// Start starts cmd with its output in a tail buffer and, on Linux, the
// parent-death signal added to cmd.SysProcAttr (other attributes, such as
// the credentials a server runs as, are kept).
func Start(cmd *exec.Cmd) (*Proc, error) {
	out := &TailBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	setParentDeath(cmd)
	if err := spawn(cmd); err != nil {
		return nil, err
	}
	p := &Proc{Cmd: cmd, Out: out, Exited: make(chan struct{})}
	go func() {
		p.Err = cmd.Wait()
		close(p.Exited)
	}()
	return p, nil
}

// spawnReq asks the spawner thread to start a command.
type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnReq
)

// spawn starts cmd from one OS thread that lives as long as the process.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must outlive every child
			for r := range spawnCh {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error)
	spawnCh <- spawnReq{cmd, done}
	return <-done
}

// TailBuffer keeps the last bytes written to it: a server's output, for
// the message when it fails, without holding a long run's whole log.
type TailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// Write keeps p, dropping the oldest bytes beyond the buffer's size.
func (b *TailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// String returns the kept output, spaces trimmed.
func (b *TailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(bytes.TrimSpace(b.buf))
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listened on a
// moment ago. Another process may take it before the server listens: the
// callers start again on another port when a server exits early.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
