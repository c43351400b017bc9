package arrowconv

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/scan"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TreeArrowSchema returns the Arrow schema of the devices of a tree-model
// table: an index root without a table schema, such as "root.sg1", or every
// such root of the file when table is "". Its columns are "time", "device" (utf8, the DeviceID's dotted String()), then the union of
// the measurement names of those devices, ordered by the file offset of
// each measurement's first chunk, which reproduces the order the writer
// first wrote them in. Types map as in TableArrowSchema. A measurement name with
// two different types in two devices is an error, as one column cannot
// hold both. The device column is dictionary-encoded unless
// Options.PlainTags. Options.Columns projects as for tables; for a
// non-aligned device a row exists where a projected series has a point,
// as in IoTDB's align-by-time queries, or, with no series projected, where
// any of its series has one (see Options.Columns).
func TreeArrowSchema(f *tsfile.File, table string, opts *Options) (*arrow.Schema, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	l, _, err := treeLayout(f, table)
	if err != nil {
		return nil, err
	}
	if l, _, err = l.plan(&o); err != nil {
		return nil, err
	}
	return l.arrowSchema(o.TimeUnit.Unit()), nil
}

// NewTreeReader streams the rows of a tree-model table, or of every one when
// table is "" (as for TreeArrowSchema): tables in sorted order, devices in index order, and for each device its
// series outer-joined on time, null where a series has no point at that
// time, in time order. Aligned devices are streamed page by page like
// table-model devices; the series of a non-aligned device are streamed
// through a merge on time that holds about one page per series. Chunks of
// a series may be out of time order and overlap, as in files flushed out
// of order: of equal timestamps of a series the one written last in the
// file wins. Only chunks that overlap are decoded together; timestamps
// outside the statistics of their chunk or page are reported as
// corruption, since the merge relies on them.
func NewTreeReader(f *tsfile.File, table string, opts *Options) (*Reader, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	l, tables, err := treeLayout(f, table)
	if err != nil {
		return nil, err
	}
	return openReader(f, l, tables, opts)
}

// mergedDevice streams a non-aligned device: a k-way merge, on time, of one
// cursor per series being read. Each cursor holds one decoded unit of its
// series at a time (normally one page), so the memory a device needs is
// about a page per series plus the batch being assembled, however long
// the series are.
type mergedDevice struct {
	cursors []*seriesCursor // every series being read, in index order
	active  []*seriesCursor // those with rows left, or not yet known to have none
	byField []*seriesCursor // by field index; nil where the device lacks the column
	times   []int64         // scratch: merged timestamps of a gathered stretch
	// hint bounds the rows left by the statistics (the points of every
	// series), for sizing the batch builders once per batch: no more than
	// a batch, which full batches take anyway.
	hint int64
}

// seriesCursor walks the chunks of one non-aligned series in time order.
//
// Its chunks are sorted by start time and split into groups whose time
// ranges overlap. A group of one chunk whose pages have ordered, disjoint
// time ranges is streamed page by page; any other group is decoded whole
// and sorted, which an overlap bounds, not the length of the series. A
// unit, a page or a group, is sorted on its own when its timestamps do not
// increase, the later of equal timestamps winning as a later write
// replaces an earlier point. Decoded timestamps are checked against the
// statistics the grouping relies on.
type seriesCursor struct {
	name     string
	dataType tsfile.DataType
	field    int                    // column index, or -1 for a series read for its timestamps only
	chunks   []tsfile.ChunkMetadata // not yet visited, by start time

	chunk *tsfile.Chunk // being streamed page by page, or nil
	// buf holds the bytes of chunk, or of the chunk of a group being
	// decoded, taken from the reader's allocator (a server's per-stream
	// meter counts it) and given back when the chunk is done.
	buf  tsfile.ChunkBuffer
	meta tsfile.ChunkMetadata  // of chunk
	page int                   // next page of chunk
	pd   tsfile.PayloadDecoder // the cursor's own, so cursors decode in parallel

	// The unit: rows decoded into times and vals; the rows in time order
	// are ord[pos:end], or pos..end-1 when ord is nil.
	times *fixedBuilder[int64]
	vals  valueBuilder
	ts    []int64 // the decoded timestamps of the unit
	ord   []int32
	pos   int
	end   int
	whole bool // the unit is a group decoded whole: free its buffers after it

	last    int64 // the last timestamp of the previous unit
	started bool
	at      int64 // offset of the unit's first chunk, for errors
	live    bool  // in mergedDevice.active
	part    bool  // takes part in the current run
	idx     []int32
}

