package arrowconv

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/encoding"
)

// A constBuilder holds a column whose value is fixed for each device: a TAG,
// an ATTRIBUTE or the device path.
type constBuilder interface {
	builder
	// appendConst appends k copies of v, or k nulls when !ok.
	appendConst(v string, ok bool, k int) error
}

// tagDictType is the Arrow type of dictionary-encoded constant columns.
var tagDictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// dictBuilder builds a dictionary<int32, utf8> column. The dictionary grows
// for the whole stream in order of first appearance, so that each batch's
// dictionary extends the previous one: IPC writers can send it as a delta
// and readers that concatenate batches need no remapping.
//
// The dictionary's values live in buffers shared by every batch handed
// out: a batch sees the first count values, and later values are written
// past them. When a buffer must grow, a new one is allocated and the old
// one stays alive for the batches that hold it.
type dictBuilder struct {
	idx   *fixedBuilder[int32]
	index map[string]int32
	mem   memory.Allocator
	offs  *memory.Buffer // count+1 int32 offsets
	data  *memory.Buffer
	count int
	size  int
}

func newDictBuilder(mem memory.Allocator, limit int) *dictBuilder {
	return &dictBuilder{
		idx:   newFixed(colBase{mem: mem, limit: limit}, arrow.PrimitiveTypes.Int32, encoding.DecodeInt32, nil),
		index: map[string]int32{},
		mem:   mem,
	}
}

func (d *dictBuilder) Len() int          { return d.idx.Len() }
func (d *dictBuilder) reserve(k int)     { d.idx.reserve(k) }
func (d *dictBuilder) appendNulls(k int) { d.idx.appendNulls(k) }

func (d *dictBuilder) appendConst(v string, ok bool, k int) error {
	if !ok {
		d.idx.appendNulls(k)
		return nil
	}
	i, found := d.index[v]
	if !found {
		var err error
		if i, err = d.add(v); err != nil {
			return err
		}
	}
	b := d.idx
	b.reserve(k)
	dst := b.data()[b.n : b.n+k]
	for j := range dst {
		dst[j] = i
	}
	b.valid.setValid(b.n, k)
	b.n += k
	return nil
}

// add appends v to the dictionary and returns its index.
func (d *dictBuilder) add(v string) (int32, error) {
	if d.size+len(v) > math.MaxInt32 || d.count == math.MaxInt32 {
		return 0, &OptionError{Problem: "the dictionary of a constant column would exceed 2 GiB",
			Option: "PlainTags", Remedy: "to read the constant columns as plain utf8"}
	}
	if d.offs == nil || d.offs.Len() < (d.count+2)*4 {
		d.offs = d.regrow(d.offs, max(64*4, 2*(d.count+2)*4), (d.count+1)*4)
		if d.count == 0 {
			arrow.Int32Traits.CastFromBytes(d.offs.Bytes())[0] = 0
		}
	}
	if d.data == nil || d.data.Len() < d.size+len(v) {
		d.data = d.regrow(d.data, max(1024, 2*(d.size+len(v))), d.size)
	}
	copy(d.data.Bytes()[d.size:], v)
	d.size += len(v)
	d.count++
	arrow.Int32Traits.CastFromBytes(d.offs.Bytes())[d.count] = int32(d.size)
	i := int32(d.count - 1)
	d.index[v] = i
	return i, nil
}

// regrow returns a new buffer of n bytes holding the first keep bytes of
// old, and drops this builder's reference to old: batches handed out keep
// it alive as long as they need it.
func (d *dictBuilder) regrow(old *memory.Buffer, n, keep int) *memory.Buffer {
	nb := memory.NewResizableBuffer(d.mem)
	nb.Resize(n)
	if old != nil {
		copy(nb.Bytes(), old.Bytes()[:keep])
		old.Release()
	}
	return nb
}

func (d *dictBuilder) finish(cut, keep int) arrow.ArrayData {
	id := d.idx.finish(cut, keep)
	defer id.Release()
	var dict arrow.ArrayData
	if d.count == 0 {
		dict = array.NewData(arrow.BinaryTypes.String, 0, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, 4)), memory.NewBufferBytes(nil)}, nil, 0, 0)
	} else {
		offs := memory.SliceBuffer(d.offs, 0, (d.count+1)*4)
		data := memory.SliceBuffer(d.data, 0, d.size)
		dict = newData(arrow.BinaryTypes.String, d.count, []*memory.Buffer{nil, offs, data}, 0)
	}
	defer dict.Release()
	return array.NewDataWithDictionary(tagDictType, cut, id.Buffers(), id.NullN(), 0, dict.(*array.Data))
}

func (d *dictBuilder) release() {
	d.idx.release()
	if d.offs != nil {
		d.offs.Release()
		d.offs = nil
	}
	if d.data != nil {
		d.data.Release()
		d.data = nil
	}
	d.count, d.size = 0, 0
	clear(d.index)
}

// viewBuilder builds a TEXT or STRING column as string_view: it builds utf8
// and converts each finished batch, since the view headers need the
// values' final positions and the conversion is one pass over the offsets.
type viewBuilder struct {
	*binaryBuilder
}

// viewType is the Arrow type of TEXT and STRING columns under
// Options.StringView.
var viewType = arrow.BinaryTypes.StringView

func (v viewBuilder) gather(src valueBuilder, idx []int32) error {
	if s, ok := src.(viewBuilder); ok {
		src = s.binaryBuilder
	}
	return v.binaryBuilder.gather(src, idx)
}

func (v viewBuilder) finish(cut, keep int) arrow.ArrayData {
	d := v.binaryBuilder.finish(cut, keep)
	defer d.Release()
	return utf8ToView(v.mem, d)
}

// utf8ToView converts utf8 array data (offset 0) into string_view data that
// shares its value buffer.
func utf8ToView(mem memory.Allocator, d arrow.ArrayData) arrow.ArrayData {
	bufs := d.Buffers()
	n := d.Len()
	views := memory.NewResizableBuffer(mem)
	views.Resize(n * arrow.ViewHeaderSizeBytes)
	hs := unsafe.Slice((*arrow.ViewHeader)(unsafe.Pointer(unsafe.SliceData(views.Bytes()))), n)
	offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
	var data []byte
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	for i := range hs {
		lo, hi := offs[i], offs[i+1]
		hs[i] = arrow.ViewHeader{}
		if hi == lo {
			continue
		}
		if hs[i].SetBytes(data[lo:hi]); !hs[i].IsInline() {
			hs[i].SetIndexOffset(0, lo)
		}
	}
	out := []*memory.Buffer{bufs[0], views, bufs[2]}
	if bufs[2] == nil {
		out[2] = memory.NewBufferBytes(nil)
	} else {
		bufs[2].Retain()
	}
	if bufs[0] != nil {
		bufs[0].Retain()
	}
	r := array.NewData(viewType, n, out, nil, d.NullN(), 0)
	for _, b := range out {
		if b != nil {
			b.Release()
		}
	}
	return r
}
