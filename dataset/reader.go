package dataset

import (
	"fmt"
	"maps"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/scan"
	"github.com/tsarrow/tsarrow/tsfile"
)

// entry is one device of one file, with its time range from the resource
// (or the file's index), cut to the query's range.
type entry struct {
	df         *dataFile
	dev        tsfile.DeviceID
	start, end int64
	full       bool // the query's range holds the device's whole range
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
// column's type changed). Overlapping files are read once each, device by
// device, each file's deletions applied to its own rows, and merged by
// time in the order of Priority; memory stays about a batch per file the
// merge is in. Batches are cut where a device ends or a long run of one
// file goes out uncopied, so they may hold fewer rows than BatchSize.
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
	// objects reads OBJECT columns' bytes (Options.ObjectBytes) once the
	// rows are resolved, so that no object of a deleted or overwritten
	// row is read (IoTDB deletes an object's file with its row); nil
	// for references. out is the schema then.
	objects *arrowconv.ObjectLoader
	out     *arrow.Schema
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
		// arrowconv's default: released batch buffers are reused.
		r.mem = scan.DefaultPool
		r.opts.Allocator = r.mem
	}
	r.out = ts.out
	if r.opts.ObjectBytes {
		root := r.opts.ObjectRoot
		if root == nil {
			root = d.ObjectRoot()
		}
		r.objects = &arrowconv.ObjectLoader{Root: root, MaxSize: r.opts.MaxObjectSize, Mem: r.mem}
		r.out = arrowconv.ObjectBytesSchema(ts.out)
		// The files are read as references, loaded at the end.
		r.opts.ObjectBytes = false
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
			want[dev.Key()] = true
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
			if dt.Device.Table() != r.ts.name || (want != nil && !want[dt.Device.Key()]) {
				continue
			}
			s, e := max(dt.Start, lo), min(dt.End, hi)
			if s > e {
				continue
			}
			entries = append(entries, entry{df: df, dev: dt.Device, start: s, end: e, full: lo <= dt.Start && dt.End <= hi})
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
		k := e.dev.Key()
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
func (r *Reader) Schema() *arrow.Schema { return r.out }

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
			p, err := r.startUnit(u)
			if err != nil {
				r.err = err
				break
			}
			r.prod = p
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
		if r.objects != nil {
			out, err := r.objects.Load(rec)
			rec.Release()
			if err != nil {
				r.err = err
				break
			}
			rec = out
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
		if err != nil {
			rec.Release()
			return nil, err
		}
		r.stats.RowsDropped += rec.NumRows() - out.NumRows()
		rec.Release()
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
		switch {
		case i == 0:
			// The time column, first in every read, under the file's
			// own name for it.
			idx = []int{0}
		case len(idx) > 0 && idx[0] == 0:
			// A column named as this file names its time column (a
			// FIELD "time" of newer files, this one without a TIME
			// column): the file does not have it.
			idx = nil
		}
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
	own := false // o.Where is a copy fileOptions may change
	for name, v := range r.opts.Where {
		if _, ok := fc[name]; ok {
			continue
		}
		// A TAG the file lacks is null for all its devices: no value
		// matches, and IS NULL (arrowconv.NullTag) holds for every one,
		// so the file is read without that condition, which arrowconv
		// could not resolve against its schema.
		if _, null := arrowconv.ParseWhereValue(v); !null {
			return nil, false
		}
		if !own {
			o.Where, own = maps.Clone(r.opts.Where), true
		}
		delete(o.Where, name)
	}
	o.Columns = []string{r.ts.fileTime[df]}
	for _, i := range r.ts.keep[1:] {
		name := r.ts.cols[i].field.Name
		if _, ok := fc[name]; ok && !skip[name] {
			o.Columns = append(o.Columns, name)
		}
	}
	// A range that holds every row read leaves arrowconv on its fast path
	// (whole chunks streamed), rather than fetching pages one by one.
	o.Time = nil
	if lo != math.MinInt64 || hi != math.MaxInt64 {
		o.Time = &arrowconv.TimeRange{Start: lo, End: hi}
	}
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
		if j, found := e.df.resIdx[e.dev.Key()]; found && ok {
			dt := e.df.res.Devices[j]
			if lo < dt.Start || hi > dt.End {
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
		// Otherwise it is read device by device; the devices already
		// looked at keep their index entries, so each is read once.
		df := u.files[0]
		infos := map[string]*devInfo{} // by DeviceID.Key
		for i := range u.entries {
			e := &u.entries[i]
			info, err := r.inspectDevice(e)
			if err != nil {
				return nil, err
			}
			infos[e.dev.Key()] = info
			if info.segmented || !info.dels.empty() {
				return &deviceSeq{r: r, u: u, sources: func(e *entry, rank int) ([]*cursor, error) {
					return r.deviceSources(e, rank, infos[e.dev.Key()])
				}}, nil
			}
		}
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
	us, err := r.newUnitStreams(u)
	if err != nil {
		return nil, err // not a nil *unitStreams in a non-nil producer
	}
	return us, nil
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
// entries whose times overlap are merged. sources opens the cursors of an
// entry: per-device readers (deviceSources) or views of file streams.
type deviceSeq struct {
	r       *Reader
	u       *unit
	i       int // next entry
	cur     producer
	sources func(e *entry, rank int) ([]*cursor, error)
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
		group := s.u.entries[s.i:j]
		s.i = j
		p, err := s.r.deviceProducer(group, s.sources)
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
func (r *Reader) deviceProducer(group []entry, sources func(e *entry, rank int) ([]*cursor, error)) (producer, error) {
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
			ss, err := sources(&group[i], ranks[i]*1_000_000)
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
func (r *Reader) deviceSources(e *entry, rank int, info *devInfo) ([]*cursor, error) {
	if info == nil {
		var err error
		if info, err = r.inspectDevice(e); err != nil {
			return nil, err
		}
	}
	lo, hi := e.start, e.end
	if e.full {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	// Whole-row deletions covering either end of the range narrow it, so
	// that arrowconv skips the chunks and pages they cover unread (unless
	// every deleted row is to be counted).
	count := r.d.opts.CountDeletions
	for changed := !count; changed && lo <= hi; {
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
		// The whole device is deleted in this file: count its rows from
		// the statistics, when the query asked for all of them.
		if e.full {
			r.countDeletedDevice(info)
		}
		return nil, nil
	}
	// A column deleted over the whole range is not read: its cells are null.
	skip := map[string]bool{}
	for name, ss := range info.dels.cols {
		if !count && covers(ss, lo, hi) {
			skip[name] = true
		}
	}
	if info.segmented {
		// Every row of every chunk group is read, so that the rows of
		// each group can be told by its count (see segments).
		o, ok := r.fileOptions(e.df, []tsfile.DeviceID{e.dev}, math.MinInt64, math.MaxInt64, skip)
		if !ok {
			return nil, nil
		}
		rd, err := r.newFileReader(e.df, o)
		if err != nil {
			return nil, err
		}
		src := &devSource{r: r, df: e.df, dev: e.dev, rd: rd, dels: info.dels, raw: true}
		src.open = func(int64, int64) (*arrowconv.Reader, error) { return nil, nil }
		return r.segments(src, e.df, e.dev, info.dels, rank, info, lo, hi)
	}
	ranges := []span{{lo, hi}}
	if !count {
		ranges = splitRange(lo, hi, uint64(min(hi, e.end)-max(lo, e.start)), info.dels.rows)
	}
	src := &devSource{r: r, df: e.df, dev: e.dev, dels: info.dels, last: math.MinInt64, ranges: ranges}
	src.open = func(lo, hi int64) (*arrowconv.Reader, error) {
		o, ok := r.fileOptions(e.df, []tsfile.DeviceID{e.dev}, lo, hi, skip)
		if !ok {
			return nil, nil
		}
		return r.newFileReader(e.df, o)
	}
	return []*cursor{{src: src, rank: rank}}, nil
}

// splitRange cuts [lo, hi] around the large whole-row deletions inside it
// (each at least 1/64 of width, the span of the device's data, at most 15
// of them), so that arrowconv reads each remaining part alone and skips the
// chunks and pages the deletions cover. Smaller deletions are filtered
// after decoding.
func splitRange(lo, hi int64, width uint64, rows []span) []span {
	var cuts []span
	for _, s := range rows {
		if s.lo > lo && s.hi < hi && uint64(s.hi-s.lo) >= width/64 {
			cuts = append(cuts, s)
		}
	}
	if len(cuts) > 15 {
		sort.Slice(cuts, func(i, j int) bool { return uint64(cuts[i].hi-cuts[i].lo) > uint64(cuts[j].hi-cuts[j].lo) })
		cuts = cuts[:15]
		sort.Slice(cuts, func(i, j int) bool { return cuts[i].lo < cuts[j].lo })
	}
	out := make([]span, 0, len(cuts)+1)
	at := lo
	for _, c := range cuts {
		out = append(out, span{at, c.lo - 1})
		at = c.hi + 1
	}
	return append(out, span{at, hi})
}

// countDeletedDevice counts the rows of a device a deletion removes whole
// from a file, from its statistics.
func (r *Reader) countDeletedDevice(info *devInfo) {
	for i := range info.series {
		if info.series[i].IsTimeColumn() || !info.aligned {
			r.stats.RowsDeleted += info.series[i].Statistics.Count
			if info.aligned {
				return
			}
		}
	}
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
	// ranges are the time ranges still to read, each by a reader open
	// returns (nil when the file cannot match the query).
	ranges []span
	open   func(lo, hi int64) (*arrowconv.Reader, error)
}

func (s *devSource) next() (arrow.RecordBatch, error) {
	for {
		if s.rd == nil {
			if len(s.ranges) == 0 {
				return nil, nil
			}
			g := s.ranges[0]
			s.ranges = s.ranges[1:]
			rd, err := s.open(g.lo, g.hi)
			if err != nil {
				return nil, err
			}
			if rd == nil {
				continue
			}
			s.rd = rd
		}
		if !s.rd.Next() {
			if err := s.rd.Err(); err != nil {
				return nil, fmt.Errorf("dataset: %s: %w", s.df.Path, err)
			}
			s.rd.Release()
			s.rd = nil
			continue
		}
		out, err := s.r.settle(s.df, s.dev, s.rd.RecordBatch(), s.raw, &s.last, s.dels, math.MinInt64, math.MaxInt64)
		if err != nil || out != nil {
			return out, err
		}
	}
}

// settle turns a batch of one device of df, as arrowconv read it, into
// what the merge takes: conformed to the table's schema and, unless raw,
// checked to rise in time after *last, cut to [lo, hi] and with df's
// deletions applied. nil (and no error) when no row is left.
func (r *Reader) settle(df *dataFile, dev tsfile.DeviceID, raw arrow.RecordBatch, rawOut bool, last *int64, dels *deviceDeletions, lo, hi int64) (arrow.RecordBatch, error) {
	r.stats.RowsRead += raw.NumRows()
	rec, err := r.conform(df, raw)
	if err != nil || rawOut {
		return rec, err
	}
	times := timesOf(rec)
	prev := *last
	for _, t := range times {
		if t <= prev {
			rec.Release()
			return nil, fmt.Errorf("dataset: %s: device %s has a row at time %d after one at %d although its chunk statistics do not overlap: %w", df.Path, dev, t, prev, tsfile.ErrCorrupt)
		}
		prev = t
	}
	*last = prev
	if n := len(times); n > 0 && (times[0] < lo || times[n-1] > hi) {
		a, b := rangeIn(times, span{lo, hi})
		cut := rec.NewSlice(int64(a), int64(b))
		rec.Release()
		rec, times = cut, times[a:b]
	}
	out, err := applyDeletions(r.mem, rec, times, dels, &r.stats)
	rec.Release()
	if err != nil {
		return nil, err
	}
	if out.NumRows() == 0 {
		out.Release()
		return nil, nil
	}
	return out, nil
}

func (s *devSource) release() {
	if s.rd != nil {
		s.rd.Release()
		s.rd = nil
	}
	s.ranges = nil
}

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
// flushes into one unsequence file) whole and cuts its rows into one
// source per chunk group. arrowconv returns the groups in order of their
// start time (ties in file order), each group's rows whole, so the rows of
// a group are the next Count rows of its time chunk. A group written later
// (its time chunk at a larger offset) has the higher priority
// (docs/iotdb-rules.md 1a); the merge then resolves the groups like files.
// Each group keeps the rows in [lo, hi] (the query's range). This holds one
// device's rows of one file in memory.
func (r *Reader) segments(src producer, df *dataFile, dev tsfile.DeviceID, dels *deviceDeletions, rank int, info *devInfo, lo, hi int64) ([]*cursor, error) {
	defer src.release()
	sets, err := tsfile.AlignedChunkSets(info.series)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: device %s: %w", df.Path, dev, err)
	}
	byOffset := make([]int, len(sets)) // rank of each set: its place in file order
	for i := range byOffset {
		byOffset[i] = i // AlignedChunkSets keeps the time chunks' file order
	}
	order := make([]int, len(sets))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return sets[order[a]].Time.Statistics.StartTime < sets[order[b]].Time.Statistics.StartTime
	})
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
	var want int64
	for _, s := range sets {
		want += s.Time.Statistics.Count
	}
	if total > 0 && int64(total) != want { // 0: Where left the device out
		return nil, fmt.Errorf("dataset: %s: device %s: read %d rows but its time chunks count %d: %w", df.Path, dev, total, want, tsfile.ErrCorrupt)
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
	fail := func(err error) ([]*cursor, error) {
		for _, c := range out {
			c.release()
		}
		return nil, err
	}
	at := 0
	for _, i := range order {
		n := int(sets[i].Time.Statistics.Count)
		seg := times[at : at+n]
		for j := 1; j < n; j++ {
			if seg[j] <= seg[j-1] {
				return fail(fmt.Errorf("dataset: %s: device %s: the chunk group at %d is not in time order: %w", df.Path, dev, sets[i].Time.Offset, tsfile.ErrCorrupt))
			}
		}
		a, b := rangeIn(seg, span{lo, hi})
		if a < b {
			part := whole.NewSlice(int64(at+a), int64(at+b))
			rec, err := applyDeletions(r.mem, part, seg[a:b], dels, &r.stats)
			part.Release()
			if err != nil {
				return fail(err)
			}
			out = append(out, &cursor{src: &memSource{rec: rec}, rank: rank + byOffset[i]})
		}
		at += n
	}
	return out, nil
}
