//go:build linux

package objtest

import (
	"errors"
	"os/exec"
	"syscall"
)

// setParentDeath makes cmd's process receive SIGKILL when the thread that
// starts it ends (spawn's thread, which ends only with the test process).
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processAlive reports whether a process pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
