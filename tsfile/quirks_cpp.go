package tsfile

import (
	"errors"

	"github.com/tsarrow/tsarrow/encoding"
)

// The structural quirks of the C++ TsFile writer of early 2025 (issue 30):
// how each is detected from the bytes, and read around. The layouts were
// checked against apache/tsfile cpp/src/writer/time_page_writer.cc,
// value_page_writer.cc, value_chunk_writer.cc and
// cpp/src/file/tsfile_io_writer.cc.
//
// Detection:
//   - QuirkNoRoleBits is unambiguous: a TimeseriesMetadata or chunk header
//     with an empty name and type VECTOR is an aligned time column in
//     every file, so one without role bits is this writer's. Its device's
//     other series without role bits are then its value columns, and a
//     chunk without role bits that the index files as a value column is
//     read as one (AsValueChunk).
//   - QuirkTimePageLength is unambiguous for the time encodings that
//     writer has (PLAIN and TS_2DIFF, cpp/src/encoding/encoder_factory.h
//     alloc_time_encoder): a conformant PLAIN time stream is 8 bytes a
//     timestamp, and a conformant TS_2DIFF stream starts with its first
//     block's int32 count, whose first byte is 0. For other encodings (which
//     that writer does not use) it is tried only in files that showed
//     QuirkNoRoleBits.
//   - QuirkValuePageRows (value page k covering other rows than time page
//     k) is read around in files that showed QuirkNoRoleBits, or under
//     Lenient; elsewhere a page that disagrees with its time page stays an
//     error, as it is in a conformant file. See CPPLayout.
//   - QuirkLostFullPage is recognised by its bytes (LostFullPage), but
//     the page's values are gone: the read fails unless Lenient, which
//     reads the column's chunk as absent.

// CPPLayout reports whether the reader pairs aligned value pages with the
// time pages by row counts (QuirkValuePageRows) rather than by index: in a
// file that showed the C++ writer's QuirkNoRoleBits, or under Lenient.
func (f *File) CPPLayout() bool {
	return f.opts.Lenient || f.Quirks()&QuirkNoRoleBits != 0
}

// plainValueChunk reports whether h, a chunk without role bits, may be an
// aligned value chunk of a file that showed QuirkNoRoleBits.
func (f *File) plainValueChunk(h *ChunkHeader) bool {
	return h.Marker&^markerLowBits == 0 && h.DataType.IsValueType() && f.Quirks()&QuirkNoRoleBits != 0
}

// AsValueChunk reports whether h, the chunk the index files as an aligned
// value column, has that role: a value chunk marker, or, in a file whose
// time column came without role bits (QuirkNoRoleBits), a marker without
// any, to which it then adds the value role.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) AsValueChunk(h *ChunkHeader) bool {
	if h.IsValueChunk() {
		return true
	}
	if !f.plainValueChunk(h) {
		return false
	}
	h.Marker |= markerValueColumnMask
	h.plainRole = true
	return true
}

// noteSeriesRoles gives the value role to the series of an aligned device
// whose time column came without role bits (QuirkNoRoleBits): theirs have
// none either. series is in measurement order, the time column first.
func (f *File) noteSeriesRoles(series []TimeseriesMetadata) {
	if len(series) == 0 || !series[0].plainRole {
		return
	}
	f.NoteQuirk(QuirkNoRoleBits, series[0].Offset, "timeseries metadata")
	for i := 1; i < len(series); i++ {
		if series[i].Type&^markerLowBits == 0 {
			series[i].Type |= markerValueColumnMask
			series[i].plainRole = true
		}
	}
}

// TimePayload returns the time stream of an aligned time page's payload:
// the payload itself, or, in a page of the C++ writer's
// QuirkTimePageLength, what follows its UVarInt byte length (noting the
// quirk). off is the page body's offset. See the detection rules above;
// the check costs a few bytes' reading a page.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) TimePayload(h *ChunkHeader, payload []byte, off int64) []byte {
	if len(payload) < 2 || payload[0] == 0 {
		return payload
	}
	n, w, ok := uvarint32(payload)
	if !ok || int64(n) != int64(len(payload)-w) {
		return payload
	}
	switch h.Encoding {
	case encoding.Plain:
		if len(payload)%8 == 0 {
			return payload
		}
	case encoding.TS2Diff:
		// payload[0] != 0: no conformant first block has 2^24 values.
	default:
		if f.Quirks()&QuirkNoRoleBits == 0 {
			return payload
		}
	}
	f.NoteQuirk(QuirkTimePageLength, off, "aligned time page")
	return payload[w:]
}

// ErrLostFullPage is the cause (errors.Is) of the error reading a chunk
// of the C++ writer's QuirkLostFullPage: a single-page chunk whose data is
// its page header alone. That writer seals a page when it reaches
// page_max_point_count points, and when the chunk ends with it, writes
// the header of the saved first page but not its body
// (cpp/src/writer/value_chunk_writer.cc seal_cur_page with end_chunk
// false, then end_encode_chunk with nothing left to seal). The values are
// not in the file; a lenient reader reads the chunk as absent.
var ErrLostFullPage = errors.New("tsfile: a page lost by " + cppWriter + ", which leaves only the page header of a chunk of exactly page_max_point_count points")

// lostFullPage reports whether page p of the chunk h is such a lost page:
// the chunk's only page, its header ending the chunk data.
func lostFullPage(h *ChunkHeader, p *PageHeader) bool {
	return h.SinglePage() && p.CompressedSize > 0 && p.BodyOffset() == h.End() && p.Offset == h.DataOffset()
}

// SkipLostChunk reports whether err, from reading a chunk, is the C++
// writer's lost page (ErrLostFullPage) and the read is lenient, which then
// skips the chunk: it notes the quirk, and the chunk in the warnings. A
// skipped value chunk leaves its column null for the chunk's rows; a
// skipped time chunk (timeChunk) leaves out the rows of its chunk group.
// A strict read keeps the error, which says to read with --lenient.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) SkipLostChunk(err error, timeChunk bool) bool {
	var fe *FormatError
	if !f.opts.Lenient || !errors.Is(err, ErrLostFullPage) || !errors.As(err, &fe) {
		return false
	}
	f.NoteQuirk(QuirkLostFullPage, fe.Offset, fe.Structure)
	msg := "skipped a value chunk whose page its writer lost: its column is null for the chunk's rows"
	if timeChunk {
		msg = "skipped a time chunk whose page its writer lost: the rows of its chunk group are left out"
	}
	f.warn.add(Warning{Offset: fe.Offset, Structure: fe.Structure, Msg: msg})
	return true
}
