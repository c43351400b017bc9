package tsfile

import (
	"errors"
	"fmt"
)

// Chunk is a chunk header with its pages' bytes read into memory.
type Chunk struct {
	Header ChunkHeader
	data   []byte // DataSize bytes following the header
	Pages  []Page
	crypt  *fileCrypt // the file's decryption state, nil for plaintext
}

// Page is one page of a chunk with its stored (possibly compressed)
// payload.
type Page struct {
	Header PageHeader
	Stored []byte
}

// maxChunkHeaderSize bounds how many bytes a chunk header can take: marker,
// a VarString of at most MaxStringLength, a UVarInt and three bytes.
// In a Page AEAD file the ordinal and the chunk proof follow.
func (f *File) maxChunkHeaderSize() int64 {
	return int64(1+5+f.opts.MaxStringLength+5+3) + 8 + 4 + maxChunkAuthSize
}

// ReadChunkHeader decodes the chunk header at off. In a Page AEAD file
// with chunk authentication it also verifies the chunk's proof, against the
// device the index files the chunk under, before returning any field.
func (f *File) ReadChunkHeader(off int64) (ChunkHeader, error) {
	return f.readChunkHeader(off, nil)
}

// readChunkHeader is ReadChunkHeader with the chunk's device given by a
// caller that read its chunk group header (nil: from the index).
func (f *File) readChunkHeader(off int64, dev *DeviceID) (ChunkHeader, error) {
	h, err := f.parseChunkHeaderAt(off)
	if err == nil {
		err = f.verifyChunkHeader(&h, dev)
	}
	return h, err
}

func (f *File) parseChunkHeaderAt(off int64) (ChunkHeader, error) {
	end := f.metaPos
	if off < f.dataFrom || off >= end {
		return ChunkHeader{}, corruptf(off, "chunk header", "offset is outside the data section [%d, %d)", f.dataFrom, end)
	}
	// Read a small window first; names are short in practice.
	n := min(end-off, 256)
	for {
		b, err := f.readAt(off, n, "chunk header")
		if err != nil {
			return ChunkHeader{}, err
		}
		d := f.newBuf(b, off, "chunk header")
		h := d.chunkHeader()
		d.chunkSuffix(&h, f.crypt.suffix())
		if d.err == nil {
			h.HeaderSize = int(d.off() - off)
			if h.plainRole {
				f.NoteQuirk(QuirkNoRoleBits, off, "chunk header")
			}
			// A value chunk without role bits may hold empty pages; which
			// role it has is for the caller to say (AsValueChunk).
			h.emptyPagesOK = f.plainValueChunk(&h)
			if h.End() > end {
				return h, corruptf(off, "chunk header", "data_size %d runs past the data section end %d: the header is damaged or the file is cut short", h.DataSize, end)
			}
			return h, nil
		}
		// A larger window helps only a header that ran past this one,
		// and only up to the largest header the limits allow.
		if d.short == 0 || n == end-off || d.short-off > f.maxChunkHeaderSize() {
			return h, d.err
		}
		n = min(end-off, max(d.short-off+16, 2*n))
	}
}

// ReadChunk reads the chunk whose header is at off, with all its page
// headers checked against data_size.
func (f *File) ReadChunk(off int64) (*Chunk, error) {
	return f.ReadChunkBuffer(off, nil)
}

// ReadChunkBuffer is ReadChunk reading the chunk's bytes into buf when it
// is large enough, so that a reader going through many chunks reuses one
// buffer per column instead of allocating (and zeroing) each chunk anew.
// The chunk's pages alias buf until it is reused.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) ReadChunkBuffer(off int64, buf []byte) (*Chunk, error) {
	cb := ChunkBuffer{b: buf}
	return f.readChunkBuffer(off, nil, &cb)
}

// ReadChunkInto is ReadChunk reading the chunk's bytes into cb, whose
// buffer is reused from chunk to chunk and taken from cb.Alloc when it must
// grow. The chunk's pages alias cb's buffer until the next read into cb or
// cb.Release.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) ReadChunkInto(off int64, cb *ChunkBuffer) (*Chunk, error) {
	return f.readChunkBuffer(off, nil, cb)
}

