//go:build !unix

package main

// processGone cannot tell without signals: temporaries are kept.
func processGone(pid int) bool { return false }
