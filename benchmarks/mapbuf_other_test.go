//go:build !unix

package benchmarks

// mapBuffer returns n bytes; without mmap they come from the Go heap.
func mapBuffer(n int64) []byte { return make([]byte, n) }

// unmapBuffer leaves b to the collector.
func unmapBuffer([]byte) {}