// Allocator is where a chunk read takes the buffers it holds, so that a
// caller can count them against a memory budget (arrowconv reads through
// its Options.Allocator, which a Flight server meters per stream). arrow-go's
// memory.Allocator satisfies it.
type Allocator interface {
	Allocate(size int) []byte
	Free(b []byte)
}

// ChunkBuffer is the buffer a series of chunk reads fills (ReadChunkInto),
// taken from Alloc, or from the Go heap when Alloc is nil. Its zero value is
// ready to use.
type ChunkBuffer struct {
	Alloc Allocator
	b     []byte
}

// Cap returns the bytes cb holds.
func (cb *ChunkBuffer) Cap() int { return cap(cb.b) }

// Release gives cb's buffer back to Alloc; the pages read into it are no
// longer valid.
func (cb *ChunkBuffer) Release() {
	if cb.b != nil && cb.Alloc != nil {
		cb.Alloc.Free(cb.b[:cap(cb.b)])
	}
	cb.b = nil
}

// grow returns cb's buffer resliced to n bytes, moved into a larger one
// (its first keep bytes copied) when it holds fewer.
func (cb *ChunkBuffer) grow(n, keep int) []byte {
	if cap(cb.b) < n {
		var nb []byte
		if cb.Alloc != nil {
			nb = cb.Alloc.Allocate(n)
		} else {
			nb = make([]byte, n)
		}
		copy(nb, cb.b[:keep])
		cb.Release()
		cb.b = nb
	}
	cb.b = cb.b[:n]
	return cb.b
}

// chunkFirstRead is the most of a chunk read before any of it is parsed,
// beyond the buffer already held. A chunk up to this size (every chunk of
// the files measured: a time chunk of a million points is about 2 MB) is
// read in one call, as before; a larger one grows its buffer only as its
// pages parse, so that a data_size the bytes do not bear out (a chunk of
// zeros in a sparse file declaring a gigabyte) fails at its first page
// header instead of after a gigabyte has been read into memory.
const chunkFirstRead = 4 << 20

func (f *File) readChunkBuffer(off int64, dev *DeviceID, cb *ChunkBuffer) (*Chunk, error) {
	h, err := f.readableChunkHeader(off, dev)
	if err != nil {
		return nil, err
	}
	data, err := f.readChunkData(&h, cb)
	if err != nil {
		return nil, err
	}
	return f.parseChunk(h, data)
}

// readChunkData reads the data of the chunk h into cb: at once when it
// fits in chunkFirstRead or in what cb holds, else in steps, each read
// after the page headers before it have parsed and passed their checks,
// and at most twice the bytes those pages cover (or the one page that needs
// more, within the MaxPageSize bound on its stored size).
func (f *File) readChunkData(h *ChunkHeader, cb *ChunkBuffer) ([]byte, error) {
	size := h.DataSize
	have := min(size, max(int64(cap(cb.b)), chunkFirstRead))
	data := cb.grow(int(have), 0)
	if _, err := f.readInto(data, h.DataOffset(), "chunk data"); err != nil {
		return nil, err
	}
	// more makes data hold the chunk's first need bytes.
	more := func(need int64) error {
		if need <= have {
			return nil
		}
		n := min(size, max(2*have, need))
		data = cb.grow(int(n), int(have))
		if _, err := f.readInto(data[have:n], h.DataOffset()+have, "chunk data"); err != nil {
			return err
		}
		have = n
		return nil
	}
	var st Statistics // scratch: parseChunk decodes the headers again
	for pos := int64(0); have < size && pos < size; {
		p, err := f.pageHeaderAt(h, h.DataOffset()+pos, &st, func(n int64) ([]byte, error) {
			if err := more(pos + n); err != nil {
				return nil, err
			}
			return data[pos : pos+n], nil
		})
		if err == nil {
			pos = p.End() - h.DataOffset()
			err = more(pos)
		}
		if err != nil {
			return nil, unborne(h, err)
		}
	}
	return data, nil
}

// unborne adds to the error that stopped the reading of the chunk h in steps
// that its header declares more than its bytes bear out.
func unborne(h *ChunkHeader, err error) error {
	var fe *FormatError
	if !errors.As(err, &fe) || errors.Is(err, ErrLostFullPage) {
		return err
	}
	e := *fe
	e.Msg += fmt.Sprintf(" (the chunk header at offset %d declares %d bytes of pages that its bytes do not bear out: the file is damaged there, so its rows cannot be read)", h.Offset, h.DataSize)
	return &e
}

