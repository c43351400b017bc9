package tsfile

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/tsarrow/tsarrow/aead"
)

// RecoverOptions configure Recover.
type RecoverOptions struct {
	// ReadOptions are the limits and settings the scan reads with.
	ReadOptions *ReadOptions
	// Tables are the table schemas a lost footer held, for example taken
	// from an intact file of the same dataset. The data section does not
	// record them, so without one a table's devices are recovered as
	// tree-model devices: every point survives, but the names of its TAG
	// columns do not. A complete file keeps the schemas of its footer.
	Tables []TableSchema
}

// Recovery is what Recover salvaged from a file: every complete chunk
// group of its data section that reads and verifies, in file order, and
// what it dropped.
type Recovery struct {
	// Size is the length of the scanned file.
	Size int64
	// Complete reports that the file opened normally (its footer was
	// valid) and that the recovered groups hold every row its index
	// counts: nothing is lost by a rebuild.
	Complete bool
	// Indexed reports that the file's footer and index opened, so the
	// scan knew every chunk the file holds: Dropped then counts the rows
	// of each dropped group, and IndexRows is the file's total.
	Indexed bool
	// ReadError is why a read of the file through its index fails (the
	// first error; nil when it reads whole, or has no index): the file is
	// then recovered group by group.
	ReadError error
	// IndexRows is the number of rows the file's index counts, as
	// RecoveredGroup.Rows counts them, or -1 when the index did not open.
	IndexRows int64
	// Groups are the complete chunk groups, in file order.
	Groups []RecoveredGroup
	// Dropped are the chunk groups (or ranges of the data section) the
	// scan found but could not keep, in file order. A rebuild leaves their
	// bytes where they are, outside the index, so that every kept chunk
	// keeps its offset (a Page AEAD chunk proof binds it). The unfinished
	// group of a file cut short is not among them: it is the bytes past
	// ValidEnd, reported by Cause and Lost.
	Dropped []DroppedGroup
	// ValidEnd is where the first incomplete structure begins: the end of
	// the last complete chunk group or operation index range, and the
	// length of the data section a rebuilt file keeps. For a file whose
	// data section reached its separator it is the separator's offset.
	ValidEnd int64
	// Cause is why the scan stopped before the separator (nil when the
	// whole data section was intact).
	Cause error

	tables []TableSchema
	// intact is set when the file opened and every chunk the index holds
	// read and verified through the read path (verifyAll): a rebuild is
	// then a copy of the file.
	intact bool
	// schemasAt is the offset of the file metadata the tables were taken
	// from, or -1 when the caller gave them (RecoverOptions.Tables).
	schemasAt int64
	opts      ReadOptions
	version   byte // of the scanned file, which a rebuilt footer keeps
	// Page AEAD: the header and the bytes before the data section, so a
	// rebuilt footer gets a metadata authentication tag under the file's
	// own key, as the writer would have written it.
	cryptHeader *aead.Header
	prefix      []byte
}

// RecoveredGroup is one complete chunk group.
type RecoveredGroup struct {
	Device  DeviceID
	Offset  int64 // its chunk group header marker
	End     int64 // just past its last chunk
	Aligned bool
	Chunks  []RecoveredChunk
	// Rows is the number of timestamps of its time chunks (aligned) or the
	// number of points of its series (non-aligned).
	Rows int64
}

// DroppedGroup is a chunk group, or a damaged range of the data section,
// that Recover could not keep.
type DroppedGroup struct {
	// Device is the device its header names, or the one the index files
	// its first chunk under when the header itself did not read (zero
	// when neither is known).
	Device DeviceID
	Offset int64 // where it begins
	End    int64 // where the next structure the scan kept reading begins
	// Rows is the number of rows of the index's chunks in [Offset, End),
	// counted as RecoveredGroup.Rows, and Chunks their number; both -1
	// when the file's index did not open.
	Rows, Chunks int64
	// Cause is why it was dropped.
	Cause error
}

// RecoveredChunk is a chunk of a complete group with the statistics a new
// index needs, computed by decoding every page.
type RecoveredChunk struct {
	Header     ChunkHeader
	Statistics Statistics
}

// Points returns the number of rows of every recovered group.
func (r *Recovery) Points() int64 {
	var n int64
	for i := range r.Groups {
		n += r.Groups[i].Rows
	}
	return n
}

