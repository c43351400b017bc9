//go:build unix

package icesync

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process of this host has the ID pid
// (signal 0 checks without sending; EPERM means it exists as another user).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
