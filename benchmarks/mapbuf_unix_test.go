//go:build unix

package benchmarks

import (
	"fmt"
	"syscall"
)

// mapBuffer returns n bytes of anonymous memory outside the Go heap.
func mapBuffer(n int64) []byte {
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(fmt.Sprintf("mmap of %d bytes for the memcpy baseline: %v", n, err))
	}
	return b
}

// unmapBuffer releases a buffer of mapBuffer.
func unmapBuffer(b []byte) {
	if b != nil {
		_ = syscall.Munmap(b)
	}
}