// KeptRows returns the rows a rebuilt file holds: those of the recovered
// groups or, for a file that read whole (a rebuild copies it), the rows
// its index counts.
func (r *Recovery) KeptRows() int64 {
	if r.intact {
		return r.IndexRows
	}
	return r.Points()
}

// DroppedRows returns the rows of the dropped groups, as far as the
// index counts them (0 for groups of a file without one).
func (r *Recovery) DroppedRows() int64 {
	var n int64
	for i := range r.Dropped {
		n += max(r.Dropped[i].Rows, 0)
	}
	return n
}

// Lost returns how many bytes of the file lie past ValidEnd and are
// dropped by a rebuild: the incomplete group and anything after it (the
// old index and footer too, which a rebuild writes anew).
func (r *Recovery) Lost() int64 {
	if r.Complete {
		return 0
	}
	return r.Size - r.ValidEnd
}

// Recover scans the data section of the TsFile of the given size held by
// src from the front, as DataPages/Error-Recovery.md describes. Every chunk
// group that is followed by another top-level structure (the next chunk
// group, an operation index range or the separator) and whose pages all
// decode and agree with their statistics is kept. The last group of a file
// cut right after one of its chunks counts as incomplete, because nothing
// in the data section says whether more chunks of it were due (an aligned
// group could be missing value columns), which is also what the reference
// implementation's self-check decides; the scan stops there, and ValidEnd
// is where it begins.
//
// A group that fails (a page that does not decode or contradicts its
// statistics, a chunk header that does not parse) is dropped and reported
// in Recovery.Dropped, and the scan goes on with the next group. When the
// file's footer opens, its index says where every chunk is: each kept
// chunk must be the one the index files at its offset (device, name, type,
// count and time range), a group whose structure is broken is skipped up
// to the next group the index knows, and each dropped group's rows are
// counted, so kept and dropped rows add up to the index's. Without an
// index a broken structure ends the scan as a cut does.
//
// A v3 file is scanned with the v3 grammar and rebuilds with a v3 footer.
//
// Recover returns an error only when the file is not a TsFile v3 or v4 at all
// (bad magic or version) or cannot be read; corruption is reported in
// Recovery.Cause and Recovery.Dropped.
func Recover(src io.ReaderAt, size int64, opts *RecoverOptions) (*Recovery, error) {
	var o RecoverOptions
	if opts != nil {
		o = *opts
	}
	ro := o.ReadOptions.withDefaults()
	rec := &Recovery{Size: size, tables: o.Tables, opts: ro, schemasAt: -1, IndexRows: -1}
	var idx *recoverIndex
	if f, err := Open(src, size, &ro); err == nil {
		if len(rec.tables) == 0 {
			rec.schemasAt = f.metaPos
			for _, name := range sortedTableNames(f.Metadata.TableSchemas) {
				rec.tables = append(rec.tables, *f.Metadata.TableSchemas[name])
			}
		}
		idx, err = readRecoverIndex(f)
		if err != nil {
			// A footer that opens over an index that does not walk: the
			// scan goes on as for a file without one.
			rec.Cause = err
			idx = nil
		} else {
			rec.Indexed, rec.IndexRows = true, idx.rows
			// A file that reads whole, as any read of it would, needs
			// no recovery: the rebuilt file is the file itself. This
			// also keeps valid files of writers whose layouts only the
			// read path knows (the C++ writer's quirks) whole.
			rec.ReadError = verifyAll(f)
			rec.intact = len(o.Tables) == 0 && rec.ReadError == nil
		}
		f.Close()
	}
	s, err := NewScanner(src, size, &ro)
	if err != nil {
		return nil, err
	}
	defer s.f.closeCrypt()
	rec.version = s.f.Version
	if c := s.f.crypt; c != nil && c.info.Locked != nil {
		// Every page must decrypt for its group to count as complete.
		return nil, &FormatError{Offset: prefixSize, Structure: "file encryption header", Msg: "cannot recover an encrypted file without its key", Kind: ErrUnsupported, Err: c.info.Locked}
	}
	if c := s.f.crypt; c != nil && c.info.Header != nil {
		rec.cryptHeader = c.info.Header.Clone()
		if rec.prefix, err = s.f.readAt(0, s.f.dataFrom, "file prefix"); err != nil {
			return nil, err
		}
	}
	rec.ValidEnd = s.Offset()
	var cur *RecoveredGroup
	var curErr error
	var chunks chunkStatsReader
	chunks.opts = &ro
	// lastDrop is the end of the last dropped range that follows every
	// kept structure: the separator then does not extend ValidEnd over it.
	lastDrop := int64(-1)
	drop := func(dev DeviceID, off, end int64, cause error) {
		d := DroppedGroup{Device: dev, Offset: off, End: end, Rows: -1, Chunks: -1, Cause: cause}
		if idx != nil {
			d.Rows, d.Chunks = idx.in(off, end)
			if d.Device.Len() == 0 {
				d.Device = idx.firstDevice(off, end)
			}
		}
		rec.Dropped = append(rec.Dropped, d)
		lastDrop = end
	}
	// endGroup ends the current group at a top-level boundary at next: it
	// joins the recovered groups when all its chunks decoded, else it is
	// dropped.
	endGroup := func(next int64) {
		if cur == nil {
			return
		}
		if curErr != nil {
			drop(cur.Device, cur.Offset, next, curErr)
		} else {
			cur.Rows = chunks.rows
			rec.Groups = append(rec.Groups, *cur)
			rec.ValidEnd = cur.End
			lastDrop = -1
		}
		cur, curErr = nil, nil
	}
	// skip drops the damaged range from `from` (the failing group, or the
	// structure the scan could not read) to the next group the index
	// knows, or to the separator, and restarts the scan there. It reports
	// false when there is no index to skip by.
	skip := func(from int64, cause error) bool {
		if idx == nil {
			return false
		}
		var dev DeviceID
		if cur != nil {
			dev = cur.Device
		}
		next := idx.nextGroup(s, from)
		if next <= from {
			// Nothing left to skip to (the separator itself is damaged).
			return false
		}
		drop(dev, from, next, cause)
		cur, curErr = nil, nil
		s.restart(next)
		return true
	}
	for {
		if !s.Next() {
			err := s.Err()
			from := s.Offset()
			if cur != nil {
				from = cur.Offset
				if curErr != nil {
					err = curErr
				}
			}
			if skip(from, err) {
				continue
			}
			// The scan stopped inside or right after the current group:
			// it is incomplete, and ValidEnd stays before it.
			rec.Cause = err
			if idx != nil {
				rec.accountRest(idx, from)
			}
			rec.trustRead()
			return rec, nil
		}
		r := s.Record()
		switch r.Kind {
		case ChunkGroupRecord:
			endGroup(r.Offset)
			cur = &RecoveredGroup{Device: r.Device, Offset: r.Offset, End: r.End}
			chunks.reset(r.Device)
		case ChunkRecord:
			if curErr != nil {
				continue
			}
			h := &r.Chunk.Header
			var err error
			if len(cur.Chunks) > 0 && cur.Aligned != h.IsAligned() {
				err = corruptf(h.Offset, "chunk header", "chunk %q mixes aligned and non-aligned chunks in the group of %s", h.Measurement, cur.Device)
			}
			var st Statistics
			if err == nil {
				chunks.index = idx.stats(h.Offset)
				st, err = chunks.add(r.Chunk)
			}
			if err == nil && idx != nil {
				err = idx.check(cur.Device, h, &st)
			}
			if err != nil {
				curErr = err
				if idx != nil {
					// The index says where the next group begins: the
					// rest of this one is not trusted to say it.
					skip(cur.Offset, err)
				}
				continue
			}
			if len(cur.Chunks) == 0 {
				cur.Aligned = h.IsAligned()
			}
			cur.Chunks = append(cur.Chunks, RecoveredChunk{Header: *h, Statistics: st})
			cur.End = r.End
		case OperationIndexRangeRecord:
			endGroup(r.Offset)
			if lastDrop < 0 {
				rec.ValidEnd = r.End
			}
		case SeparatorRecord:
			endGroup(r.Offset)
			if lastDrop < 0 {
				rec.ValidEnd = r.Offset
			}
			if idx != nil {
				rec.accountRest(idx, r.Offset)
				rec.Complete = len(rec.Dropped) == 0 && rec.Cause == nil
			}
			rec.trustRead()
			return rec, nil
		}
	}
}

