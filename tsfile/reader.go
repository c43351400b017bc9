package tsfile

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tsarrow/tsarrow/aead"
)

// ReadOptions bound what a reader will believe and allocate. The zero value
// (or a nil pointer) selects the defaults noted on each field.
type ReadOptions struct {
	// MaxMetadataSize caps the TsFileMetadata length L (default 256 MiB).
	MaxMetadataSize int64
	// MaxPageSize caps a page's uncompressed_size (default 64 MiB); larger
	// pages are refused before any allocation.
	MaxPageSize int
	// MaxPagePoints caps the timestamps one page may declare (default
	// 1 Mi, a hundred times the reference writer's 10,000): a few bytes
	// of TS_2DIFF can claim millions of timestamps, each decoded before
	// anything else can contradict the claim.
	MaxPagePoints int
	// MaxChunkSize caps a chunk's data_size read into memory at once
	// (default 1 GiB).
	MaxChunkSize int64
	// MaxIndexDepth caps the levels of one index tree (default 64).
	MaxIndexDepth int
	// MaxStringLength caps a measurement, table or segment name (default 1 MiB).
	MaxStringLength int
	// MaxDeviceSegments caps the segments of one DeviceID (default 4096).
	MaxDeviceSegments int
	// NonAlignedTimeEncoding is the time-stream encoding of non-aligned
	// pages, which the file does not record (default TS_2DIFF).
	NonAlignedTimeEncoding TimeEncoding
	// Lenient reads files with known writer quirks (an absent Bloom filter
	// written as four zero bytes, a property_count written unsigned) and
	// files whose summaries disagree with what they summarise (series
	// statistics that do not add up), recording a Warning (File.Warnings)
	// instead of failing. Structural damage still fails.
	Lenient bool
	// Keys resolves the key provider a Page AEAD file names. Without it
	// (or without the file's key) an encrypted file still opens, and its
	// footer and index read, but its pages fail with an error naming the
	// key id.
	Keys *aead.Registry
	// Context is passed to key providers (which may call a KMS) at Open;
	// nil means context.Background().
	Context context.Context
	// LegacyUnwrap unwraps the data key of a file encrypted with the
	// legacy footer properties at encryptLevel 2 (a key wrapped by an
	// external master key).
	LegacyUnwrap aead.LegacyUnwrapFunc
	// Unauthenticated returns the chunk headers of a Page AEAD file whose
	// key is not available without checking their proofs, so that a tool
	// can show the structure of a file it cannot decrypt. Nothing read
	// this way is authenticated; pages stay unreadable.
	Unauthenticated bool
	// NoVerify skips checking each decoded page against its statistics
	// (count, time range, min, max, first, last, sum; see
	// Statistics.CheckValues), which readers do by default because a page
	// body has no checksum: damage to it otherwise decodes to other values
	// without an error. Set it to read files whose statistics are known
	// to be wrong while their values are right (a writer bug), or to save
	// the check's cost (a few percent of a scan) on trusted files.
	NoVerify bool

	quirks uint8 // footer quirks to parse with (lenient retries)
}

func (o *ReadOptions) withDefaults() ReadOptions {
	var r ReadOptions
	if o != nil {
		r = *o
	}
	if r.MaxMetadataSize <= 0 {
		r.MaxMetadataSize = 256 << 20
	}
	if r.MaxPageSize <= 0 {
		r.MaxPageSize = 64 << 20
	}
	if r.MaxPagePoints <= 0 {
		r.MaxPagePoints = 1 << 20
	}
	if r.MaxChunkSize <= 0 {
		r.MaxChunkSize = 1 << 30
	}
	if r.MaxIndexDepth <= 0 {
		r.MaxIndexDepth = 64
	}
	if r.MaxStringLength <= 0 {
		r.MaxStringLength = 1 << 20
	}
	if r.MaxDeviceSegments <= 0 {
		r.MaxDeviceSegments = 4096
	}
	return r
}

// File is an open TsFile. Its methods are safe for concurrent use when the
// underlying io.ReaderAt is.
type File struct {
	r          io.ReaderAt
	size       int64
	opts       ReadOptions
	closer     io.Closer
	metaPos    int64 // absolute offset of TsFileMetadata
	metaOffset int64 // the separator
	dataFrom   int64 // first byte of the data section

	// Version is the format version byte: Version (4), or VersionV3 for a
	// file read with the v3 grammar.
	Version byte
	// Metadata is the decoded footer.
	Metadata *FileMetadata

	warn   warnings
	quirks atomic.Uint32 // WriterQuirks met so far
	crypt  *fileCrypt    // nil for plaintext files

	// v3devs holds every device entry of a v3 file by deviceKey (its
	// segments), for lookups by any spelling of a device's path.
	v3devs map[string]IndexEntry

	tableChecks sync.Map // table name -> *tableCheck (CheckTable)

	// devNodes holds the device index nodes lookups have parsed, by
	// offset, up to devNodeEntries entries in all: a reader of many
	// devices looks each up from the root, and would otherwise read and
	// parse the same leaf of a few hundred device IDs for each.
	devNodes       sync.Map // int64 -> *IndexNode
	devNodeEntries atomic.Int64
}