// readableChunkHeader is ReadChunkHeader refusing a data_size above
// ReadOptions.MaxChunkSize, before any of the chunk is read.
func (f *File) readableChunkHeader(off int64, dev *DeviceID) (ChunkHeader, error) {
	h, err := f.readChunkHeader(off, dev)
	if err == nil && h.DataSize > f.opts.MaxChunkSize {
		err = corruptf(off, "chunk header", "data_size %d exceeds the limit of %d", h.DataSize, f.opts.MaxChunkSize)
	}
	return h, err
}

// Data returns the chunk's bytes after its header: the buffer its pages
// alias, for reuse with ReadChunkBuffer once the chunk is done with.
func (c *Chunk) Data() []byte { return c.data }

// parseChunk splits chunk data into pages.
func (f *File) parseChunk(h ChunkHeader, data []byte) (*Chunk, error) {
	c := &Chunk{Header: h, data: data, crypt: f.crypt}
	d := f.newBuf(data, h.DataOffset(), "page header")
	for d.remaining() > 0 {
		p := d.pageHeader(&h)
		if d.err != nil {
			return nil, d.err
		}
		if err := f.checkPageHeader(&h, &p); err != nil {
			return nil, err
		}
		body := d.bytesN(p.CompressedSize, "page payload")
		if d.err != nil {
			return nil, corruptf(p.Offset, "page header", "payload of %d bytes runs past the chunk end %d", p.CompressedSize, h.End())
		}
		c.Pages = append(c.Pages, Page{Header: p, Stored: body})
	}
	return c, f.checkPageCount(c)
}

func (f *File) checkPageHeader(h *ChunkHeader, p *PageHeader) error {
	if err := f.crypt.checkSealedSize(p); err != nil {
		return err
	}
	if p.UncompressedSize > f.opts.MaxPageSize {
		return corruptf(p.Offset, "page header", "uncompressed_size %d exceeds the limit of %d", p.UncompressedSize, f.opts.MaxPageSize)
	}
	if p.End() > h.End() {
		if lostFullPage(h, p) {
			return &FormatError{Offset: p.Offset, Structure: "page header", Kind: ErrCorrupt, Err: ErrLostFullPage,
				Msg: fmt.Sprintf("payload of %d bytes runs past the chunk end %d; chunk %q keeps only its page header (read with --lenient to skip the chunk)", p.CompressedSize, h.End(), h.Measurement)}
		}
		return corruptf(p.Offset, "page header", "payload of %d bytes runs past the chunk end %d", p.CompressedSize, h.End())
	}
	if limit := f.maxStoredPage(); p.CompressedSize > limit {
		return corruptf(p.Offset, "page header", "compressed_size %d exceeds the limit of %d, the most a page within the uncompressed limit of %d can take", p.CompressedSize, limit, f.opts.MaxPageSize)
	}
	return nil
}

// maxStoredPage bounds a page's compressed_size by the uncompressed limit:
// no codec TsFile names expands a page by a quarter (Snappy's worst case,
// the largest, is 32 + n + n/6 bytes; LZ4's n + n/255 + 16, LZO's
// n + n/16 + 67), nor does the Page AEAD overhead of a few dozen bytes. A
// larger stored size is damage, and refusing it keeps a reader from
// reading (and holding) the body a hostile header declares.
func (f *File) maxStoredPage() int { return maxStoredPage(f.opts.MaxPageSize) }

func maxStoredPage(maxPage int) int { return maxPage + maxPage/4 + 4096 }

func (f *File) checkPageCount(c *Chunk) error {
	h := &c.Header
	if h.SinglePage() && len(c.Pages) > 1 {
		return corruptf(h.Offset, "chunk header", "single-page chunk marker 0x%02x but %d pages", h.Marker, len(c.Pages))
	}
	// A non-aligned chunk of data_size 0 holds no page: the C++ writer
	// writes one for a series with no point since the last flush
	// (apache/tsfile cpp/src/writer/tsfile_writer.cc,
	// TsFileWriter::flush_chunk_group flushes a chunk for every series of
	// the device, points or not), and the Java reader reads past it. Its
	// index entry must then count no point either, which the readers that
	// know the entry check (CheckEmptyChunk). A time chunk without pages
	// stays an error: its value chunks would lose their rows.
	if len(c.Pages) == 0 && h.IsTimeChunk() || len(c.Pages) == 0 && !h.IsAligned() && h.DataSize != 0 && !f.plainValueChunk(h) {
		return corruptf(h.Offset, "chunk header", "chunk %q has no pages", h.Measurement)
	}
	return nil
}

