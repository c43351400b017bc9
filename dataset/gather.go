package dataset

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/internal/scan"
)

// piece is a run of rows of one column: arr[off : off+n].
type piece struct {
	arr    arrow.Array
	off, n int
}

// pieces collects the runs of one output column, joining a run that
// continues the previous one.
type pieces []piece

func (ps *pieces) add(arr arrow.Array, off, n int) {
	if k := len(*ps); k > 0 {
		last := &(*ps)[k-1]
		if last.arr == arr && last.off+last.n == off {
			last.n += n
			return
		}
	}
	*ps = append(*ps, piece{arr, off, n})
}

// concat builds one array of type dt from the runs, total rows long. The
// merge produces many short runs where rows are rewritten, so the common
// layouts (fixed width, booleans, strings and binaries) are copied here
// directly; others go through array.Concatenate of slices.
func concat(mem memory.Allocator, dt arrow.DataType, ps pieces, total int) (arrow.Array, error) {
	if len(ps) == 0 {
		return array.MakeArrayOfNull(mem, dt, 0), nil
	}
	if len(ps) == 1 && ps[0].off == 0 && ps[0].n == ps[0].arr.Len() {
		ps[0].arr.Retain()
		return ps[0].arr, nil
	}
	var nulls int
	var validity *memory.Buffer
	for _, p := range ps {
		if p.arr.NullN() > 0 {
			validity = memory.NewResizableBuffer(mem)
			validity.Resize(int(bitutil.BytesForBits(int64(total))))
			break
		}
	}
	if validity != nil {
		dst := validity.Bytes()
		pos := 0
		for _, p := range ps {
			d := p.arr.Data()
			if p.arr.NullN() == 0 || d.Buffers()[0] == nil {
				bitutil.SetBitsTo(dst, int64(pos), int64(p.n), true)
			} else {
				bitutil.CopyBitmap(d.Buffers()[0].Bytes(), d.Offset()+p.off, p.n, dst, pos)
			}
			pos += p.n
		}
		nulls = total - bitutil.CountSetBits(dst, 0, total)
	}
	var bufs []*memory.Buffer
	var dict arrow.ArrayData
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		// One device's rows share their dictionary: copy the indices.
		dict = ps[0].arr.Data().Dictionary()
		w := t.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
		for _, p := range ps {
			if p.arr.Data().Dictionary() != dict {
				return concatSlices(mem, ps, validity)
			}
		}
		bufs = []*memory.Buffer{validity, copyFixed(mem, ps, w, total)}
	case *arrow.BooleanType:
		vals := memory.NewResizableBuffer(mem)
		vals.Resize(int(bitutil.BytesForBits(int64(total))))
		pos := 0
		for _, p := range ps {
			d := p.arr.Data()
			bitutil.CopyBitmap(d.Buffers()[1].Bytes(), d.Offset()+p.off, p.n, vals.Bytes(), pos)
			pos += p.n
		}
		bufs = []*memory.Buffer{validity, vals}
	case *arrow.StringType, *arrow.BinaryType:
		offs := memory.NewResizableBuffer(unzeroed(mem))
		offs.Resize((total + 1) * 4)
		dstOff := arrow.Int32Traits.CastFromBytes(offs.Bytes())
		size := 0
		for _, p := range ps {
			o := arrow.Int32Traits.CastFromBytes(p.arr.Data().Buffers()[1].Bytes())[p.arr.Data().Offset():]
			size += int(o[p.off+p.n] - o[p.off])
		}
		if size > 1<<31-1 {
			return nil, fmt.Errorf("dataset: a batch of %s holds over 2 GiB; lower Options.BatchSize", t)
		}
		data := memory.NewResizableBuffer(unzeroed(mem))
		data.Resize(size)
		pos, at := 0, 0
		dstOff[0] = 0
		for _, p := range ps {
			d := p.arr.Data()
			o := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
			var src []byte
			if d.Buffers()[2] != nil {
				src = d.Buffers()[2].Bytes()
			}
			base := o[p.off]
			copy(data.Bytes()[at:], src[base:o[p.off+p.n]])
			for i := 1; i <= p.n; i++ {
				dstOff[pos+i] = int32(at) + o[p.off+i] - base
			}
			at += int(o[p.off+p.n] - base)
			pos += p.n
		}
		bufs = []*memory.Buffer{validity, offs, data}
	case arrow.FixedWidthDataType:
		w := t.BitWidth() / 8
		if t.BitWidth()%8 != 0 || w == 0 {
			return concatSlices(mem, ps, validity)
		}
		bufs = []*memory.Buffer{validity, copyFixed(mem, ps, w, total)}
	default:
		return concatSlices(mem, ps, validity)
	}
	data := array.NewData(dt, total, bufs, nil, nulls, 0)
	if dict != nil {
		data.SetDictionary(dict)
	}
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

