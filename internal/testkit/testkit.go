// Package testkit holds the helpers that the tests of several packages
// share: the interop corpus, checked allocators, canonical cell spellings
// and access to a file's chunks. Only tests import it.
package testkit

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/testkit/need"
	"github.com/tsarrow/tsarrow/tsfile"
)

// InteropDir holds the upstream-written files, relative to the directory
// of a top-level package, where its tests run; CI has shared/ beside the
// clone.
const InteropDir = "../../shared/interop"

// J01 is the interop corpus's table-model file of every type, PLAIN.
const J01 = "j01_table_all_types_plain"

// InteropPath returns the path of the corpus file name, and skips t when
// the corpus is not there.
func InteropPath(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(InteropDir, name)
	if _, err := os.Stat(p); err != nil {
		need.Skipf(t, "interop corpus not available: %v", err)
	}
	return p
}

// NullCell is the canonical form of a null cell; no value produces it.
const NullCell = "\x00null"

// CanonFloat32 and CanonFloat64 spell a float by its bits, so that -0.0
// and every NaN payload compare exactly.
func CanonFloat32(v float32) string { return fmt.Sprintf("f32:%08x", math.Float32bits(v)) }

// CanonFloat64 is CanonFloat32 for float64.
func CanonFloat64(v float64) string { return fmt.Sprintf("f64:%016x", math.Float64bits(v)) }

// CheckedMem returns an allocator that fails t if anything allocated from
// it is still held when t ends.
func CheckedMem(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// OpenBytes opens the TsFile b.
func OpenBytes(t testing.TB, b []byte) *tsfile.File {
	t.Helper()
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	return f
}

// Chunks reads the chunks of series name of dev ("" for the time column).
func Chunks(t testing.TB, f *tsfile.File, dev tsfile.DeviceID, name string) []*tsfile.Chunk {
	t.Helper()
	s, err := f.SeriesByName(dev, name)
	require.NoError(t, err)
	require.NotNil(t, s, "%s.%s", dev, name)
	var out []*tsfile.Chunk
	for _, cm := range s.Chunks {
		c, err := f.ReadChunk(cm.Offset)
		require.NoError(t, err)
		out = append(out, c)
	}
	return out
}
