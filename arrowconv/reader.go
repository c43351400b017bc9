package arrowconv

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/bitmap"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/scan"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Reader streams rows of a TsFile as Arrow record batches. It implements
// array.RecordReader; every batch but the last holds exactly
// Options.BatchSize rows, and a batch may span pages and devices.
//
// A Reader reads the file lazily through its io.ReaderAt: for an aligned
// device one chunk group at a time, and within it windows of pages of about
// one batch, whose columns (independent chunks) are decoded by up to
// Options.Workers goroutines at once. It is not safe for concurrent use;
// readers of the same File may run in parallel.
type Reader struct {
	refs   atomic.Int64
	f      *tsfile.File
	opts   Options
	schema *arrow.Schema // in the layout's order, that of the builders
	out    *arrow.Schema // in the order asked for, that of the batches
	raw    *arrow.Schema // out with OBJECT columns binary, as the builders make them
	objs   *objectConv   // nil without OBJECT columns
	// verify checks each decoded page against its statistics (unless
	// tsfile.ReadOptions.NoVerify).
	verify bool
	lay    *layout
	where  []whereCond
	full   []string // every value column of the unprojected layout, for the bloom filter
	base   *layout  // the unprojected layout, for ColumnValues
	all    []string // every table the reader visits, for ColumnValues

	tables []string          // index roots still to visit, in order
	devs   []tsfile.DeviceID // devices of the current table still to visit
	// ahead is the next device and its index entries, looked up by a
	// job of the current device's last window; nil when not looked up.
	ahead *deviceAhead

	// Builders of the batch being assembled: time, the per-device constant
	// columns, then the value columns, in schema order.
	time   *fixedBuilder[int64]
	consts []constBuilder
	fields []valueBuilder

	dev      tsfile.DeviceID
	curDev   tsfile.DeviceID // the device of cur, under DeviceBatches
	constVal []constValue
	aligned  *alignedCursor
	merged   *mergedDevice

	pds []tsfile.PayloadDecoder // one per column job: time, then fields
	// tbuf is the time chunk's read buffer, reused by the next chunk set
	// and taken, like the page streams' windows, from the reader's
	// allocator, so that a server's per-stream meter counts them.
	tbuf tsfile.ChunkBuffer
	// streams are the value columns' page streams, reset onto the
	// chunks of each chunk set so that their buffers and page header
	// storage serve the whole scan; nil until a column is first streamed.
	streams []*tsfile.PageStream
	team    scan.Team // runs the per-column jobs
	// win is the window being decoded, which its jobs share; winJobs
	// are every job a window may have (windowJobs), jobs the current
	// window's, which runJob runs by index.
	win     window
	winJobs []func()
	jobs    []func()
	runJob  func(int) error
	left    int64 // rows the limit still allows; -1 without a limit
	// pageRows is the most rows of one page seen, by which a window of
	// aligned pages may overrun the batch.
	pageRows int
	took     []time.Duration // per column job: its time in the last window
	pend     *pending        // finished rows not yet handed out
	cur      arrow.RecordBatch
	err      error
	done     bool
}

// deviceAhead is the outcome of looking up the next device: what
// nextDevice and File.Series returned.
type deviceAhead struct {
	dev    tsfile.DeviceID
	ok     bool
	series []tsfile.TimeseriesMetadata
	err    error
}

// lookUpDevice finds the next device and reads its index entries. With
// more than one worker it runs ahead, as a job of the current device's
// last window (where nothing else touches the device list), and its
// outcome waits in r.ahead for step.
func (r *Reader) lookUpDevice() *deviceAhead {
	a := &deviceAhead{}
	a.dev, a.ok, a.err = r.nextDevice()
	if a.err == nil && a.ok {
		a.series, a.err = r.f.Series(a.dev)
	}
	return a
}

type constValue struct {
	v  string
	ok bool
}

// NewTableReader streams the rows of a table-model table: devices in index
// order, rows in time order within a device (chunk groups are taken in
// order of their first timestamp; overlapping chunk groups of one device are
// not merged). The schema is the one TableArrowSchema returns for the same
// options. With Options.Workers above 1 the Allocator must be safe for
// concurrent use, as arrow-go's allocators are.
func NewTableReader(f *tsfile.File, table string, opts *Options) (*Reader, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	l, err := tableLayout(f, table)
	if err != nil {
		return nil, err
	}
	if !f.Options().Lenient {
		// The devices read are checked against the schema before any
		// row: a reader that failed at a damaged device would already
		// have returned the rows of the devices before it. (A lenient
		// layout has walked them all for orphan series.)
		var devs []tsfile.DeviceID
		if opts != nil && opts.Devices != nil {
			devs = opts.Devices
		}
		if err := f.CheckTable(table, devs); err != nil {
			return nil, err
		}
	}
	return openReader(f, l, []string{table}, opts)
}

// openReader plans the layout with the options and prepares the reader.
func openReader(f *tsfile.File, l *layout, tables []string, opts *Options) (*Reader, error) {
	o := opts.withDefaults()
	pl, conds, err := l.plan(&o)
	if err != nil {
		return nil, err
	}
	r := &Reader{f: f, opts: o, lay: pl, where: conds, tables: tables, base: l, all: tables, schema: pl.layoutSchema(o.TimeUnit.Unit()), out: pl.arrowSchema(o.TimeUnit.Unit()), left: -1,
		verify: !f.Options().NoVerify}
	r.raw = r.out
	if r.objs = newObjectConv(r.out, &o); r.objs != nil {
		// The builders decode OBJECT cells as binary; Next turns them
		// into the output's shape.
		r.raw = r.objs.rawSchema(r.out)
		r.schema = rawObjectSchema(r.schema)
	}
	r.team.Size = o.Workers
	for _, c := range l.fields {
		r.full = append(r.full, c.name)
	}
	if o.Limit > 0 {
		r.left = o.Limit
	}
	r.refs.Store(1)
	r.newBuilders()
	return r, nil
}

func (r *Reader) newBuilders() {
	mem, limit := scan.BuilderAlloc(r.opts.Allocator), r.opts.BatchSize
	r.time = newFixed(colBase{mem: mem, limit: limit}, r.schema.Field(0).Type, encoding.DecodeInt64, nil)
	r.consts = make([]constBuilder, len(r.lay.consts))
	for i := range r.consts {
		if r.lay.plainTags {
			r.consts[i] = newStringBuilder(mem, limit)
		} else {
			r.consts[i] = newDictBuilder(mem, limit)
		}
	}
	r.fields = make([]valueBuilder, len(r.lay.fields))
	for i, c := range r.lay.fields {
		r.fields[i] = newValueBuilder(mem, c.dataType, r.schema.Field(1+len(r.consts)+i).Type, limit)
	}
	r.pds = make([]tsfile.PayloadDecoder, 1+len(r.fields))
	r.streams = make([]*tsfile.PageStream, len(r.fields))
	r.tbuf.Alloc = mem
}

