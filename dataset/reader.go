package dataset

import (
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// entry is one device of one file, with its time range from the resource
// (or the file's index), cut to the query's range.
type entry struct {
	df         *dataFile
	dev        tsfile.DeviceID
	start, end int64
}

// unit is a part of the plan read on its own: the files of a unit share no
// device whose time ranges overlap with any file outside it.
type unit struct {
	files   []*dataFile // ascending priority
	entries []entry     // sorted by device, then ascending priority
}

// producer yields batches of the output schema; nil at the end.
type producer interface {
	next() (arrow.RecordBatch, error)
	release()
}

// Reader streams the rows of one table of a Dataset as an
// array.RecordReader. Batches hold at most Options.BatchSize rows.
//
// Files whose devices overlap no other file's in time, and carry no
// deletion for them, stream through arrowconv unchanged (cast where a
// column's type changed). The devices of overlapping files are read one
// device at a time, one source per file, each source's deletions applied,
// and merged by time in the order of Priority; only the sources of a
// device go through the merge, so memory stays about one batch per
// overlapping file.
type Reader struct {
	d      *Dataset
	ts     *tableSchema
	opts   arrowconv.Options
	mem    memory.Allocator
	bs     int
	units  []unit
	ui     int
	prod   producer
	rec    arrow.RecordBatch
	err    error
	stats  ReadStats
	left   int64 // rows still allowed by Limit; -1 for no limit
	opened map[*dataFile]bool
}

// NewReader streams the resolved rows of a table. The options push down
// as for a single file: Columns projects (read only the columns asked for),
// Time and Devices prune files and devices by their resources before any
// footer is read, Where selects devices by their TAG (or device) values,
// Limit stops early. The schema is that of Schema with the same options.
//
// A tree-model table drops a row whose value columns read are all null
// (after deletions and the merge), as IoTDB's tree queries do
// (ignoreAllNullRows); a table-model row stays while its time column is
// not deleted (docs/iotdb-rules.md 2c).
func (d *Dataset) NewReader(table string, o *arrowconv.Options) (*Reader, error) {
	ts, err := d.tableSchema(table, o)
	if err != nil {
		return nil, err
	}
	r := &Reader{d: d, ts: ts, left: -1, opened: map[*dataFile]bool{}}
	if o != nil {
		r.opts = *o
	}
	if r.opts.Limit < 0 {
		return nil, fmt.Errorf("dataset: negative Limit %d", r.opts.Limit)
	}
	if r.opts.Limit > 0 {
		r.left = r.opts.Limit
	}
	r.bs = r.opts.BatchSize
	if r.bs <= 0 {
		r.bs = arrowconv.DefaultBatchSize
	}
	r.opts.BatchSize = r.bs
	r.mem = r.opts.Allocator
	if r.mem == nil {
		r.mem = memory.DefaultAllocator
		r.opts.Allocator = r.mem
	}
	for name := range r.opts.Where {
		i, ok := ts.byNam[name]
		if !ok || !ts.cols[i].konst {
			return nil, fmt.Errorf("dataset: cannot filter table %q on %q: only TAG and device columns can be filtered on", table, name)
		}
	}
	if err := r.plan(); err != nil {
		return nil, err
	}
	return r, nil
}

// plan lists the entries the query needs and groups overlapping files.
func (r *Reader) plan() error {
	var want map[string]bool
	if r.opts.Devices != nil {
		want = map[string]bool{}
		for _, dev := range r.opts.Devices {
			want[dev.String()] = true
		}
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if t := r.opts.Time; t != nil {
		lo, hi = t.Start, t.End
	}
	var entries []entry
	for _, df := range r.ts.files {
		before := len(entries)
		dts, err := r.deviceTimes(df)
		if err != nil {
			return err
		}
		for _, dt := range dts {
			if dt.Device.Table() != r.ts.name || (want != nil && !want[dt.Device.String()]) {
				continue
			}
			s, e := max(dt.Start, lo), min(dt.End, hi)
			if s > e {
				continue
			}
			entries = append(entries, entry{df: df, dev: dt.Device, start: s, end: e})
		}
		if len(entries) == before {
			r.stats.FilesPruned++
		}
	}
	// Files are joined when they hold one device over overlapping times.
	parent := map[*dataFile]*dataFile{}
	var find func(*dataFile) *dataFile
	find = func(f *dataFile) *dataFile {
		p, ok := parent[f]
		if !ok || p == f {
			parent[f] = f
			return f
		}
		root := find(p)
		parent[f] = root
		return root
	}
	union := func(a, b *dataFile) {
		ra, rb := find(a), find(b)
		if ra != rb {
			if rb.idx < ra.idx {
				ra, rb = rb, ra
			}
			parent[rb] = ra
		}
	}
	byDev := map[string][]int{}
	var devs []string
	for i, e := range entries {
		find(e.df)
		k := e.dev.String()
		if _, ok := byDev[k]; !ok {
			devs = append(devs, k)
		}
		byDev[k] = append(byDev[k], i)
	}
	for _, k := range devs {
		idx := byDev[k]
		sort.Slice(idx, func(a, b int) bool { return entries[idx[a]].start < entries[idx[b]].start })
		end := int64(math.MinInt64)
		var cur *dataFile
		for n, i := range idx {
			e := entries[i]
			if n > 0 && e.start <= end {
				union(cur, e.df)
			}
			if n == 0 || e.end > end {
				end = e.end
			}
			cur = e.df
		}
	}
	units := map[*dataFile]*unit{}
	var roots []*dataFile
	for _, e := range entries {
		root := find(e.df)
		u := units[root]
		if u == nil {
			u = &unit{}
			units[root] = u
			roots = append(roots, root)
		}
		u.entries = append(u.entries, e)
	}
	// Groups come in time order (a data directory's time partitions one
	// after another), ties in discovery order.
	first := map[*dataFile]int64{}
	for _, e := range entries {
		root := find(e.df)
		if t, ok := first[root]; !ok || e.start < t {
			first[root] = e.start
		}
	}
	sort.Slice(roots, func(a, b int) bool {
		if first[roots[a]] != first[roots[b]] {
			return first[roots[a]] < first[roots[b]]
		}
		return roots[a].idx < roots[b].idx
	})
	for _, root := range roots {
		u := units[root]
		seen := map[*dataFile]bool{}
		for _, e := range u.entries {
			if !seen[e.df] {
				seen[e.df] = true
				u.files = append(u.files, e.df)
			}
		}
		sort.Slice(u.files, func(a, b int) bool { return lessPriority(u.files[a], u.files[b]) })
		sort.SliceStable(u.entries, func(a, b int) bool {
			if c := u.entries[a].dev.Compare(u.entries[b].dev); c != 0 {
				return c < 0
			}
			return lessPriority(u.entries[a].df, u.entries[b].df)
		})
		r.units = append(r.units, *u)
	}
	return nil
}

// deviceTimes returns a file's device time ranges: its resource's, or for
// a loose file without one those of its index.
func (r *Reader) deviceTimes(df *dataFile) ([]DeviceTimes, error) {
	if df.res != nil {
		return df.res.Devices, nil
	}
	tf, err := r.d.open(df)
	if err != nil {
		return nil, err
	}
	devs, err := tf.Devices(r.ts.name)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", df.Path, err)
	}
	out := make([]DeviceTimes, 0, len(devs))
	for _, dev := range devs {
		series, err := tf.Series(dev)
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: device %s: %w", df.Path, dev, err)
		}
		lo, hi, ok := seriesSpan(series)
		if ok {
			out = append(out, DeviceTimes{Device: dev, Start: lo, End: hi})
		}
	}
	return out, nil
}

