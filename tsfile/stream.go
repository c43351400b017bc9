package tsfile

// PageStream reads the pages of one chunk in order through a window of a
// reused buffer, for readers that decode a chunk page by page. Reading a
// whole chunk first (ReadChunkBuffer) copies it into a buffer as large as
// the chunk, which for the chunks of a chunk set adds up to megabytes: the
// copy leaves the cache before the decoder reads it back, so every byte
// crosses the memory bus three times. Through a window of a few hundred
// kilobytes the decoder reads the bytes the copy has just written, still
// in the cache, and working memory no longer grows with the chunk.
//
// The embedded Chunk holds the header and the headers of the pages parsed
// so far; a page's Stored is valid only from the call to Page that returned
// it until the next call, and nil for the pages the window has passed.
// The headers and their Statistics stay valid until Reset.
// PayloadDecoder.Payload takes &s.Chunk and the page's index as usual.
// Page headers are checked as ReadChunk checks them, when they are reached.
type PageStream struct {
	Chunk
	f      *File
	win    []byte // file bytes [winAt, winAt+len(win)) of the chunk, in buf
	buf    ChunkBuffer
	winAt  int64
	next   int64 // offset of the next page header not yet parsed
	window int   // bytes to read at a time, at least
	kept   int   // pages before this index have had their Stored dropped

	// The page headers' Statistics live in stats and their strings in
	// text rather than in an allocation each (a scan parses tens of
	// thousands of page headers a second) or in the window (which moves
	// on). Both are slabs: when one fills, a larger one replaces it and
	// the values already handed out stay where they are; Reset reuses the
	// last.
	stats []Statistics
	text  []byte
}

// defaultStreamWindow is the read size of a PageStream opened with a
// window of 0: large enough that a read costs little more than its copy,
// small enough that a window of each of a dozen columns stays in a core's
// last-level cache. Where a system call costs a few microseconds, as on
// the virtual machines the benchmarks run on, reading a file from the
// page cache 128 KiB at a time ran at 10-11 GB/s and 512 KiB at a time at
// 13-14 GB/s; a scan of the 10M-row PLAIN table took 5-7% less time with
// 256 KiB windows than with 128 KiB, and no less with 512 KiB.
const defaultStreamWindow = 256 << 10

// OpenPageStream reads the header of the chunk at off, verifying it like
// ReadChunk, and returns a stream over its pages that reads window bytes
// at a time (256 KiB if 0: see defaultStreamWindow) into buf, grown when a page needs
// more. In a Page AEAD file the chunk's proof is verified against the
// device the index files it under, as ReadChunkHeader does.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) OpenPageStream(off int64, buf []byte, window int) (*PageStream, error) {
	h, err := f.readableChunkHeader(off, nil)
	if err != nil {
		return nil, err
	}
	if window <= 0 {
		window = defaultStreamWindow
	}
	s := &PageStream{f: f, buf: ChunkBuffer{b: buf}, window: window}
	s.win = buf[:0]
	s.start(h)
	return s, nil
}

// OpenPageStreamAlloc is OpenPageStream taking the stream's buffer from a,
// so that a caller counting its memory (a Flight server's per-stream meter)
// counts the window too; Release gives it back.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func (f *File) OpenPageStreamAlloc(off int64, a Allocator, window int) (*PageStream, error) {
	s, err := f.OpenPageStream(off, nil, window)
	if err == nil {
		s.buf.Alloc = a
	}
	return s, err
}

// Release gives the stream's buffer back to the allocator it was opened
// with (OpenPageStreamAlloc); the pages it returned are no longer valid.
// The stream can still be Reset and read, into a new buffer.
func (s *PageStream) Release() {
	s.buf.Release()
	s.win = nil
	for ; s.kept < len(s.Pages); s.kept++ {
		s.Pages[s.kept].Stored = nil
	}
}

// Reset makes s a stream over the chunk at off of the same file, as
// OpenPageStream does, reusing s's buffer and the storage of its page
// headers. The pages and headers s returned before are no longer valid.
func (s *PageStream) Reset(off int64) error {
	h, err := s.f.readableChunkHeader(off, nil)
	if err != nil {
		s.start(ChunkHeader{}) // a chunk without pages
		return err
	}
	s.start(h)
	return nil
}

// start points s at the chunk with header h, its pages not yet read,
// keeping the storage of the pages it had.
func (s *PageStream) start(h ChunkHeader) {
	s.Chunk = Chunk{Header: h, crypt: s.f.crypt, Pages: s.Pages[:0]}
	s.stats, s.text = s.stats[:0], s.text[:0]
	s.win, s.winAt, s.next, s.kept = s.win[:0], h.DataOffset(), h.DataOffset(), 0
}

