package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// damagedPageFile writes a tree-model file of one DOUBLE series, PLAIN and
// uncompressed, whose single page's last value is then changed in its
// body: a page that contradicts its statistics (the chunk's, in the index).
func damagedPageFile(t *testing.T) string {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	dev := tsfile.NewDeviceID("root", "sg", "d")
	require.NoError(t, w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{{
		SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Double, Encoding: encoding.Plain, Compression: encoding.Uncompressed},
		Times:        []int64{1, 2, 3}, Values: tsfile.Values{Type: tsfile.Double, Float64s: []float64{1, 3, 2}},
	}}))
	require.NoError(t, w.Close())
	b := buf.Bytes()
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	ss, err := f.Series(dev)
	require.NoError(t, err)
	c, err := f.ReadChunk(ss[0].Chunks[0].Offset)
	require.NoError(t, err)
	b[c.Pages[0].Header.End()-1]++ // 2 becomes 2.0000000000000004
	path := filepath.Join(t.TempDir(), "damaged.tsfile")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// TestNoVerify: a page that contradicts its statistics fails convert and
// head with exit 1 and a line naming the statistic; --lenient warns and
// converts; --no-verify converts without a word.
func TestNoVerify(t *testing.T) {
	in := damagedPageFile(t)
	for _, verb := range [][]string{{"convert", in, "-o", "-", "--format", "csv"}, {"head", in}} {
		code, _, errOut := runCLI(verb...)
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "last is 2.0000000000000004 in the page body but 2 in its statistics")
		require.Contains(t, errOut, "--no-verify")
		require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)

		code, out, errOut := runCLI(append(verb, "--no-verify")...)
		require.Equal(t, 0, code, errOut)
		require.Empty(t, errOut)
		require.Contains(t, out, "2.0000000000000004")
		if verb[0] == "convert" {
			lenient, _, errOut := runCLI(append(verb, "--lenient")...)
			require.Equal(t, 0, lenient, errOut)
			require.Contains(t, errOut, "last is 2.0000000000000004")
		}
	}
}