// seriesSpan is the time range of a device's series from the index.
func seriesSpan(series []tsfile.TimeseriesMetadata) (lo, hi int64, ok bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	for i := range series {
		s := &series[i]
		if s.IsValueColumn() {
			continue // the time column of an aligned device spans its rows
		}
		for _, c := range s.Chunks {
			lo = min(lo, c.Statistics.StartTime)
			hi = max(hi, c.Statistics.EndTime)
			ok = true
		}
	}
	return lo, hi, ok
}

// Schema returns the schema of every batch.
func (r *Reader) Schema() *arrow.Schema { return r.ts.out }

// Stats returns what the reader did so far.
func (r *Reader) Stats() ReadStats { return r.stats }

// RecordBatch returns the current batch, valid until the next call to Next.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (r *Reader) Record() arrow.RecordBatch { return r.rec }

// Err returns the error that ended the stream, if any.
func (r *Reader) Err() error { return r.err }

// Retain is a no-op: a Reader is owned by its caller.
func (r *Reader) Retain() {}

// Release releases the current batch and the sources still open.
func (r *Reader) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.prod != nil {
		r.prod.release()
		r.prod = nil
	}
	r.ui = len(r.units)
}

// Next advances to the next batch; false at the end or on an error (Err).
func (r *Reader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	for r.err == nil && r.left != 0 {
		if r.prod == nil {
			if r.ui >= len(r.units) {
				return false
			}
			u := &r.units[r.ui]
			r.ui++
			r.prod, r.err = r.startUnit(u)
			continue
		}
		rec, err := r.prod.next()
		if err != nil {
			r.err = err
			break
		}
		if rec == nil {
			r.prod.release()
			r.prod = nil
			continue
		}
		rec, err = r.finish(rec)
		if err != nil {
			r.err = err
			break
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		r.stats.RowsOut += rec.NumRows()
		r.rec = rec
		return true
	}
	if r.prod != nil {
		r.prod.release()
		r.prod = nil
	}
	return false
}

// finish drops the all-null rows of a tree table and applies Limit.
func (r *Reader) finish(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if r.ts.tree {
		out, err := dropAllNull(r.mem, rec, r.valueCols())
		rec.Release()
		if err != nil {
			return nil, err
		}
		rec = out
	}
	if r.left > 0 && rec.NumRows() > r.left {
		s := rec.NewSlice(0, r.left)
		rec.Release()
		rec = s
	}
	if r.left > 0 {
		r.left -= rec.NumRows()
	}
	return rec, nil
}

// valueCols are the output columns that hold values (not time, not
// constant per device).
func (r *Reader) valueCols() []int {
	var out []int
	for k, i := range r.ts.keep {
		if i != 0 && !r.ts.cols[i].konst {
			out = append(out, k)
		}
	}
	return out
}

// dropAllNull removes the rows whose value columns are all null.
func dropAllNull(mem memory.Allocator, rec arrow.RecordBatch, cols []int) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	if len(cols) == 0 || n == 0 {
		rec.Retain()
		return rec, nil
	}
	for _, k := range cols {
		if rec.Column(k).NullN() == 0 {
			rec.Retain()
			return rec, nil
		}
	}
	var keep []span
	start := -1
	for i := 0; i < n; i++ {
		any := false
		for _, k := range cols {
			if rec.Column(k).IsValid(i) {
				any = true
				break
			}
		}
		switch {
		case any && start < 0:
			start = i
		case !any && start >= 0:
			keep = append(keep, span{int64(start), int64(i)})
			start = -1
		}
	}
	if start >= 0 {
		keep = append(keep, span{int64(start), int64(n)})
	}
	return takeRuns(mem, rec, keep)
}