// devNodeBudget bounds the entries devNodes holds: the device index of a
// quarter of a million devices, about ten megabytes.
const devNodeBudget = 1 << 18

// OpenFile opens the named file.
func OpenFile(path string, opts *ReadOptions) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := Open(fh, st.Size(), opts)
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Open reads the prefix and footer of the TsFile of the given size held by
// r, validating the magic strings, the version, the footer length and the
// TsFileMetadata, which must consume exactly its declared length.
func Open(r io.ReaderAt, size int64, opts *ReadOptions) (*File, error) {
	f := &File{r: r, size: size, opts: opts.withDefaults()}
	err := f.readPrefix()
	if err == nil {
		err = f.readFooter()
	}
	if err == nil {
		err = f.verifyMetadata()
	}
	if err == nil {
		err = f.readLegacyEncryption()
	}
	if err != nil {
		f.closeCrypt()
		return nil, err
	}
	return f, nil
}

// Close zeroes the file's data key, if it has one, and closes the file if
// it was opened by OpenFile.
func (f *File) Close() error {
	f.closeCrypt()
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Size returns the file length.
func (f *File) Size() int64 { return f.size }

// Options returns the effective read options.
func (f *File) Options() ReadOptions { return f.opts }

// readAt reads n bytes at off, which must lie inside [lo, hi).
func (f *File) readAt(off int64, n int64, structure string) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, corruptf(off, structure, "%d bytes at offset %d run past the end of the %d-byte file", n, off, f.size)
	}
	return f.readInto(make([]byte, n), off, structure)
}

// readInto fills b from offset off.
func (f *File) readInto(b []byte, off int64, structure string) ([]byte, error) {
	n := int64(len(b))
	if off < 0 || off > f.size || n > f.size-off {
		return nil, corruptf(off, structure, "%d bytes at offset %d run past the end of the %d-byte file", n, off, f.size)
	}
	got, err := f.r.ReadAt(b, off)
	if got == len(b) && (err == nil || errors.Is(err, io.EOF)) {
		// io.ReaderAt may return io.EOF with a full read that ends at
		// the end of its input: the count, not the error, says whether
		// b was filled.
		return b, nil
	}
	if err == nil {
		// A short count without an error breaks the io.ReaderAt
		// contract; the unread bytes must not pass for zeros.
		err = io.ErrUnexpectedEOF
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, corruptf(off, structure, "short read of %d bytes, want %d: %v", got, n, err)
	}
	return nil, fmt.Errorf("tsfile: reading %s at offset %d: %w", structure, off, err)
}

// readPrefix checks the head magic and version; the data section starts
// right after them.
func (f *File) readPrefix() error {
	if f.size < prefixSize {
		return corruptf(0, "file prefix", "file has %d bytes, too short for the magic and version", f.size)
	}
	b, err := f.readAt(0, prefixSize, "file prefix")
	if err != nil {
		return err
	}
	if string(b[:magicSize]) != Magic {
		return corruptf(0, "file prefix", "head magic is %q, want %q", b[:magicSize], Magic)
	}
	f.Version = b[magicSize]
	if f.Version != Version && f.Version != VersionV3 {
		return unsupportedf(magicSize, "file prefix", "format version %d (this reader supports versions %d and %d)", f.Version, VersionV3, Version)
	}
	f.dataFrom = prefixSize
	if f.Version == VersionV3 {
		// Page AEAD is a v4 extension: a v3 data section starts right
		// here, and a 0x06 is an unknown marker like any other.
		return nil
	}
	if f.size > prefixSize {
		m, err := f.readAt(prefixSize, 1, "file prefix")
		if err != nil {
			return err
		}
		if m[0] == MarkerEncryptionHeader {
			return f.readEncryptionHeader()
		}
	}
	return nil
}