func (m *mergedDevice) release() {
	for _, c := range m.cursors {
		c.freeUnit()
		c.chunk = nil
		c.buf.Release()
		c.chunks = nil
		c.live = false
	}
	m.active = nil
}

// mergeDevice prepares the merge of the non-aligned series of the current
// device that the layout reads. Nothing is read until stepMerged.
func (r *Reader) mergeDevice(series []tsfile.TimeseriesMetadata) (*mergedDevice, error) {
	m := &mergedDevice{byField: make([]*seriesCursor, len(r.fields))}
	// With no measurement projected, the device's rows are the timestamps
	// of all its series, as without a projection: a non-aligned device has
	// no time column of its own, and reading none of its series would drop
	// it whole. Those series are decoded for their timestamps only.
	timesOnly := len(r.fields) == 0
	for i := range series {
		s := &series[i]
		j, ok := r.lay.byName[s.Measurement]
		if timesOnly {
			j, ok = -1, true
		}
		if !ok {
			continue
		}
		if j >= 0 && m.byField[j] != nil {
			m.release()
			return m, corruptf(s.Offset, "timeseries metadata", "device %s has two series named %q", r.dev, s.Measurement)
		}
		c := &seriesCursor{name: s.Measurement, dataType: s.DataType, field: j}
		points := int64(0)
		for _, cm := range s.Chunks {
			if st := &cm.Statistics; r.opts.Time.overlaps(st.StartTime, st.EndTime) {
				c.chunks = append(c.chunks, cm)
				points += max(st.Count, 0)
			}
		}
		m.hint += points
		slices.SortStableFunc(c.chunks, func(a, b tsfile.ChunkMetadata) int {
			return cmp.Compare(a.Statistics.StartTime, b.Statistics.StartTime)
		})
		if j >= 0 {
			m.byField[j] = c
		}
		m.cursors = append(m.cursors, c)
		if len(c.chunks) > 0 {
			c.live = true
			m.active = append(m.active, c)
		}
	}
	return m, nil
}

// stepMerged appends the next rows of the merged device, no more than the
// current batch has room for, and ends the device when its series are
// exhausted.
func (r *Reader) stepMerged() error {
	m := r.merged
	room := r.room()
	if m.hint > 0 {
		// Without this the builders would grow by doubling through
		// every batch, as rows come a run at a time.
		r.reserve(m.hint)
		m.hint -= int64(room)
	}
	for room > 0 {
		if err := r.fillCursors(m); err != nil {
			return err
		}
		if len(m.active) == 0 {
			break
		}
		n, err := r.emitMerged(m, room)
		if err != nil {
			return err
		}
		room -= n
	}
	if len(m.active) == 0 {
		m.release()
		r.merged = nil
	}
	r.maybeFlush()
	return nil
}

// fillCursors loads the next unit of every active cursor that has used up
// its own, in parallel, and drops the cursors that have no rows left.
func (r *Reader) fillCursors(m *mergedDevice) error {
	var need []*seriesCursor
	for _, c := range m.active {
		if c.pos == c.end {
			need = append(need, c)
		}
	}
	if len(need) == 0 {
		return nil
	}
	ok := make([]bool, len(need))
	err := r.parallel(len(need), func(i int) error {
		var err error
		ok[i], err = need[i].load(r)
		return err
	})
	if err != nil {
		return err
	}
	for i, c := range need {
		if !ok[i] {
			c.live = false
			c.freeUnit()
		}
	}
	act := m.active[:0]
	for _, c := range m.active {
		if c.live {
			act = append(act, c)
		}
	}
	clear(m.active[len(act):])
	m.active = act
	return nil
}

// minRun is the shortest run worth copying in bulk; shorter stretches are
// merged row by row.
const minRun = 16

