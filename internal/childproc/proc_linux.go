//go:build linux

package childproc

import (
	"errors"
	"os/exec"
	"syscall"
)

// setParentDeath makes cmd's process receive SIGKILL when the thread that
// starts it ends. Go sets the signal after changing the credentials, which
// would otherwise clear it.
func setParentDeath(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// Alive reports whether a process pid exists.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
