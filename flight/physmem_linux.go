package flight

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// physicalMemory returns the memory this process may use: the machine's
// RAM (sysinfo), or the cgroup v2 or v1 memory limit when that is lower, as
// in a container. 0 when unknown.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	var phys int64
	if syscall.Sysinfo(&si) == nil {
		phys = int64(si.Totalram) * int64(si.Unit)
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// "max" (v2) or a huge number (v1) mean no limit.
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && (phys <= 0 || n < phys) {
			phys = n
		}
	}
	return phys
}
