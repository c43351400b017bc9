//go:build !unix

package main

// currentUmask is 0 where there is none: a file gets 0o666.
func currentUmask() int { return 0 }
