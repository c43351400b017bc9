package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/quirklayout"
	"github.com/tsarrow/tsarrow/tsfile"
)

// writeCPPLayout writes a small table file with the layouts of the C++
// writer's quirks q and returns its path.
func writeCPPLayout(t *testing.T, q tsfile.WriterQuirk, rows int) string {
	t.Helper()
	var out bytes.Buffer
	o := &tsfile.WriteOptions{MaxPointsPerPage: 4}
	quirklayout.Set(o, uint32(q))
	w, err := tsfile.NewWriter(&out, o)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
	}}))
	times := make([]int64, rows)
	v := tsfile.NewValues(tsfile.Int64, rows)
	v.Null = make([]bool, rows)
	for i := range times {
		times[i] = int64(100 + i)
		v.Int64s[i] = int64(i)
		v.Null[i] = i%3 == 1
	}
	require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "a"), times, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64, Encoding: encoding.Plain}, Values: v},
	}))
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), "cpp.tsfile")
	require.NoError(t, os.WriteFile(p, out.Bytes(), 0o644))
	return p
}

// TestCPPQuirkWarnings checks that convert prints one warning line per
// quirk of a C++-written file, and the same CSV as the conformant file,
// and that inspect names the quirks it met.
func TestCPPQuirkWarnings(t *testing.T) {
	cpp := tsfile.QuirkTimePageLength | tsfile.QuirkNoRoleBits | tsfile.QuirkValuePageRows
	code, want, errOut := runCLI("convert", writeCPPLayout(t, 0, 11), "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	code, got, errOut := runCLI("convert", writeCPPLayout(t, cpp, 11), "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, got)
	require.Equal(t, 3, strings.Count(errOut, "warning: "), errOut)
	require.Equal(t, 3, strings.Count(errOut, "writer quirk of the C++ TsFile writer"), errOut)

	code, out, errOut := runCLI("inspect", writeCPPLayout(t, cpp, 11))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "quirk:       chunk markers and series types without the time/value role bits")
	code, out, errOut = runCLI("inspect", "--pages", "--json", writeCPPLayout(t, cpp, 11))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"writer_quirks": [`)

	// A lost page: the clear error, and under --lenient the rest.
	// Six rows, four values: one value page of page_max_point_count
	// values, lost; the two time pages are kept.
	lost := writeCPPLayout(t, tsfile.QuirkLostFullPage|cpp, 6)
	code, _, errOut = runCLI("convert", lost, "--format", "csv", "-o", "-")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "--lenient")
	code, out, errOut = runCLI("convert", lost, "--format", "csv", "-o", "-", "--lenient")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "a full chunk whose page was lost")
	require.Contains(t, errOut, "skipped a value chunk whose page its writer lost")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1+6, out)
	for _, l := range lines[1:] {
		require.True(t, strings.HasSuffix(l, ","), "v is null: %q", l)
	}
}
