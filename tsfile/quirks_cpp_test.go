package tsfile

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// TestTimePayloadDetection checks the detection of the time page length
// prefix (QuirkTimePageLength) on page bodies that look like it and are
// not, and on those that have it, by encoding and by what the file showed.
func TestTimePayloadDetection(t *testing.T) {
	plain8 := []byte{7, 0, 0, 0, 0, 0, 0, 1} // one conformant timestamp, 0x0700...01
	ts2diff := append([]byte{0, 0, 0, 1, 0, 0, 0, 8}, make([]byte, 17)...)
	gorilla := []byte{3, 0xaa, 0xbb, 0xcc}
	for _, tc := range []struct {
		name  string
		enc   Encoding
		body  []byte
		cpp   bool // the file showed QuirkNoRoleBits
		strip int  // prefix bytes stripped, 0 for none
	}{
		{"plain-conformant-looks-prefixed", encoding.Plain, plain8, true, 0},
		{"plain-prefixed", encoding.Plain, append([]byte{8}, plain8...), false, 1},
		{"plain-prefix-wrong-length", encoding.Plain, append([]byte{9}, plain8...), false, 0},
		{"ts2diff-conformant", encoding.TS2Diff, ts2diff, false, 0},
		{"ts2diff-prefixed", encoding.TS2Diff, append([]byte{25}, ts2diff...), false, 1},
		{"ts2diff-prefix-wrong-length", encoding.TS2Diff, append([]byte{26}, ts2diff...), false, 0},
		{"gorilla-prefix-conformant-file", encoding.Gorilla, gorilla, false, 0},
		{"gorilla-prefix-cpp-file", encoding.Gorilla, gorilla, true, 1},
		{"empty", encoding.Plain, nil, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w, err := NewWriter(&out, nil)
			require.NoError(t, err)
			require.NoError(t, w.Close())
			f, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
			require.NoError(t, err)
			if tc.cpp {
				f.NoteQuirk(QuirkNoRoleBits, 0, "test")
			}
			h := ChunkHeader{Encoding: tc.enc, DataType: Vector}
			got := f.TimePayload(&h, tc.body, 100)
			require.Equal(t, tc.body[tc.strip:], got)
			require.Equal(t, tc.strip > 0, f.Quirks()&QuirkTimePageLength != 0)
		})
	}
}

// TestCPPWrittenAligned reads ../testdata/cpp-aligned/aligned.tsfile,
// written by the C++ writer itself (see its README), through ReadAligned.
func TestCPPWrittenAligned(t *testing.T) {
	f, err := OpenFile("../testdata/cpp-aligned/aligned.tsfile", nil)
	require.NoError(t, err)
	defer f.Close()
	devs, err := f.Devices("root.sg")
	require.NoError(t, err)
	require.Len(t, devs, 1)
	dev := devs[0]
	series, err := f.Series(dev)
	require.NoError(t, err)
	require.True(t, series[0].IsTimeColumn())
	for _, s := range series[1:] {
		require.True(t, s.IsValueColumn(), s.Measurement)
	}
	cols, err := f.ReadAligned(series)
	require.NoError(t, err)
	require.Len(t, cols.Times, 23)
	for r := range 23 {
		require.Equal(t, int64(1700000000000+r*1000), cols.Times[r])
		require.Equal(t, int64(r*3+1), cols.Columns["a"].Int64s[r])
		require.Equal(t, r%3 == 1, cols.Columns["b"].IsNull(r), "b row %d", r)
		if r%3 != 1 {
			require.Equal(t, int64(100+r), cols.Columns["b"].Int64s[r])
		}
		require.Equal(t, r%4 == 0, cols.Columns["c"].IsNull(r), "c row %d", r)
		if r%4 != 0 {
			require.Equal(t, 0.5*float64(r), cols.Columns["c"].Float64s[r])
		}
	}
	require.Equal(t, QuirkNoRoleBits|QuirkTimePageLength|QuirkValuePageRows, f.Quirks())
}
