//go:build !linux

package flight

// physicalMemory is unknown outside Linux: DefaultMemoryLimit falls back
// to 1 GiB.
func physicalMemory() int64 { return 0 }