// Buffer returns the stream's buffer, for reuse by the next stream once
// this one is done with.
func (s *PageStream) Buffer() []byte { return s.win[:0] }

// Page returns page i of the chunk, reading on to it, or nil when the
// chunk ends before page i. Pages are taken in increasing order; the
// pages between the last one taken and i are read past (their headers
// kept, their bodies dropped).
func (s *PageStream) Page(i int) (*Page, error) {
	for len(s.Pages) <= i {
		ok, err := s.parseNext()
		if err != nil || !ok {
			return nil, err
		}
	}
	p := &s.Pages[i]
	if p.Stored == nil && p.Header.UncompressedSize != 0 {
		return nil, corruptf(p.Header.Offset, "page header", "page %d of chunk %q was read past (pages are taken in order)", i, s.Header.Measurement)
	}
	return p, nil
}

// Rest parses the headers of the pages not yet reached and checks the
// chunk's page count as ReadChunk does; it returns how many pages the chunk
// has.
func (s *PageStream) Rest() (int, error) {
	for {
		ok, err := s.parseNext()
		if err != nil {
			return len(s.Pages), err
		}
		if !ok {
			return len(s.Pages), s.f.checkPageCount(&s.Chunk)
		}
	}
}

// parseNext parses the next page header and brings the whole page into
// the window; false at the chunk's end.
func (s *PageStream) parseNext() (bool, error) {
	h := &s.Header
	pos := s.next
	if pos >= h.End() {
		return false, nil
	}
	st := s.newStatistics()
	p, err := s.f.pageHeaderAt(h, pos, st, func(n int64) ([]byte, error) { return s.bytes(pos, n, "page header") })
	if err != nil {
		return false, err
	}
	if p.Statistics == nil {
		s.stats = s.stats[:len(s.stats)-1]
	} else {
		st.First, st.Last = s.keepText(st.First), s.keepText(st.Last)
		st.Min, st.Max = s.keepText(st.Min), s.keepText(st.Max)
	}
	if h.SinglePage() && len(s.Pages) == 1 {
		return false, corruptf(h.Offset, "chunk header", "single-page chunk marker 0x%02x but more than one page", h.Marker)
	}
	// Header and body in one window, so that the body is one slice.
	whole, err := s.bytes(pos, p.End()-pos, "page payload")
	if err != nil {
		return false, err
	}
	s.Pages = append(s.Pages, Page{Header: p, Stored: whole[p.HeaderSize:]})
	s.next = p.End()
	return true, nil
}

// newStatistics returns the next free Statistics of the slab.
func (s *PageStream) newStatistics() *Statistics {
	if len(s.stats) == cap(s.stats) {
		s.stats = make([]Statistics, 0, max(16, 2*cap(s.stats)))
	}
	s.stats = s.stats[:len(s.stats)+1]
	return &s.stats[len(s.stats)-1]
}

// keepText copies b, which aliases the window, into the text slab.
func (s *PageStream) keepText(b []byte) []byte {
	if len(b) == 0 {
		return b // nil (absent) or empty, neither holding bytes to keep
	}
	if cap(s.text)-len(s.text) < len(b) {
		s.text = make([]byte, 0, max(4096, 2*cap(s.text), len(b)))
	}
	n := len(s.text)
	s.text = append(s.text, b...)
	return s.text[n:len(s.text):len(s.text)]
}

// bytes returns the n bytes of the file at off, which lie in the chunk's
// data, moving the window forward to them if they are not all in it: the
// bytes from off on that the window holds move to the front of the buffer
// and a read fills the rest, up to the window size or the chunk's end.
func (s *PageStream) bytes(off, n int64, structure string) ([]byte, error) {
	if off >= s.winAt && off+n <= s.winAt+int64(len(s.win)) {
		return s.win[off-s.winAt : off-s.winAt+n], nil
	}
	end := s.Header.End()
	size := min(end-off, max(n, int64(s.window)))
	keep := 0
	if off >= s.winAt && off < s.winAt+int64(len(s.win)) {
		keep = copy(s.win, s.win[off-s.winAt:])
	}
	// s.win starts s.buf's buffer, so a buffer that must grow moves the
	// kept bytes along.
	s.win = s.buf.grow(int(size), keep)
	if _, err := s.f.readInto(s.win[keep:], off+int64(keep), structure); err != nil {
		s.win, s.winAt = s.win[:0], off
		return nil, err
	}
	s.winAt = off
	// The bodies of the pages before off were in the bytes just replaced.
	for ; s.kept < len(s.Pages); s.kept++ {
		s.Pages[s.kept].Stored = nil
	}
	return s.win[:n], nil
}
