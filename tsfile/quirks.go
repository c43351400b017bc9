package tsfile

import (
	"strings"
)

// WriterQuirk is a known way one writer's files depart from the format,
// which the reader detects from the bytes and reads around, with one
// warning per file and quirk (File.Warnings). Where the bytes alone cannot
// tell, ReadOptions.Lenient turns the workaround on. The quirks so far are
// those of the C++ TsFile writer of early 2025, the engine under the
// Python tsfile package (issue 30).
type WriterQuirk uint32

const (
	// QuirkTimePageLength: an aligned time page starts with an extra
	// UVarInt holding the byte length of the encoded times.
	QuirkTimePageLength WriterQuirk = 1 << iota
	// QuirkNoRoleBits: time and value chunk markers are plain 0x01/0x05
	// and TimeseriesMetadata type bytes plain 0x00/0x01; the time chunk
	// is the one with the empty measurement name and data type VECTOR,
	// with its own TimeseriesMetadata.
	QuirkNoRoleBits
	// QuirkValuePageRows: value pages are sealed by their own non-null
	// count, so value page k does not cover the rows of time page k; each
	// value page body starts with a uint32 count of the rows it covers.
	QuirkValuePageRows
	// QuirkFloatTS2DIFFBits: FLOAT/DOUBLE under TS_2DIFF are the
	// delta-of-delta of the raw IEEE-754 bits, with no leading
	// max_point_number.
	QuirkFloatTS2DIFFBits
	// QuirkInt32PlainShift: INT32 PLAIN written as
	// uvarint(uint32(v << 1)), which a zigzag reader turns into v + 2^31
	// for v < 0.
	QuirkInt32PlainShift
	// QuirkLostFullPage: a chunk whose point count equals
	// page_max_point_count lost its page and kept a 4-byte data section.
	QuirkLostFullPage
)

// cppWriter names the writer every quirk so far belongs to.
const cppWriter = "the C++ TsFile writer of early 2025 (the Python tsfile package)"

var writerQuirkText = []struct {
	q    WriterQuirk
	text string
}{
	{QuirkTimePageLength, "aligned time pages start with the byte length of the times"},
	{QuirkNoRoleBits, "chunk markers and series types without the time/value role bits"},
	{QuirkValuePageRows, "value pages sealed by their non-null count, each starting with its row count"},
	{QuirkFloatTS2DIFFBits, "FLOAT/DOUBLE TS_2DIFF over the raw IEEE-754 bits"},
	{QuirkInt32PlainShift, "INT32 PLAIN written as uvarint(v << 1)"},
	{QuirkLostFullPage, "a full chunk whose page was lost"},
}

// String names the quirks of q, separated by "; ".
func (q WriterQuirk) String() string {
	var out []string
	for _, x := range writerQuirkText {
		if q&x.q != 0 {
			out = append(out, x.text)
		}
	}
	return strings.Join(out, "; ")
}

// Writer names the writer whose files have the quirks of q.
func (q WriterQuirk) Writer() string { return cppWriter }

// Quirks returns the writer quirks the file has been read with so far;
// reading more of the file can add more.
func (f *File) Quirks() WriterQuirk { return WriterQuirk(f.quirks.Load()) }

// NoteQuirk records that the structure at off was read around quirk q and,
// the first time the file meets q, adds a warning naming it and its
// writer. Readers built on File (arrowconv) call it for the quirks they
// work around in page bodies.
func (f *File) NoteQuirk(q WriterQuirk, off int64, structure string) {
	if old := f.quirks.Or(uint32(q)); old&uint32(q) != uint32(q) {
		f.warn.add(Warning{Offset: off, Structure: structure, Msg: "read with a writer quirk of " + q.Writer() + ": " + q.String()})
	}
}
