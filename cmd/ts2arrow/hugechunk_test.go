package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

// TestConvertHugeTimeChunk: convert of a sparse 1 GiB file (a few KB on
// disk) whose time chunk declares about 1 GiB of zeros as its data fails
// with one line naming the structure and offset, exit 1, no output, and
// without reading the declared gigabyte into memory (issue 36: 1,054 MB
// allocated and 20 s before the error).
func TestConvertHugeTimeChunk(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "huge.tsfile")
	testkit.HugeTimeChunk(t, testkit.AlignedTable(t, 100, nil), "t", 1<<30-4096).WriteFile(t, in)
	out := filepath.Join(dir, "out.csv")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, stdout, stderr := runCLI("convert", in, "--format", "csv", "-o", out)
	runtime.ReadMemStats(&after)
	require.Equal(t, 1, code, stderr)
	require.Empty(t, stdout)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 1, stderr)
	require.Regexp(t, `^ts2arrow: .*huge\.tsfile: page header: empty page in a chunk that is not an aligned value chunk \(the chunk header at offset \d+ declares 1073737728 bytes of pages that its bytes do not bear out: the file is damaged there, so its rows cannot be read\) at offset \d+$`, lines[0])
	require.NoFileExists(t, out)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%s; allocated %d bytes", lines[0], alloc)
	require.Less(t, alloc, uint64(64<<20), "bytes allocated by the convert")
}
