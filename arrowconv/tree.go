package arrowconv

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TreeSchema returns the Arrow schema of the devices of tree-model tables
// (index roots without a table schema; all of them when tables is nil):
// "time", "device" (utf8, the DeviceID's dotted String()), then the union of
// the measurement names of those devices, ordered by the file offset of
// each measurement's first chunk, which reproduces the order the writer
// first wrote them in. Types map as in TableSchema. A measurement name with
// two different types in two devices is an error, as one column cannot
// hold both.
func TreeSchema(f *tsfile.File, tables []string, opts *Options) (*arrow.Schema, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	l, _, err := treeLayout(f, tables)
	if err != nil {
		return nil, err
	}
	return l.arrowSchema(o.TimeUnit), nil
}

// NewTreeReader streams the rows of tree-model tables (as for TreeSchema):
// tables in sorted order, devices in index order, and for each device its
// series outer-joined on time, null where a series has no point at that
// time, in time order. Aligned devices are streamed page by page like
// table-model devices; each non-aligned device is decoded whole and merged.
func NewTreeReader(f *tsfile.File, tables []string, opts *Options) (*Reader, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	l, tables, err := treeLayout(f, tables)
	if err != nil {
		return nil, err
	}
	return newReader(f, l, tables, opts), nil
}

// mergedDevice is a non-aligned device decoded in full: the union of its
// series' timestamps and, per output column, the decoded series with the
// row it contributes to each merged timestamp.
//
// Materialising the device keeps the outer join simple; streaming the
// series chunk by chunk through a k-way merge is the way to bound memory
// for very long devices.
type mergedDevice struct {
	times []int64
	pos   int           // next merged row to emit
	srcs  []mergeSource // by field index
}

type mergeSource struct {
	col valueBuilder // nil when the device lacks the column
	idx []int32      // per merged row: the row of col, or -1
}

func (m *mergedDevice) release() {
	for i := range m.srcs {
		if m.srcs[i].col != nil {
			m.srcs[i].col.release()
			m.srcs[i].col = nil
		}
	}
}

// mergeDevice decodes the non-aligned series of the current device and
// joins them on time.
func (r *Reader) mergeDevice(series []tsfile.TimeseriesMetadata) (m *mergedDevice, err error) {
	m = &mergedDevice{srcs: make([]mergeSource, len(r.fields))}
	var times []*fixedBuilder[int64]
	var used []int // field index of each entry of times
	defer func() {
		for _, t := range times {
			t.release()
		}
		if err != nil {
			m.release()
		}
	}()
	mem := r.opts.Allocator
	for i := range series {
		s := &series[i]
		j, ok := r.lay.byName[s.Measurement]
		if !ok {
			continue
		}
		if m.srcs[j].col != nil {
			return m, corruptf(s.Offset, "timeseries metadata", "device %s has two series named %q", r.dev, s.Measurement)
		}
		// No batch-size cap: a source holds a whole series.
		base := colBase{mem: mem, limit: math.MaxInt}
		tb := newFixed(base, arrow.PrimitiveTypes.Int64, encoding.DecodeInt64, nil)
		times = append(times, tb)
		used = append(used, j)
		col := newValueBuilder(mem, s.DataType, r.schema.Field(1+len(r.consts)+j).Type, math.MaxInt)
		m.srcs[j].col = col
		if err := r.readSeries(s, tb, col); err != nil {
			return m, err
		}
	}
	lists := make([][]int64, len(times))
	orders := make([][]int32, len(times))
	for i, tb := range times {
		lists[i] = tb.data()[:tb.Len()]
		orders[i] = sortedOrder(lists[i])
	}
	m.times = unionTimes(lists, orders)
	for i, j := range used {
		m.srcs[j].idx = joinIndex(m.times, lists[i], orders[i])
	}
	return m, nil
}

// readSeries decodes every point of a non-aligned series into tb and col.
func (r *Reader) readSeries(s *tsfile.TimeseriesMetadata, tb *fixedBuilder[int64], col valueBuilder) error {
	o := r.f.Options()
	for _, cm := range s.Chunks {
		c, err := r.f.ReadChunk(cm.Offset)
		if err != nil {
			return err
		}
		h := &c.Header
		if h.IsAligned() || h.Measurement != s.Measurement || h.DataType != s.DataType {
			return corruptf(h.Offset, "chunk header", "expected the non-aligned %s chunk of %q, found marker 0x%02x %q %s", s.DataType, s.Measurement, h.Marker, h.Measurement, h.DataType)
		}
		for i := range c.Pages {
			p := &c.Pages[i]
			payload, err := r.pd.Payload(c, i)
			if err != nil {
				return err
			}
			ts, vs, err := tsfile.SplitNonAlignedPage(payload, p.Header.BodyOffset())
			if err != nil {
				return err
			}
			n, err := appendTimes(tb, o.NonAlignedTimeEncoding, ts, p.Header.BodyOffset(), o.MaxPagePoints)
			if err != nil {
				return pageError(h, p, "non-aligned page time stream", err)
			}
			if err := col.appendPage(h.Encoding, nil, n, vs); err != nil {
				return pageError(h, p, "non-aligned page value stream", err)
			}
		}
	}
	return nil
}

// stepMerged appends the next rows of the merged device, no more than the
// current batch has room for.
func (r *Reader) stepMerged() error {
	m := r.merged
	k := min(len(m.times)-m.pos, r.opts.BatchSize-r.time.Len())
	r.time.appendSlice(m.times[m.pos : m.pos+k])
	if err := r.appendConsts(k); err != nil {
		return err
	}
	for j, b := range r.fields {
		s := &m.srcs[j]
		if s.col == nil {
			b.appendNulls(k)
			continue
		}
		if err := b.gather(s.col, s.idx[m.pos:m.pos+k]); err != nil {
			return err
		}
	}
	m.pos += k
	if m.pos == len(m.times) {
		m.release()
		r.merged = nil
	}
	r.maybeFlush()
	return nil
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

// at returns the i-th timestamp of a series in time order.
func at(ts []int64, ord []int32, i int) int64 {
	if ord == nil {
		return ts[i]
	}
	return ts[ord[i]]
}

// points returns how many distinct timestamps a series has.
func points(ts []int64, ord []int32) int {
	if ord == nil {
		return len(ts)
	}
	return len(ord)
}

// unionTimes returns the sorted distinct timestamps of all series.
func unionTimes(lists [][]int64, orders [][]int32) []int64 {
	total := 0
	for i := range lists {
		total += points(lists[i], orders[i])
	}
	out := make([]int64, 0, total)
	appended := 0
	for i, ts := range lists {
		if i > 0 && orders[i] == nil && orders[0] == nil && slices.Equal(ts, lists[0]) {
			continue // series that share every timestamp, the usual case
		}
		for k := range points(ts, orders[i]) {
			out = append(out, at(ts, orders[i], k))
		}
		appended++
	}
	if appended > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// joinIndex maps each merged timestamp to the row of the series holding it,
// or -1.
func joinIndex(merged, ts []int64, ord []int32) []int32 {
	idx := make([]int32, len(merged))
	p, n := 0, points(ts, ord)
	for row, t := range merged {
		idx[row] = -1
		if p < n && at(ts, ord, p) == t {
			if ord == nil {
				idx[row] = int32(p)
			} else {
				idx[row] = ord[p]
			}
			p++
		}
	}
	return idx
}