// takeRuns returns the rows of the runs [lo, hi) of rec.
func takeRuns(mem memory.Allocator, rec arrow.RecordBatch, keep []span) (arrow.RecordBatch, error) {
	total := 0
	for _, s := range keep {
		total += int(s.hi - s.lo)
	}
	if total == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil
	}
	if total == 0 {
		return rec.NewSlice(0, 0), nil
	}
	out := make([]arrow.Array, rec.NumCols())
	for k, c := range rec.Columns() {
		ps := make(pieces, 0, len(keep))
		for _, s := range keep {
			ps = append(ps, piece{c, int(s.lo), int(s.hi - s.lo)})
		}
		a, err := concat(mem, c.DataType(), ps, total)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[k] = a
	}
	defer releaseAll(out)
	return array.NewRecordBatch(rec.Schema(), out, int64(total)), nil
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// timesOf returns the stored timestamps of a batch's time column.
func timesOf(rec arrow.RecordBatch) []int64 {
	d := rec.Column(0).Data()
	if d.Len() == 0 {
		return nil
	}
	return arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
}

// conform turns a batch of one file into the output schema: columns in
// output order, those the file lacks null, those whose type changed cast
// to the newest type (docs/iotdb-rules.md 4).
func (r *Reader) conform(df *dataFile, raw arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := raw.NumRows()
	fc := r.ts.fileCols[df]
	out := make([]arrow.Array, len(r.ts.keep))
	for k, i := range r.ts.keep {
		col := &r.ts.cols[i]
		idx := raw.Schema().FieldIndices(col.field.Name)
		if len(idx) == 0 {
			out[k] = array.MakeArrayOfNull(r.mem, col.field.Type, int(n))
			continue
		}
		a := raw.Column(idx[0])
		if arrow.TypeEqual(a.DataType(), col.field.Type) {
			a.Retain()
			out[k] = a
			continue
		}
		from := fc[col.field.Name]
		c, err := castColumn(r.mem, a, from, col.tsType, col.field.Type)
		if err != nil {
			releaseAll(out)
			return nil, fmt.Errorf("dataset: column %q is %s in %s but %s in the newer %s: %w", col.field.Name, from, df.Path, col.tsType, col.from.Path, err)
		}
		out[k] = c
	}
	defer releaseAll(out)
	return array.NewRecordBatch(r.ts.out, out, n), nil
}

