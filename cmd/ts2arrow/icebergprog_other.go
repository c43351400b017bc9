//go:build !unix

package main

import "errors"

// replaceProcess cannot replace the process here: main runs the program
// as a child instead.
func replaceProcess(path string, argv, env []string) error { return errors.ErrUnsupported }