// Retain increases the reference count.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release decreases the reference count; at zero it frees every buffer the
// reader holds, including the current record.
func (r *Reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.pend != nil {
		r.pend.release()
		r.pend = nil
	}
	r.releaseState()
}

// releaseState frees the builders and the current device's decoded data.
func (r *Reader) releaseState() {
	if r.time != nil {
		for _, b := range r.builders() {
			b.release()
		}
	}
	r.time, r.consts, r.fields = nil, nil, nil
	r.aligned, r.ahead = nil, nil
	r.tbuf.Release()
	for _, st := range r.streams {
		if st != nil {
			st.Release()
		}
	}
	r.streams = nil
	if r.merged != nil {
		r.merged.release()
		r.merged = nil
	}
}

// builders returns the batch's builders in schema order: time, the
// constant columns, the value columns.
func (r *Reader) builders() []builder {
	bs := make([]builder, 0, 1+len(r.consts)+len(r.fields))
	bs = append(bs, r.time)
	for _, b := range r.consts {
		bs = append(bs, b)
	}
	for _, b := range r.fields {
		bs = append(bs, b)
	}
	return bs
}

// batchRows is the capacity builders are sized to: a whole batch plus
// the largest page seen, by which a window of pages may overrun it.
func (r *Reader) batchRows() int { return r.opts.BatchSize + r.pageRows }

// Schema returns the schema of every record.
func (r *Reader) Schema() *arrow.Schema { return r.out }

// Next advances to the next record batch. It returns false at the end of
// the rows or on an error, which Err then reports.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for r.pend == nil {
		if r.err != nil || r.done || r.time == nil {
			return false
		}
		if err := r.step(); err != nil {
			r.err = err
			r.releaseState()
			return false
		}
	}
	r.cur = r.pend.next(r.raw, r.lay.order, r.opts.BatchSize)
	r.curDev = r.pend.dev
	if r.pend.off == r.pend.rows {
		r.pend.release()
		r.pend = nil
	}
	if r.objs != nil {
		rec, err := r.objs.convert(r.cur, r.out)
		r.cur = nil
		if err != nil {
			r.err = err
			r.releaseState()
			return false
		}
		r.cur = rec
	}
	return true
}

// RecordBatch returns the current batch, valid until the next call to Next
// or Release; Retain it to keep it longer.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// TakeRecordBatch hands the current batch over: the caller owns it (and
// must release it), and the reader keeps no reference to it. A reader
// left idle between calls to Next then holds no batch, which matters
// where many readers wait at once (package dataset reads every file of a
// group with one). It returns nil where RecordBatch would.
func (r *Reader) TakeRecordBatch() arrow.RecordBatch {
	rec := r.cur
	r.cur = nil
	return rec
}

// Device returns the device whose rows the current batch holds, under
// Options.DeviceBatches (the zero DeviceID otherwise).
func (r *Reader) Device() tsfile.DeviceID {
	if !r.opts.DeviceBatches {
		return tsfile.DeviceID{}
	}
	return r.curDev
}

// Record returns the current batch.
//
// Deprecated: Use RecordBatch instead.
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// Err returns the error that ended the stream, if any. Errors about the
// file wrap tsfile.ErrCorrupt or tsfile.ErrUnsupported.
func (r *Reader) Err() error { return r.err }

// step does one unit of work: one window of aligned pages, one slice of a
// merged device, or moving to the next device.
func (r *Reader) step() error {
	switch {
	case r.aligned != nil:
		return r.stepAligned()
	case r.merged != nil:
		return r.stepMerged()
	}
	a := r.ahead
	r.ahead = nil
	if a == nil {
		a = r.lookUpDevice()
	}
	if a.err != nil {
		return a.err
	}
	if !a.ok {
		r.flush(true)
		r.done = true
		r.releaseState()
		return nil
	}
	if r.opts.DeviceBatches && r.time.Len() > 0 && a.series != nil {
		// The previous device's rows go out first, as a batch of their
		// own; the next step starts the device.
		r.ahead = a
		r.flushDevice()
		return nil
	}
	return r.startDevice(a.dev, a.series)
}