// fileOptions are the arrowconv options of a read of df: the projected
// columns the file has (minus those skip names), the time range, the
// devices.
func (r *Reader) fileOptions(df *dataFile, devs []tsfile.DeviceID, lo, hi int64, skip map[string]bool) (*arrowconv.Options, bool) {
	o := r.opts
	fc := r.ts.fileCols[df]
	for name := range r.opts.Where {
		if _, ok := fc[name]; !ok {
			return nil, false // a TAG the file lacks is null: nothing matches
		}
	}
	o.Columns = []string{arrowconv.TimeColumn}
	for _, i := range r.ts.keep[1:] {
		name := r.ts.cols[i].field.Name
		if _, ok := fc[name]; ok && !skip[name] {
			o.Columns = append(o.Columns, name)
		}
	}
	o.Time = &arrowconv.TimeRange{Start: lo, End: hi}
	o.Devices = devs
	o.Limit = 0
	return &o, true
}

// newFileReader opens the arrowconv reader of the table in df.
func (r *Reader) newFileReader(df *dataFile, o *arrowconv.Options) (*arrowconv.Reader, error) {
	tf, err := r.d.open(df)
	if err != nil {
		return nil, err
	}
	if !r.opened[df] {
		r.opened[df] = true
		r.stats.FilesRead++
	}
	var rd *arrowconv.Reader
	if r.ts.tree {
		rd, err = arrowconv.NewTreeReader(tf, r.ts.name, o)
	} else {
		rd, err = arrowconv.NewTableReader(tf, r.ts.name, o)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", df.Path, err)
	}
	return rd, nil
}

// devInfo is what the index says of one device of one file.
type devInfo struct {
	series    []tsfile.TimeseriesMetadata
	aligned   bool
	segmented bool // aligned chunk groups that overlap in time
	dels      *deviceDeletions
}

