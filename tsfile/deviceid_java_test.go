package tsfile

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
)

// TestJavaUTF8 holds javaUTF8 to what Java's new String(b, UTF_8) returns
// (testdata/java_utf8.txt, recorded from OpenJDK 17), and checks that the
// rules differ from Go's where the issue says they do.
func TestJavaUTF8(t *testing.T) {
	f, err := os.Open("testdata/java_utf8.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, differsFromGo := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		in, out, ok := strings.Cut(line, " ")
		require.True(t, ok, line)
		b, err := hex.DecodeString(in)
		require.NoError(t, err)
		want, err := hex.DecodeString(out)
		require.NoError(t, err)
		got := javaUTF8(b)
		require.Equal(t, string(want), got, "input %s", in)
		if got != string([]rune(string(b))) {
			differsFromGo++
		}
		n++
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 1000)
	require.NotZero(t, differsFromGo)
	t.Logf("%d cases, %d where Go's []rune conversion differs", n, differsFromGo)
	for in, want := range map[string]string{
		"e28241":   "\uFFFDA",      // a lead and its valid continuation: one
		"eda080":   "\uFFFD",       // an encoded surrogate: one for three bytes
		"f09f98":   "\uFFFD",       // cut by the end: one
		"c0af":     "\uFFFD\uFFFD", // C0 is never a lead
		"f4908080": "\uFFFD\uFFFD\uFFFD\uFFFD",
	} {
		b, _ := hex.DecodeString(in)
		require.Equal(t, want, javaUTF8(b), in)
	}
}

// badSegment is a DeviceID segment as upstream's C++ example program wrote
// one (bytes of uninitialised memory): Java reads it as "d\uFFFDA\uFFFD\uFFFD".
const badSegment = "d\xe2\x82A\xed\xa0\x80\xff"

// writeBadDevice writes a tree-model file of device root.sg.<badSegment>
// (two INT32 points) and a good device root.sg.ok (one point): our writer
// writes a placeholder segment of the same length, which is then replaced
// in the index and the chunk group header.
func writeBadDevice(t testing.TB) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, nil)
	require.NoError(t, err)
	for _, d := range []struct {
		name  string
		times []int64
	}{{"root.sg.QQQQQQQQ", []int64{1, 2}}, {"root.sg.ok", []int64{3}}} {
		v := NewValues(Int32, len(d.times))
		for i := range d.times {
			v.Int32s[i] = int32(10 * d.times[i])
		}
		require.NoError(t, w.WriteNonAligned(ParseTreePath(d.name), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "s", DataType: Int32, Encoding: encoding.Plain}, Times: d.times, Values: v}}))
	}
	require.NoError(t, w.Close())
	b := out.Bytes()
	require.GreaterOrEqual(t, bytes.Count(b, []byte("QQQQQQQQ")), 2, "the chunk group header and the index")
	return bytes.ReplaceAll(b, []byte("QQQQQQQQ"), []byte(badSegment))
}

// TestDeviceIDInvalidUTF8: strict reads refuse the segment naming
// --lenient; lenient reads read it as upstream Java does, with a warning
// naming the device, and every point is read.
func TestDeviceIDInvalidUTF8(t *testing.T) {
	b := writeBadDevice(t)
	readAll := func(f *File) (map[string][]int64, error) {
		out := map[string][]int64{}
		for _, tb := range f.Tables() {
			devs, err := f.Devices(tb)
			if err != nil {
				return nil, err
			}
			for _, d := range devs {
				ts, err := f.SeriesByName(d, "s")
				if err != nil {
					return nil, err
				}
				times, _, err := f.ReadNonAligned(ts)
				if err != nil {
					return nil, err
				}
				out[d.String()] = times
			}
		}
		return out, nil
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	if err == nil {
		_, err = readAll(f)
	}
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "DeviceID segment: invalid UTF-8")
	require.ErrorContains(t, err, "--lenient")

	f, err = Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Lenient: true})
	require.NoError(t, err)
	got, err := readAll(f)
	require.NoError(t, err)
	java := "root.sg.d\uFFFDA\uFFFD\uFFFD"
	require.Equal(t, map[string][]int64{java: {1, 2}, "root.sg.ok": {3}}, got)
	require.True(t, utf8.ValidString(java))
	var warned bool
	for _, w := range f.Warnings() {
		if w.Structure == "DeviceID" && strings.Contains(w.Msg, "device "+java+":") {
			warned = true
		}
	}
	require.True(t, warned, "warnings: %v", f.Warnings())
}