// maxGather bounds the rows merged row by row before a run is looked for
// again.
const maxGather = 512

// emitMerged appends up to room rows of the merge; every active cursor has
// rows in its unit. Where the series with the earliest timestamp share
// their next timestamps and no other series has a point among them, the
// rows are a run copied in bulk; otherwise they are merged row by row.
func (r *Reader) emitMerged(m *mergedDevice, room int) (int, error) {
	tmin := m.active[0].head()
	for _, c := range m.active[1:] {
		tmin = min(tmin, c.head())
	}
	var lead *seriesCursor
	bound, bounded, contiguous := int64(0), false, true
	for _, c := range m.active {
		c.part = c.head() == tmin
		switch {
		case !c.part:
			if !bounded || c.head() < bound {
				bound, bounded = c.head(), true
			}
		case lead == nil:
			lead = c
			contiguous = contiguous && c.ord == nil
		default:
			contiguous = contiguous && c.ord == nil
		}
	}
	if contiguous {
		n := min(room, lead.end-lead.pos)
		lt := lead.ts[lead.pos : lead.pos+n]
		if bounded && lt[n-1] >= bound {
			n, _ = slices.BinarySearch(lt, bound)
		}
		for _, c := range m.active {
			if c.part && c != lead {
				n = commonPrefix(lt[:n], c.ts[c.pos:min(c.end, c.pos+n)])
			}
		}
		if n >= minRun || n == room || len(m.active) == 1 {
			return n, r.emitRun(m, lt[:n])
		}
	}
	return r.emitGathered(m, min(room, maxGather))
}

// emitRun appends the rows of times, the next timestamps of every cursor
// taking part in the run, copying the values of those cursors in bulk.
func (r *Reader) emitRun(m *mergedDevice, times []int64) error {
	n := len(times)
	r.time.appendSlice(times)
	if err := r.appendConsts(n); err != nil {
		return err
	}
	for j, b := range r.fields {
		c := m.byField[j]
		if c == nil || !c.live || !c.part {
			b.appendNulls(n)
			continue
		}
		if err := appendRowRange(b, c.vals, c.pos, c.pos+n); err != nil {
			return err
		}
	}
	for _, c := range m.active {
		if c.part {
			c.pos += n
		}
	}
	return nil
}