// copyFixed copies the values of fixed-width pieces, w bytes each, into
// a new buffer of total values.
func copyFixed(mem memory.Allocator, ps pieces, w, total int) *memory.Buffer {
	vals := memory.NewResizableBuffer(unzeroed(mem))
	vals.Resize(total * w)
	at := 0
	for _, p := range ps {
		d := p.arr.Data()
		src := d.Buffers()[1].Bytes()
		at += copy(vals.Bytes()[at:], src[(d.Offset()+p.off)*w:(d.Offset()+p.off+p.n)*w])
	}
	return vals
}

// unzeroed is the allocator for buffers the caller writes whole (values of
// fixed width, string offsets and bytes): the default pool hands those out
// without clearing them first (scan.BuilderAlloc), any other allocator as
// it is. Bitmaps, whose last byte is written in part, keep zeroed buffers.
func unzeroed(mem memory.Allocator) memory.Allocator { return scan.BuilderAlloc(mem) }

// copyValues copies the values of rows [off, off+n) of d into a new buffer:
// w bytes a row, or bits (booleans) for w == 0.
func copyValues(mem memory.Allocator, d arrow.ArrayData, off, n, w int) *memory.Buffer {
	if w == 0 {
		vals := memory.NewResizableBuffer(mem) // a bitmap: zeroed, its last byte written in part
		vals.Resize(int(bitutil.BytesForBits(int64(n))))
		bitutil.CopyBitmap(d.Buffers()[1].Bytes(), d.Offset()+off, n, vals.Bytes(), 0)
		return vals
	}
	vals := memory.NewResizableBuffer(unzeroed(mem))
	vals.Resize(n * w)
	b0 := (d.Offset() + off) * w
	copy(vals.Bytes(), d.Buffers()[1].Bytes()[b0:b0+n*w])
	return vals
}

// concatSlices is concat's general path.
func concatSlices(mem memory.Allocator, ps pieces, validity *memory.Buffer) (arrow.Array, error) {
	if validity != nil {
		validity.Release()
	}
	parts := make([]arrow.Array, len(ps))
	for i, p := range ps {
		parts[i] = array.NewSlice(p.arr, int64(p.off), int64(p.off+p.n))
	}
	defer func() {
		for _, a := range parts {
			a.Release()
		}
	}()
	return array.Concatenate(parts, mem)
}

// constArray returns n copies of src[i] (a constant column of one device).
func constArray(mem memory.Allocator, src arrow.Array, i, n int) (arrow.Array, error) {
	if d, ok := src.(*array.Dictionary); ok && d.DataType().(*arrow.DictionaryType).IndexType.ID() == arrow.INT32 {
		b := memory.NewResizableBuffer(mem)
		b.Resize(n * 4)
		idx := arrow.Int32Traits.CastFromBytes(b.Bytes())
		valid := d.IsValid(i)
		var k int32
		if valid {
			k = int32(d.GetValueIndex(i))
		}
		for j := range idx {
			idx[j] = k
		}
		var bufs []*memory.Buffer
		nulls := 0
		if valid {
			bufs = []*memory.Buffer{nil, b}
		} else {
			v := memory.NewResizableBuffer(mem)
			v.Resize(int(bitutil.BytesForBits(int64(n))))
			bufs = []*memory.Buffer{v, b}
			nulls = n
		}
		dt := d.DataType().(*arrow.DictionaryType)
		data := array.NewData(dt.IndexType, n, bufs, nil, nulls, 0)
		for _, x := range bufs {
			if x != nil {
				x.Release()
			}
		}
		indices := array.MakeFromData(data)
		data.Release()
		defer indices.Release()
		return array.NewDictionaryArray(dt, indices, d.Dictionary()), nil
	}
	ps := make(pieces, 0, n)
	for j := 0; j < n; j++ {
		ps = append(ps, piece{src, i, 1})
	}
	return concat(mem, src.DataType(), ps, n)
}