// inspectDevice reads a device's index entry in df, checks it against the
// resource and resolves its deletions.
func (r *Reader) inspectDevice(e *entry) (*devInfo, error) {
	tf, err := r.d.open(e.df)
	if err != nil {
		return nil, err
	}
	series, err := tf.Series(e.dev)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: device %s: %w", e.df.Path, e.dev, err)
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("dataset: %s lists device %s but %s does not hold it; the resource is stale (read with --raw to ignore resources and mods): %w", e.df.Resource, e.dev, e.df.Path, tsfile.ErrCorrupt)
	}
	info := &devInfo{series: series}
	var timeChunks []tsfile.ChunkMetadata
	for i := range series {
		if series[i].IsTimeColumn() {
			info.aligned = true
			timeChunks = series[i].Chunks
		}
	}
	if e.df.res != nil {
		lo, hi, ok := seriesSpan(series)
		for _, dt := range e.df.res.Devices {
			if dt.Device.Equal(e.dev) && ok && (lo < dt.Start || hi > dt.End) {
				return nil, fmt.Errorf("dataset: %s says device %s spans [%d, %d] but %s holds points over [%d, %d]; IoTDB prunes by the resource and would miss points, so the read stops (read with --raw to ignore resources and mods): %w", e.df.Resource, e.dev, dt.Start, dt.End, e.df.Path, lo, hi, tsfile.ErrCorrupt)
			}
		}
	}
	if len(timeChunks) > 1 {
		cs := append([]tsfile.ChunkMetadata(nil), timeChunks...)
		sort.Slice(cs, func(a, b int) bool { return cs[a].Offset < cs[b].Offset })
		end := cs[0].Statistics.EndTime
		for _, c := range cs[1:] {
			if c.Statistics.StartTime <= end {
				info.segmented = true
			}
			end = max(end, c.Statistics.EndTime)
		}
	}
	info.dels, err = deletionsFor(e.df, e.dev, series, info.aligned)
	if err != nil {
		return nil, err
	}
	return info, nil
}

// startUnit returns the producer of a unit.
func (r *Reader) startUnit(u *unit) (producer, error) {
	if len(u.files) == 1 {
		// A file alone streams whole when none of its devices needs work.
		df := u.files[0]
		whole := true
		for i := range u.entries {
			info, err := r.inspectDevice(&u.entries[i])
			if err != nil {
				return nil, err
			}
			if info.segmented || !info.dels.empty() {
				whole = false
				break
			}
		}
		if whole {
			lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
			if t := r.opts.Time; t != nil {
				lo, hi = t.Start, t.End
			}
			o, ok := r.fileOptions(df, r.opts.Devices, lo, hi, nil)
			if !ok {
				return nil, nil
			}
			if r.left > 0 {
				o.Limit = r.left
			}
			rd, err := r.newFileReader(df, o)
			if err != nil {
				return nil, err
			}
			return &fileStream{r: r, df: df, rd: rd}, nil
		}
	}
	return &deviceSeq{r: r, u: u}, nil
}

// fileStream streams a whole file through arrowconv.
type fileStream struct {
	r  *Reader
	df *dataFile
	rd *arrowconv.Reader
}

func (s *fileStream) next() (arrow.RecordBatch, error) {
	if !s.rd.Next() {
		if err := s.rd.Err(); err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", s.df.Path, err)
		}
		return nil, nil
	}
	raw := s.rd.RecordBatch()
	s.r.stats.RowsRead += raw.NumRows()
	return s.r.conform(s.df, raw)
}

func (s *fileStream) release() { s.rd.Release() }

// deviceSeq reads the devices of a unit one after another; each device's
// entries whose times overlap are merged.
type deviceSeq struct {
	r   *Reader
	u   *unit
	i   int // next entry
	cur producer
}

