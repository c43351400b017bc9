package flight

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCgroupMemoryLimit reads the fake /proc and /sys trees of
// testdata/cgroup, each a layout the kernel, systemd or a container
// runtime makes (see the files): the lowest limit on the path from the
// process's cgroup up to the mount wins.
func TestCgroupMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want int64
	}{
		// session-3.scope has 2 GiB, user-1000.slice 1 GiB, user.slice 4 GiB.
		{"v2-systemd-slices", 1 << 30},
		{"v2-service-own-limit", 512 << 20},
		// A private cgroup namespace: the container's cgroup is the root.
		{"v2-container-namespace", 256 << 20},
		{"v2-unlimited", 0},
		// Docker on cgroup v1 mounts the container's memory cgroup
		// (/docker/ID) at /sys/fs/cgroup/memory.
		{"v1-docker", 768 << 20},
		// v1 memory under a parent with 2 GiB, and the v2 hierarchy of a
		// hybrid system at /sys/fs/cgroup/unified with 3 GiB.
		{"v1-host-hybrid", 2 << 30},
		{"v2-escaped-mount", 100000000},
		{"v2-outside-mount", 128 << 20},
		// No /proc/self/cgroup: the mount roots, as before.
		{"no-proc", 64 << 20},
	} {
		require.Equal(t, tc.want, cgroupMemoryLimit(filepath.Join("testdata", "cgroup", tc.dir)), tc.dir)
	}
}

func TestParseProcCgroup(t *testing.T) {
	v2, v1, h2, h1 := parseProcCgroup([]byte("12:pids:/a\n11:cpu,memory:/b/c\n0::/d/e\nbroken\n"))
	require.Equal(t, []any{"/d/e", "/b/c", true, true}, []any{v2, v1, h2, h1})
	_, _, h2, h1 = parseProcCgroup([]byte("1:name=systemd:/\n"))
	require.False(t, h2)
	require.False(t, h1)
}

func TestParseMountinfo(t *testing.T) {
	got := parseMountinfo([]byte(`36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
712 711 0:31 /docker/x /sys/fs/cgroup/memory ro,nosuid master:15 shared:3 - cgroup cgroup rw,memory
713 711 0:32 / /sys/fs/cgroup/cpu ro - cgroup cgroup rw,cpu
30 22 0:26 /a\040b /x\011y\134z rw - cgroup2 cgroup2 rw
31 22 0:26 / /short rw -
`))
	require.Equal(t, []cgroupMount{
		{root: "/docker/x", point: "/sys/fs/cgroup/memory", fstype: "cgroup", memory: true},
		{root: "/", point: "/sys/fs/cgroup/cpu", fstype: "cgroup"},
		{root: "/a b", point: "/x\ty\\z", fstype: "cgroup2"},
	}, got)
	require.Equal(t, `a\04`, unescapeMount(`a\04`), "a cut escape stays as it is")
}

func FuzzParseCgroupFiles(f *testing.F) {
	f.Add([]byte("0::/a\n4:memory:/b\n"), []byte("30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"))
	f.Fuzz(func(t *testing.T, cg, mi []byte) {
		parseProcCgroup(cg)
		for _, m := range parseMountinfo(mi) {
			walkLimits(t.TempDir(), m.root, m.point, "memory.max")
		}
	})
}
