package dataset

import (
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/tsfile"
)

// span is a closed range of deleted times.
type span struct{ lo, hi int64 }

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(s []span) []span {
	if len(s) < 2 {
		return s
	}
	sort.Slice(s, func(i, j int) bool { return s[i].lo < s[j].lo })
	out := s[:1]
	for _, x := range s[1:] {
		last := &out[len(out)-1]
		if x.lo <= last.hi || (last.hi != math.MaxInt64 && x.lo == last.hi+1) {
			if x.hi > last.hi {
				last.hi = x.hi
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// covers reports whether one span holds all of [a, b].
func covers(s []span, a, b int64) bool {
	for _, x := range s {
		if x.lo <= a && b <= x.hi {
			return true
		}
	}
	return false
}

// deviceDeletions are the deletions of one file's mods that hit one device,
// resolved against the chunks they apply to: rows deletes whole rows (the
// aligned time column, measurement ""), cols the cells of one column.
type deviceDeletions struct {
	rows []span
	cols map[string][]span
}

func (dd *deviceDeletions) empty() bool { return len(dd.rows) == 0 && len(dd.cols) == 0 }

// deletionsFor resolves the deletions of df's mods for a device whose
// series the file's index lists. A v1 deletion hits only chunks whose
// header lies below its offset (docs/iotdb-rules.md 3b): it is cut to the
// time ranges of those chunks, which is exact as long as the chunks it
// hits do not overlap in time with those it spares; where they do, the
// points cannot be told apart after decoding and the read fails rather
// than guess. IoTDB: ModificationUtils.modifyChunkMetaData and
// modifyAlignedChunkMetaData (1.x and 2.x).
func deletionsFor(df *dataFile, dev tsfile.DeviceID, series []tsfile.TimeseriesMetadata, aligned bool) (*deviceDeletions, error) {
	dd := &deviceDeletions{}
	if df.mods == nil {
		return dd, nil
	}
	var rel []*Deletion
	for i := range df.mods.Deletions {
		if df.mods.Deletions[i].AffectsDevice(dev) {
			rel = append(rel, &df.mods.Deletions[i])
		}
	}
	if len(rel) == 0 {
		return dd, nil
	}
	for si := range series {
		ts := &series[si]
		col := ts.Measurement
		if ts.IsTimeColumn() {
			col = ""
		} else if aligned && col == "" {
			continue
		}
		var spans []span
		for _, d := range rel {
			if !d.AffectsMeasurement(dev, col) {
				continue
			}
			s, err := chunkSpans(df, dev, col, d, ts.Chunks)
			if err != nil {
				return nil, err
			}
			spans = append(spans, s...)
		}
		if len(spans) == 0 {
			continue
		}
		spans = mergeSpans(spans)
		if ts.IsTimeColumn() {
			dd.rows = spans
		} else {
			if dd.cols == nil {
				dd.cols = map[string][]span{}
			}
			dd.cols[col] = spans
		}
	}
	// A cell of a row deleted whole is not deleted again.
	for name, ss := range dd.cols {
		if ss = subtractSpans(ss, dd.rows); len(ss) == 0 {
			delete(dd.cols, name)
		} else {
			dd.cols[name] = ss
		}
	}
	if len(dd.cols) == 0 {
		dd.cols = nil
	}
	return dd, nil
}

// subtractSpans returns the parts of a (sorted, merged) not in b (same).
func subtractSpans(a, b []span) []span {
	if len(b) == 0 {
		return a
	}
	var out []span
	for _, x := range a {
		for _, y := range b {
			if y.hi < x.lo || y.lo > x.hi {
				continue
			}
			if y.lo > x.lo {
				out = append(out, span{x.lo, y.lo - 1})
			}
			if y.hi >= x.hi {
				x.lo, x.hi = 1, 0 // used up
				break
			}
			x.lo = y.hi + 1
		}
		if x.lo <= x.hi {
			out = append(out, x)
		}
	}
	return out
}

// chunkSpans returns the times d deletes from a series with these chunks.
func chunkSpans(df *dataFile, dev tsfile.DeviceID, col string, d *Deletion, chunks []tsfile.ChunkMetadata) ([]span, error) {
	lo, ok1 := d.lo()
	hi, ok2 := d.hi()
	if !ok1 || !ok2 || lo > hi {
		return nil, nil
	}
	all := true
	for _, c := range chunks {
		if !d.AppliesToChunk(c.Offset) {
			all = false
			break
		}
	}
	if all {
		return []span{{lo, hi}}, nil
	}
	var hit, spared []span
	for _, c := range chunks {
		st := c.Statistics
		r := span{max(lo, st.StartTime), min(hi, st.EndTime)}
		if r.lo > r.hi {
			continue
		}
		if d.AppliesToChunk(c.Offset) {
			hit = append(hit, r)
		} else {
			spared = append(spared, span{st.StartTime, st.EndTime})
		}
	}
	for _, h := range hit {
		for _, s := range spared {
			if h.lo <= s.hi && s.lo <= h.hi {
				name := dev.String()
				if col != "" {
					name += "." + col
				}
				return nil, fmt.Errorf("dataset: %s: the deletion %s of %s applies to some chunks of %s and not to others that overlap them in time, which this reader cannot apply point by point; read with --raw to ignore deletions: %w", df.Path, d, df.modsPath, name, tsfile.ErrUnsupported)
			}
		}
	}
	return hit, nil
}

// rangeIn returns the rows [i, j) of sorted times that lie in s.
func rangeIn(times []int64, s span) (int, int) {
	i := sort.Search(len(times), func(k int) bool { return times[k] >= s.lo })
	j := i + sort.Search(len(times)-i, func(k int) bool { return times[i+k] > s.hi })
	return i, j
}

// applyDeletions drops the deleted rows of a batch of one device (times
// ascending) and nulls its deleted cells. It returns rec itself (retained)
// when nothing is deleted.
func applyDeletions(mem memory.Allocator, rec arrow.RecordBatch, times []int64, dd *deviceDeletions, stats *ReadStats) (arrow.RecordBatch, error) {
	n := len(times)
	if n == 0 || dd.empty() {
		rec.Retain()
		return rec, nil
	}
	t0, t1 := times[0], times[n-1]
	var keep []span // row index runs [lo, hi) to keep
	dropped := 0
	at := 0
	for _, s := range dd.rows {
		if s.hi < t0 || s.lo > t1 {
			continue
		}
		i, j := rangeIn(times, s)
		if i >= j {
			continue
		}
		if i > at {
			keep = append(keep, span{int64(at), int64(i)})
		}
		dropped += j - i
		at = j
	}
	cols := rec.Columns()
	var nulled map[int][]span
	for name, ss := range dd.cols {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) == 0 || idx[0] == 0 {
			// Column 0 is the time column, never a deleted series,
			// though a file may name it as another names a FIELD.
			continue
		}
		for _, s := range ss {
			if s.hi < t0 || s.lo > t1 {
				continue
			}
			i, j := rangeIn(times, s)
			if i < j {
				if nulled == nil {
					nulled = map[int][]span{}
				}
				nulled[idx[0]] = append(nulled[idx[0]], span{int64(i), int64(j)})
			}
		}
	}
	if dropped == 0 && nulled == nil {
		rec.Retain()
		return rec, nil
	}
	out := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for k, c := range cols {
		if ss, ok := nulled[k]; ok {
			a, cleared := withNulls(mem, c, ss)
			stats.CellsDeleted += int64(cleared)
			out[k] = a
		} else {
			c.Retain()
			out[k] = c
		}
	}
	if dropped > 0 {
		if at < n {
			keep = append(keep, span{int64(at), int64(n)})
		}
		stats.RowsDeleted += int64(dropped)
		total := n - dropped
		for k, c := range out {
			ps := make(pieces, 0, len(keep))
			for _, r := range keep {
				ps = append(ps, piece{c, int(r.lo), int(r.hi - r.lo)})
			}
			a, err := concat(mem, c.DataType(), ps, total)
			if err != nil {
				return nil, err
			}
			c.Release()
			out[k] = a
		}
		return array.NewRecordBatch(rec.Schema(), out, int64(total)), nil
	}
	return array.NewRecordBatch(rec.Schema(), out, int64(n)), nil
}

// withNulls returns a copy of arr's data with the rows of the runs null,
// and how many valid cells became null.
func withNulls(mem memory.Allocator, arr arrow.Array, runs []span) (arrow.Array, int) {
	d := arr.Data()
	n := d.Len()
	v := memory.NewResizableBuffer(mem)
	v.Resize(int(bitutil.BytesForBits(int64(n))))
	if b := d.Buffers()[0]; b != nil && arr.NullN() > 0 {
		bitutil.CopyBitmap(b.Bytes(), d.Offset(), n, v.Bytes(), 0)
	} else {
		bitutil.SetBitsTo(v.Bytes(), 0, int64(n), true)
	}
	before := bitutil.CountSetBits(v.Bytes(), 0, n)
	for _, r := range runs {
		bitutil.SetBitsTo(v.Bytes(), r.lo, r.hi-r.lo, false)
	}
	after := bitutil.CountSetBits(v.Bytes(), 0, n)
	bufs := append([]*memory.Buffer{v}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), n-after, d.Offset())
	// The validity buffer starts at row 0 while the others keep d's
	// offset, so the copy above used offset 0: rebase it.
	if d.Offset() != 0 {
		nd.Release()
		shifted := memory.NewResizableBuffer(mem)
		shifted.Resize(int(bitutil.BytesForBits(int64(d.Offset() + n))))
		bitutil.CopyBitmap(v.Bytes(), 0, n, shifted.Bytes(), d.Offset())
		bufs[0] = shifted
		nd = array.NewData(d.DataType(), n, bufs, d.Children(), n-after, d.Offset())
		shifted.Release()
	}
	if dict := d.Dictionary(); dict != nil {
		nd.SetDictionary(dict)
	}
	v.Release()
	a := array.MakeFromData(nd)
	nd.Release()
	return a, before - after
}
