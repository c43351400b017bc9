package dataset

import (
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// cursor is a source of one device in the merge: a file (or a run of rising
// times of one file) with the rank of its priority, higher winning.
type cursor struct {
	src  producer
	rank int
	// startT is a bound below the source's first time (its resource's);
	// a lazy cursor is loaded only once the merge reaches it, so that the
	// sources of a device spread over many files hold no batch before
	// their turn.
	startT int64
	lazy   bool
	rec    arrow.RecordBatch
	times  []int64
	pos    int
	done   bool
}

func (c *cursor) release() {
	if c.rec != nil {
		c.rec.Release()
		c.rec = nil
	}
	c.src.release()
}

// merger merges the sources of one device by time. Of the copies of a row
// at one time the highest-ranked is kept, and each of its null cells takes
// the value of the highest-ranked copy that has one in that column: IoTDB's
// AlignedPriorityMergeReader (fillNullValueInAligned), which for a
// non-aligned device, whose "null" is a series without a point, is
// PriorityMergeReader per series (docs/iotdb-rules.md 1b, 2a).
//
// Where one source alone holds the smallest time, its rows up to the next
// time of another source are taken as one run, so a file that overlaps
// others only in places costs little more than a plain read.
type merger struct {
	r     *Reader
	curs  []*cursor
	held  []arrow.RecordBatch
	wait  []*cursor // lazy sources not loaded yet, by start
	konst []bool    // output columns constant per device
	cols  []pieces  // reused from batch to batch
	at    []*cursor
	zc    int               // zeroCopyRun for the batch size
	posOf map[*cursor][]int // patchWindow's rewritten rows per source
	ws    []rewrite
	wsTmp []rewrite
	tmp   []arrow.Array // filled runs the current batch's pieces point into
}

// admit loads the waiting sources whose start the merge has reached: no
// loaded source holds a time below it.
func (m *merger) admit() error {
	for len(m.wait) > 0 {
		c := m.wait[0]
		if len(m.curs) > 0 {
			minT := int64(math.MaxInt64)
			for _, x := range m.curs {
				minT = min(minT, x.times[x.pos])
			}
			if c.startT > minT {
				return nil
			}
		}
		m.wait = m.wait[1:]
		ok, err := m.fill(c)
		if err != nil {
			return err
		}
		if ok {
			m.curs = append(m.curs, c)
		} else {
			c.release()
		}
	}
	return nil
}

// waitT is the start of the next waiting source, MaxInt64 for none.
func (m *merger) waitT() int64 {
	if len(m.wait) == 0 {
		return math.MaxInt64
	}
	return m.wait[0].startT
}

// fill makes sure c has a current row, loading its next batch; false when
// it is exhausted.
func (m *merger) fill(c *cursor) (bool, error) {
	for !c.done && (c.rec == nil || c.pos >= len(c.times)) {
		if c.rec != nil {
			m.held = append(m.held, c.rec) // pieces may still point into it
			c.rec, c.times = nil, nil
		}
		rec, err := c.src.next()
		if err != nil {
			return false, err
		}
		if rec == nil {
			c.done = true
			break
		}
		c.rec, c.times, c.pos = rec, timesOf(rec), 0
	}
	return !c.done, nil
}

func (m *merger) next() (arrow.RecordBatch, error) {
	defer func() {
		for _, h := range m.held {
			h.Release()
		}
		m.held = m.held[:0]
		releaseAll(m.tmp)
		m.tmp = m.tmp[:0]
	}()
	r := m.r
	ncol := len(r.ts.keep)
	if m.konst == nil {
		m.konst = make([]bool, ncol)
		for k, i := range r.ts.keep {
			m.konst[k] = r.ts.cols[i].konst
		}
		m.cols = make([]pieces, ncol)
		// Load every source once, later only the ones that moved; lazy
		// ones wait, in the order of their start, until the merge
		// reaches them.
		live := m.curs[:0]
		for _, c := range m.curs {
			if c.lazy {
				m.wait = append(m.wait, c)
				continue
			}
			ok, err := m.fill(c)
			if err != nil {
				return nil, err
			}
			if ok {
				live = append(live, c)
			} else {
				c.release()
			}
		}
		m.curs = live
		sort.SliceStable(m.wait, func(a, b int) bool { return m.wait[a].startT < m.wait[b].startT })
	}
	konst, cols := m.konst, m.cols
	if m.zc == 0 {
		m.zc = max(1, min(zeroCopyRun, r.bs/4))
	}
	for k := range cols {
		cols[k] = cols[k][:0]
	}
	out := 0
	// The constant columns (TAGs) come from the highest source rows were
	// taken from; it is kept (retained) as sources move on.
	var constRec arrow.RecordBatch
	constRank := math.MinInt
	useConst := func(c *cursor) {
		if c.rank > constRank {
			if constRec != nil {
				constRec.Release()
			}
			constRank, constRec = c.rank, c.rec
			constRec.Retain()
		}
	}
	defer func() {
		if constRec != nil {
			constRec.Release()
		}
	}()
	if err := m.admit(); err != nil {
		return nil, err
	}
	if len(m.curs) >= 2 {
		rec, ok, err := m.patchWindow()
		if err != nil || ok {
			return rec, err
		}
	}
	at := m.at
	for out < r.bs {
		if err := m.admit(); err != nil {
			return nil, err
		}
		if len(m.curs) == 0 {
			break
		}
		live := m.curs
		waitT := m.waitT()
		minT := int64(math.MaxInt64)
		var top *cursor
		cnt := 0
		for _, c := range live {
			t := c.times[c.pos]
			switch {
			case t < minT:
				minT, top, cnt = t, c, 1
			case t == minT:
				cnt++ // resolved below, by rank
			}
		}
		if cnt == 1 {
			// top alone holds the smallest time: take its rows up to the
			// next time of another source in one run.
			nextT := waitT
			for _, c := range live {
				if c != top && c.times[c.pos] < nextT {
					nextT = c.times[c.pos]
				}
			}
			lim := min(len(top.times), top.pos+r.bs-out)
			end := lim
			if nextT <= top.times[lim-1] {
				end = top.pos + searchFrom(top.times[top.pos:lim], nextT)
			}
			n := end - top.pos
			useConst(top)
			if n >= m.zc {
				// A long run goes out as a slice of its batch, uncopied;
				// what was gathered before it goes first.
				if out > 0 {
					break
				}
				rec := top.rec.NewSlice(int64(top.pos), int64(end))
				top.pos = end
				if err := m.advanced(top); err != nil {
					rec.Release()
					return nil, err
				}
				r.stats.RowsMerged += int64(n)
				return rec, nil
			}
			for k := range cols {
				if !konst[k] {
					cols[k].add(top.rec.Column(k), top.pos, n)
				}
			}
			out += n
			top.pos = end
			if err := m.advanced(top); err != nil {
				return nil, err
			}
			continue
		}
		// Several sources hold minT: rank them, highest first, and take
		// the run of times they all hold in step (a block rewritten by a
		// later file), up to the next time of any other source.
		at = at[:0]
		nextT := waitT
		for _, c := range live {
			if c.times[c.pos] == minT {
				at = append(at, c)
			} else if c.times[c.pos] < nextT {
				nextT = c.times[c.pos]
			}
		}
		if len(at) == 2 {
			if at[1].rank > at[0].rank {
				at[0], at[1] = at[1], at[0]
			}
		} else {
			sort.Slice(at, func(a, b int) bool { return at[a].rank > at[b].rank })
		}
		n := 1
		lim := r.bs - out
		for _, c := range at {
			lim = min(lim, len(c.times)-c.pos)
		}
	run:
		for n < lim {
			t := at[0].times[at[0].pos+n]
			if t >= nextT {
				break
			}
			for _, c := range at[1:] {
				if c.times[c.pos+n] != t {
					break run
				}
			}
			n++
		}
		win := at[0]
		useConst(win)
		if n >= m.zc && win.fullRows(n) {
			if out > 0 {
				break
			}
			rec := win.rec.NewSlice(int64(win.pos), int64(win.pos+n))
			r.stats.RowsOverwritten += int64((len(at) - 1) * n)
			r.stats.RowsMerged += int64(n)
			for _, c := range at {
				c.pos += n
			}
			for _, c := range at {
				if err := m.advanced(c); err != nil {
					rec.Release()
					return nil, err
				}
			}
			return rec, nil
		}
		for k := range cols {
			if konst[k] {
				continue
			}
			a := win.rec.Column(k)
			if k == 0 || noNullsIn(a, win.pos, n) {
				cols[k].add(a, win.pos, n)
				continue
			}
			if n < 64 {
				// Cell by cell: each null takes the highest copy's value.
				for i := 0; i < n; i++ {
					src := win
					for _, c := range at {
						if c.rec.Column(k).IsValid(c.pos + i) {
							src = c
							break
						}
					}
					cols[k].add(src.rec.Column(k), src.pos+i, 1)
				}
				continue
			}
			// A long run: copied once, each null filled from the highest
			// copy that has a value, copy after copy, highest first.
			filled := a
			filled.Retain()
			off := win.pos
			for _, c := range at[1:] {
				if noNullsIn(filled, off, n) {
					break
				}
				next, err := fillFrom(r.mem, filled, off, n, c.rec.Column(k), c.pos)
				filled.Release()
				if err != nil {
					return nil, err
				}
				filled, off = next, 0
			}
			m.tmp = append(m.tmp, filled)
			cols[k].add(filled, off, n)
		}
		r.stats.RowsOverwritten += int64((len(at) - 1) * n)
		out += n
		for _, c := range at {
			c.pos += n
		}
		for _, c := range at {
			if err := m.advanced(c); err != nil {
				return nil, err
			}
		}
	}
	m.at = at
	if out == 0 {
		return nil, nil
	}
	arrs := make([]arrow.Array, ncol)
	defer releaseAll(arrs)
	for k := range arrs {
		var err error
		if konst[k] {
			arrs[k], err = constArray(r.mem, constRec.Column(k), 0, out)
		} else {
			arrs[k], err = concat(r.mem, r.ts.out.Field(k).Type, cols[k], out)
		}
		if err != nil {
			return nil, err
		}
	}
	for k := range cols {
		clear(cols[k]) // drop the references to released batches
	}
	r.stats.RowsMerged += int64(out)
	return array.NewRecordBatch(r.ts.out, arrs, int64(out)), nil
}

// advanced loads c's next batch when it has used up the current one, and
// drops it from the merge when it is exhausted.
func (m *merger) advanced(c *cursor) error {
	if c.pos < len(c.times) {
		return nil
	}
	ok, err := m.fill(c)
	if err != nil {
		return err
	}
	if !ok {
		for i, x := range m.curs {
			if x == c {
				m.curs = append(m.curs[:i], m.curs[i+1:]...)
				break
			}
		}
		c.release()
	}
	return nil
}

// zeroCopyRun is the length from which a run of one source's rows goes
// out as a slice of its batch rather than copied into a merged batch: long
// enough that the smaller batches it makes cost less than the copy.
const zeroCopyRun = 1024

// fullRows reports whether the value columns of c's next n rows hold no
// null, so that no lower copy can fill a cell of them.
func (c *cursor) fullRows(n int) bool {
	for k, a := range c.rec.Columns() {
		if k > 0 && !noNullsIn(a, c.pos, n) {
			return false
		}
	}
	return true
}

// searchFrom returns the first index of sorted ts holding a time >= t, by
// galloping from the start: the runs between rewritten points are short.
func searchFrom(ts []int64, t int64) int {
	hi := 1
	for hi < len(ts) && ts[hi] < t {
		hi *= 2
	}
	lo := hi / 2
	hi = min(hi, len(ts))
	return lo + sort.Search(hi-lo, func(k int) bool { return ts[lo+k] >= t })
}

func (m *merger) release() {
	for _, c := range m.curs {
		c.release()
	}
	for _, c := range m.wait {
		c.release()
	}
	m.wait = nil
	m.curs = nil
	for _, h := range m.held {
		h.Release()
	}
	m.held = nil
}

// patchWindow is the merge where the sources of higher rank only rewrite
// rows the current source holds (out-of-order writes that correct points,
// the common case of sequence and unsequence files): the next window of
// the current source's batch is the output, its cells at the rewritten
// times replaced, higher copies after lower ones, with no per-run
// gathering. ok is false when the window does not qualify (a higher
// source holds a time the current one lacks, or rewrites too much of the
// window to pay, or nothing); the general merge then runs.
func (m *merger) patchWindow() (arrow.RecordBatch, bool, error) {
	r := m.r
	// b holds the smallest time (of equal ones the lowest rank): the base.
	var b *cursor
	for _, c := range m.curs {
		if b == nil || c.times[c.pos] < b.times[b.pos] || (c.times[c.pos] == b.times[b.pos] && c.rank < b.rank) {
			b = c
		}
	}
	bEnd := min(len(b.times), b.pos+r.bs)
	if w := m.waitT(); w <= b.times[bEnd-1] {
		// A source not loaded yet may hold times from w on.
		bEnd = b.pos + searchFrom(b.times[b.pos:bEnd], w)
	}
	ups := m.at[:0]
	for _, c := range m.curs {
		switch {
		case c == b:
		case c.rank < b.rank:
			// A lower source's rows would have to be merged in: the
			// window stops before its next time.
			bEnd = b.pos + searchFrom(b.times[b.pos:bEnd], c.times[c.pos])
		default:
			ups = append(ups, c)
		}
	}
	m.at = ups
	if bEnd <= b.pos || len(ups) == 0 {
		return nil, false, nil
	}
	// A higher source whose batch ends inside the window may hold more of
	// the window's times in its next batch: the window stops at its last.
	for _, u := range ups {
		if last := u.times[len(u.times)-1]; last < b.times[bEnd-1] {
			bEnd = b.pos + searchFrom(b.times[b.pos:bEnd], last+1)
		}
	}
	if bEnd <= b.pos {
		return nil, false, nil
	}
	n := bEnd - b.pos
	tLast := b.times[bEnd-1]
	if m.posOf == nil {
		m.posOf = map[*cursor][]int{}
	}
	total := 0
	for _, u := range ups {
		if u.times[u.pos] < b.times[b.pos] {
			return nil, false, nil // a row to insert before the window
		}
		pos := m.posOf[u][:0]
		i := b.pos
		for _, t := range u.times[u.pos:] {
			if t > tLast {
				break
			}
			i += searchFrom(b.times[i:bEnd], t)
			if i >= bEnd || b.times[i] != t {
				m.posOf[u] = pos
				return nil, false, nil // a row to insert
			}
			pos = append(pos, i-b.pos)
			i++
		}
		m.posOf[u] = pos
		total += len(pos)
	}
	if total == 0 || total*2 > n {
		return nil, false, nil // nothing to patch (a run), or too dense to pay
	}
	// The writes in row order, lower copies before higher ones at a row,
	// so that the highest copy's value is written last.
	sort.Slice(ups, func(x, y int) bool { return ups[x].rank < ups[y].rank })
	// Each source's writes are in row order already: merge them, the
	// lower source's first where two write one row.
	ws := m.ws[:0]
	for k, u := range ups {
		mid := len(ws)
		for j, p := range m.posOf[u] {
			ws = append(ws, rewrite{pos: p, src: k, row: u.pos + j})
		}
		if mid > 0 && mid < len(ws) && ws[mid].pos < ws[mid-1].pos {
			ws = mergeWrites(ws, mid, &m.wsTmp)
		}
	}
	m.ws = ws
	arrs := make([]arrow.Array, len(r.ts.keep))
	defer releaseAll(arrs)
	overs := make([]arrow.Array, len(ups))
	for c := range arrs {
		if c == 0 || m.konst[c] {
			arrs[c] = array.NewSlice(b.rec.Column(c), int64(b.pos), int64(bEnd))
			continue
		}
		for k, u := range ups {
			overs[k] = u.rec.Column(c)
		}
		a, err := patch(r.mem, b.rec.Column(c), b.pos, n, overs, ws)
		if err != nil {
			return nil, false, err
		}
		arrs[c] = a
	}
	r.stats.RowsOverwritten += int64(total)
	r.stats.RowsMerged += int64(n)
	rec := array.NewRecordBatch(r.ts.out, arrs, int64(n))
	b.pos = bEnd
	for _, u := range ups {
		u.pos += len(m.posOf[u])
	}
	for _, c := range append([]*cursor{b}, ups...) {
		if err := m.advanced(c); err != nil {
			rec.Release()
			return nil, false, err
		}
	}
	return rec, true, nil
}

// mergeWrites merges the sorted runs ws[:mid] and ws[mid:] by row, the
// first run's write first at equal rows, using tmp as scratch.
func mergeWrites(ws []rewrite, mid int, tmp *[]rewrite) []rewrite {
	a := append((*tmp)[:0], ws[:mid]...)
	*tmp = a
	b := ws[mid:]
	out := ws[:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if b[j].pos < a[i].pos {
			out = append(out, b[j]) // out never overtakes b: it lags by len(a)-i
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
