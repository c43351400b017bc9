package tsfile

import "io"

// RecordKind says what a Scanner record is.
type RecordKind int

// Record kinds of the data section.
const (
	ChunkGroupRecord RecordKind = iota + 1
	ChunkRecord
	OperationIndexRangeRecord
	SeparatorRecord
)

func (k RecordKind) String() string {
	switch k {
	case ChunkGroupRecord:
		return "chunk group"
	case ChunkRecord:
		return "chunk"
	case OperationIndexRangeRecord:
		return "operation index range"
	case SeparatorRecord:
		return "separator"
	}
	return "unknown"
}

// Record is one top-level structure of the data section.
type Record struct {
	Kind   RecordKind
	Offset int64 // absolute offset of its marker
	End    int64 // absolute offset just past it
	// Device is the chunk group's device (ChunkGroupRecord), or the device
	// of the group a chunk belongs to (ChunkRecord).
	Device DeviceID
	// Chunk is the chunk with its pages (ChunkRecord).
	Chunk *Chunk
	// MinOperationIndex and MaxOperationIndex (OperationIndexRangeRecord).
	MinOperationIndex, MaxOperationIndex int64
}

// operationIndexRangeSize is the marker and the two int64 operation
// indexes of an operation index range record.
const operationIndexRangeSize = 1 + 8 + 8

// Scanner reads the data section from the front, following the chunk
// scanning state machine of Chunks.md, without the footer. It is how
// truncated files are recovered and how streams are read.
type Scanner struct {
	f      *File
	pos    int64
	dev    DeviceID
	inGrp  bool
	rec    Record
	err    error
	done   bool
	chunks int
}

// NewScanner validates the file prefix and positions a scanner at the
// first data-section marker. size may be the length of a truncated file.
func NewScanner(r io.ReaderAt, size int64, opts *ReadOptions) (*Scanner, error) {
	f := &File{r: r, size: size, opts: opts.withDefaults()}
	if err := f.readPrefix(); err != nil {
		return nil, err
	}
	f.metaPos = size
	f.metaOffset = size
	return &Scanner{f: f, pos: f.dataFrom}, nil
}

// Next advances to the next record. It returns false at the separator,
// after which Err is nil, or on an error.
func (s *Scanner) Next() bool {
	if s.done || s.err != nil {
		return false
	}
	if s.pos >= s.f.size {
		s.err = corruptf(s.pos, "data section", "file ends before the separator: the file is incomplete")
		return false
	}
	mb, err := s.f.readAt(s.pos, 1, "marker")
	if err != nil {
		s.err = err
		return false
	}
	m := mb[0]
	start := s.pos
	switch {
	case m == MarkerChunkGroupHeader:
		// Read a small window and grow it only when the DeviceID ran out
		// of bytes, to what it said it needs: growing on any error let a
		// run of zero bytes (valid empty groups) or one bad byte read
		// megabytes per group.
		limit := min(s.f.size-start, int64(1+5+s.f.opts.MaxDeviceSegments*(5+s.f.opts.MaxStringLength)))
		n := min(limit, 256)
		var dev DeviceID
		for {
			b, err := s.f.readAt(start, n, "chunk group header")
			if err != nil {
				s.err = err
				return false
			}
			d := s.f.newBuf(b, start, "chunk group header")
			d.byte1("marker")
			if d.v3 {
				dev = d.v3DeviceID(s.f.opts.MaxDeviceSegments)
			} else {
				dev = d.deviceID(s.f.opts.MaxDeviceSegments)
			}
			if d.err == nil {
				s.pos = d.off()
				break
			}
			if d.short == 0 || n == limit || d.short-start > limit {
				s.err = d.err
				return false
			}
			n = min(limit, max(d.short-start+64, 2*n))
		}
		s.dev, s.inGrp = dev, true
		s.rec = Record{Kind: ChunkGroupRecord, Offset: start, End: s.pos, Device: dev}
	case isChunkMarker(m):
		if !s.inGrp {
			s.err = corruptf(start, "chunk header", "chunk outside any chunk group")
			return false
		}
		c, err := s.f.readChunkBuffer(start, &s.dev, &ChunkBuffer{})
		if err != nil {
			s.err = err
			return false
		}
		s.pos = c.Header.End()
		s.chunks++
		s.rec = Record{Kind: ChunkRecord, Offset: start, End: s.pos, Device: s.dev, Chunk: c}
	case m == MarkerOperationIndexRange:
		b, err := s.f.readAt(start, operationIndexRangeSize, "operation index range")
		if err != nil {
			s.err = err
			return false
		}
		d := s.f.newBuf(b, start, "operation index range")
		d.byte1("marker")
		lo, hi := d.int64("min_operation_index"), d.int64("max_operation_index")
		s.pos = start + operationIndexRangeSize
		s.inGrp = false
		s.rec = Record{Kind: OperationIndexRangeRecord, Offset: start, End: s.pos, MinOperationIndex: lo, MaxOperationIndex: hi}
	case m == MarkerSeparator:
		s.pos = start + 1
		s.done = true
		s.rec = Record{Kind: SeparatorRecord, Offset: start, End: s.pos}
		return true
	case m == MarkerEncryptionHeader && s.f.Version != VersionV3:
		s.err = corruptf(start, "data section", "encryption header 0x06 is only valid at offset %d", prefixSize)
		return false
	default:
		s.err = corruptf(start, "data section", "unknown top-level marker 0x%02x", m)
		return false
	}
	return true
}

// Record returns the current record.
func (s *Scanner) Record() Record { return s.rec }

// Err returns the error that stopped the scan, if any.
func (s *Scanner) Err() error { return s.err }

// Offset returns the end of the last complete structure read: the last
// known-good boundary.
func (s *Scanner) Offset() int64 { return s.pos }

// restart positions the scanner at pos, the start of a top-level structure
// outside any chunk group, and clears its error: Recover resumes there
// after a damaged range the index lets it skip.
func (s *Scanner) restart(pos int64) {
	s.pos, s.inGrp, s.err, s.done = pos, false, nil, false
	s.dev = DeviceID{}
}