func (s *deviceSeq) next() (arrow.RecordBatch, error) {
	for {
		if s.cur != nil {
			rec, err := s.cur.next()
			if err != nil || rec != nil {
				return rec, err
			}
			s.cur.release()
			s.cur = nil
		}
		if s.i >= len(s.u.entries) {
			return nil, nil
		}
		// The entries of the next device, then its clusters of entries
		// overlapping in time, in time order.
		j := s.i + 1
		for j < len(s.u.entries) && s.u.entries[j].dev.Equal(s.u.entries[s.i].dev) {
			j++
		}
		group := append([]entry(nil), s.u.entries[s.i:j]...)
		s.i = j
		p, err := s.r.deviceProducer(group)
		if err != nil {
			return nil, err
		}
		s.cur = p
	}
}

func (s *deviceSeq) release() {
	if s.cur != nil {
		s.cur.release()
		s.cur = nil
	}
}

// chain yields the batches of producers one after another.
type chain struct {
	ps []producer
}

func (c *chain) next() (arrow.RecordBatch, error) {
	for len(c.ps) > 0 {
		rec, err := c.ps[0].next()
		if err != nil || rec != nil {
			return rec, err
		}
		c.ps[0].release()
		c.ps = c.ps[1:]
	}
	return nil, nil
}

func (c *chain) release() {
	for _, p := range c.ps {
		p.release()
	}
	c.ps = nil
}

// deviceProducer builds the producer of one device's entries (ascending
// priority): clusters of entries overlapping in time are merged, the
// clusters follow each other in time.
func (r *Reader) deviceProducer(group []entry) (producer, error) {
	ranks := make([]int, len(group)) // ascending priority = ascending rank
	for i := range group {
		ranks[i] = i
	}
	order := make([]int, len(group))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return group[order[a]].start < group[order[b]].start })
	var clusters [][]int
	end := int64(math.MinInt64)
	for n, i := range order {
		if n == 0 || group[i].start > end {
			clusters = append(clusters, nil)
			end = group[i].end
		}
		clusters[len(clusters)-1] = append(clusters[len(clusters)-1], i)
		end = max(end, group[i].end)
	}
	c := &chain{}
	for _, cl := range clusters {
		sort.Ints(cl) // ascending priority
		var srcs []*cursor
		for _, i := range cl {
			ss, err := r.deviceSources(&group[i], ranks[i]*1_000_000)
			if err != nil {
				c.release()
				for _, s := range srcs {
					s.release()
				}
				return nil, err
			}
			srcs = append(srcs, ss...)
		}
		switch len(srcs) {
		case 0:
		case 1:
			c.ps = append(c.ps, srcs[0].src)
		default:
			c.ps = append(c.ps, &merger{r: r, curs: srcs})
		}
	}
	return c, nil
}

// deviceSources opens the sources of one device of one file: usually one,
// several when the file's chunk groups of the device overlap in time.
func (r *Reader) deviceSources(e *entry, rank int) ([]*cursor, error) {
	info, err := r.inspectDevice(e)
	if err != nil {
		return nil, err
	}
	lo, hi := e.start, e.end
	// Whole-row deletions covering either end of the range narrow it, so
	// that arrowconv skips the chunks and pages they cover unread.
	for changed := true; changed && lo <= hi; {
		changed = false
		for _, s := range info.dels.rows {
			if s.lo <= lo && lo <= s.hi {
				if s.hi == math.MaxInt64 {
					lo, hi = 1, 0
				} else {
					lo = s.hi + 1
				}
				changed = true
			}
			if lo <= hi && s.lo <= hi && hi <= s.hi {
				if s.lo == math.MinInt64 {
					lo, hi = 1, 0
				} else {
					hi = s.lo - 1
				}
				changed = true
			}
		}
	}
	if lo > hi {
		for i := range info.series {
			if info.series[i].IsTimeColumn() || !info.aligned {
				r.stats.RowsDeleted += info.series[i].Statistics.Count
				if info.aligned {
					break
				}
			}
		}
		return nil, nil
	}
	// A column deleted over the whole range is not read: its cells are null.
	skip := map[string]bool{}
	for name, ss := range info.dels.cols {
		if covers(ss, lo, hi) {
			skip[name] = true
		}
	}
	o, ok := r.fileOptions(e.df, []tsfile.DeviceID{e.dev}, lo, hi, skip)
	if !ok {
		return nil, nil
	}
	rd, err := r.newFileReader(e.df, o)
	if err != nil {
		return nil, err
	}
	src := &devSource{r: r, df: e.df, dev: e.dev, rd: rd, dels: info.dels, last: math.MinInt64}
	if !info.segmented {
		return []*cursor{{src: src, rank: rank}}, nil
	}
	return r.segments(src, rank)
}

