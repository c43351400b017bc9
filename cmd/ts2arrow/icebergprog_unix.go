//go:build unix

package main

import "syscall"

// replaceProcess runs path in place of this process (execve): it returns
// only on failure.
func replaceProcess(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
