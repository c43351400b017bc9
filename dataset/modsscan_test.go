package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// TestModsIndexBound counts what the merged index keeps of the big file:
// one group per distinct target and one interval per disjoint range of
// it, and the scanner's window stays at its first size.
func TestModsIndexBound(t *testing.T) {
	targets := bigModsTargets()
	big, entries, distinct := bigModsFile(t, targets, 20, 4<<20)
	name := t.TempDir() + "/1-1-0-0.tsfile" + ModsV2Suffix
	require.NoError(t, os.WriteFile(name, big, 0o644))
	x, warnings, err := readModsIndex(osFS{}, name, nil, nil, false)
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Equal(t, entries, x.entries)
	require.Len(t, x.groups, distinct)
	require.Equal(t, len(targets)+2*20, x.spanCount(), "one span per target range and per noise target")
	for _, g := range x.groups {
		if g.d.Table == "t" {
			var want []span
			for _, d := range targets {
				if d.Predicate.Kind == g.d.Predicate.Kind && slicesEqual(d.Measurements, g.d.Measurements) {
					want = append(want, span{d.Start, d.End})
				}
			}
			require.Equal(t, want, g.spans, g.d.String())
		}
	}

	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	s, err := NewModsScanner(f, int64(len(big)), ModsV2, nil)
	require.NoError(t, err)
	n := 0
	for s.Next() {
		n++
	}
	require.NoError(t, s.Err())
	require.Equal(t, entries, n)
	require.Equal(t, modsWindowSize, cap(s.r.buf), "the window grew")
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// scanAll reads data through a ModsScanner whose window starts at w bytes,
// fed one byte per Read, and collects what it gives as ParseMods does.
func scanAll(data []byte, v ModsVersion, w int) (*Mods, error) {
	s, err := newModsScanner(iotest.OneByteReader(bytes.NewReader(data)), int64(len(data)), v, &ModsOptions{MaxSize: 1 << 30})
	if err != nil {
		return nil, err
	}
	s.r.buf = make([]byte, 0, w)
	return collectMods(s)
}

// checkScanMatchesParse fails when a streamed read of data differs from
// the whole-file parse in entries, warnings or error.
func checkScanMatchesParse(t *testing.T, data []byte, v ModsVersion) {
	t.Helper()
	want, werr := ParseMods(data, v, &ModsOptions{MaxSize: 1 << 30})
	// Every small window, so that each boundary falls everywhere: inside
	// a varint, between "\r" and "\n".
	windows := []int{1 << 10}
	for w := 1; w <= 40; w++ {
		windows = append(windows, w)
	}
	for _, w := range windows {
		got, err := scanAll(data, v, w)
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("window %d: error %v, whole parse %v", w, err, werr)
		}
		if err == nil && !modsEqual(got, want) {
			t.Fatalf("window %d:\n%+v\nwhole parse:\n%+v", w, got, want)
		}
	}
}

func modsEqual(a, b *Mods) bool {
	return fmt.Sprintf("%#v|%q", a.Deletions, a.Warnings) == fmt.Sprintf("%#v|%q", b.Deletions, b.Warnings)
}

// TestModsScannerMatchesParse: windows of any size, refilled a byte at a
// time, give the entries, warnings and errors of the whole-file parse,
// offsets in messages included.
func TestModsScannerMatchesParse(t *testing.T) {
	v2 := [][]byte{
		cat(goldenTree, goldenTable, goldenDevices),
		goldenNOP,
		goldenTree[:20],
		cat(goldenTree, goldenTable[:len(goldenTable)-1]),
		cat(goldenTree, []byte{0x01}, make([]byte, 16), []byte{0xfe, 0xff, 0xff, 0xff, 0x07}),
		cat(goldenTree, []byte{0x07}),    // unknown type: an error
		cat(goldenTable, goldenTree[:1]), // a cut head
		{},
	}
	for i, d := range v2 {
		t.Run(fmt.Sprintf("v2-%d", i), func(t *testing.T) { checkScanMatchesParse(t, d, ModsV2) })
	}
	v1 := []string{
		"DELETION,root.ln.wf01.wt01.temperature,111,100,300\n",
		"DELETION,root.sg.`a,b`.s,1,2,3\r\nDELETION,root.x,y,5,6\n",
		"DELETION,root.a,1,2,3\rDELETION,root.b,1,2,3\r",
		"DELETION,root.**,9,-9223372036854775808,9223372036854775807",
		"DELETION,5,,7,8\n\nDELETION,root.a,1,2,3\n",
		"DELETION,root.a,1,2,3\nUPDATE,x\nDELETION,root.b,1,2,3\r\nmore\r",
		",,,\n",
		"",
	}
	for i, d := range v1 {
		t.Run(fmt.Sprintf("v1-%d", i), func(t *testing.T) { checkScanMatchesParse(t, []byte(d), ModsV1) })
	}
}

// TestModsScannerShrunk: a file shorter than the size it was opened
// with is an error, not a silent end.
func TestModsScannerShrunk(t *testing.T) {
	data := cat(goldenTree, goldenTree)
	s, err := NewModsScanner(bytes.NewReader(data), int64(len(data))+5, ModsV2, nil)
	require.NoError(t, err)
	for s.Next() {
	}
	require.Error(t, s.Err())
	require.Contains(t, s.Err().Error(), "changed while read")
	require.True(t, errors.Is(s.Err(), errors.Unwrap(s.Err())))
}