func (f *File) readFooter() error {
	if f.size < minFileSize {
		return corruptf(f.size, "file tail", "file has %d bytes, too short to be complete", f.size)
	}
	t, err := f.readAt(f.size-tailSize, tailSize, "file tail")
	if err != nil {
		return err
	}
	if string(t[metaLengthSize:]) != Magic {
		return &FormatError{Offset: f.size - magicSize, Structure: "file tail", Kind: ErrIncomplete,
			Msg: fmt.Sprintf("tail magic is %q, want %q: the file is incomplete", t[metaLengthSize:], Magic)}
	}
	l := int64(int32(binary.BigEndian.Uint32(t)))
	lenAt := f.size - tailSize
	// The prefix and the separator come before TsFileMetadata.
	if l < 0 || l > lenAt-(prefixSize+1) {
		return corruptf(lenAt, "file tail", "TsFileMetadata length %d does not fit in the %d-byte file", l, f.size)
	}
	if l > f.opts.MaxMetadataSize {
		return corruptf(lenAt, "file tail", "TsFileMetadata length %d exceeds the limit of %d", l, f.opts.MaxMetadataSize)
	}
	f.metaPos = lenAt - l
	b, err := f.readAt(f.metaPos, l, "TsFileMetadata")
	if err != nil {
		return err
	}
	m, err := f.parseFooter(b)
	if err != nil {
		return err
	}
	if err := f.checkSchemaNames(m); err != nil {
		return err
	}
	if err := f.checkSchemaTables(m); err != nil {
		return err
	}
	if m.MetaOffset < f.dataFrom || m.MetaOffset >= f.metaPos {
		return corruptf(f.metaPos, "TsFileMetadata", "meta_offset %d is outside the data section [%d, %d)", m.MetaOffset, f.dataFrom, f.metaPos)
	}
	sep, err := f.readAt(m.MetaOffset, 1, "separator")
	if err != nil {
		return err
	}
	if sep[0] != MarkerSeparator {
		return corruptf(m.MetaOffset, "separator", "meta_offset points at byte 0x%02x, not the 0x02 separator", sep[0])
	}
	f.metaOffset = m.MetaOffset
	if m.V3Root != nil {
		if err := f.groupV3Devices(m); err != nil {
			return err
		}
	}
	for _, name := range m.TableNames {
		if err := f.checkNodeRanges(m.TableIndexes[name]); err != nil {
			return err
		}
	}
	f.Metadata = m
	return nil
}

func (f *File) newBuf(b []byte, base int64, structure string) *buf {
	d := newBuf(b, base, structure)
	d.maxString = f.opts.MaxStringLength
	d.v3 = f.Version == VersionV3
	if f.opts.Lenient {
		d.javaDevices, d.warn = true, f.warn.add
	}
	return d
}

// checkNodeRanges requires every entry of n to point into the indexed
// metadata region between the separator and TsFileMetadata.
func (f *File) checkNodeRanges(n *IndexNode) error {
	lo, hi := f.metaOffset+1, f.metaPos
	for i, e := range n.Entries {
		if e.Offset < lo || e.End > hi {
			return corruptf(n.Offset, "index node", "entry %d range [%d, %d) is outside the index region [%d, %d)", i, e.Offset, e.End, lo, hi)
		}
	}
	return nil
}

// groupV3Devices walks the single device index of a v3 footer (every
// node of its device levels, checked as for v4 but ordered by path string)
// and files its device entries under their first segment in
// m.TableIndexes, each table's sorted by segments, so that Tables,
// Devices and lookups by DeviceID work as for a v4 tree-model file. Two
// paths that split into the same segments ("root.sg.d1" and
// "root.sg.`d1`") name one device to every reader and are refused rather
// than merged.
func (f *File) groupV3Devices(m *FileMetadata) error {
	root := m.V3Root
	f.v3devs = map[string]IndexEntry{}
	if len(root.Entries) == 0 {
		return nil
	}
	if err := f.checkNodeRanges(root); err != nil {
		return err
	}
	var last *DeviceID
	err := f.walkDevices(root, 1, map[int64]bool{}, nil, func(e IndexEntry) error {
		if last != nil && compareDevices(true, *last, e.Device) >= 0 {
			return corruptf(root.Offset, "device index", "device %q does not sort after %q", e.Device.TreePath(), last.TreePath())
		}
		last = &e.Device
		k := deviceKey(e.Device)
		if old, dup := f.v3devs[k]; dup {
			return unsupportedf(root.Offset, "device index", "v3 device paths %q and %q name the same device %s", old.Device.TreePath(), e.Device.TreePath(), e.Device)
		}
		f.v3devs[k] = e
		t := e.Device.Table()
		n := m.TableIndexes[t]
		if n == nil {
			n = &IndexNode{Offset: root.Offset, Type: LeafDevice}
			m.TableIndexes[t] = n
			m.TableNames = append(m.TableNames, t)
		}
		n.Entries = append(n.Entries, e)
		n.EndOffset = max(n.EndOffset, e.End)
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range m.TableIndexes {
		slices.SortFunc(n.Entries, func(a, b IndexEntry) int { return a.Device.Compare(b.Device) })
	}
	return nil
}

// v3Entry returns the device index entry of dev in a v3 file.
func (f *File) v3Entry(dev DeviceID) (IndexEntry, bool) {
	e, ok := f.v3devs[deviceKey(dev)]
	return e, ok
}