// devSource reads one device of one file: conformed, its deletions applied,
// and checked to be in time order (the merge relies on it).
type devSource struct {
	r    *Reader
	df   *dataFile
	dev  tsfile.DeviceID
	rd   *arrowconv.Reader
	dels *deviceDeletions
	last int64
	raw  bool // segments: no deletions, no order check
}

func (s *devSource) next() (arrow.RecordBatch, error) {
	for {
		if !s.rd.Next() {
			if err := s.rd.Err(); err != nil {
				return nil, fmt.Errorf("dataset: %s: %w", s.df.Path, err)
			}
			return nil, nil
		}
		raw := s.rd.RecordBatch()
		s.r.stats.RowsRead += raw.NumRows()
		rec, err := s.r.conform(s.df, raw)
		if err != nil {
			return nil, err
		}
		if s.raw {
			return rec, nil
		}
		times := timesOf(rec)
		for i, t := range times {
			if t <= s.last {
				rec.Release()
				return nil, fmt.Errorf("dataset: %s: device %s has a row at time %d after one at %d although its chunk statistics do not overlap: %w", s.df.Path, s.dev, t, s.last, tsfile.ErrCorrupt)
			}
			s.last = times[i]
		}
		out, err := applyDeletions(s.r.mem, rec, times, s.dels, &s.r.stats)
		rec.Release()
		if err != nil {
			return nil, err
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		return out, nil
	}
}

func (s *devSource) release() { s.rd.Release() }

// memSource yields one batch it holds.
type memSource struct{ rec arrow.RecordBatch }

func (m *memSource) next() (arrow.RecordBatch, error) {
	rec := m.rec
	m.rec = nil
	return rec, nil
}

func (m *memSource) release() {
	if m.rec != nil {
		m.rec.Release()
		m.rec = nil
	}
}

// segments reads a device whose chunk groups overlap in time (several
// flushes into one unsequence file) whole, and cuts its rows, in the order
// of the file, into runs of rising time. A later run was written later, so
// it has the higher priority (the larger chunk offset, docs/iotdb-rules.md
// 1a); the merge then resolves the runs like files. This holds one
// device's rows of one file in memory.
func (r *Reader) segments(src *devSource, rank int) ([]*cursor, error) {
	src.raw = true
	defer src.release()
	var held []arrow.RecordBatch
	defer func() {
		for _, h := range held {
			h.Release()
		}
	}()
	total := 0
	for {
		rec, err := src.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		held = append(held, rec)
		total += int(rec.NumRows())
	}
	if total == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, len(r.ts.keep))
	for k := range cols {
		var ps pieces
		for _, h := range held {
			ps.add(h.Column(k), 0, int(h.NumRows()))
		}
		a, err := concat(r.mem, r.ts.out.Field(k).Type, ps, total)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols[k] = a
	}
	whole := array.NewRecordBatch(r.ts.out, cols, int64(total))
	releaseAll(cols)
	defer whole.Release()
	times := timesOf(whole)
	var out []*cursor
	start := 0
	for i := 1; i <= total; i++ {
		if i < total && times[i] > times[i-1] {
			continue
		}
		seg := whole.NewSlice(int64(start), int64(i))
		rec, err := applyDeletions(r.mem, seg, times[start:i], src.dels, &r.stats)
		seg.Release()
		if err != nil {
			for _, c := range out {
				c.release()
			}
			return nil, err
		}
		out = append(out, &cursor{src: &memSource{rec: rec}, rank: rank + len(out)})
		start = i
	}
	return out, nil
}
