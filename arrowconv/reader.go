package arrowconv

import (
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/bitmap"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Reader streams rows of a TsFile as Arrow record batches. It implements
// array.RecordReader; every batch but the last holds exactly
// Options.BatchSize rows, and a batch may span pages and devices.
//
// A Reader reads the file lazily: one device's chunks at a time for aligned
// devices. It is not safe for concurrent use; readers of the same File may
// run in parallel.
type Reader struct {
	refs   atomic.Int64
	f      *tsfile.File
	opts   Options
	schema *arrow.Schema
	lay    *layout

	tables []string          // index roots still to visit, in order
	devs   []tsfile.DeviceID // devices of the current table still to visit

	// Builders of the batch being assembled: time, the per-device constant
	// columns, then the value columns, in schema order.
	time   *fixedBuilder[int64]
	consts []*binaryBuilder
	fields []valueBuilder

	dev      tsfile.DeviceID
	constVal []constValue
	aligned  *alignedCursor
	merged   *mergedDevice

	pd   tsfile.PayloadDecoder
	pend *pending // finished rows not yet handed out
	cur  arrow.RecordBatch
	err  error
	done bool
}

type constValue struct {
	v  string
	ok bool
}

// NewTableReader streams the rows of a table-model table: devices in index
// order, rows in time order within a device (chunk groups are taken in
// order of their first timestamp; overlapping chunk groups of one device are
// not merged). The schema is the one TableSchema returns.
func NewTableReader(f *tsfile.File, table string, opts *Options) (*Reader, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	l, err := tableLayout(f, table)
	if err != nil {
		return nil, err
	}
	return newReader(f, l, []string{table}, opts), nil
}

func newReader(f *tsfile.File, l *layout, tables []string, opts *Options) *Reader {
	o := opts.withDefaults()
	r := &Reader{f: f, opts: o, lay: l, tables: tables, schema: l.arrowSchema(o.TimeUnit)}
	r.refs.Store(1)
	r.newBuilders()
	return r
}

func (r *Reader) newBuilders() {
	mem, limit := r.opts.Allocator, r.opts.BatchSize
	r.time = newFixed(colBase{mem: mem, limit: limit}, r.schema.Field(0).Type, encoding.DecodeInt64, nil)
	r.consts = make([]*binaryBuilder, len(r.lay.consts))
	for i := range r.consts {
		r.consts[i] = newStringBuilder(mem, limit)
	}
	r.fields = make([]valueBuilder, len(r.lay.fields))
	for i, c := range r.lay.fields {
		r.fields[i] = newValueBuilder(mem, c.dataType, r.schema.Field(1+len(r.consts)+i).Type, limit)
	}
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
		r.time.release()
		r.time = nil
	}
	for _, b := range r.consts {
		b.release()
	}
	r.consts = nil
	for _, b := range r.fields {
		b.release()
	}
	r.fields = nil
	r.aligned = nil
	if r.merged != nil {
		r.merged.release()
		r.merged = nil
	}
}

// Schema returns the schema of every record.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

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
	r.cur = r.pend.next(r.schema, r.opts.BatchSize)
	if r.pend.off == r.pend.rows {
		r.pend.release()
		r.pend = nil
	}
	return true
}

// RecordBatch returns the current batch, valid until the next call to Next
// or Release; Retain it to keep it longer.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: Use RecordBatch instead.
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// Err returns the error that ended the stream, if any. Errors about the
// file wrap tsfile.ErrCorrupt or tsfile.ErrUnsupported.
func (r *Reader) Err() error { return r.err }

// step does one unit of work: one aligned page, one slice of a merged
// device, or moving to the next device.
func (r *Reader) step() error {
	switch {
	case r.aligned != nil:
		return r.stepAligned()
	case r.merged != nil:
		return r.stepMerged()
	}
	dev, ok, err := r.nextDevice()
	if err != nil {
		return err
	}
	if !ok {
		r.flush(true)
		r.done = true
		r.releaseState()
		return nil
	}
	return r.startDevice(dev)
}

// nextDevice returns the next device in index order, across tables.
func (r *Reader) nextDevice() (tsfile.DeviceID, bool, error) {
	for len(r.devs) == 0 {
		if len(r.tables) == 0 {
			return tsfile.DeviceID{}, false, nil
		}
		devs, err := r.f.Devices(r.tables[0])
		if err != nil {
			return tsfile.DeviceID{}, false, err
		}
		r.tables = r.tables[1:]
		r.devs = devs
	}
	d := r.devs[0]
	r.devs = r.devs[1:]
	return d, true, nil
}