// trustRead makes the recovery of a file that read whole (intact) what a
// read of it gives: complete, nothing dropped. The group scan decodes
// without the read path's knowledge of other writers' layouts, so it may
// have dropped groups that every read of the file returns.
func (r *Recovery) trustRead() {
	if r.intact {
		r.Complete, r.Dropped, r.Cause = true, nil, nil
	}
}

// verifyAll reads every chunk f's index holds through the read path (with
// f's options, quirks and page verification included), one chunk set at a
// time so that memory stays bounded.
func verifyAll(f *File) error {
	for _, table := range f.Tables() {
		devs, err := f.Devices(table)
		if err != nil {
			return err
		}
		for _, dev := range devs {
			series, err := f.Series(dev)
			if err != nil {
				return err
			}
			aligned := false
			for i := range series {
				aligned = aligned || series[i].IsTimeColumn() || series[i].IsValueColumn()
			}
			if !aligned {
				for i := range series {
					for _, cm := range series[i].Chunks {
						one := series[i]
						one.Chunks = []ChunkMetadata{cm}
						if _, _, err := f.ReadNonAligned(&one); err != nil {
							return err
						}
					}
				}
				continue
			}
			sets, err := AlignedChunkSets(series)
			if err != nil {
				return err
			}
			for _, set := range sets {
				var sub []TimeseriesMetadata
				for i := range series {
					one := series[i]
					switch {
					case one.IsTimeColumn():
						one.Chunks = []ChunkMetadata{set.Time}
					default:
						cm, ok := set.Values[one.Measurement]
						if !ok {
							one.Chunks = nil
						} else {
							one.Chunks = []ChunkMetadata{cm}
						}
					}
					sub = append(sub, one)
				}
				if _, err := f.ReadAligned(sub); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// accountRest adds to Dropped the rows the index counts that neither a
// kept nor a dropped group holds, the scan having ended at off: every row
// of the input is then either in the rebuilt file or reported.
func (r *Recovery) accountRest(idx *recoverIndex, off int64) {
	if missing := idx.rows - r.KeptRows() - r.DroppedRows(); missing > 0 && !r.intact {
		r.Dropped = append(r.Dropped, DroppedGroup{Offset: -1, End: -1, Rows: missing, Chunks: -1,
			Cause: corruptf(off, "data section", "the index counts %d rows in chunks that no chunk group the scan read holds", missing)})
	}
}

// headerDevice is the DeviceID as a chunk group header of the given format
// version stores it.
func headerDevice(version byte, dev DeviceID) []byte {
	if version == VersionV3 {
		return appendV3Device(nil, dev)
	}
	return appendDeviceID(nil, dev)
}

// recoverIndex is what an intact index says about the data section: every
// chunk, with the device it is filed under and its statistics.
type recoverIndex struct {
	chunks   []indexChunk // by offset
	byOffset map[int64]int
	rows     int64
	sep      int64 // the separator's offset
	version  byte
}

type indexChunk struct {
	off   int64
	dev   DeviceID
	name  string
	typ   DataType
	stats Statistics
	rows  int64 // timestamps of a time chunk, points of a non-aligned one
}

// readRecoverIndex walks every device and series of f's index.
func readRecoverIndex(f *File) (*recoverIndex, error) {
	x := &recoverIndex{byOffset: map[int64]int{}, sep: f.metaOffset, version: f.Version}
	for _, table := range f.Tables() {
		devs, err := f.Devices(table)
		if err != nil {
			return nil, err
		}
		for _, dev := range devs {
			series, err := f.Series(dev)
			if err != nil {
				return nil, err
			}
			for i := range series {
				t := &series[i]
				for _, cm := range t.Chunks {
					c := indexChunk{off: cm.Offset, dev: dev, name: t.Measurement, typ: t.DataType, stats: cm.Statistics}
					if !t.IsValueColumn() {
						c.rows = cm.Statistics.Count
					}
					if _, dup := x.byOffset[c.off]; dup {
						return nil, corruptf(c.off, "chunk metadata", "two index entries name the chunk at offset %d", c.off)
					}
					x.byOffset[c.off] = len(x.chunks)
					x.chunks = append(x.chunks, c)
					x.rows += c.rows
				}
			}
		}
	}
	sort.Slice(x.chunks, func(i, j int) bool { return x.chunks[i].off < x.chunks[j].off })
	for i := range x.chunks {
		x.byOffset[x.chunks[i].off] = i
	}
	return x, nil
}

// check holds a chunk that decoded to the index entry at its offset: a
// chunk the index does not hold is no row of the file's, and one it files
// under another device or name would move rows between series.
func (x *recoverIndex) check(dev DeviceID, h *ChunkHeader, st *Statistics) error {
	i, ok := x.byOffset[h.Offset]
	if !ok {
		return corruptf(h.Offset, "chunk header", "chunk %q of %s is not in the file's index", h.Measurement, dev)
	}
	c := &x.chunks[i]
	switch {
	case !c.dev.Equal(dev):
		return corruptf(h.Offset, "chunk group header", "the group names device %s, the index files its chunk %q under %s", dev, h.Measurement, c.dev)
	case c.name != h.Measurement || c.typ != h.DataType:
		return corruptf(h.Offset, "chunk header", "chunk %q %s, the index has %q %s at this offset", h.Measurement, h.DataType, c.name, c.typ)
	case c.stats.Count != st.Count || (st.Count > 0 && (c.stats.StartTime != st.StartTime || c.stats.EndTime != st.EndTime)):
		return corruptf(h.Offset, "chunk", "chunk %q of %s holds %d points in [%d, %d], the index %d in [%d, %d]",
			h.Measurement, dev, st.Count, st.StartTime, st.EndTime, c.stats.Count, c.stats.StartTime, c.stats.EndTime)
	}
	return nil
}

// stats returns the index's statistics of the chunk at off, or nil (also
// for a nil x).
func (x *recoverIndex) stats(off int64) *Statistics {
	if x == nil {
		return nil
	}
	if i, ok := x.byOffset[off]; ok {
		return &x.chunks[i].stats
	}
	return nil
}

// in returns the rows and the number of the index's chunks in [off, end).
func (x *recoverIndex) in(off, end int64) (rows, chunks int64) {
	i := sort.Search(len(x.chunks), func(i int) bool { return x.chunks[i].off >= off })
	for ; i < len(x.chunks) && x.chunks[i].off < end; i++ {
		rows += x.chunks[i].rows
		chunks++
	}
	return rows, chunks
}

// firstDevice returns the device of the first index chunk in [off, end).
func (x *recoverIndex) firstDevice(off, end int64) DeviceID {
	i := sort.Search(len(x.chunks), func(i int) bool { return x.chunks[i].off >= off })
	if i < len(x.chunks) && x.chunks[i].off < end {
		return x.chunks[i].dev
	}
	return DeviceID{}
}

// nextGroup returns the offset of the first chunk group header after
// `from` that the index vouches for: one that names the device the index
// files the chunk right after it under. It is the separator when no such
// group is left.
func (x *recoverIndex) nextGroup(s *Scanner, from int64) int64 {
	i := sort.Search(len(x.chunks), func(i int) bool { return x.chunks[i].off > from })
	for ; i < len(x.chunks); i++ {
		c := &x.chunks[i]
		hdr := append([]byte{MarkerChunkGroupHeader}, headerDevice(x.version, c.dev)...)
		at := c.off - int64(len(hdr))
		if at <= from {
			continue
		}
		b, err := s.f.readAt(at, int64(len(hdr)), "chunk group header")
		if err == nil && bytes.Equal(b, hdr) {
			return at
		}
	}
	return x.sep
}

func sortedTableNames(m map[string]*TableSchema) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// chunkStatsReader decodes the chunks of one group to validate them and
// to compute the statistics the lost index held. Single-page chunks carry
// no page statistics, so decoding is the only way to get them; decoding
// multi-page chunks too checks each page against its header.
type chunkStatsReader struct {
	opts *ReadOptions
	dev  DeviceID
	pd   PayloadDecoder
	// The current aligned set: the timestamps of each page of the last
	// time chunk, which its value chunks follow.
	pageTimes [][]int64
	haveTime  bool
	rows      int64
	// index is the statistics the file's index holds for the chunk being
	// added, or nil: a single-page chunk's page header has none, so its
	// values are checked against these, as a read checks them.
	index *Statistics
}

func (c *chunkStatsReader) reset(dev DeviceID) {
	c.dev, c.pageTimes, c.haveTime, c.rows = dev, nil, false, 0
}

// add decodes every page of ch and returns the chunk's statistics.
func (c *chunkStatsReader) add(ch *Chunk) (Statistics, error) {
	h := &ch.Header
	if !validName(h.Measurement) {
		// A damaged name: kept, it would make the rebuilt file one that
		// readers refuse (File.Series checks the same).
		return Statistics{}, corruptf(h.Offset, "chunk header", "measurement name %q is not valid UTF-8 or holds a NUL", h.Measurement)
	}
	sb := newStatsBuilder(h.DataType)
	switch {
	case h.IsTimeChunk():
		if h.DataType != Vector {
			return Statistics{}, corruptf(h.Offset, "chunk header", "time chunk has data type %s, want VECTOR", h.DataType)
		}
		c.pageTimes = c.pageTimes[:0]
		for i := range ch.Pages {
			p, err := c.pd.Payload(ch, i)
			if err != nil {
				return Statistics{}, err
			}
			times, err := decodeTimes(h, p, ch.Pages[i].Header.BodyOffset(), nil, c.opts.MaxPagePoints)
			if err != nil {
				return Statistics{}, err
			}
			if err := checkAscending(times, ch.Pages[i].Header.BodyOffset(), sb); err != nil {
				return Statistics{}, err
			}
			ps := newStatsBuilder(Vector)
			for _, t := range times {
				ps.time(t)
			}
			if err := mergePage(sb, ps, &ch.Pages[i].Header); err != nil {
				return Statistics{}, err
			}
			c.pageTimes = append(c.pageTimes, times)
			c.rows += int64(len(times))
		}
		c.haveTime = true
	case h.IsValueChunk():
		if !c.haveTime && len(ch.Pages) == 0 {
			// A column null in every row of a group without rows, as
			// the reference writer leaves an aligned device that got
			// no values (its own v3 test file has one).
			return emptyStats(h.DataType), nil
		}
		if !c.haveTime {
			return Statistics{}, corruptf(h.Offset, "chunk header", "value chunk %q before any time chunk of %s", h.Measurement, c.dev)
		}
		if !h.DataType.IsValueType() {
			return Statistics{}, corruptf(h.Offset, "chunk header", "value chunk %q has data type %s", h.Measurement, h.DataType)
		}
		if len(ch.Pages) != 0 && len(ch.Pages) != len(c.pageTimes) {
			return Statistics{}, corruptf(h.Offset, "chunk header", "value chunk %q has %d pages, its time chunk %d", h.Measurement, len(ch.Pages), len(c.pageTimes))
		}
		for i := range ch.Pages {
			if ch.Pages[i].Header.Empty() {
				continue
			}
			p, err := c.pd.Payload(ch, i)
			if err != nil {
				return Statistics{}, err
			}
			times := c.pageTimes[i]
			v, err := decodeValuePage(h, p, ch.Pages[i].Header.BodyOffset(), len(times))
			if err != nil {
				return Statistics{}, err
			}
			if err := c.checkPage(h, ch, i, &v); err != nil {
				return Statistics{}, err
			}
			ps := newStatsBuilder(h.DataType)
			for j, t := range times {
				if !v.IsNull(j) {
					ps.add(t, &v, j)
				}
			}
			if err := mergePage(sb, ps, &ch.Pages[i].Header); err != nil {
				return Statistics{}, err
			}
		}
	default:
		if !h.DataType.IsValueType() {
			return Statistics{}, corruptf(h.Offset, "chunk header", "chunk %q has data type %s", h.Measurement, h.DataType)
		}
		for i := range ch.Pages {
			p, err := c.pd.Payload(ch, i)
			if err != nil {
				return Statistics{}, err
			}
			off := ch.Pages[i].Header.BodyOffset()
			times, v, err := decodeNonAlignedPage(h, c.opts.NonAlignedTimeEncoding.Encoding(), p, off, c.opts.MaxPagePoints)
			if err != nil {
				return Statistics{}, err
			}
			if err := checkAscending(times, off, sb); err != nil {
				return Statistics{}, err
			}
			if err := c.checkPage(h, ch, i, &v); err != nil {
				return Statistics{}, err
			}
			ps := newStatsBuilder(h.DataType)
			for j, t := range times {
				ps.add(t, &v, j)
			}
			if err := mergePage(sb, ps, &ch.Pages[i].Header); err != nil {
				return Statistics{}, err
			}
			c.rows += int64(len(times))
		}
	}
	if sb.empty {
		return emptyStats(h.DataType), nil
	}
	return sb.result(), nil
}

// checkPage holds the decoded values of page i of ch to the statistics its
// header declares or, for the only page of a chunk, to those the file's
// index holds for the chunk (c.index), as a read does (verify.go), unless
// ReadOptions.NoVerify: a group that keeps a page contradicting them would
// rebuild into a file that does not read. Without an index a single-page
// chunk's statistics are the rebuilt index's own, made from these values.
func (c *chunkStatsReader) checkPage(h *ChunkHeader, ch *Chunk, i int, v *Values) error {
	p := &ch.Pages[i].Header
	st := p.Statistics
	if st == nil && len(ch.Pages) == 1 {
		st = c.index
	}
	if c.opts.NoVerify || st == nil {
		return nil
	}
	if m := st.CheckValues(v); m != nil {
		return corruptf(p.Offset, "page header", "%s chunk %q at offset %d: %v", h.DataType, h.Measurement, h.Offset, m)
	}
	return nil
}

// checkAscending requires a page's timestamps to rise, and to follow those
// of the chunk's earlier pages (held in sb).
func checkAscending(times []int64, off int64, sb *statsBuilder) error {
	for i, t := range times {
		if (i > 0 && t <= times[i-1]) || (i == 0 && !sb.empty && t <= sb.s.EndTime) {
			return corruptf(off, "page", "timestamp %d at position %d does not follow the one before it", t, i)
		}
	}
	return nil
}

// mergePage compares the statistics a multi-page chunk's page header
// declares with those of the page's decoded values, then folds the page
// into the chunk's statistics page by page, as a writer does, so that sums
// come out bit for bit the same as the lost index's.
func mergePage(chunk, page *statsBuilder, p *PageHeader) error {
	if want := p.Statistics; want != nil {
		got := &page.s
		if want.Count != got.Count || (want.Count > 0 && (want.StartTime != got.StartTime || want.EndTime != got.EndTime)) {
			return corruptf(p.Offset, "page header", "statistics declare %d points in [%d, %d], the page holds %d in [%d, %d]",
				want.Count, want.StartTime, want.EndTime, got.Count, got.StartTime, got.EndTime)
		}
	}
	r := page.result()
	chunk.merge(&r)
	return nil
}

// footer builds the index and footer of a file whose data section is
// bytes [0, ValidEnd) of the original, as a Writer would write them after
// those bytes.
func (r *Recovery) footer(wopts *WriteOptions) ([]byte, error) {
	var wo WriteOptions
	if wopts != nil {
		wo = *wopts
	}
	// The kept data section fixes the version: a v3 file's chunk group
	// headers hold path strings, which only a v3 footer goes with.
	if wo.Version == 0 {
		wo.Version = r.version
	} else if wo.Version != r.version {
		return nil, fmt.Errorf("tsfile: the recovered data section is format version %d; it cannot get a version %d footer", r.version, wo.Version)
	}
	o, err := wo.withDefaults()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	w := &Writer{w: bufio.NewWriter(&out), pos: r.ValidEnd, opts: o, tables: map[string]*TableSchema{}, devices: map[string]*deviceState{}}
	w.setVersion()
	if r.cryptHeader != nil {
		ctx := r.opts.Context
		if ctx == nil {
			ctx = context.Background()
		}
		c, err := aead.OpenFileCipher(ctx, r.opts.Keys, r.cryptHeader)
		if err != nil {
			return nil, fmt.Errorf("tsfile: authenticating the rebuilt footer: %w", err)
		}
		defer c.Close() // Close closes it too; a second Close is harmless
		w.cipher, w.prefix = c, r.prefix
	}
	for _, t := range r.tables {
		if err := w.RegisterTable(t); err != nil {
			// A schema the file's own metadata holds, which the reader
			// took as it is, may still break the writer's rules (a TAG
			// column that is not STRING): the file is damaged.
			if r.schemasAt >= 0 {
				return nil, corruptf(r.schemasAt, "table schema", "table %q cannot be written again: %v", t.Name, err)
			}
			return nil, err
		}
	}
	for gi := range r.Groups {
		g := &r.Groups[gi]
		if len(g.Chunks) == 0 {
			// A chunk group header with no chunks holds no series, and
			// an index entry without series cannot be written.
			continue
		}
		d, err := w.device(g.Device, g.Aligned)
		if err != nil {
			return nil, corruptf(g.Offset, "chunk group header", "device %s: %v", g.Device, err)
		}
		for ci := range g.Chunks {
			c := &g.Chunks[ci]
			role := byte(0)
			switch {
			case c.Header.IsTimeChunk():
				role = markerTimeColumnMask
			case c.Header.IsValueChunk():
				role = markerValueColumnMask
			}
			ss, ok := d.series[c.Header.Measurement]
			if !ok {
				ss = &seriesState{meta: TimeseriesMetadata{Type: role, Measurement: c.Header.Measurement, DataType: c.Header.DataType}, stats: newStatsBuilder(c.Header.DataType)}
				d.series[c.Header.Measurement] = ss
			} else if ss.meta.DataType != c.Header.DataType || ss.meta.Type != role {
				return nil, corruptf(c.Header.Offset, "chunk header", "series %q of %s is %s here but %s in an earlier chunk", c.Header.Measurement, g.Device, c.Header.DataType, ss.meta.DataType)
			}
			ss.meta.Chunks = append(ss.meta.Chunks, ChunkMetadata{Offset: c.Header.Offset, Statistics: c.Statistics})
			ss.stats.merge(&c.Statistics)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// checkTables refuses schemas for tables with non-aligned devices, which
// the table model cannot hold.
func (r *Recovery) checkTables() error {
	names := map[string]bool{}
	for _, t := range r.tables {
		names[t.Name] = true
	}
	for i := range r.Groups {
		g := &r.Groups[i]
		if names[g.Device.Table()] && !g.Aligned {
			return corruptf(g.Offset, "chunk group", "recovered device %s of table-model table %q is not aligned", g.Device, g.Device.Table())
		}
	}
	return nil
}

// Rebuild writes a complete TsFile to dst: the original bytes up to
// ValidEnd (so every recovered chunk keeps its offset) followed by a new
// index and footer over the recovered groups. src must be the file
// Recover scanned. It returns the number of bytes written.
func (r *Recovery) Rebuild(dst io.Writer, src io.ReaderAt, wopts *WriteOptions) (int64, error) {
	ra, size, err := r.readerAt(src, wopts)
	if err != nil {
		return 0, err
	}
	return io.Copy(dst, io.NewSectionReader(ra, 0, size))
}

// Open opens the recovered file without writing it anywhere: reads below
// ValidEnd go to src, the rest to a footer rebuilt in memory.
func (r *Recovery) Open(src io.ReaderAt, opts *ReadOptions) (*File, error) {
	ra, size, err := r.readerAt(src, nil)
	if err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &r.opts
	}
	return Open(ra, size, opts)
}

func (r *Recovery) readerAt(src io.ReaderAt, wopts *WriteOptions) (io.ReaderAt, int64, error) {
	if r.intact && wopts == nil {
		return src, r.Size, nil
	}
	if err := r.checkTables(); err != nil {
		return nil, 0, err
	}
	foot, err := r.footer(wopts)
	if err != nil {
		return nil, 0, err
	}
	return &joinedReaderAt{a: src, n: r.ValidEnd, b: foot}, r.ValidEnd + int64(len(foot)), nil
}

// joinedReaderAt reads bytes [0, n) of a followed by b.
type joinedReaderAt struct {
	a io.ReaderAt
	n int64
	b []byte
}

func (j *joinedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("tsfile: negative offset")
	}
	total := 0
	if off < j.n {
		k := int(min(int64(len(p)), j.n-off))
		n, err := j.a.ReadAt(p[:k], off)
		total += n
		if n < k {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return total, err
		}
		p, off = p[k:], off+int64(k)
	}
	if len(p) == 0 {
		return total, nil
	}
	i := off - j.n
	if i >= int64(len(j.b)) {
		return total, io.EOF
	}
	n := copy(p, j.b[i:])
	total += n
	if n < len(p) {
		return total, io.EOF
	}
	return total, nil
}
