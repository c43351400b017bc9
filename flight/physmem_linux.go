package flight

import "syscall"

// physicalMemory returns the memory this process may use: the machine's
// RAM (sysinfo), or the memory limit of the process's cgroups when that is
// lower (a container, a systemd slice; see cgroupMemoryLimit). 0 when
// unknown.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	var phys int64
	if syscall.Sysinfo(&si) == nil {
		phys = int64(si.Totalram) * int64(si.Unit)
	}
	if n := cgroupMemoryLimit("/"); n > 0 && (phys <= 0 || n < phys) {
		phys = n
	}
	return phys
}