// startDevice reads the series of dev and prepares to stream its rows.
func (r *Reader) startDevice(dev tsfile.DeviceID) error {
	series, err := r.f.Series(dev)
	if err != nil {
		return err
	}
	r.dev = dev
	if err := r.setConstValues(dev); err != nil {
		return err
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
	k := int(min(max(rows, 0), int64(r.opts.BatchSize-r.time.Len())))
	r.time.reserve(k)
	for _, b := range r.consts {
		b.reserve(k)
	}
	for _, b := range r.fields {
		b.reserve(k)
	}
}

// appendConsts appends k rows of the current device's constant columns.
func (r *Reader) appendConsts(k int) error {
	for i, b := range r.consts {
		if err := b.appendConst(r.constVal[i].v, r.constVal[i].ok, k); err != nil {
			return err
		}
	}
	return nil
}

// maybeFlush turns every complete batch held by the builders into a record.
func (r *Reader) maybeFlush() {
	if r.time.Len() >= r.opts.BatchSize {
		r.flush(false)
	}
}

// flush hands the rows held over to the pending batches: every full batch
// and, when final, the remaining rows. Rows past the last full batch stay
// in the builders for the next one.
func (r *Reader) flush(final bool) {
	n, size := r.time.Len(), r.opts.BatchSize
	cut := n - n%size
	if final {
		cut = n
	}
	if cut == 0 {
		return
	}
	p := &pending{rows: cut, data: make([]arrow.ArrayData, 0, 1+len(r.consts)+len(r.fields))}
	p.data = append(p.data, r.time.finish(cut))
	for _, b := range r.consts {
		p.data = append(p.data, b.finish(cut))
	}
	for _, b := range r.fields {
		p.data = append(p.data, b.finish(cut))
	}
	r.pend = p
}

// pending holds finished columns of one or more batches. A page decoded
// past the batch size ends up here whole; its batches are cut from it as
// they are asked for, as slices sharing its buffers, so that a large page
// read in small batches costs neither copies nor a queue of records.
type pending struct {
	data []arrow.ArrayData
	off  int // first row not yet handed out
	rows int
}

// next returns the record of the next size rows.
func (p *pending) next(schema *arrow.Schema, size int) arrow.RecordBatch {
	end := min(p.off+size, p.rows)
	cols := make([]arrow.Array, len(p.data))
	for i, d := range p.data {
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
		d.Release()
	}
	p.data = nil
}

// alignedCursor is the position within an aligned device: the chunk set
// being read and its next page.
type alignedCursor struct {
	sets   []tsfile.AlignedChunkSet
	time   *tsfile.Chunk
	values []*tsfile.Chunk // by field index; nil where the set has no chunk
	page   int
}

// stepAligned appends the rows of the next aligned page.
func (r *Reader) stepAligned() error {
	c := r.aligned
	if c.time == nil {
		if len(c.sets) == 0 {
			r.aligned = nil
			return nil
		}
		if err := r.loadSet(c.sets[0]); err != nil {
			return err
		}
		c.sets = c.sets[1:]
	}
	tc, i := c.time, c.page
	payload, err := r.pd.Payload(tc, i)
	if err != nil {
		return err
	}
	count, err := appendTimes(r.time, tc.Header.Encoding, payload, tc.Pages[i].Header.BodyOffset(), r.f.Options().MaxPagePoints)
	if err != nil {
		return pageError(&tc.Header, &tc.Pages[i], "aligned time page", err)
	}
	if err := r.appendConsts(count); err != nil {
		return err
	}
	for j, b := range r.fields {
		vc := c.values[j]
		if vc == nil || len(vc.Pages) == 0 || vc.Pages[i].Header.Empty() {
			b.appendNulls(count)
			continue
		}
		p := &vc.Pages[i]
		payload, err := r.pd.Payload(vc, i)
		if err != nil {
			return err
		}
		n, present, values, err := tsfile.SplitValuePage(payload, p.Header.BodyOffset())
		if err != nil {
			return err
		}
		if n != count {
			return corruptf(p.Header.BodyOffset(), "aligned value page", "position_count %d of %q differs from the time page's %d timestamps", n, vc.Header.Measurement, count)
		}
		if bitmap.AllSetMSB(present, n) {
			present = nil
		}
		if err := b.appendPage(vc.Header.Encoding, present, n, values); err != nil {
			return pageError(&vc.Header, p, "aligned value page", err)
		}
	}
	c.page++
	if c.page == len(tc.Pages) {
		c.time, c.values, c.page = nil, nil, 0
	}
	r.maybeFlush()
	return nil
}

// loadSet reads the time chunk of set and the value chunks of the columns
// being read, checking that they belong together.
func (r *Reader) loadSet(set tsfile.AlignedChunkSet) error {
	tc, err := r.f.ReadChunk(set.Time.Offset)
	if err != nil {
		return err
	}
	if !tc.Header.IsTimeChunk() {
		return corruptf(tc.Header.Offset, "chunk header", "time series of device %s points at a chunk with marker 0x%02x", r.dev, tc.Header.Marker)
	}
	values := make([]*tsfile.Chunk, len(r.fields))
	for name, cm := range set.Values {
		j, ok := r.lay.byName[name]
		if !ok {
			continue // a series the table schema does not list
		}
		vc, err := r.f.ReadChunk(cm.Offset)
		if err != nil {
			return err
		}
		h := &vc.Header
		if !h.IsValueChunk() || h.Measurement != name || h.DataType != r.lay.fields[j].dataType {
			return corruptf(h.Offset, "chunk header", "expected the %s value chunk of %q, found marker 0x%02x %q %s", r.lay.fields[j].dataType, name, h.Marker, h.Measurement, h.DataType)
		}
		if len(vc.Pages) != 0 && len(vc.Pages) != len(tc.Pages) {
			return corruptf(h.Offset, "chunk header", "value chunk %q has %d pages, its time chunk %d", name, len(vc.Pages), len(tc.Pages))
		}
		values[j] = vc
	}
	r.aligned.time, r.aligned.values, r.aligned.page = tc, values, 0
	return nil
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
