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

// writeLostNonAligned writes a tree-model file whose non-aligned series a
// has exactly page_max_point_count (4) points, in the C++ writer's lost
// page layout (its chunk keeps only its page header), and whose series b
// has 6 points in two pages.
func writeLostNonAligned(t *testing.T) string {
	t.Helper()
	var out bytes.Buffer
	o := &tsfile.WriteOptions{MaxPointsPerPage: 4}
	quirklayout.Set(o, uint32(tsfile.QuirkLostFullPage))
	w, err := tsfile.NewWriter(&out, o)
	require.NoError(t, err)
	series := func(name string, n int) tsfile.NonAlignedSeries {
		s := tsfile.NonAlignedSeries{SeriesSchema: tsfile.SeriesSchema{Name: name, DataType: tsfile.Int64, Encoding: encoding.Plain}, Values: tsfile.NewValues(tsfile.Int64, n)}
		for i := 0; i < n; i++ {
			s.Times = append(s.Times, int64(100+i))
			s.Values.Int64s[i] = int64(i * 10)
		}
		return s
	}
	require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg.d1"), []tsfile.NonAlignedSeries{series("a", 4), series("b", 6)}))
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), "lost.tsfile")
	require.NoError(t, os.WriteFile(p, out.Bytes(), 0o644))
	return p
}

// TestLenientSkipsLostNonAlignedChunk: the error on a non-aligned chunk
// whose page its writer lost says "read with --lenient to skip the
// chunk"; --lenient must then do so in every command (issue 35: convert,
// head and inspect still exited 1), and inspect --lenient must read the
// aligned lost.tsfile that convert --lenient reads.
func TestLenientSkipsLostNonAlignedChunk(t *testing.T) {
	lost := writeLostNonAligned(t)
	for _, args := range [][]string{
		{"convert", lost, "--format", "csv", "--time-format", "epoch", "-o", "-"},
		{"head", lost},
		{"inspect", lost},
		{"inspect", "--json", lost},
	} {
		code, _, errOut := runCLI(args...)
		require.Equal(t, 1, code, "%q: %s", args, errOut)
		require.Contains(t, errOut, "read with --lenient to skip the chunk", "%q", args)
		code, out, errOut := runCLI(append(args, "--lenient")...)
		require.Equal(t, 0, code, "%q --lenient: %s", args, errOut)
		require.NotEmpty(t, out)
		if args[0] != "inspect" {
			require.Contains(t, errOut, "skipped a chunk whose page its writer lost: its points are left out", "%q", args)
		}
	}
	// The rows: a's points are lost (null), b's are all there.
	code, out, errOut := runCLI("convert", lost, "--format", "csv", "--time-format", "epoch", "-o", "-", "--lenient")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "time,device,a,b\n100,root.sg.d1,,0\n101,root.sg.d1,,10\n102,root.sg.d1,,20\n103,root.sg.d1,,30\n104,root.sg.d1,,40\n105,root.sg.d1,,50\n", out)
	code, out, errOut = runCLI("schema", lost, "--lenient")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "\na ")

	code, out, errOut = runCLI("inspect", "--lenient", "../../testdata/cpp-aligned/lost.tsfile")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `\n    b +INT64 .*\n      chunk  offset=733 .* pages=0`, out)
	code, _, errOut = runCLI("inspect", "../../testdata/cpp-aligned/lost.tsfile")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "--lenient")
}

// TestLenientReadsNonUTF8DeviceID: a DeviceID segment that is not valid
// UTF-8 (upstream's C++ example program writes one) is refused by default
// with an error naming --lenient; every command's --lenient reads it as
// upstream Java does (one U+FFFD per ill-formed sequence, not per byte)
// and warns naming the device.
func TestLenientReadsNonUTF8DeviceID(t *testing.T) {
	var out bytes.Buffer
	w, err := tsfile.NewWriter(&out, nil)
	require.NoError(t, err)
	v := tsfile.NewValues(tsfile.Int32, 2)
	v.Int32s[0], v.Int32s[1] = 10, 20
	require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath("root.sg.QQQQQQQQ"), []tsfile.NonAlignedSeries{{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Int32, Encoding: encoding.Plain}, Times: []int64{1, 2}, Values: v}}))
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), "bad.tsfile")
	require.NoError(t, os.WriteFile(p, bytes.ReplaceAll(out.Bytes(), []byte("QQQQQQQQ"), []byte("d\xe2\x82A\xed\xa0\x80\xff")), 0o644))
	const java = "root.sg.d\uFFFDA\uFFFD\uFFFD"
	for _, args := range [][]string{
		{"convert", p, "--format", "csv", "--time-format", "epoch", "-o", "-"},
		{"head", p},
		{"schema", p},
		{"inspect", p},
	} {
		code, _, errOut := runCLI(args...)
		require.Equal(t, 1, code, "%q: %s", args, errOut)
		require.Contains(t, errOut, "DeviceID segment: invalid UTF-8", "%q", args)
		require.Contains(t, errOut, "--lenient", "%q", args)
		code, stdout, errOut := runCLI(append(args, "--lenient")...)
		require.Equal(t, 0, code, "%q --lenient: %s", args, errOut)
		require.Contains(t, stdout+errOut, "warning", "%q", args)
		require.Contains(t, stdout+errOut, "device "+java+": a segment is not valid UTF-8", "%q", args)
		if args[0] == "convert" {
			require.Equal(t, "time,device,s\n1,"+java+",10\n2,"+java+",20\n", stdout)
		}
	}
}
