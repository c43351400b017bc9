package childproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SweepTempDirs removes the directories in os.TempDir() named prefix, a
// process ID and "-" whose process is gone: the data of servers that died
// with the test process that named them (a killed test process cannot
// remove its own). Directories of live processes, this one's included,
// stay.
func SweepTempDirs(prefix string) {
	ents, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		digits, _, ok := strings.Cut(rest, "-")
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(digits)
		if err != nil || pid <= 0 || pid == os.Getpid() || Alive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
	}
}
