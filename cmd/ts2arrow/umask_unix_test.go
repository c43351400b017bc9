//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// currentUmask returns the process's umask. Setting it to read it is safe
// here: no test of this package runs in parallel.
func currentUmask() int {
	u := syscall.Umask(0o022)
	syscall.Umask(u)
	return u
}

// TestOutputModesFollowUmask (issue 37): every file and directory convert
// writes gets the mode os.Create and os.Mkdir give, 0o666 and 0o777 less
// the umask, where a fixed 0o644 made a private umask's outputs world
// readable and a group-writable umask's outputs not group writable.
func TestOutputModesFollowUmask(t *testing.T) {
	dir := t.TempDir()
	for _, umask := range []int{0o027, 0o002, 0o077} {
		old := syscall.Umask(umask)
		out := filepath.Join(dir, "u"+string(rune('a'+umask%26)))
		codes := []int{}
		for _, args := range [][]string{
			{"convert", sample, "-o", out + ".parquet"},
			{"convert", sample, "-o", out + ".csv"},
			{"convert", sample, "-o", out + ".tsfile"},
			{"convert", sample, "-o", out + "-ds", "--partition-by", "device,day", "--format", "jsonl"},
		} {
			code, _, _ := runCLI(args...)
			codes = append(codes, code)
		}
		syscall.Umask(old)
		require.Equal(t, []int{0, 0, 0, 0}, codes)
		file, dirMode := fs.FileMode(0o666&^umask), fs.FileMode(0o777&^umask)
		for _, ext := range []string{".parquet", ".csv", ".tsfile"} {
			st, err := os.Stat(out + ext)
			require.NoError(t, err)
			require.Equal(t, file, st.Mode().Perm(), "umask %03o: %s", umask, ext)
		}
		n := 0
		require.NoError(t, filepath.WalkDir(out+"-ds", func(p string, d fs.DirEntry, err error) error {
			require.NoError(t, err)
			st, err := os.Stat(p)
			require.NoError(t, err)
			want := file
			if d.IsDir() {
				want = dirMode
			}
			require.Equal(t, want, st.Mode().Perm(), "umask %03o: %s", umask, p)
			n++
			return nil
		}))
		require.Greater(t, n, 4)
	}
}
