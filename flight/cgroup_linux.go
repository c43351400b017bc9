package flight

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupMemoryLimit returns the lowest memory limit among the cgroups that
// hold this process and their ancestors, in bytes; 0 when none sets one.
// Every file is read under root ("/" outside tests): proc/self/cgroup
// names the process's cgroup in each hierarchy, proc/self/mountinfo where
// each hierarchy is mounted, and the limit files are memory.max (cgroup
// v2) and memory.limit_in_bytes (v1) of the cgroup's directory and of
// every parent up to the mount: systemd nests a service in slices
// (system.slice/x.service, user.slice/user-1000.slice/session-3.scope),
// and a slice's limit binds every cgroup below it. Both hierarchies count
// on a hybrid system. The formats: the kernel's
// Documentation/admin-guide/cgroup-v2.rst ("/proc/$PID/cgroup"),
// cgroup-v1/cgroups.rst and man 5 proc (mountinfo).
//
// github.com/KimMachineGun/automemlimit (memlimit.FromCgroup) reads the
// same files, but it is made to set GOMEMLIMIT from a ratio and reports
// "no limit" as errors; the budget needs the one figure, beside the RAM
// sysinfo gives, and these few lines keep the module's dependencies as
// they are.
func cgroupMemoryLimit(root string) int64 {
	cg, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return legacyCgroupLimit(root)
	}
	mi, err := os.ReadFile(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return legacyCgroupLimit(root)
	}
	v2Path, v1Path, haveV2, haveV1 := parseProcCgroup(cg)
	mounts := parseMountinfo(mi)
	var limit int64
	found := false
	for _, m := range mounts {
		var p, file string
		switch {
		case m.fstype == "cgroup2" && haveV2:
			p, file = v2Path, "memory.max"
		case m.fstype == "cgroup" && haveV1 && m.memory:
			p, file = v1Path, "memory.limit_in_bytes"
		default:
			continue
		}
		found = true
		if n := walkLimits(filepath.Join(root, m.point), m.root, p, file); n > 0 && (limit == 0 || n < limit) {
			limit = n
		}
	}
	if !found {
		return legacyCgroupLimit(root)
	}
	return limit
}

// legacyCgroupLimit reads the limit files where a container's private
// cgroup namespace shows its own cgroup: at the root of the mounts.
func legacyCgroupLimit(root string) int64 {
	var limit int64
	for _, f := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if n := readLimit(filepath.Join(root, f)); n > 0 && (limit == 0 || n < limit) {
			limit = n
		}
	}
	return limit
}

// parseProcCgroup reads /proc/self/cgroup: "0::PATH" is the cgroup v2
// path, "ID:CONTROLLERS:PATH" with memory among the controllers the v1
// memory cgroup's.
func parseProcCgroup(b []byte) (v2, v1 string, haveV2, haveV1 bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		id, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		ctrls, p, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		if id == "0" && ctrls == "" {
			v2, haveV2 = p, true
			continue
		}
		for _, c := range strings.Split(ctrls, ",") {
			if c == "memory" {
				v1, haveV1 = p, true
			}
		}
	}
	return v2, v1, haveV2, haveV1
}

// cgroupMount is one cgroup file system of /proc/self/mountinfo.
type cgroupMount struct {
	root   string // the directory of the hierarchy mounted (field 4)
	point  string // the mount point (field 5)
	fstype string // cgroup2, or cgroup for v1
	memory bool   // a v1 mount of the memory controller
}

// parseMountinfo returns the cgroup mounts of /proc/self/mountinfo, whose
// lines are "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE
// SOURCE SUPEROPTIONS", paths with space, tab, newline and backslash as
// octal escapes.
func parseMountinfo(b []byte) []cgroupMount {
	var out []cgroupMount
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 6 || sep < 0 || sep+1 >= len(f) {
			continue
		}
		m := cgroupMount{root: unescapeMount(f[3]), point: unescapeMount(f[4]), fstype: f[sep+1]}
		if m.fstype != "cgroup" && m.fstype != "cgroup2" {
			continue
		}
		if m.fstype == "cgroup" && sep+3 < len(f) {
			for _, o := range strings.Split(f[sep+3], ",") {
				if o == "memory" {
					m.memory = true
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// unescapeMount undoes mountinfo's \NNN octal escapes.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// walkLimits reads file in the directory of cgroup p of a hierarchy whose
// directory mroot is mounted at point, and in each parent up to point,
// and returns the lowest limit set. A cgroup outside the mounted part
// (another namespace's path) is looked up at the mount point alone.
func walkLimits(point, mroot, p, file string) int64 {
	cp, mr := path.Clean("/"+p), path.Clean("/"+mroot)
	var rel string
	switch {
	case mr == "/":
		rel = cp
	case strings.HasPrefix(cp, mr+"/"):
		rel = cp[len(mr):]
	default: // the mounted directory itself, or outside it
		rel = "/"
	}
	var limit int64
	dir := rel
	for {
		if n := readLimit(filepath.Join(point, filepath.FromSlash(dir), file)); n > 0 && (limit == 0 || n < limit) {
			limit = n
		}
		if dir == "/" {
			return limit
		}
		dir = path.Dir(dir)
	}
}

// readLimit reads a memory limit file: a byte count, or "max" (v2) for
// none, which gives 0. A v1 cgroup without a limit holds a huge number,
// which the machine's RAM then undercuts.
func readLimit(name string) int64 {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