// rewrite is one cell write of patch: row pos of the window takes the
// cell at row of the column at src (src indexes patch's overs).
type rewrite struct {
	pos, src, row int
}

// patch returns base[bOff : bOff+n] with the rewrites applied in order
// (sorted by pos, lower copies before higher ones at one pos), each only
// where its cell is not null: higher copies' values written over lower
// ones, null cells of a higher copy keeping the value below (the merge's
// cell-wise rule). Fixed-width and boolean columns are copied once and
// written in place; other layouts are gathered by runs.
func patch(mem memory.Allocator, base arrow.Array, bOff, n int, overs []arrow.Array, ws []rewrite) (arrow.Array, error) {
	allNull := true
	for _, o := range overs {
		allNull = allNull && o.NullN() == o.Len()
	}
	if allNull {
		return array.NewSlice(base, int64(bOff), int64(bOff+n)), nil
	}
	bd := base.Data()
	var w int
	switch t := base.DataType().(type) {
	case *arrow.BooleanType:
	case arrow.FixedWidthDataType:
		if _, dict := t.(*arrow.DictionaryType); dict || t.BitWidth()%8 != 0 || t.BitWidth() == 0 {
			return patchByRuns(mem, base, bOff, n, overs, ws)
		}
		w = t.BitWidth() / 8
	default:
		return patchByRuns(mem, base, bOff, n, overs, ws)
	}
	if w > 0 && noNullsIn(base, bOff, n) {
		return patchInPlace(base, bOff, n, w, overs, ws), nil
	}
	// A base without nulls stays without: a write only ever fills a cell.
	var valid *memory.Buffer
	var vb []byte
	if !noNullsIn(base, bOff, n) {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		vb = valid.Bytes()
		bitutil.CopyBitmap(bd.Buffers()[0].Bytes(), bd.Offset()+bOff, n, vb, 0)
	}
	vals := copyValues(mem, bd, bOff, n, w)
	dst := vals.Bytes()
	type over struct {
		valid, vals []byte
		off         int
	}
	os := make([]over, len(overs))
	for k, o := range overs {
		od := o.Data()
		os[k] = over{vals: od.Buffers()[1].Bytes(), off: od.Offset()}
		if o.NullN() > 0 && od.Buffers()[0] != nil {
			os[k].valid = od.Buffers()[0].Bytes()
		}
	}
	for _, x := range ws {
		o := &os[x.src]
		u := o.off + x.row
		if o.valid != nil && !bitutil.BitIsSet(o.valid, u) {
			continue
		}
		if w == 0 {
			bitutil.SetBitTo(dst, x.pos, bitutil.BitIsSet(o.vals, u))
		} else {
			copy(dst[x.pos*w:x.pos*w+w], o.vals[u*w:u*w+w])
		}
		if vb != nil {
			bitutil.SetBit(vb, x.pos)
		}
	}
	nulls := 0
	if vb != nil {
		nulls = n - bitutil.CountSetBits(vb, 0, n)
	}
	bufs := []*memory.Buffer{valid, vals}
	if nulls == 0 {
		bufs[0] = nil
	}
	data := array.NewData(base.DataType(), n, bufs, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	vals.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// patchInPlace is patch for a fixed-width base without nulls in the
// window: the writes go into the base's own buffer, whose window rows no
// other batch shares (the merge hands out each row of a source once, and
// earlier rows of the same batch as slices of other rows), and the window
// is returned as a slice of it. A base without nulls has no validity to
// change, so no byte shared with other rows is written.
func patchInPlace(base arrow.Array, bOff, n, w int, overs []arrow.Array, ws []rewrite) arrow.Array {
	bd := base.Data()
	b0 := (bd.Offset() + bOff) * w
	dst := bd.Buffers()[1].Bytes()[b0 : b0+n*w]
	for _, x := range ws {
		o := overs[x.src]
		if o.IsNull(x.row) {
			continue
		}
		od := o.Data()
		u := (od.Offset() + x.row) * w
		copy(dst[x.pos*w:x.pos*w+w], od.Buffers()[1].Bytes()[u:u+w])
	}
	return array.NewSlice(base, int64(bOff), int64(bOff+n))
}

// patchByRuns is patch for layouts that cannot be written in place: for
// each written row the highest non-null write, else the base cell.
func patchByRuns(mem memory.Allocator, base arrow.Array, bOff, n int, overs []arrow.Array, ws []rewrite) (arrow.Array, error) {
	var ps pieces
	at := 0
	for i := 0; i < len(ws); {
		p := ws[i].pos
		var src arrow.Array
		row := 0
		for ; i < len(ws) && ws[i].pos == p; i++ {
			if o := overs[ws[i].src]; o.IsValid(ws[i].row) {
				src, row = o, ws[i].row
			}
		}
		if src == nil {
			continue // every write null: the base cell stays
		}
		if p > at {
			ps.add(base, bOff+at, p-at)
		}
		ps.add(src, row, 1)
		at = p + 1
	}
	if at < n {
		ps.add(base, bOff+at, n-at)
	}
	return concat(mem, base.DataType(), ps, n)
}

// fillFrom returns base[bOff : bOff+n] with each null cell taking the cell
// of over at the same row (over[oOff+i]) when that one is not null: the
// merge's cell-wise rule for a run of rows two copies hold at the same
// times. Fixed-width columns are copied once and filled in place; other
// layouts are gathered by runs.
func fillFrom(mem memory.Allocator, base arrow.Array, bOff, n int, over arrow.Array, oOff int) (arrow.Array, error) {
	if noNullsIn(base, bOff, n) || over.NullN() == over.Len() {
		return array.NewSlice(base, int64(bOff), int64(bOff+n)), nil
	}
	var w int
	switch t := base.DataType().(type) {
	case *arrow.BooleanType:
	case arrow.FixedWidthDataType:
		if _, dict := t.(*arrow.DictionaryType); !dict && t.BitWidth()%8 == 0 && t.BitWidth() > 0 {
			w = t.BitWidth() / 8
			break
		}
		return fillByRuns(mem, base, bOff, n, over, oOff)
	default:
		return fillByRuns(mem, base, bOff, n, over, oOff)
	}
	bd, od := base.Data(), over.Data()
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int(bitutil.BytesForBits(int64(n))))
	vb := valid.Bytes()
	bitutil.CopyBitmap(bd.Buffers()[0].Bytes(), bd.Offset()+bOff, n, vb, 0)
	var ovalid []byte
	if over.NullN() > 0 && od.Buffers()[0] != nil {
		ovalid = od.Buffers()[0].Bytes()
	}
	vals := copyValues(mem, bd, bOff, n, w)
	src := od.Buffers()[1].Bytes()
	dst := vals.Bytes()
	for i := 0; i < n; i++ {
		if bitutil.BitIsSet(vb, i) {
			continue
		}
		u := od.Offset() + oOff + i
		if ovalid != nil && !bitutil.BitIsSet(ovalid, u) {
			continue
		}
		if w == 0 {
			bitutil.SetBitTo(dst, i, bitutil.BitIsSet(src, u))
		} else {
			copy(dst[i*w:i*w+w], src[u*w:u*w+w])
		}
		bitutil.SetBit(vb, i)
	}
	nulls := n - bitutil.CountSetBits(vb, 0, n)
	bufs := []*memory.Buffer{valid, vals}
	if nulls == 0 {
		bufs[0] = nil
	}
	data := array.NewData(base.DataType(), n, bufs, nil, nulls, 0)
	valid.Release()
	vals.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// fillByRuns is fillFrom for layouts that cannot be written in place.
func fillByRuns(mem memory.Allocator, base arrow.Array, bOff, n int, over arrow.Array, oOff int) (arrow.Array, error) {
	var ps pieces
	for i := 0; i < n; i++ {
		if base.IsNull(bOff+i) && over.IsValid(oOff+i) {
			ps.add(over, oOff+i, 1)
		} else {
			ps.add(base, bOff+i, 1)
		}
	}
	return concat(mem, base.DataType(), ps, n)
}

// noNullsIn reports whether a[off : off+n] holds no null.
func noNullsIn(a arrow.Array, off, n int) bool {
	if a.NullN() == 0 {
		return true
	}
	d := a.Data()
	b := d.Buffers()[0]
	if b == nil {
		return a.DataType().ID() != arrow.NULL
	}
	return bitutil.CountSetBits(b.Bytes(), d.Offset()+off, n) == n
}
