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
	src   producer
	rank  int
	rec   arrow.RecordBatch
	times []int64
	pos   int
	done  bool
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
	r    *Reader
	curs []*cursor
	held []arrow.RecordBatch
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
	}()
	r := m.r
	ncol := len(r.ts.keep)
	konst := make([]bool, ncol)
	for k, i := range r.ts.keep {
		konst[k] = r.ts.cols[i].konst
	}
	cols := make([]pieces, ncol)
	out := 0
	var constRec arrow.RecordBatch
	constRank := math.MinInt
	var at []*cursor
	for out < r.bs {
		live := m.curs[:0]
		for _, c := range m.curs {
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
		if len(live) == 0 {
			break
		}
		minT := int64(math.MaxInt64)
		var top *cursor
		cnt := 0
		for _, c := range live {
			t := c.times[c.pos]
			switch {
			case t < minT:
				minT, top, cnt = t, c, 1
			case t == minT:
				cnt++
				if c.rank > top.rank {
					top = c
				}
			}
			if c.rank > constRank {
				constRank, constRec = c.rank, c.rec
			}
		}
		if cnt == 1 {
			nextT := int64(math.MaxInt64)
			for _, c := range live {
				if c != top && c.times[c.pos] < nextT {
					nextT = c.times[c.pos]
				}
			}
			lim := min(len(top.times), top.pos+r.bs-out)
			end := lim
			if nextT != math.MaxInt64 {
				ts := top.times[top.pos:lim]
				end = top.pos + sort.Search(len(ts), func(k int) bool { return ts[k] >= nextT })
			}
			n := end - top.pos
			for k := range cols {
				if !konst[k] {
					cols[k].add(top.rec.Column(k), top.pos, n)
				}
			}
			out += n
			top.pos = end
			continue
		}
		at = at[:0]
		for _, c := range live {
			if c.times[c.pos] == minT {
				at = append(at, c)
			}
		}
		sort.Slice(at, func(a, b int) bool { return at[a].rank > at[b].rank })
		for k := range cols {
			if konst[k] {
				continue
			}
			win := at[0]
			if k != 0 {
				for _, c := range at {
					if c.rec.Column(k).IsValid(c.pos) {
						win = c
						break
					}
				}
			}
			cols[k].add(win.rec.Column(k), win.pos, 1)
		}
		r.stats.RowsOverwritten += int64(len(at) - 1)
		out++
		for _, c := range at {
			c.pos++
		}
	}
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
	r.stats.RowsMerged += int64(out)
	return array.NewRecordBatch(r.ts.out, arrs, int64(out)), nil
}

func (m *merger) release() {
	for _, c := range m.curs {
		c.release()
	}
	m.curs = nil
	for _, h := range m.held {
		h.Release()
	}
	m.held = nil
}