// emitGathered merges up to limit rows one at a time and appends them,
// stopping early when a cursor uses up its unit, whose successor must take
// part in the merge.
func (r *Reader) emitGathered(m *mergedDevice, limit int) (int, error) {
	m.times = m.times[:0]
	for _, c := range m.active {
		c.idx = c.idx[:0]
	}
	for rows, used := 0, false; rows < limit && !used; rows++ {
		var t int64
		first := true
		for _, c := range m.active {
			if c.pos < c.end && (first || c.head() < t) {
				t, first = c.head(), false
			}
		}
		for _, c := range m.active {
			if c.pos < c.end && c.head() == t {
				c.idx = append(c.idx, int32(c.row(c.pos)))
				c.pos++
				used = used || c.pos == c.end
			} else {
				c.idx = append(c.idx, -1)
			}
		}
		m.times = append(m.times, t)
	}
	n := len(m.times)
	r.time.appendSlice(m.times)
	if err := r.appendConsts(n); err != nil {
		return 0, err
	}
	for j, b := range r.fields {
		c := m.byField[j]
		if c == nil || !c.live {
			b.appendNulls(n)
			continue
		}
		if err := b.gather(c.vals, c.idx); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// commonPrefix returns how many leading elements a and b share.
func commonPrefix(a, b []int64) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// row returns the buffered row of the i-th point of the unit in time order.
func (c *seriesCursor) row(i int) int {
	if c.ord == nil {
		return i
	}
	return int(c.ord[i])
}

// head returns the timestamp of the cursor's next point.
func (c *seriesCursor) head() int64 { return c.ts[c.row(c.pos)] }

// load makes the next unit of the series with rows in the time range the
// cursor's unit; it returns false when the series has none left.
func (c *seriesCursor) load(r *Reader) (bool, error) {
	for {
		if c.chunk != nil {
			for c.page < len(c.chunk.Pages) {
				i := c.page
				c.page++
				if st := c.chunk.Pages[i].Header.Statistics; st != nil && !r.opts.Time.overlaps(st.StartTime, st.EndTime) {
					continue
				}
				c.resetUnit(r)
				c.at = c.meta.Offset
				sorted, err := c.decodePage(r, c.chunk, i, &c.meta)
				if err != nil {
					return false, err
				}
				if ok, err := c.settle(r.opts.Time, sorted); ok || err != nil {
					return ok, err
				}
			}
			c.chunk = nil
			c.buf.Release()
		}
		if len(c.chunks) == 0 {
			return false, nil
		}
		n, end := 1, c.chunks[0].Statistics.EndTime
		for n < len(c.chunks) && c.chunks[n].Statistics.StartTime <= end {
			end = max(end, c.chunks[n].Statistics.EndTime)
			n++
		}
		group := c.chunks[:n:n]
		c.chunks = c.chunks[n:]
		var first *tsfile.Chunk
		if n == 1 {
			ch, err := c.readChunk(r, group[0].Offset)
			if err != nil {
				return false, err
			}
			if ch == nil {
				continue // a lost page, skipped under Lenient
			}
			if streamable(ch) {
				c.chunk, c.meta, c.page = ch, group[0], 0
				continue
			}
			first = ch
		}
		c.resetUnit(r)
		c.whole = true
		err := c.decodeGroup(r, group, first)
		c.buf.Release()
		if err != nil {
			return false, err
		}
		if ok, err := c.settle(r.opts.Time, false); ok || err != nil {
			return ok, err
		}
	}
}

// streamable reports whether the pages of a chunk can be streamed one at a
// time: their statistics give ordered, disjoint time ranges.
func streamable(ch *tsfile.Chunk) bool {
	if len(ch.Pages) <= 1 {
		return true
	}
	var prev *tsfile.Statistics
	for i := range ch.Pages {
		st := ch.Pages[i].Header.Statistics
		if st == nil || st.StartTime > st.EndTime || (prev != nil && st.StartTime <= prev.EndTime) {
			return false
		}
		prev = st
	}
	return true
}

// readChunk reads the chunk at off, which must be one of the cursor's
// series. It returns a nil chunk and no error for a chunk whose page its
// writer lost (tsfile.ErrLostFullPage) in a lenient read, which skips it.
func (c *seriesCursor) readChunk(r *Reader, off int64) (*tsfile.Chunk, error) {
	c.buf.Alloc = scan.BuilderAlloc(r.opts.Allocator)
	ch, err := r.f.ReadChunkInto(off, &c.buf)
	if err != nil {
		if r.f.SkipLostSeriesChunk(err, tsfile.LostSeriesChunkWarning) {
			return nil, nil
		}
		return nil, err
	}
	h := &ch.Header
	if h.IsAligned() || h.Measurement != c.name || h.DataType != c.dataType {
		return nil, corruptf(h.Offset, "chunk header", "expected the non-aligned %s chunk of %q, found marker 0x%02x %q %s", c.dataType, c.name, h.Marker, h.Measurement, h.DataType)
	}
	return ch, nil
}

// decodeGroup decodes the chunks of an overlapping group whole, in file
// order so that the later of equal timestamps is the later write; first,
// when set, is the group's only chunk, already read.
func (c *seriesCursor) decodeGroup(r *Reader, group []tsfile.ChunkMetadata, first *tsfile.Chunk) error {
	slices.SortStableFunc(group, func(a, b tsfile.ChunkMetadata) int { return cmp.Compare(a.Offset, b.Offset) })
	c.at = group[0].Offset
	for k := range group {
		cm := &group[k]
		ch := first
		if ch == nil {
			var err error
			if ch, err = c.readChunk(r, cm.Offset); err != nil {
				return err
			}
			if ch == nil {
				continue // a lost page, skipped under Lenient
			}
		}
		if err := tsfile.CheckEmptyChunk(ch, cm); err != nil {
			return err
		}
		// The chunk's pages in turn strictly increase too: each page's
		// first timestamp after the last of the page decoded before.
		var last int64
		decoded := false
		for i := range ch.Pages {
			if st := ch.Pages[i].Header.Statistics; st != nil && !r.opts.Time.overlaps(st.StartTime, st.EndTime) {
				continue
			}
			from := c.times.Len()
			if _, err := c.decodePage(r, ch, i, cm); err != nil {
				return err
			}
			if c.times.Len() == from {
				continue
			}
			ts := c.times.data()[from:c.times.Len()]
			if decoded && ts[0] <= last && r.verify {
				if err := r.f.Tolerate(tsfile.TimeOrderError(r.dev.String(), &ch.Header, i, &ch.Pages[i].Header, 0, last, ts[0])); err != nil {
					return err
				}
			}
			last, decoded = ts[len(ts)-1], true
		}
	}
	return nil
}

// decodePage appends the points of page i of chunk ch to the unit,
// checking that their timestamps lie within the statistics of the page
// and of the chunk (cm); it reports whether they strictly increase.
func (c *seriesCursor) decodePage(r *Reader, ch *tsfile.Chunk, i int, cm *tsfile.ChunkMetadata) (bool, error) {
	o := r.f.Options()
	h, p := &ch.Header, &ch.Pages[i]
	payload, err := c.pd.Payload(ch, i)
	if err != nil {
		return false, err
	}
	r.countPage()
	ts, vs, err := tsfile.SplitNonAlignedPage(payload, p.Header.BodyOffset())
	if err != nil {
		return false, err
	}
	from := c.times.Len()
	n, err := appendTimes(c.times, o.NonAlignedTimeEncoding.Encoding(), ts, p.Header.BodyOffset(), o.MaxPagePoints)
	if err != nil {
		return false, pageError(h, p, "non-aligned page time stream", err)
	}
	var want *tsfile.Statistics
	fromChunk := false
	if r.verify {
		want, fromChunk = tsfile.PageStatistics(&p.Header, &cm.Statistics)
	}
	var bad error // a contradiction of the values, reported after the timestamps'
	if err := c.vals.appendPage(h.Encoding, nil, n, vs, want); err != nil {
		if !errors.As(err, new(*tsfile.StatisticsMismatch)) {
			return false, pageError(h, p, "non-aligned page value stream", err)
		}
		bad = err
	}
	lo, hi, what := cm.Statistics.StartTime, cm.Statistics.EndTime, "chunk"
	if st := p.Header.Statistics; st != nil && (st.StartTime > lo || st.EndTime < hi) {
		lo, hi, what = max(lo, st.StartTime), min(hi, st.EndTime), "page and chunk"
	}
	times := c.times.data()[from : from+n]
	// The first position whose timestamp does not increase, or -1. A
	// page in order (every intact one: see tsfile.Unordered) lies within
	// the statistics when its ends do, and they are its least and
	// greatest; only a page out of order pays a pass for them.
	unordered := tsfile.Unordered(times)
	outside := -1 // the first timestamp outside [lo, hi], if any
	least, greatest := lo, hi
	switch {
	case n == 0:
	case unordered < 0:
		least, greatest = times[0], times[n-1]
		if least < lo {
			outside = 0
		} else if greatest > hi {
			outside = sort.Search(n, func(k int) bool { return times[k] > hi })
		}
	default:
		least, greatest = times[0], times[0]
		for k, t := range times {
			if outside < 0 && (t < lo || t > hi) {
				outside = k
			}
			least, greatest = min(least, t), max(greatest, t)
		}
	}
	if outside >= 0 {
		return false, corruptf(p.Header.BodyOffset(), "non-aligned page", "timestamp %d of %s chunk %q (chunk at offset %d) lies outside the time range [%d, %d] of its %s statistics", times[outside], h.DataType, h.Measurement, h.Offset, lo, hi, what)
	}
	// Each timestamp lies within the statistics; with verification they
	// must also reach both ends, and the values agree.
	if want != nil && bad == nil && n > 0 && int64(n) == want.Count {
		bad = want.CheckTimeRange(least, greatest)
	}
	if bad != nil {
		if err := r.f.TolerateMismatch(r.dev.String(), h, i, &p.Header, fromChunk, bad); err != nil {
			return false, err
		}
	}
	// A page's timestamps strictly increase (tsfile.Unordered); a
	// lenient read keeps its points, sorted by settle, the later of equal
	// timestamps winning.
	if unordered > 0 && r.verify {
		if err := r.f.Tolerate(tsfile.TimeOrderError(r.dev.String(), h, i, &p.Header, unordered, times[unordered-1], times[unordered])); err != nil {
			return false, err
		}
	}
	sorted := unordered < 0
	noteQuirks(r.f, c.vals, p.Header.Offset)
	return sorted, nil
}

// settle puts the decoded unit in time order (unless sorted says it is) and
// keeps only its rows in tr. It reports whether any row is left.
func (c *seriesCursor) settle(tr *TimeRange, sorted bool) (bool, error) {
	ts := c.times.data()[:c.times.Len()]
	c.ts, c.ord = ts, nil
	if !sorted {
		c.ord = sortedOrder(ts)
	}
	if c.ord == nil {
		c.pos, c.end = 0, len(ts)
		if n := len(ts); tr != nil && n > 0 && !tr.covers(ts[0], ts[n-1]) {
			c.pos, _ = slices.BinarySearch(ts, tr.Start)
			c.end = sort.Search(n, func(i int) bool { return ts[i] > tr.End })
			c.end = max(c.end, c.pos)
		}
	} else {
		if tr != nil {
			c.ord = slices.DeleteFunc(c.ord, func(k int32) bool { return !tr.contains(ts[k]) })
		}
		c.pos, c.end = 0, len(c.ord)
	}
	if c.pos == c.end {
		return false, nil
	}
	// The grouping keeps units apart in time; this guards the output
	// order against statistics that the checks above let through.
	if first := c.head(); c.started && first <= c.last {
		return false, corruptf(c.at, "chunk header", "series %q goes back from timestamp %d to %d across chunks whose statistics do not overlap", c.name, c.last, first)
	}
	c.last, c.started = c.ts[c.row(c.end-1)], true
	return true, nil
}

// resetUnit empties the unit's buffers for the next one, keeping them
// unless they held a whole group.
func (c *seriesCursor) resetUnit(r *Reader) {
	c.ts, c.ord, c.pos, c.end = nil, nil, 0, 0
	if c.times != nil && !c.whole && resetRows(c.times) && resetRows(c.vals) {
		return
	}
	c.freeUnit()
	mem := scan.BuilderAlloc(r.opts.Allocator)
	// The buffers are sized by the first page they take, not the batch.
	base := colBase{mem: mem, limit: math.MaxInt}
	c.times = newFixed(base, arrow.PrimitiveTypes.Int64, encoding.DecodeInt64, nil)
	var typ arrow.DataType
	if c.field >= 0 {
		typ = r.schema.Field(1 + len(r.consts) + c.field).Type
	} else {
		// A series read for its timestamps: the values are decoded into
		// a builder of the type they would have as a column.
		var err error
		if typ, err = arrowType(c.dataType, r.opts.TimeUnit.Unit()); err != nil {
			typ = arrow.BinaryTypes.Binary
		}
	}
	c.vals = newValueBuilder(mem, c.dataType, typ, math.MaxInt)
}

// freeUnit releases the unit's buffers.
func (c *seriesCursor) freeUnit() {
	if c.times != nil {
		c.times.release()
		c.times = nil
	}
	if c.vals != nil {
		c.vals.release()
		c.vals = nil
	}
	c.ts, c.ord, c.pos, c.end, c.whole = nil, nil, 0, 0, false
}

// resetRows empties a builder of the kinds column.go defines while keeping
// its buffers; it reports false for any other kind.
func resetRows(b builder) bool {
	var base *colBase
	switch b := b.(type) {
	case *fixedBuilder[int32]:
		base = &b.colBase
	case *fixedBuilder[int64]:
		base = &b.colBase
	case *fixedBuilder[float32]:
		base = &b.colBase
	case *fixedBuilder[float64]:
		base = &b.colBase
	case *boolBuilder:
		base = &b.colBase
	case *binaryBuilder:
		base = &b.colBase
		b.size = 0 // offsets[0] stays 0
	default:
		return false
	}
	base.n = 0
	base.valid.release()
	return true
}

// appendRowRange appends rows [a, b) of src, a builder of the same kind as
// dst, copying buffers in bulk where the kind allows.
func appendRowRange(dst, src valueBuilder, a, b int) error {
	switch d := dst.(type) {
	case *fixedBuilder[int32]:
		if s, ok := src.(*fixedBuilder[int32]); ok {
			appendFixedRange(d, s, a, b)
			return nil
		}
	case *fixedBuilder[int64]:
		if s, ok := src.(*fixedBuilder[int64]); ok {
			appendFixedRange(d, s, a, b)
			return nil
		}
	case *fixedBuilder[float32]:
		if s, ok := src.(*fixedBuilder[float32]); ok {
			appendFixedRange(d, s, a, b)
			return nil
		}
	case *fixedBuilder[float64]:
		if s, ok := src.(*fixedBuilder[float64]); ok {
			appendFixedRange(d, s, a, b)
			return nil
		}
	case *boolBuilder:
		if s, ok := src.(*boolBuilder); ok {
			k := b - a
			d.reserve(k)
			bitutil.CopyBitmap(s.values.Buf(), a, k, d.values.Buf(), d.n)
			appendValidityRange(&d.colBase, &s.colBase, a, k)
			return nil
		}
	case *binaryBuilder:
		if s, ok := src.(*binaryBuilder); ok {
			return appendBinaryRange(d, s, a, b)
		}
	}
	idx := make([]int32, b-a)
	for i := range idx {
		idx[i] = int32(a + i)
	}
	return dst.gather(src, idx)
}

func appendFixedRange[T fixedType](d, s *fixedBuilder[T], a, b int) {
	k := b - a
	d.reserve(k)
	copy(d.data()[d.n:d.n+k], s.data()[a:b])
	appendValidityRange(&d.colBase, &s.colBase, a, k)
}

func appendBinaryRange(d, s *binaryBuilder, a, b int) error {
	k := b - a
	d.reserve(k)
	so := s.offs()
	start, end := so[a], so[b]
	if err := d.reserveBytes(int(end - start)); err != nil {
		return err
	}
	copy(d.values.Buf()[d.size:], s.values.Buf()[start:end])
	o, size := d.offs(), int32(d.size)
	for i := 1; i <= k; i++ {
		o[d.n+i] = size + (so[a+i] - start)
	}
	d.size += int(end - start)
	appendValidityRange(&d.colBase, &s.colBase, a, k)
	return nil
}

// appendValidityRange records the validity of rows [a, a+k) of src as the
// next k rows of d, whose values are written, and advances d's row count.
func appendValidityRange(d, s *colBase, a, k int) {
	nulls := 0
	if s.valid.buf != nil {
		nulls = k - bitutil.CountSetBits(s.valid.buf.Buf(), a, k)
	}
	if nulls == 0 {
		d.valid.setValid(d.n, k)
	} else {
		bm := d.valid.ensure(d.mem, d.n, d.cap)
		bitutil.CopyBitmap(s.valid.buf.Buf(), a, k, bm, d.n)
		d.valid.nulls += nulls
	}
	d.n += k
}

// sortedOrder returns nil when ts is strictly increasing, the common case.
// Otherwise it returns the positions of ts in time order with only the last
// of equal timestamps kept, as a later write of a point replaces an earlier
// one.
func sortedOrder(ts []int64) []int32 {
	sorted := true
	for i := 1; i < len(ts); i++ {
		if ts[i] <= ts[i-1] {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	ord := make([]int32, len(ts))
	for i := range ord {
		ord[i] = int32(i)
	}
	slices.SortStableFunc(ord, func(a, b int32) int {
		switch {
		case ts[a] < ts[b]:
			return -1
		case ts[a] > ts[b]:
			return 1
		}
		return 0
	})
	out := ord[:0]
	for i, p := range ord {
		if i+1 < len(ord) && ts[ord[i+1]] == ts[p] {
			continue
		}
		out = append(out, p)
	}
	return out
}
