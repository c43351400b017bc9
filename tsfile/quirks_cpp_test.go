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
