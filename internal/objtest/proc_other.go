//go:build !linux

package objtest

import "os/exec"

// setParentDeath does nothing here: only Linux has a parent-death signal,
// so elsewhere a server outlives an interrupted test process.
func setParentDeath(cmd *exec.Cmd) {}

// processAlive reports true: without a portable check, no data directory
// is taken for abandoned.
func processAlive(pid int) bool { return true }
