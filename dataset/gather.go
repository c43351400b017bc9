package dataset

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
		vals := memory.NewResizableBuffer(mem)
		vals.Resize(total * w)
		at := 0
		for _, p := range ps {
			d := p.arr.Data()
			src := d.Buffers()[1].Bytes()
			at += copy(vals.Bytes()[at:], src[(d.Offset()+p.off)*w:(d.Offset()+p.off+p.n)*w])
		}
		bufs = []*memory.Buffer{validity, vals}
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
		offs := memory.NewResizableBuffer(mem)
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
		data := memory.NewResizableBuffer(mem)
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
		vals := memory.NewResizableBuffer(mem)
		vals.Resize(total * w)
		at := 0
		for _, p := range ps {
			d := p.arr.Data()
			src := d.Buffers()[1].Bytes()
			at += copy(vals.Bytes()[at:], src[(d.Offset()+p.off)*w:(d.Offset()+p.off+p.n)*w])
		}
		bufs = []*memory.Buffer{validity, vals}
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