// ColumnValues returns the distinct values, sorted, that a column constant
// per device (a TAG column, or the device column of a tree-model stream)
// takes over every device of the reader's tables, whatever Options.Devices
// and Options.Where select: the values a filter on it can match. A null
// TAG value is left out. It reads the index only, so a caller can say what
// a filter that matched nothing could have asked for.
func (r *Reader) ColumnValues(name string) ([]string, error) {
	var col *constColumn
	for i := range r.base.consts {
		if r.base.consts[i].name == name {
			col = &r.base.consts[i]
		}
	}
	switch {
	case col == nil:
		return nil, fmt.Errorf("arrowconv: no column %q to filter on (%s)", name, r.base.filterable())
	case col.tag == constAttribute:
		return nil, fmt.Errorf("arrowconv: ATTRIBUTE column %q has no values in the file", name)
	}
	var out []string
	for _, t := range r.all {
		devs, err := r.f.Devices(t)
		if err != nil {
			return nil, err
		}
		for _, d := range devs {
			v, ok := d.String(), true
			if col.tag != constDevice {
				v, ok = d.Segment(col.tag)
			}
			if ok {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// nextDevice returns the next device to read, in index order across
// tables, applying Options.Devices and Options.Where.
func (r *Reader) nextDevice() (tsfile.DeviceID, bool, error) {
	for {
		for len(r.devs) == 0 {
			if len(r.tables) == 0 {
				return tsfile.DeviceID{}, false, nil
			}
			t := r.tables[0]
			r.tables = r.tables[1:]
			if r.opts.Devices != nil {
				r.devs = r.requested(t)
				continue
			}
			devs, err := r.f.Devices(t)
			if err != nil {
				return tsfile.DeviceID{}, false, err
			}
			r.devs = devs
		}
		d := r.devs[0]
		r.devs = r.devs[1:]
		if matches(r.where, d) {
			return d, true, nil
		}
	}
}

// requested returns the devices of Options.Devices in table t, sorted and
// without repeats, dropping those the bloom filter rules out: a device
// none of whose series can be in the file has no rows.
func (r *Reader) requested(t string) []tsfile.DeviceID {
	var out []tsfile.DeviceID
	for _, d := range r.opts.Devices {
		if d.Table() == t {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, tsfile.DeviceID.Compare)
	out = slices.CompactFunc(out, tsfile.DeviceID.Equal)
	if len(r.full) == 0 {
		return out
	}
	kept := out[:0]
	for _, d := range out {
		for _, m := range r.full {
			// The file knows how its filter spells a device's path
			// (segments in v4, the stored path string in v3).
			if r.f.MayContainSeries(d, m) {
				kept = append(kept, d)
				break
			}
		}
	}
	return kept
}

// startDevice prepares to stream the rows of dev, whose index entries
// (File.Series) are series.
func (r *Reader) startDevice(dev tsfile.DeviceID, series []tsfile.TimeseriesMetadata) error {
	if series == nil {
		return nil // a requested device the file does not hold has no rows
	}
	r.dev = dev
	if err := r.setConstValues(dev); err != nil {
		return err
	}
	// A tree-model device ID against the Bloom filter (a table's are
	// checked with its schema, by CheckTable): one lookup a device.
	if !r.lay.isTable {
		if err := r.f.CheckDeviceInBloom("", dev, series); err != nil {
			return err
		}
	}
	var timeCol *tsfile.TimeseriesMetadata
	single := false
	for i := range series {
		s := &series[i]
		if s.IsTimeColumn() {
			timeCol = s
			continue
		}
		if !s.IsValueColumn() {
			single = true
		}
		if j, ok := r.lay.byName[s.Measurement]; ok && r.lay.fields[j].dataType != s.DataType {
			return corruptf(s.Offset, "timeseries metadata", "series %q of device %s is %s, but its column is %s", s.Measurement, dev, s.DataType, r.lay.fields[j].dataType)
		}
	}
	aligned := timeCol != nil
	switch {
	case aligned && single:
		return unsupportedf(series[0].Offset, "timeseries metadata", "device %s mixes aligned and non-aligned series", dev)
	case single && r.lay.isTable:
		return corruptf(series[0].Offset, "timeseries metadata", "device %s of table %q has non-aligned series", dev, r.lay.table)
	case aligned:
		if st := &timeCol.Statistics; !r.opts.Time.overlaps(st.StartTime, st.EndTime) {
			return nil
		}
		sets, err := tsfile.AlignedChunkSets(series)
		if err != nil {
			return err
		}
		// Chunk groups of one device are usually in time order already;
		// sorting by start time fixes files flushed out of order, while
		// overlapping groups would need a merge this reader does not do.
		sort.SliceStable(sets, func(i, j int) bool { return sets[i].Time.Statistics.StartTime < sets[j].Time.Statistics.StartTime })
		r.aligned = &alignedCursor{sets: sets}
		r.reserve(timeCol.Statistics.Count)
	case single:
		m, err := r.mergeDevice(series)
		if err != nil {
			return err
		}
		r.merged = m
	}
	return nil
}

// setConstValues computes the per-device constant columns of dev.
func (r *Reader) setConstValues(dev tsfile.DeviceID) error {
	if r.lay.isTable && dev.Len() > r.lay.tags+1 {
		return fmt.Errorf("arrowconv: device %s has %d TAG values but table %q has %d TAG columns: %w", dev, dev.Len()-1, r.lay.table, r.lay.tags, tsfile.ErrCorrupt)
	}
	r.constVal = r.constVal[:0]
	for _, c := range r.lay.consts {
		var cv constValue
		switch c.tag {
		case constAttribute:
		case constDevice:
			cv = constValue{dev.String(), true}
		default:
			cv.v, cv.ok = dev.Segment(c.tag)
		}
		r.constVal = append(r.constVal, cv)
	}
	return nil
}

// reserve sizes the builders for rows more rows, as far as the current
// batch goes, so that a device's pages do not regrow every buffer. rows
// comes from statistics, which only steer this hint.
func (r *Reader) reserve(rows int64) {
	n := r.time.Len()
	k := int(min(max(rows, 0), int64(r.room())))
	if n > 0 && n+k > r.time.cap {
		// A second device in the batch: more are likely to follow, so
		// size for the whole batch rather than double towards it.
		k = r.batchRows() - n
	}
	if k <= 0 {
		return
	}
	for _, b := range r.builders() {
		b.reserve(k)
	}
}

// room is how many more rows the batch being assembled (and the row limit)
// takes.
func (r *Reader) room() int {
	k := r.opts.BatchSize - r.time.Len()
	if r.left >= 0 {
		k = min(k, int(min(r.left, math.MaxInt32))-r.time.Len())
	}
	return max(k, 1)
}

// appendConsts appends k rows of the current device's constant columns.
func (r *Reader) appendConsts(k int) error {
	for i := range r.consts {
		if err := r.appendConst(i, k); err != nil {
			return err
		}
	}
	return nil
}

// appendConst appends k rows of constant column i.
func (r *Reader) appendConst(i, k int) error {
	return r.consts[i].appendConst(r.constVal[i].v, r.constVal[i].ok, k)
}

// maybeFlush turns every complete batch held by the builders into a record,
// and ends the stream once the row limit is reached.
func (r *Reader) maybeFlush() {
	n := r.time.Len()
	if n >= r.opts.BatchSize || (r.left >= 0 && int64(n) >= r.left) {
		r.flush(false)
	}
}

// flush hands the rows held over to the pending batches: every full batch
// and, when final, the remaining rows. Rows past the last full batch stay
// in the builders for the next one. Reaching the row limit ends the stream.
func (r *Reader) flush(final bool) {
	n, size := r.time.Len(), r.opts.BatchSize
	cut := n - n%size
	if final {
		cut = n
	}
	limited := r.left >= 0 && int64(n) >= r.left
	if limited {
		cut = int(r.left)
	}
	if cut > 0 {
		// Finishing copies each builder's tail into fresh buffers sized
		// for the next batch: per column, so it runs in parallel like
		// the decoding.
		bs := r.builders()
		p := &pending{rows: cut, data: make([]arrow.ArrayData, len(bs)), dev: r.dev}
		keep := r.batchRows()
		if final {
			keep = 0
		}
		_ = r.parallel(len(bs), func(i int) error {
			p.data[i] = bs[i].finish(cut, keep)
			return nil
		})
		r.pend = p
		if r.left >= 0 {
			r.left -= int64(cut)
		}
	}
	if limited {
		r.done = true
		r.releaseState()
	}
}

// flushDevice hands out every row held, the rows of the device just
// read (Options.DeviceBatches), keeping the builders sized for a batch.
func (r *Reader) flushDevice() {
	n := r.time.Len()
	if r.left >= 0 && int64(n) >= r.left {
		r.flush(false) // the limit ends the stream there
		return
	}
	bs := r.builders()
	p := &pending{rows: n, data: make([]arrow.ArrayData, len(bs)), dev: r.dev}
	// The builders keep no room: the next device reserves what its
	// statistics say (startDevice), so that a device of a few rows does
	// not leave batch-sized buffers behind it. Buffers sized for a whole
	// batch under every small device's batch had a merge over twenty files
	// hold seven times the memory of a plain scan.
	_ = r.parallel(len(bs), func(i int) error {
		p.data[i] = bs[i].finish(n, 0)
		return nil
	})
	r.pend = p
	if r.left >= 0 {
		r.left -= int64(n)
	}
}

// pending holds finished columns of one or more batches. A page decoded
// past the batch size ends up here whole; its batches are cut from it as
// they are asked for, as slices sharing its buffers, so that a large page
// read in small batches costs neither copies nor a queue of records.
type pending struct {
	data []arrow.ArrayData
	off  int // first row not yet handed out
	rows int
	dev  tsfile.DeviceID // the device of the rows, under Options.DeviceBatches
}

// next returns the record of the next size rows, its columns in order
// (see layout.order; nil for the order of p.data).
func (p *pending) next(schema *arrow.Schema, order []int, size int) arrow.RecordBatch {
	end := min(p.off+size, p.rows)
	cols := make([]arrow.Array, len(p.data))
	for i := range cols {
		j := i
		if order != nil {
			j = order[i]
		}
		d := p.data[j]
		if p.off == 0 && end == p.rows {
			cols[i] = array.MakeFromData(d)
			continue
		}
		s := array.NewSliceData(d, int64(p.off), int64(end))
		cols[i] = array.MakeFromData(s)
		s.Release()
	}
	rec := array.NewRecordBatch(schema, cols, int64(end-p.off))
	for _, c := range cols {
		c.Release()
	}
	p.off = end
	return rec
}

func (p *pending) release() {
	for _, d := range p.data {
		if d != nil { // a batch dropped by an error may lack columns
			d.Release()
		}
	}
	p.data = nil
}

// alignedCursor is the position within an aligned device: the chunk set
// being read and its next page, with scratch for the page windows.
type alignedCursor struct {
	sets   []tsfile.AlignedChunkSet
	set    tsfile.AlignedChunkSet
	time   *tsfile.Chunk
	values []*tsfile.Chunk // by field index; nil where the set has no chunk
	// streams are the value chunks read page by page (when the set lies
	// in the time range), by field index; their Chunks are in values.
	streams []*tsfile.PageStream
	page    int
	covers  bool // every timestamp of the set lies in Options.Time
	// byRows pairs the value pages with the time pages by the rows each
	// covers (tsfile.QuirkValuePageRows, when File.CPPLayout): the
	// window is then the whole set, read whole, and rowsBy holds, per
	// field, the rows its pages covered.
	byRows   bool
	rowsBy   []int
	rowPages [][]int // per field: each page's rows, in a window by rows

	pages  []int   // the window: indexes of the pages to decode
	expect []int   // per window page: its count by the statistics
	counts []int   // per window page: timestamps decoded
	got    [][]int // per field, per window page: positions decoded, or gotAbsent / gotEmpty
	runs   []span
	order  []int   // column jobs, slowest first
	errs   []error // per column job, then per constant column's
}

// Markers in alignedCursor.got for pages that were not decoded.
const (
	gotAbsent = -1 // the set has no chunk for the column: nulls to add
	gotEmpty  = -2 // an empty page: expect nulls were added
	gotByRows = -3 // decoded by rows (alignedCursor.byRows): see rowsBy
)

// stepAligned decodes the next window of pages of the current chunk set:
// as many pages as fill the batch being assembled, by their statistics.
func (r *Reader) stepAligned() error {
	c := r.aligned
	if c.time == nil {
		for {
			if len(c.sets) == 0 {
				r.aligned = nil
				return nil
			}
			set := c.sets[0]
			c.sets = c.sets[1:]
			if st := &set.Time.Statistics; !r.opts.Time.overlaps(st.StartTime, st.EndTime) {
				continue
			}
			if err := r.loadSet(set); err != nil {
				if errors.Is(err, errLostSet) {
					continue
				}
				return err
			}
			break
		}
	}
	tc := c.time
	room := r.room()
	c.pages, c.expect = c.pages[:0], c.expect[:0]
	rows := 0
	maxPoints := r.f.Options().MaxPagePoints
	for c.page < len(tc.Pages) {
		i := c.page
		cnt := int(min(max(c.set.Time.Statistics.Count, 0), math.MaxInt32))
		st := tc.Pages[i].Header.Statistics
		if st != nil {
			if !c.byRows && !r.opts.Time.overlaps(st.StartTime, st.EndTime) {
				c.page++
				continue
			}
			cnt = int(min(max(st.Count, 0), math.MaxInt32))
		}
		// The count sizes the nulls of the empty value pages before the
		// time page is decoded, so one beyond any page is refused first.
		if cnt > maxPoints {
			if st != nil {
				return corruptf(tc.Pages[i].Header.Offset, "page header", "time page statistics count %d exceeds the limit of %d points per page", cnt, maxPoints)
			}
			err := corruptf(tc.Header.Offset, "chunk header", "time chunk statistics count %d exceeds the limit of %d points per page", cnt, maxPoints)
			if r.f.Tolerate(err) != nil {
				return err
			}
			cnt = maxPoints
		}
		// A window ends with the page that fills the batch. That page
		// overruns the batch, but would in a window of its own too, and
		// a window of one page costs a round of column jobs for a few
		// thousand rows (about a third of the windows of a scan of
		// 13-page chunks were such one-page windows).
		if rows >= room && !c.byRows {
			break
		}
		c.page++
		c.pages = append(c.pages, i)
		c.expect = append(c.expect, cnt)
		rows += max(cnt, 1)
		r.pageRows = max(r.pageRows, cnt)
	}
	if len(c.pages) > 0 {
		// The device's last window also looks up the next device, with
		// more than one worker: a job that fills a worker's wait at the
		// window's end, where on the caller alone it held both (the index
		// lookup is about 55 us a device, 5 ms of a 140 ms 2-worker scan
		// of the PLAIN table).
		ahead := r.opts.Workers > 1 && r.ahead == nil && c.page == len(tc.Pages) && len(c.sets) == 0
		if err := r.decodeWindow(c, ahead); err != nil {
			return err
		}
	}
	if c.page == len(tc.Pages) {
		if err := r.endStreams(c); err != nil {
			return err
		}
		c.time, c.values, c.streams, c.page = nil, nil, nil, 0
	}
	r.maybeFlush()
	return nil
}

// decodeWindow decodes the window's pages of every column, the columns in
// parallel, then checks that they agree (checkWindow), fills absent
// columns with nulls, trims rows outside the time range and adds the
// constant columns. Its jobs, run by the reader's team, are the column
// jobs in jobOrder, then the constant columns' (see below), then, with
// ahead, the lookup of the next device (lookUpDevice).
func (r *Reader) decodeWindow(c *alignedCursor, ahead bool) error {
	np := len(c.pages)
	c.counts = resize(c.counts, np)
	if len(c.got) != len(r.fields) {
		c.got = make([][]int, len(r.fields))
	}
	for j := range c.got {
		c.got[j] = resize(c.got[j], np)
	}
	start := r.time.Len()
	// When the window keeps every row, the constant columns take as many
	// rows as its time pages hold, so with more than one worker each is
	// a job of its own, after the column jobs, that waits for the time
	// column rather than running alone after the window: filling them
	// writes four bytes a row each, a twentieth of a PLAIN scan.
	consts := 0
	if c.covers && r.opts.Workers > 1 {
		consts = len(r.consts)
	}
	fused, want := r.fuseFlush(c, start, consts > 0)
	defer func() {
		if fused != nil && fused != r.pend {
			fused.release()
		}
	}()
	w := &r.win
	w.c, w.fused, w.want, w.start, w.keep, w.timed = c, fused, want, start, r.batchRows(), r.opts.Workers > 1
	w.timeDone.Store(false)
	defer func() { w.c, w.fused = nil, nil }() // nothing of the window is kept past it
	cols := 1 + len(r.fields)
	c.errs = slices.Grow(c.errs[:0], cols+consts)[:cols+consts]
	all := r.windowJobs()
	jobs := r.jobs[:0]
	for _, j := range r.jobOrder(c) {
		jobs = append(jobs, all[j])
	}
	jobs = append(jobs, all[cols:cols+consts]...)
	if ahead {
		jobs = append(jobs, all[len(all)-1])
	}
	r.jobs = jobs
	_ = r.parallel(len(jobs), r.runJob)
	for _, err := range c.errs { // the first column's error, whatever the order
		if err != nil {
			return err
		}
	}
	total, err := r.checkWindow(c)
	if err != nil {
		return err
	}
	if fused == nil { // else appended by the columns' jobs
		for j, got := range c.got {
			if got[0] == gotAbsent {
				r.fields[j].appendNulls(total)
			}
		}
	}
	if !c.covers {
		total = r.trim(c, start)
	}
	if fused != nil {
		for i, d := range fused.data {
			if d == nil {
				return fmt.Errorf("arrowconv: internal error: column %d of the batch ending at row %d was not handed over", i, want)
			}
		}
		r.pend = fused
	}
	if consts > 0 {
		return nil // appended by their jobs
	}
	return r.appendConsts(total)
}

// windowJobs returns every job a window may have: one per column (0 the
// time column, j+1 field j), one per constant column, then the lookup of
// the next device, whose error waits for the device it concerns. They are
// made once per reader and share r.win, so that a window allocates none.
func (r *Reader) windowJobs() []func() {
	if r.winJobs != nil {
		return r.winJobs
	}
	w := &r.win
	w.r = r
	for j := range 1 + len(r.fields) {
		r.winJobs = append(r.winJobs, func() { w.column(j) })
	}
	for k := range r.consts {
		r.winJobs = append(r.winJobs, func() { w.constant(k) })
	}
	r.winJobs = append(r.winJobs, func() { r.ahead = r.lookUpDevice() })
	r.runJob = func(i int) error { r.jobs[i](); return nil }
	return r.winJobs
}

// window is what the jobs of one decodeWindow share.
type window struct {
	r     *Reader
	c     *alignedCursor
	fused *pending // the batch the window fills (fuseFlush), or nil
	want  int      // the row count at which fused is full
	start int      // the row the window starts at
	keep  int      // the rows a builder is sized for after handing over (batchRows)
	timed bool     // column jobs time themselves, for jobOrder

	timeDone atomic.Bool // the time column's job has finished
}

// handOver finishes builder b into column i of the fused batch once it
// holds the batch's rows.
func (w *window) handOver(i int, b builder) {
	if w.fused != nil && b.Len() == w.want {
		w.fused.data[i] = b.finish(w.fused.rows, w.keep)
	}
}

// column is the job of column j: 0 the time column, j+1 field j. Its
// error goes to c.errs[j].
func (w *window) column(j int) {
	r, c := w.r, w.c
	var t0 time.Time
	if w.timed {
		t0 = time.Now()
	}
	if j > 0 {
		b := r.fields[j-1]
		if c.errs[j] = r.decodeValuePages(c, j-1); c.errs[j] == nil && w.fused != nil {
			if c.got[j-1][0] == gotAbsent {
				b.appendNulls(w.want - w.start)
			}
			w.handOver(1+len(r.consts)+j-1, b)
		}
	} else {
		c.errs[0] = r.decodeTimePages(c)
		w.timeDone.Store(true)
		if c.errs[0] == nil {
			w.handOver(0, r.time)
		}
	}
	if w.timed {
		r.took[j] = time.Since(t0)
	}
}

// constant is the job of constant column k: as many rows of its value as
// the time pages hold. Its error goes to c.errs after the columns'.
func (w *window) constant(k int) {
	r, c := w.r, w.c
	// Every column job was handed out before this one, so the time
	// column's is running or done.
	for !w.timeDone.Load() {
		runtime.Gosched()
	}
	if c.errs[0] != nil {
		return
	}
	rows := 0
	for _, n := range c.counts {
		rows += n
	}
	i := 1 + len(r.fields) + k
	if c.errs[i] = r.appendConst(k, rows); c.errs[i] == nil {
		w.handOver(1+k, r.consts[k])
	}
}

// checkWindow checks that the decoded columns of the window agree: each
// time page holds as many timestamps as its statistics count (or its
// chunk's, for a chunk of one page), each value page as many positions as
// its time page, and each empty value page stands for as many as its time
// page holds. It returns the rows the window decoded.
func (r *Reader) checkWindow(c *alignedCursor) (int, error) {
	tc := c.time
	total := 0
	for k, i := range c.pages {
		ph := &tc.Pages[i].Header
		if ph.Statistics != nil && c.counts[k] != c.expect[k] {
			return 0, corruptf(ph.Offset, "page header", "time page statistics count %d, but the page holds %d timestamps", c.expect[k], c.counts[k])
		}
		if ph.Statistics == nil && len(tc.Pages) == 1 && c.counts[k] != c.expect[k] {
			// The chunk's statistics, from the index, summarise its only
			// page; the time-range pushdown trusts them.
			err := corruptf(tc.Header.Offset, "chunk header", "time chunk statistics count %d, but its page holds %d timestamps", c.expect[k], c.counts[k])
			if r.f.Tolerate(err) != nil {
				return 0, err
			}
		}
		total += c.counts[k]
	}
	for j, got := range c.got {
		if got[0] == gotAbsent {
			continue
		}
		vc := c.values[j]
		if got[0] == gotByRows {
			// The C++ writer seals no page for trailing nulls.
			n := c.rowsBy[j]
			switch {
			case n > total:
				return 0, corruptf(vc.Header.Offset, "aligned value chunk", "value chunk %q covers %d rows by its pages' position counts, its time chunk %d", vc.Header.Measurement, n, total)
			case n < total:
				r.fields[j].appendNulls(total - n)
			}
			if n != total || !slices.Equal(c.rowPages[j], c.counts) {
				r.f.NoteQuirk(tsfile.QuirkValuePageRows, vc.Header.Offset, "aligned value chunk")
			}
			continue
		}
		for k, n := range got {
			p := &vc.Pages[c.pages[k]].Header
			switch {
			case n == gotEmpty && c.expect[k] != c.counts[k]:
				return 0, corruptf(p.Offset, "aligned value page", "empty page of %q stands for %d positions by the statistics, but its time page has %d", vc.Header.Measurement, c.expect[k], c.counts[k])
			case n >= 0 && n != c.counts[k]:
				return 0, corruptf(p.BodyOffset(), "aligned value page", "position_count %d of %q differs from the time page's %d timestamps", n, vc.Header.Measurement, c.counts[k])
			}
		}
	}
	return total, nil
}

// fuseFlush returns the batch that the window, starting at row start, will
// fill, for the window's jobs to hand each column over as soon as its pages
// are in (builder.finish), and the row count the window will end at. It returns
// nil when the window does not fill the batch, or when it may not know
// that before its pages are decoded; inJobs tells that the constant columns
// are filled by jobs of the window.
//
// Handing a batch over in a round of jobs of its own, after the window,
// waited for the window's slowest column and then again for the round's:
// 153 of the 503 rounds of a 2-worker PLAIN scan of 10M rows. The row count
// comes from the page statistics, so every page of the window must have
// them: a count that differs from its page is then an error (checkWindow),
// never a leniency, and the batch is dropped. A row limit cuts batches at
// counts of its own and keeps the round.
func (r *Reader) fuseFlush(c *alignedCursor, start int, inJobs bool) (*pending, int) {
	// A window paired by rows pads its value columns after the time
	// column is in (checkWindow), too late for its jobs to hand over.
	if !inJobs || r.left >= 0 || c.byRows {
		return nil, 0
	}
	want := start
	for k, i := range c.pages {
		if c.time.Pages[i].Header.Statistics == nil {
			return nil, 0
		}
		want += c.expect[k]
	}
	size := r.opts.BatchSize
	if want < size {
		return nil, 0
	}
	return &pending{rows: want - want%size, data: make([]arrow.ArrayData, 1+len(r.consts)+len(r.fields)), dev: r.dev}, want
}

// jobOrder returns the column jobs of the window (0 the time column, j+1
// field j) slowest first by how long each took in the previous window:
// handing the long jobs out first keeps one worker from starting a long
// column last while the others idle. Measured time is the only proxy that
// works across encodings: a DICTIONARY string column has few stored bytes
// and is among the slowest to decode.
func (r *Reader) jobOrder(c *alignedCursor) []int {
	n := 1 + len(r.fields)
	c.order = resize(c.order, n)
	for i := range c.order {
		c.order[i] = i
	}
	if len(r.took) != n {
		r.took = make([]time.Duration, n)
	}
	if r.opts.Workers > 1 {
		slices.SortStableFunc(c.order, func(a, b int) int { return cmp.Compare(r.took[b], r.took[a]) })
	}
	return c.order
}

// countPage counts a decoded page into Options.PagesDecoded.
func (r *Reader) countPage() {
	if r.opts.PagesDecoded != nil {
		r.opts.PagesDecoded.Add(1)
	}
}

// resize returns s with length n, reusing its array.
func resize(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// decodeTimePages decodes the window's time pages into the time column.
func (r *Reader) decodeTimePages(c *alignedCursor) error {
	tc, pd := c.time, &r.pds[0]
	for k, i := range c.pages {
		payload, err := pd.Payload(tc, i)
		if err != nil {
			return err
		}
		r.countPage()
		payload = r.f.TimePayload(&tc.Header, payload, tc.Pages[i].Header.BodyOffset())
		n, err := appendTimes(r.time, tc.Header.Encoding, payload, tc.Pages[i].Header.BodyOffset(), r.f.Options().MaxPagePoints)
		if err != nil {
			return pageError(&tc.Header, &tc.Pages[i], "aligned time page", err)
		}
		c.counts[k] = n
		if r.verify {
			if err := r.verifyTimePage(c, i, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// verifyTimePage checks the start and end time of time page i, just
// decoded with n timestamps, against its statistics (or its chunk's, for
// a chunk of one page). Its count is checkWindow's to check, always, since
// the value columns are cut by it; a page whose count is off is left to
// that check.
func (r *Reader) verifyTimePage(c *alignedCursor, i, n int) error {
	st, fromChunk := tsfile.PageStatistics(&c.time.Pages[i].Header, &c.set.Time.Statistics)
	if st == nil || n == 0 || int64(n) != st.Count {
		return nil
	}
	ts := r.time.data()[r.time.Len()-n : r.time.Len()]
	// The writers' time pages strictly increase (tsfile.Unordered), so
	// the least and greatest timestamps are the first and last, and
	// every other lies between; one compare a timestamp checks the order.
	if ts[0] != st.StartTime || ts[n-1] != st.EndTime {
		if m := st.CheckTimes(ts); m != nil {
			return r.f.TolerateMismatch(r.dev.String(), &c.time.Header, i, &c.time.Pages[i].Header, fromChunk, m)
		}
	}
	// Across pages: the statistics of the page before end where its
	// timestamps do (checked when it was decoded). A lenient read keeps
	// the rows in page order.
	var prev *tsfile.Statistics
	if i > 0 {
		prev = c.time.Pages[i-1].Header.Statistics
	}
	var prevEnd int64
	if prev != nil {
		prevEnd = prev.EndTime
	}
	return r.f.Tolerate(tsfile.CheckTimeOrder(r.dev.String(), &c.time.Header, i, &c.time.Pages[i].Header, prevEnd, prev != nil, ts))
}

// decodeValuePages decodes the window's pages of field j. An empty page
// adds the nulls its statistics count; decodeWindow checks them against
// the time pages.
func (r *Reader) decodeValuePages(c *alignedCursor, j int) error {
	vc, b, got, pd := c.values[j], r.fields[j], c.got[j], &r.pds[1+j]
	var st *tsfile.PageStream
	if c.streams != nil {
		st = c.streams[j]
	}
	// A chunk without data bytes is a chunk without pages, whether read
	// whole or streamed (whose pages are not read yet).
	if vc == nil || vc.Header.DataSize == 0 {
		for k := range got {
			got[k] = gotAbsent
		}
		return nil
	}
	if c.byRows {
		return r.decodeByRows(c, j, st)
	}
	maxPoints := r.f.Options().MaxPagePoints
	for k, i := range c.pages {
		if st != nil {
			sp, err := st.Page(i)
			if err != nil {
				// A lost page is skipped only under Lenient, which
				// pairs by rows (decodeByRows).
				return err
			}
			if sp == nil {
				return pageCountError(vc, len(c.time.Pages))
			}
		}
		p := &vc.Pages[i]
		if p.Header.Empty() {
			b.appendNulls(c.expect[k])
			got[k] = gotEmpty
			continue
		}
		n, err := r.decodeValuePage(c, j, i, pd, maxPoints)
		if err != nil {
			return err
		}
		got[k] = n
	}
	return nil
}

// decodeValuePage decodes the non-empty page i of field j's value chunk
// onto its builder, checks it against its statistics (or its chunk's, for
// a chunk of one page) and notes the writer quirks it was read around. It
// returns the rows the page covers, its position_count.
func (r *Reader) decodeValuePage(c *alignedCursor, j, i int, pd *tsfile.PayloadDecoder, maxPoints int) (int, error) {
	vc, b := c.values[j], r.fields[j]
	p := &vc.Pages[i]
	payload, err := pd.Payload(vc, i)
	if err != nil {
		return 0, err
	}
	r.countPage()
	n, present, values, err := tsfile.SplitValuePage(payload, p.Header.BodyOffset())
	if err != nil {
		return 0, fmt.Errorf("arrowconv: %s value chunk %q at offset %d: %w", vc.Header.DataType, vc.Header.Measurement, vc.Header.Offset, err)
	}
	if n > maxPoints {
		return 0, corruptf(p.Header.BodyOffset(), "aligned value page", "position_count %d exceeds the limit of %d", n, maxPoints)
	}
	if bitmap.AllSetMSB(present, n) {
		present = nil
	}
	var want *tsfile.Statistics
	fromChunk := false
	if r.verify {
		want = p.Header.Statistics
		if want == nil {
			if cm, ok := c.set.Values[r.lay.fields[j].name]; ok {
				want, fromChunk = tsfile.PageStatistics(&p.Header, &cm.Statistics)
			}
		}
	}
	if err := b.appendPage(vc.Header.Encoding, present, n, values, want); err != nil {
		if !errors.As(err, new(*tsfile.StatisticsMismatch)) {
			return 0, pageError(&vc.Header, p, "aligned value page", err)
		}
		// The value-codec quirks are read around (or named) here,
		// whichever way the pages pair with the time pages.
		if err := r.f.TolerateMismatch(r.dev.String(), &vc.Header, i, &p.Header, fromChunk, err); err != nil {
			return 0, err
		}
	}
	noteQuirks(r.f, b, p.Header.Offset)
	return n, nil
}

// decodeByRows decodes every page of field j's value chunk in a window
// that is its whole set (alignedCursor.byRows), each page covering the rows
// its position_count says rather than those of the time page at its index
// (tsfile.QuirkValuePageRows). checkWindow checks the rows covered,
// c.rowsBy[j], against the time pages', makes the rows after the last page
// null, and notes the quirk when the pages, c.rowPages[j], do not pair
// with the time pages by index.
func (r *Reader) decodeByRows(c *alignedCursor, j int, st *tsfile.PageStream) error {
	vc, b, got, pd := c.values[j], r.fields[j], c.got[j], &r.pds[1+j]
	maxPoints := r.f.Options().MaxPagePoints
	rows := 0
	c.rowPages[j] = c.rowPages[j][:0]
	for i := 0; ; i++ {
		if st != nil {
			sp, err := st.Page(i)
			if err != nil {
				if rows == 0 && r.f.SkipLostChunk(err, false) {
					for k := range got {
						got[k] = gotAbsent
					}
					return nil
				}
				return err
			}
			if sp == nil {
				break
			}
		} else if i >= len(vc.Pages) {
			break
		}
		p := &vc.Pages[i]
		exp := 0
		if i < len(c.expect) {
			exp = c.expect[i]
		}
		if p.Header.Empty() {
			b.appendNulls(exp)
			rows += exp
			c.rowPages[j] = append(c.rowPages[j], exp)
			continue
		}
		n, err := r.decodeValuePage(c, j, i, pd, maxPoints)
		if err != nil {
			return err
		}
		rows += n
		c.rowPages[j] = append(c.rowPages[j], n)
	}
	c.rowsBy[j] = rows
	for k := range got {
		got[k] = gotByRows
	}
	return nil
}

// trim drops the rows from row start on whose timestamps lie outside
// Options.Time and returns how many rows remain after start.
func (r *Reader) trim(c *alignedCursor, start int) int {
	ts := r.time.data()[start:r.time.Len()]
	c.runs = c.runs[:0]
	lo := -1
	for i, t := range ts {
		in := r.opts.Time.contains(t)
		switch {
		case in && lo < 0:
			lo = i
		case !in && lo >= 0:
			c.runs = append(c.runs, span{start + lo, start + i})
			lo = -1
		}
	}
	if lo >= 0 {
		c.runs = append(c.runs, span{start + lo, start + len(ts)})
	}
	if len(c.runs) == 1 && c.runs[0] == (span{start, start + len(ts)}) {
		return len(ts)
	}
	r.time.keep(start, c.runs)
	for _, b := range r.fields {
		b.keep(start, c.runs)
	}
	return r.time.Len() - start
}

// parallel runs fn(0..n-1) on up to Options.Workers goroutines, the
// caller's included, and returns the error of the lowest index that failed,
// so that which error is reported does not depend on scheduling.
func (r *Reader) parallel(n int, fn func(int) error) error { return r.team.Run(n, fn) }

// loadSet reads the time chunk of set and the value chunks of the columns
// being read, in parallel, checking that they belong together.
//
// When the time range covers only part of the set, the time chunk is read
// first, page by page, and the value chunks then fetch only the pages at
// the positions of the time pages that can match.
func (r *Reader) loadSet(set tsfile.AlignedChunkSet) error {
	c := r.aligned
	st := &set.Time.Statistics
	covers := r.opts.Time.covers(st.StartTime, st.EndTime)
	byRows := r.f.CPPLayout()
	// whole: the chunks are read whole (streamed); else only the pages
	// of the time range. A set paired by rows needs all its pages.
	whole := covers || byRows
	values := make([]*tsfile.Chunk, len(r.fields))
	var streams []*tsfile.PageStream
	if whole {
		streams = make([]*tsfile.PageStream, len(r.fields))
	}
	var tc *tsfile.Chunk
	readTime := func() error {
		var err error
		if whole {
			tc, err = r.f.ReadChunkInto(set.Time.Offset, &r.tbuf)
		} else {
			tc, err = r.f.ReadChunkPages(set.Time.Offset, func(_ int, p *tsfile.PageHeader) bool {
				return p.Statistics == nil || r.opts.Time.overlaps(p.Statistics.StartTime, p.Statistics.EndTime)
			})
		}
		if err != nil {
			if r.f.SkipLostChunk(err, true) {
				return errLostSet
			}
			return err
		}
		if !tc.Header.IsTimeChunk() {
			return corruptf(tc.Header.Offset, "chunk header", "time series of device %s points at a chunk with marker 0x%02x", r.dev, tc.Header.Marker)
		}
		return nil
	}
	if !whole {
		if err := readTime(); err != nil {
			return err
		}
	}
	err := r.parallel(1+len(r.fields), func(j int) error {
		if j == 0 {
			if whole {
				return readTime()
			}
			return nil
		}
		f := r.lay.fields[j-1]
		cm, ok := set.Values[f.name]
		if !ok {
			return nil
		}
		var vc *tsfile.Chunk
		var err error
		if whole {
			st := r.streams[j-1]
			if st == nil {
				st, err = r.f.OpenPageStreamAlloc(cm.Offset, r.tbuf.Alloc, 0)
				r.streams[j-1] = st
			} else {
				err = st.Reset(cm.Offset)
			}
			if err == nil {
				streams[j-1], vc = st, &st.Chunk
			}
		} else {
			vc, err = r.f.ReadChunkPages(cm.Offset, func(i int, _ *tsfile.PageHeader) bool {
				return i < len(tc.Pages) && tc.Pages[i].Stored != nil
			})
		}
		if err != nil {
			return err
		}
		h := &vc.Header
		if !r.f.AsValueChunk(h) || h.Measurement != f.name || h.DataType != f.dataType {
			err := corruptf(h.Offset, "chunk header", "expected the %s value chunk of %q, found marker 0x%02x %q %s", f.dataType, f.name, h.Marker, h.Measurement, h.DataType)
			// Only the name disagreeing is a damaged byte in one of the two
			// copies of it; the chunk is still where the index points and
			// of the type it says, so a lenient read keeps its values.
			if !h.IsValueChunk() || h.DataType != f.dataType || r.f.Tolerate(err) != nil {
				return err
			}
		}
		values[j-1] = vc
		return nil
	})
	if err != nil {
		return err
	}
	for _, vc := range values {
		if vc != nil && !whole && len(vc.Pages) != 0 && len(vc.Pages) != len(tc.Pages) {
			return pageCountError(vc, len(tc.Pages))
		}
	}
	c.set, c.time, c.values, c.streams, c.page, c.covers, c.byRows = set, tc, values, streams, 0, covers, byRows
	c.rowsBy = resize(c.rowsBy, len(r.fields))
	if len(c.rowPages) != len(r.fields) {
		c.rowPages = make([][]int, len(r.fields))
	}
	return nil
}

// endStreams reads what is left of the set's streamed value chunks after
// its last window, checking their page counts against the time chunk's.
func (r *Reader) endStreams(c *alignedCursor) error {
	for _, st := range c.streams {
		if st == nil || c.byRows {
			continue
		}
		n, err := st.Rest()
		if err != nil {
			return err
		}
		if n != 0 && n != len(c.time.Pages) {
			return pageCountError(&st.Chunk, len(c.time.Pages))
		}
	}
	return nil
}

// errLostSet is loadSet's answer for a set whose time chunk lost its page
// (tsfile.ErrLostFullPage) in a lenient read: the set is skipped.
var errLostSet = errors.New("arrowconv: the set's time chunk lost its page")

// pageCountError reports a value chunk whose page count differs from its
// time chunk's.
func pageCountError(vc *tsfile.Chunk, timePages int) error {
	return corruptf(vc.Header.Offset, "chunk header", "value chunk %q has %d pages, its time chunk %d", vc.Header.Measurement, len(vc.Pages), timePages)
}

// pageError places a decoding error at its page, naming the chunk; see
// tsfile.CodecError.
func pageError(h *tsfile.ChunkHeader, p *tsfile.Page, what string, err error) error {
	return tsfile.CodecError(p.Header.BodyOffset(), fmt.Sprintf("%s of %s chunk %q (chunk at offset %d)", what, h.DataType, h.Measurement, h.Offset), err)
}

func corruptf(off int64, structure, format string, args ...any) error {
	return &tsfile.FormatError{Offset: off, Structure: structure, Msg: fmt.Sprintf(format, args...), Kind: tsfile.ErrCorrupt}
}

func unsupportedf(off int64, structure, format string, args ...any) error {
	return &tsfile.FormatError{Offset: off, Structure: structure, Msg: fmt.Sprintf(format, args...), Kind: tsfile.ErrUnsupported}
}
