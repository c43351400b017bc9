package tsfile

// ChunkHeader is the header that starts every chunk.
type ChunkHeader struct {
	Offset      int64 // absolute offset of the marker
	Marker      byte
	Measurement string // empty for an aligned time chunk
	DataSize    int64  // bytes of page headers and bodies after the header
	DataType    DataType
	Compression Compression
	Encoding    Encoding
	// Ordinal is the chunk_ordinal of a Page AEAD file whose header
	// version is 2 or more: the file-unique identity each page's
	// associated data binds.
	Ordinal int64
	// Auth is the chunk_authentication proof of header version 3, checked
	// before any other field is trusted.
	Auth       []byte
	HeaderSize int // serialized size of the header itself, suffix included
	// plainRole is set when the marker had no role bits and the reader
	// added them (QuirkNoRoleBits); appendChunkHeader writes it back so.
	plainRole bool
	// emptyPagesOK lets a chunk without role bits in a file that showed
	// QuirkNoRoleBits hold the empty pages of an aligned value chunk.
	emptyPagesOK bool
}

// PlainRole reports whether the chunk's marker was written without its
// time/value role bit (QuirkNoRoleBits) and the reader gave it the role.
func (h *ChunkHeader) PlainRole() bool { return h.plainRole }

// IsTimeChunk reports whether this is the time chunk of an aligned set.
func (h *ChunkHeader) IsTimeChunk() bool { return h.Marker&markerTimeColumnMask != 0 }

// IsValueChunk reports whether this is a value chunk of an aligned set.
func (h *ChunkHeader) IsValueChunk() bool { return h.Marker&markerValueColumnMask != 0 }

// IsAligned reports whether the chunk belongs to an aligned set.
func (h *ChunkHeader) IsAligned() bool { return h.IsTimeChunk() || h.IsValueChunk() }

// SinglePage reports whether the chunk has at most one page, whose header
// then carries no Statistics.
func (h *ChunkHeader) SinglePage() bool {
	return h.Marker&markerLowBits == MarkerOnlyOnePageChunkHeader
}

// DataOffset is the absolute offset of the first page header.
func (h *ChunkHeader) DataOffset() int64 { return h.Offset + int64(h.HeaderSize) }

// End is the absolute offset just past the chunk.
func (h *ChunkHeader) End() int64 { return h.DataOffset() + h.DataSize }

func isChunkMarker(m byte) bool {
	switch m {
	case MarkerChunkHeader, MarkerOnlyOnePageChunkHeader,
		MarkerValueChunkHeader, MarkerOnlyOnePageValueChunk,
		MarkerTimeChunkHeader, MarkerOnlyOnePageTimeChunk:
		return true
	}
	return false
}

// chunkHeader decodes a chunk header whose marker is at the cursor.
func (d *buf) chunkHeader() ChunkHeader {
	start := d.pos
	h := ChunkHeader{Offset: d.off()}
	h.Marker = d.byte1("chunk marker")
	if d.err == nil && !isChunkMarker(h.Marker) {
		d.pos = start
		d.fail("byte 0x%02x is not a chunk marker", h.Marker)
		return h
	}
	h.Measurement = d.varStringNotNull("chunk measurement_id")
	h.DataSize = int64(d.uvarint("chunk data_size"))
	typeAt := d.pos
	h.DataType = DataType(d.byte1("chunk data_type"))
	h.Compression = Compression(d.byte1("chunk compression_type"))
	h.Encoding = Encoding(d.byte1("chunk encoding_type"))
	if d.err != nil {
		return h
	}
	h.HeaderSize = d.pos - start
	if h.Marker&^markerLowBits == 0 && h.Measurement == "" && h.DataType == Vector {
		// A time chunk without its role bit, as the C++ writer of early
		// 2025 writes it (QuirkNoRoleBits; apache/tsfile
		// cpp/src/file/tsfile_io_writer.cc start_flush_chunk picks
		// CHUNK_HEADER_MARKER or ONLY_ONE_PAGE_CHUNK_HEADER_MARKER
		// alone). No other chunk has an empty name and type VECTOR.
		h.Marker |= markerTimeColumnMask
		h.plainRole = true
	}
	switch {
	case !h.DataType.Valid():
		d.pos = typeAt
		d.fail("unknown data_type %d", uint8(h.DataType))
	case h.IsTimeChunk() && h.DataType != Vector:
		d.pos = typeAt
		d.fail("aligned time chunk has data_type %s, want VECTOR", h.DataType)
	case h.IsTimeChunk() && h.Measurement != "":
		d.pos = start
		d.fail("aligned time chunk has measurement_id %q, want empty", h.Measurement)
	case !h.IsTimeChunk() && !h.DataType.IsValueType():
		d.pos = typeAt
		d.fail("value chunk %q has data_type %s", h.Measurement, h.DataType)
	}
	return h
}

func appendChunkHeader(dst []byte, h *ChunkHeader) []byte {
	m := h.Marker
	if h.plainRole {
		m &= markerLowBits
	}
	dst = append(dst, m)
	dst = appendVarString(dst, h.Measurement)
	dst = appendUVarint(dst, uint32(h.DataSize))
	return append(dst, byte(h.DataType), byte(h.Compression), byte(h.Encoding))
}

// PageHeader is the header of one page inside a chunk.
type PageHeader struct {
	Offset           int64 // absolute offset of the header
	UncompressedSize int
	CompressedSize   int
	// Statistics is present in the pages of multi-page chunks, absent in
	// single-page chunks and empty pages.
	Statistics *Statistics
	HeaderSize int
}

// Empty reports whether this is an empty aligned value page: every
// position of the corresponding time page is null.
func (p *PageHeader) Empty() bool { return p.UncompressedSize == 0 }

// BodyOffset is the absolute offset of the stored payload.
func (p *PageHeader) BodyOffset() int64 { return p.Offset + int64(p.HeaderSize) }

// End is the absolute offset just past the page.
func (p *PageHeader) End() int64 { return p.BodyOffset() + int64(p.CompressedSize) }

// pageHeader decodes a page header of a chunk with the given header.
func (d *buf) pageHeader(ch *ChunkHeader) PageHeader { return d.pageHeaderInto(ch, nil) }

// pageHeaderInto is pageHeader decoding the page's Statistics, if it has
// any, into *st rather than a new allocation (st may be nil).
func (d *buf) pageHeaderInto(ch *ChunkHeader, st *Statistics) PageHeader {
	start := d.pos
	p := PageHeader{Offset: d.off()}
	p.UncompressedSize = int(d.uvarint("page uncompressed_size"))
	if d.err != nil {
		return p
	}
	if p.UncompressedSize == 0 {
		if !ch.IsValueChunk() && !ch.emptyPagesOK {
			d.pos = start
			d.fail("empty page in a chunk that is not an aligned value chunk")
		}
		p.HeaderSize = d.pos - start
		return p
	}
	p.CompressedSize = int(d.uvarint("page compressed_size"))
	if !ch.SinglePage() {
		if st == nil {
			st = new(Statistics)
		}
		*st = d.statistics(ch.DataType)
		p.Statistics = st
	}
	p.HeaderSize = d.pos - start
	return p
}

func appendPageHeader(dst []byte, p *PageHeader) []byte {
	dst = appendUVarint(dst, uint32(p.UncompressedSize))
	if p.UncompressedSize == 0 {
		return dst
	}
	dst = appendUVarint(dst, uint32(p.CompressedSize))
	if p.Statistics != nil {
		dst = p.Statistics.AppendTo(dst)
	}
	return dst
}
