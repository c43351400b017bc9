package tsfile

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoteQuirkWarnsOnce: each quirk a file is read around is one warning
// naming it and its writer, however often it is met.
func TestNoteQuirkWarnsOnce(t *testing.T) {
	b := sweepLayoutsWith(t, nil)[0].data
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.Zero(t, f.Quirks())
	f.NoteQuirk(QuirkInt32PlainShift, 10, "page")
	f.NoteQuirk(QuirkInt32PlainShift, 20, "page")
	f.NoteQuirk(QuirkNoRoleBits|QuirkTimePageLength, 30, "chunk header")
	f.NoteQuirk(QuirkNoRoleBits, 40, "chunk header")
	require.Equal(t, QuirkInt32PlainShift|QuirkNoRoleBits|QuirkTimePageLength, f.Quirks())
	w := f.Warnings()
	require.Len(t, w, 2)
	require.Contains(t, w[0].Msg, "INT32 PLAIN written as uvarint(v << 1)")
	require.Contains(t, w[0].Msg, "C++ TsFile writer")
	require.Contains(t, w[1].Msg, "aligned time pages start with the byte length of the times; chunk markers and series types without")
}