// CheckEmptyChunk fails when c has no page but its index entry cm counts
// points: the chunk's data is gone (a data_size of 0 where the writer
// wrote pages), and reading on would lose those points in silence.
func CheckEmptyChunk(c *Chunk, cm *ChunkMetadata) error {
	if len(c.Pages) == 0 && cm.Statistics.Count != 0 {
		h := &c.Header
		return corruptf(h.Offset, "chunk header", "chunk %q has no pages but its index entry counts %d points; the chunk or the index is damaged", h.Measurement, cm.Statistics.Count)
	}
	return nil
}

// pageWindow is how many bytes ReadChunkPages reads at a page header, and
// past a page body it reads: most headers fit, so reading a page brings
// the next header along, and skipping a page costs little more than its
// header.
const pageWindow = 512

// ReadChunkPages reads the chunk whose header is at off like ReadChunk,
// but fetches the stored bytes only of the pages keep accepts; the others
// keep their headers (with their Statistics) and a nil Stored. keep sees
// the pages in order. A reader that needs a few pages of a large chunk,
// for a time range, reads little more than their headers, which matters
// most when ReadAt is a network request.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) ReadChunkPages(off int64, keep func(i int, p *PageHeader) bool) (*Chunk, error) {
	h, err := f.readableChunkHeader(off, nil)
	if err != nil {
		return nil, err
	}
	c := &Chunk{Header: h, crypt: f.crypt}
	var win []byte // bytes [winAt, winAt+len(win)) of the file
	var winAt int64
	get := func(at, n, want int64, structure string) ([]byte, error) {
		if at < winAt || at+n > winAt+int64(len(win)) {
			var err error
			if win, err = f.readAt(at, min(max(n, want), h.End()-at), structure); err != nil {
				return nil, err
			}
			winAt = at
		}
		return win[at-winAt : at-winAt+n], nil
	}
	for pos := h.DataOffset(); pos < h.End(); {
		p, err := f.pageHeaderAt(&h, pos, nil, func(n int64) ([]byte, error) { return get(pos, n, pageWindow, "page header") })
		if err != nil {
			return nil, err
		}
		pg := Page{Header: p}
		if keep(len(c.Pages), &pg.Header) {
			if pg.Stored, err = get(p.BodyOffset(), int64(p.CompressedSize), int64(p.CompressedSize)+pageWindow, "page payload"); err != nil {
				return nil, err
			}
		}
		c.Pages = append(c.Pages, pg)
		pos = p.End()
	}
	return c, f.checkPageCount(c)
}

// pageHeaderAt decodes and checks the header of the page at pos of the
// chunk h, reading it with read(n), which returns the n bytes at pos: a
// window of pageWindow bytes first, more when the header runs past it, up
// to the largest header the limits allow. The page's Statistics, if any,
// is decoded into st when st is not nil; its strings alias read's bytes.
func (f *File) pageHeaderAt(h *ChunkHeader, pos int64, st *Statistics, read func(n int64) ([]byte, error)) (PageHeader, error) {
	// A page header holds two varints and at most one Statistics, whose
	// largest form is four strings.
	maxHeader := int64(10 + 3*8 + 4*(5+f.opts.MaxStringLength) + 16)
	n := min(h.End()-pos, pageWindow)
	for {
		b, err := read(n)
		if err != nil {
			return PageHeader{}, err
		}
		d := f.newBuf(b, pos, "page header")
		p := d.pageHeaderInto(h, st)
		if d.err == nil {
			return p, f.checkPageHeader(h, &p)
		}
		if d.short == 0 || n == h.End()-pos || d.short-pos > maxHeader {
			return PageHeader{}, d.err
		}
		n = min(h.End()-pos, max(d.short-pos+64, 2*n))
	}
}
