package arrowconv

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/bitmap"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// A column builder accumulates the rows of one column of the batch being
// assembled in Arrow buffers. Rows may run past the batch size because pages
// are decoded whole; finish hands out the first rows and keeps the rest.
type builder interface {
	// Len is the number of rows held.
	Len() int
	// reserve makes room for k more rows.
	reserve(k int)
	// appendNulls appends k null rows.
	appendNulls(k int)
	// finish returns the array data of rows [0, cut) and keeps rows
	// [cut, Len()) as the builder's new content, in fresh buffers sized
	// for keep rows if that is more: the batch that follows, which then
	// fills them without the doubling reallocations (each a copy, of the
	// kept rows first) that growing from the kept rows would cost.
	finish(cut, keep int) arrow.ArrayData
	// release frees the buffers.
	release()
}

// A valueBuilder holds a FIELD or measurement column.
type valueBuilder interface {
	builder
	// appendPage decodes the encoded non-null values of a page of n
	// positions straight into the column; present is the MSB-first
	// present bitmap, or nil when every position has a value. With st
	// (the page's statistics, see tsfile.PageStatistics) it checks the
	// decoded values against them in the same pass over the fresh page,
	// and returns a *tsfile.StatisticsMismatch after appending the page
	// whole, so that a lenient caller can keep it.
	appendPage(enc tsfile.Encoding, present []byte, n int, src []byte, st *tsfile.Statistics) error
	// gather appends, for each idx[i], row idx[i] of src (a builder of the
	// same kind) or a null when idx[i] < 0.
	gather(src valueBuilder, idx []int32) error
	// keep retains, of the rows from at on, only those in runs, moved down
	// to start at at.
	keep(at int, runs []span)
}

// newValueBuilder returns the builder of a column of TsFile type t whose
// Arrow type is dt.
func newValueBuilder(mem memory.Allocator, t tsfile.DataType, dt arrow.DataType, limit int) valueBuilder {
	base := colBase{mem: mem, limit: limit}
	if dt.ID() == arrow.STRING_VIEW {
		b := newBinaryBuilder(base, arrow.BinaryTypes.String)
		b.text = t
		return viewBuilder{b}
	}
	switch t {
	case tsfile.Boolean:
		return &boolBuilder{flatBase: newFlat(base, arrow.FixedWidthTypes.Boolean, 1)}
	case tsfile.Int32:
		b := checked(newFixed(base, dt, encoding.DecodeInt32, nil), (*tsfile.Statistics).CheckInt32s)
		b.checkPlain = tsfile.CheckInt32sPlain
		return b
	case tsfile.Date:
		// Checked before datesToDays: the statistics hold yyyymmdd.
		return checked(newFixed(base, dt, encoding.DecodeInt32, datesToDays), (*tsfile.Statistics).CheckInt32s)
	case tsfile.Int64, tsfile.Timestamp:
		return checked(newFixed(base, dt, encoding.DecodeInt64, nil), (*tsfile.Statistics).CheckInt64s)
	case tsfile.Float:
		b := newFixed[float32](base, dt, nil, nil)
		b.decode = func(enc encoding.Encoding, dst []float32, src []byte) error {
			r, q, err := tsfile.DecodeFloat32Page(enc, dst, src)
			b.round = r
			b.quirk |= q
			return err
		}
		return checked(b, func(st *tsfile.Statistics, v []float32, exact bool) error {
			return st.CheckFloat32sRounded(v, exact, b.round)
		})
	case tsfile.Double:
		b := newFixed[float64](base, dt, nil, nil)
		b.decode = func(enc encoding.Encoding, dst []float64, src []byte) error {
			r, q, err := tsfile.DecodeFloat64Page(enc, dst, src)
			b.round = r
			b.quirk |= q
			return err
		}
		return checked(b, func(st *tsfile.Statistics, v []float64, exact bool) error {
			return st.CheckFloat64sRounded(v, exact, b.round)
		})
	case tsfile.Text, tsfile.String:
		b := newBinaryBuilder(base, dt)
		b.text = t
		return b
	default:
		return newBinaryBuilder(base, dt)
	}
}

// colBase tracks the row count, row capacity and validity shared by every
// builder.
type colBase struct {
	mem   memory.Allocator
	limit int // preferred capacity in rows: the batch size
	n     int // rows held
	cap   int // rows the buffers can hold
	valid validity
}

func (c *colBase) Len() int { return c.n }

// growRows returns the new row capacity for holding need rows. Doubling
// keeps appends amortised; stopping at the batch size (when that suffices)
// keeps a full batch from carrying up to twice the memory it uses.
func (c *colBase) growRows(need int) int {
	if need <= c.cap && c.cap > 0 {
		return c.cap
	}
	nc := max(2*c.cap, 64)
	if c.limit >= need {
		nc = min(nc, c.limit)
	}
	return max(nc, need)
}

// validity is an Arrow (LSB-first) validity bitmap that is only allocated
// once a null appears, since most columns of most batches have none.
type validity struct {
	buf   *memory.Buffer
	nulls int
}

// ensure makes the bitmap hold rows bits, materialising it with the first
// at rows valid if it did not exist.
func (v *validity) ensure(mem memory.Allocator, at, rows int) []byte {
	if v.buf == nil {
		v.buf = memory.NewResizableBuffer(mem)
		ensureBytes(v.buf, bitmap.Bytes(rows))
		bitutil.SetBitsTo(v.buf.Buf(), 0, int64(at), true)
		return v.buf.Buf()
	}
	ensureBytes(v.buf, bitmap.Bytes(rows))
	return v.buf.Buf()
}

// grow keeps an existing bitmap as large as the row capacity.
func (v *validity) grow(rows int) {
	if v.buf != nil {
		ensureBytes(v.buf, bitmap.Bytes(rows))
	}
}

func (v *validity) setValid(at, n int) {
	if v.buf != nil && n > 0 {
		bitutil.SetBitsTo(v.buf.Buf(), int64(at), int64(n), true)
	}
}

func (v *validity) setNull(mem memory.Allocator, at, n, rows int) {
	if n == 0 {
		return
	}
	b := v.ensure(mem, at, rows)
	bitutil.SetBitsTo(b, int64(at), int64(n), false)
	v.nulls += n
}

// fromMSB converts a TsFile present bitmap of n positions into rows
// [at, at+n); it returns the number of present positions.
func (v *validity) fromMSB(mem memory.Allocator, at int, present []byte, n, rows int) int {
	b := v.ensure(mem, at, rows)
	k := bitmap.MSBToLSB(b, at, present, n)
	v.nulls += n - k
	return k
}

// isValid reports whether row i is valid.
func (v *validity) isValid(i int) bool {
	return v.buf == nil || bitutil.BitIsSet(v.buf.Buf(), i)
}

// split returns the buffer and null count of rows [0, cut) and moves rows
// [cut, n) into a fresh bitmap of capacity rows.
func (v *validity) split(mem memory.Allocator, cut, n, rows int) (*memory.Buffer, int) {
	if v.buf == nil {
		return nil, 0
	}
	old, oldNulls := v.buf, v.nulls
	v.buf, v.nulls = nil, 0
	tail := n - cut
	tailNulls := 0
	if tail > 0 {
		tailNulls = tail - bitutil.CountSetBits(old.Buf(), cut, tail)
	}
	if tailNulls > 0 {
		v.buf = memory.NewResizableBuffer(mem)
		ensureBytes(v.buf, bitmap.Bytes(rows))
		bitutil.CopyBitmap(old.Buf(), cut, tail, v.buf.Buf(), 0)
		v.nulls = tailNulls
	}
	headNulls := oldNulls - tailNulls
	if headNulls == 0 {
		old.Release()
		return nil, 0
	}
	old.ResizeNoShrink(bitmap.Bytes(cut))
	maskTail(old.Bytes(), cut)
	return old, headNulls
}

// maskTail clears the bits of b's last byte past the first n bits: they
// are not rows, and buffers are not zeroed when allocated (see rawPool),
// so without this the bytes handed out would depend on earlier batches.
func maskTail(b []byte, n int) {
	if r := n & 7; r != 0 {
		b[n>>3] &= byte(1)<<uint(r) - 1
	}
}

func (v *validity) release() {
	if v.buf != nil {
		v.buf.Release()
		v.buf = nil
	}
	v.nulls = 0
}

// ensureBytes makes buf's capacity at least n bytes, preserving its content.
// Writers use buf.Buf(); lengths are set when the buffer is handed out.
func ensureBytes(buf *memory.Buffer, n int) {
	if buf.Cap() < n {
		buf.Reserve(n)
	}
}

// newData wraps buffers into array data and drops the caller's references,
// which the data now holds.
func newData(dt arrow.DataType, n int, bufs []*memory.Buffer, nulls int) arrow.ArrayData {
	d := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	return d
}

// flatBase is the common part of the builders whose values are one buffer
// of a fixed number of bits per row: fixed-width numbers and bit-packed
// booleans. It provides reserve, finish and release.
type flatBase struct {
	colBase
	dt     arrow.DataType
	values *memory.Buffer
	bits   int // per row
}

func newFlat(base colBase, dt arrow.DataType, bits int) flatBase {
	return flatBase{colBase: base, dt: dt, values: memory.NewResizableBuffer(base.mem), bits: bits}
}

// bytes is the size of the values of rows rows.
func (b *flatBase) bytes(rows int) int { return bitmap.Bytes(rows * b.bits) }

func (b *flatBase) reserve(k int) {
	if c := b.growRows(b.n + k); c > b.cap {
		ensureBytes(b.values, b.bytes(c))
		b.valid.grow(c)
		b.cap = c
	}
}

func (b *flatBase) finish(cut, keep int) arrow.ArrayData {
	n, tail := b.n, b.n-cut
	old := b.values
	b.n, b.cap = 0, 0
	b.values = memory.NewResizableBuffer(b.mem)
	if c := max(tail, keep); c > 0 {
		b.cap = b.growRows(c)
		ensureBytes(b.values, b.bytes(b.cap))
	}
	if tail > 0 {
		if b.bits%8 == 0 {
			copy(b.values.Buf(), old.Buf()[b.bytes(cut):b.bytes(n)])
		} else {
			bitutil.CopyBitmap(old.Buf(), cut*b.bits, tail*b.bits, b.values.Buf(), 0)
		}
	}
	vb, nulls := b.valid.split(b.mem, cut, n, b.cap)
	b.n = tail
	old.ResizeNoShrink(b.bytes(cut))
	if b.bits == 1 {
		maskTail(old.Bytes(), cut)
	}
	return newData(b.dt, cut, []*memory.Buffer{vb, old}, nulls)
}

func (b *flatBase) release() {
	b.values.Release()
	b.valid.release()
	b.n, b.cap = 0, 0
}

// fixedType lists the Go types of fixed-width columns.
type fixedType interface {
	int32 | int64 | float32 | float64
}

// fixedBuilder builds an int32, date32, int64, timestamp, float32 or float64
// column.
type fixedBuilder[T fixedType] struct {
	flatBase
	decode func(encoding.Encoding, []T, []byte) error
	// post converts freshly decoded compacted values in place (DATE).
	post func([]T) error
	// check compares a page's decoded compacted values, before post,
	// with its statistics, all of them when exact (see
	// tsfile.Statistics.CheckInt64s); nil for builders that are not
	// value columns.
	check func(st *tsfile.Statistics, v []T, exact bool) error
	// checkPlain, when set, replaces check for PLAIN pages: INT32's
	// tsfile.CheckInt32sPlain, which tries the C++ writer's reading.
	checkPlain func(st *tsfile.Statistics, v []T, exact bool) error
	// quirk collects the writer quirks pages were decoded around since
	// the last takeQuirk.
	quirk tsfile.WriterQuirk
	// round is how the encoding of the page just decoded rounded its
	// FLOAT or DOUBLE values (tsfile.DecodeFloat32Page), for check.
	round tsfile.FloatRounding
}

// takeQuirk returns and clears the writer quirks met since the last call.
func (b *fixedBuilder[T]) takeQuirk() tsfile.WriterQuirk {
	q := b.quirk
	b.quirk = 0
	return q
}

// noteQuirks notes on f, at the page at off, the writer quirks b decoded
// its last pages around (FLOAT/DOUBLE TS_2DIFF over raw bits).
func noteQuirks(f *tsfile.File, b valueBuilder, off int64) {
	if qb, ok := b.(interface{ takeQuirk() tsfile.WriterQuirk }); ok {
		if q := qb.takeQuirk(); q != 0 {
			f.NoteQuirk(q, off, "page")
		}
	}
}

// checked gives b the statistics check of its values.
func checked[T fixedType](b *fixedBuilder[T], check func(*tsfile.Statistics, []T, bool) error) *fixedBuilder[T] {
	b.check = check
	return b
}

func newFixed[T fixedType](base colBase, dt arrow.DataType, decode func(encoding.Encoding, []T, []byte) error, post func([]T) error) *fixedBuilder[T] {
	return &fixedBuilder[T]{flatBase: newFlat(base, dt, 8*int(unsafe.Sizeof(T(0)))), decode: decode, post: post}
}

func (b *fixedBuilder[T]) data() []T { return arrow.GetData[T](b.values.Buf()) }

func (b *fixedBuilder[T]) appendNulls(k int) {
	b.reserve(k)
	clear(b.data()[b.n : b.n+k])
	b.valid.setNull(b.mem, b.n, k, b.cap)
	b.n += k
}

// appendSlice appends non-null values.
func (b *fixedBuilder[T]) appendSlice(v []T) {
	b.reserve(len(v))
	copy(b.data()[b.n:], v)
	b.valid.setValid(b.n, len(v))
	b.n += len(v)
}

func (b *fixedBuilder[T]) appendPage(enc tsfile.Encoding, present []byte, n int, src []byte, st *tsfile.Statistics) error {
	k := n
	if present != nil {
		k = bitmap.CountMSB(present, n)
	}
	b.reserve(n)
	dst := b.data()[b.n : b.n+n]
	if err := b.decode(enc, dst[:k], src); err != nil {
		return err
	}
	// The values are still in the cache the decoder wrote them to. A
	// damaged PLAIN value changes alone, and often only the exact sum
	// or min/max shows it, so PLAIN pages get every check; the other
	// encodings carry a damaged value into the ones after it (GORILLA's
	// XOR chain, TS_2DIFF's deltas), which count, first, last and a sum
	// within its rounding bound see at a fraction of the cost (see
	// tsfile.Statistics.CheckInt64s).
	var bad error
	switch {
	case st == nil:
		// Without statistics (--no-verify, or a chunk of one page whose
		// index entry is missing) nothing can confirm the C++ writer's
		// INT32 PLAIN reading, so the format's is kept.
	case enc == encoding.Plain && b.checkPlain != nil:
		// May leave the values in that writer's reading, with a
		// *tsfile.QuirkMismatch: File.TolerateMismatch keeps them only
		// under Lenient.
		bad = b.checkPlain(st, dst[:k], true)
	case b.check != nil:
		bad = b.check(st, dst[:k], enc == encoding.Plain)
	}
	if b.post != nil {
		if err := b.post(dst[:k]); err != nil {
			return err
		}
	}
	if k == n {
		b.valid.setValid(b.n, n)
	} else {
		bitmap.ScatterInPlace(dst, present, n)
		b.valid.fromMSB(b.mem, b.n, present, n, b.cap)
	}
	b.n += n
	return bad
}

// appendTimes decodes an aligned time page or a non-aligned time stream at
// offset off into b, counting first so the values land in place; a count
// above maxPoints (ReadOptions.MaxPagePoints) is refused before anything is
// allocated. It returns the count.
func appendTimes(b *fixedBuilder[int64], enc tsfile.Encoding, src []byte, off int64, maxPoints int) (int, error) {
	n, err := tsfile.CountTimes(enc, src, off, maxPoints)
	if err != nil {
		return 0, err
	}
	b.reserve(n)
	all := b.data()
	out, err := encoding.AppendAllInt64(enc, all[b.n:b.n:b.n+n], src)
	if err != nil {
		return 0, err
	}
	if len(out) != n {
		return 0, fmt.Errorf("time stream decoded %d timestamps but counted %d: %w", len(out), n, encoding.ErrCorrupt)
	}
	if n > 0 && &out[0] != &all[b.n] {
		copy(all[b.n:], out)
	}
	b.valid.setValid(b.n, n)
	b.n += n
	return n, nil
}

func (b *fixedBuilder[T]) gather(src valueBuilder, idx []int32) error {
	s := src.(*fixedBuilder[T])
	b.reserve(len(idx))
	dst, from := b.data()[b.n:b.n+len(idx)], s.data()
	for i, j := range idx {
		dst[i] = 0
		if s.has(j) {
			dst[i] = from[j]
		}
	}
	b.gatherValidity(&s.colBase, idx)
	return nil
}

// has reports whether row j is present: j >= 0 and the row not null.
func (c *colBase) has(j int32) bool { return j >= 0 && c.valid.isValid(int(j)) }

// gatherValidity records the validity of the rows gathered from rows idx of
// src (see has) and advances the row count; gather has written their values.
func (c *colBase) gatherValidity(src *colBase, idx []int32) {
	nulls := 0
	for _, j := range idx {
		if !src.has(j) {
			nulls++
		}
	}
	if nulls == 0 {
		c.valid.setValid(c.n, len(idx))
	} else {
		bm := c.valid.ensure(c.mem, c.n, c.cap)
		for i, j := range idx {
			bitutil.SetBitTo(bm, c.n+i, src.has(j))
		}
		c.valid.nulls += nulls
	}
	c.n += len(idx)
}

// boolBuilder builds a bool column; values are bit-packed like validity.
type boolBuilder struct {
	flatBase
	scratch []bool
	packed  []byte // scratch: a page's values packed, for an unaligned start
}

func (b *boolBuilder) appendNulls(k int) {
	b.reserve(k)
	bitutil.SetBitsTo(b.values.Buf(), int64(b.n), int64(k), false)
	b.valid.setNull(b.mem, b.n, k, b.cap)
	b.n += k
}

func (b *boolBuilder) appendPage(enc tsfile.Encoding, present []byte, n int, src []byte, st *tsfile.Statistics) error {
	k := n
	if present != nil {
		k = bitmap.CountMSB(present, n)
	}
	if k == n && encoding.DecodesBoolBits(enc) {
		// Without nulls PLAIN bytes pack straight into bits: a byte a
		// value less to write and read than going through []bool.
		b.reserve(n)
		aligned := b.n%8 == 0
		dst := b.values.Buf()[b.n/8:]
		if !aligned {
			b.packed = slices.Grow(b.packed[:0], (n+7)/8)[:(n+7)/8]
			dst = b.packed
		}
		if err := encoding.DecodeBoolBits(enc, dst, n, src); err != nil {
			return err
		}
		if !aligned {
			bitutil.CopyBitmap(b.packed, 0, n, b.values.Buf(), b.n)
		}
		var bad error
		if st != nil {
			// Counted on the bits: a popcount, not a pass over bools.
			v := b.values.Buf()
			bad = st.CheckBoolSummary(n, n > 0 && bitutil.BitIsSet(v, b.n), n > 0 && bitutil.BitIsSet(v, b.n+n-1), bitutil.CountSetBits(v, b.n, n))
		}
		b.valid.setValid(b.n, n)
		b.n += n
		return bad
	}
	if cap(b.scratch) < n {
		b.scratch = make([]bool, n)
	}
	s := b.scratch[:n]
	if err := encoding.DecodeBool(enc, s[:k], src); err != nil {
		return err
	}
	b.reserve(n)
	if k == n {
		b.valid.setValid(b.n, n)
	} else {
		bitmap.ScatterInPlace(s, present, n)
		b.valid.fromMSB(b.mem, b.n, present, n, b.cap)
	}
	w := bitutil.NewBitmapWriter(b.values.Buf(), b.n, n)
	w.AppendBools(s)
	w.Finish()
	var bad error
	if st != nil {
		// Nulls were scattered in as false, so the page's set bits are
		// its true values: a popcount, not a pass over the bools.
		first, last := false, false
		if k > 0 {
			first, last = firstLastPresent(s, present, n)
		}
		bad = st.CheckBoolSummary(k, first, last, bitutil.CountSetBits(b.values.Buf(), b.n, n))
	}
	b.n += n
	return bad
}

// firstLastPresent returns the values of the first and last present
// positions of s, n positions with present their MSB-first bitmap (nil:
// all present); at least one is present.
func firstLastPresent(s []bool, present []byte, n int) (first, last bool) {
	if present == nil {
		return s[0], s[n-1]
	}
	i, j := 0, n-1
	for !bitmap.GetMSB(present, i) {
		i++
	}
	for !bitmap.GetMSB(present, j) {
		j--
	}
	return s[i], s[j]
}

func (b *boolBuilder) gather(src valueBuilder, idx []int32) error {
	s := src.(*boolBuilder)
	b.reserve(len(idx))
	vals, from := b.values.Buf(), s.values.Buf()
	for i, j := range idx {
		bitutil.SetBitTo(vals, b.n+i, s.has(j) && bitutil.BitIsSet(from, int(j)))
	}
	b.gatherValidity(&s.colBase, idx)
	return nil
}

// binaryBuilder builds a utf8 or binary column: int32 end offsets and the
// concatenated value bytes.
type binaryBuilder struct {
	colBase
	dt      arrow.DataType
	offsets *memory.Buffer // n+1 int32 offsets
	values  *memory.Buffer
	size    int     // bytes of values in use, equal to the last offset
	ends    []int32 // scratch: ends of a page's compacted values
	// stored and decoded count the bytes of the value streams of the
	// pages decoded so far and of their values, by which a page's room is
	// reserved: a DICTIONARY page decodes to several times its size, and
	// a decoder that runs out of room grows a heap copy of the batch.
	stored, decoded int64
	rows            int64 // positions of the pages decoded so far
	// text is TEXT or STRING when decoded values must be checked to be
	// UTF-8, as Arrow's utf8 type requires; zero for BLOB and OBJECT.
	text tsfile.DataType
}

func newBinaryBuilder(base colBase, dt arrow.DataType) *binaryBuilder {
	return &binaryBuilder{colBase: base, dt: dt, offsets: memory.NewResizableBuffer(base.mem), values: memory.NewResizableBuffer(base.mem)}
}

// newStringBuilder returns a binaryBuilder of utf8 values.
func newStringBuilder(mem memory.Allocator, limit int) *binaryBuilder {
	return newBinaryBuilder(colBase{mem: mem, limit: limit}, arrow.BinaryTypes.String)
}

func (b *binaryBuilder) offs() []int32 {
	return arrow.Int32Traits.CastFromBytes(b.offsets.Buf())
}

func (b *binaryBuilder) reserve(k int) {
	if c := b.growRows(b.n + k); c > b.cap {
		first := b.cap == 0
		ensureBytes(b.offsets, (c+1)*4)
		b.valid.grow(c)
		b.cap = c
		if first {
			b.offs()[0] = 0
		}
		// The value bytes too, at the bytes a row seen so far, so that
		// a batch's values do not grow by doubling (each a copy of what
		// the batch holds), as reserveBytes alone would make them.
		if b.rows > 0 {
			want := float64(b.size) + float64(c-b.n)*float64(b.decoded)/float64(b.rows)*1.125
			ensureBytes(b.values, int(min(want, math.MaxInt32)))
		}
	}
}

// reserveBytes makes room for k more value bytes.
func (b *binaryBuilder) reserveBytes(k int) error {
	need := b.size + k
	if need > math.MaxInt32 {
		return &OptionError{Problem: "a batch would hold more than 2 GiB of binary values, which int32 offsets cannot address",
			Option: "BatchSize", Remedy: "smaller"}
	}
	if b.values.Cap() < need {
		ensureBytes(b.values, max(need, 2*b.values.Cap()))
	}
	return nil
}

func (b *binaryBuilder) appendNulls(k int) {
	b.reserve(k)
	o := b.offs()
	for i := b.n + 1; i <= b.n+k; i++ {
		o[i] = int32(b.size)
	}
	b.valid.setNull(b.mem, b.n, k, b.cap)
	b.n += k
}

// appendConst appends k copies of v, or k nulls when !ok.
func (b *binaryBuilder) appendConst(v string, ok bool, k int) error {
	if !ok {
		b.appendNulls(k)
		return nil
	}
	b.reserve(k)
	if err := b.reserveBytes(len(v) * k); err != nil {
		return err
	}
	o, data := b.offs(), b.values.Buf()
	for i := 1; i <= k; i++ {
		copy(data[b.size:], v)
		b.size += len(v)
		o[b.n+i] = int32(b.size)
	}
	b.valid.setValid(b.n, k)
	b.n += k
	return nil
}

func (b *binaryBuilder) appendPage(enc tsfile.Encoding, present []byte, n int, src []byte, st *tsfile.Statistics) error {
	k := n
	if present != nil {
		k = bitmap.CountMSB(present, n)
	}
	b.reserve(n)
	// PLAIN values never outgrow their stream, so this reservation lets
	// AppendBinary write into the buffer; for an encoding that expands it
	// is the stream's size times the expansion seen so far, with a
	// margin. A page that still outgrows it makes AppendBinary reallocate,
	// and its bytes are copied in below.
	room := len(src)
	if b.decoded > b.stored {
		room = int(min(float64(len(src))*1.25*float64(b.decoded)/float64(b.stored)+64, math.MaxInt32/2))
	}
	// Only the stream's own size may fail for the 2 GiB bound of a
	// batch, not the estimate on top of it.
	if b.reserveBytes(room) != nil {
		if err := b.reserveBytes(len(src)); err != nil {
			return err
		}
	}
	// Slices of the buffer are capped at its length: a decoder appending
	// past it must reallocate, since bytes written into spare capacity
	// beyond the buffer's length are lost when the buffer grows.
	buf := b.values.Buf()
	tail := buf[b.size:b.size:len(buf)]
	offs := b.offs()
	var data []byte
	var err error
	if k == n {
		// Without nulls the offsets are final: decode them in place,
		// absolute, by handing AppendBinary the bytes before the tail.
		var o []int32
		o, data, err = encoding.AppendBinary(enc, offs[:b.n+1], buf[:b.size:len(buf)], n, src)
		if err != nil {
			return err
		}
		if &o[0] != &offs[0] {
			copy(offs[b.n+1:], o[b.n+1:])
		}
		data = data[b.size:]
	} else {
		// With nulls the ends of the compacted values, relative to the
		// tail, are spread to n+1 offsets afterwards.
		b.ends, data, err = encoding.AppendBinary(enc, b.ends[:0], tail, k, src)
		if err != nil {
			return err
		}
	}
	inPlace := len(data) == 0 || unsafe.SliceData(data) == unsafe.SliceData(tail)
	if err := b.reserveBytes(len(data)); err != nil {
		return err
	}
	if !inPlace {
		copy(b.values.Buf()[b.size:], data)
	}
	var bad error
	if st != nil {
		bad = b.checkPage(st, offs, k, n, len(data))
	}
	if k == n {
		b.valid.setValid(b.n, n)
	} else {
		bitmap.ScatterOffsets(offs[b.n:b.n+n+1], int32(b.size), b.ends, present, n)
		b.valid.fromMSB(b.mem, b.n, present, n, b.cap)
	}
	b.size += len(data)
	b.n += n
	b.stored += int64(len(src))
	b.rows += int64(n)
	b.decoded += int64(len(data))
	if b.text != 0 {
		if err := b.checkUTF8(b.n-n, b.n); err != nil {
			return err
		}
	}
	return bad
}

// checkPage compares the page just decoded (its k values, size bytes, at
// b.size in the value buffer, not yet counted in b) with its statistics:
// the count, and the first and last value. Their ends are the page's
// offsets (absolute, when the page has no nulls) or b.ends (relative to
// the page's bytes, when it has).
func (b *binaryBuilder) checkPage(st *tsfile.Statistics, offs []int32, k, n, size int) error {
	if k == 0 {
		return st.CheckCount(0)
	}
	end := func(i int) int {
		if k == n {
			return int(offs[b.n+1+i]) - b.size
		}
		return int(b.ends[i])
	}
	vals := b.values.Buf()[b.size : b.size+size]
	lastStart := 0
	if k > 1 {
		lastStart = end(k - 2)
	}
	return st.CheckBinary(k, vals[:end(0)], vals[lastStart:end(k-1)])
}

// checkUTF8 verifies that the values of rows [from, to) are UTF-8. Each
// value is checked on its own, since invalid fragments of neighbouring
// values could join into a valid sequence.
func (b *binaryBuilder) checkUTF8(from, to int) error {
	o, data := b.offs(), b.values.Buf()
	if s := data[o[from]:o[to]]; asciiOnly(s) {
		return nil
	}
	for i := from; i < to; i++ {
		if v := data[o[i]:o[i+1]]; !utf8.Valid(v) {
			kind := encoding.ErrCorrupt
			if b.text == tsfile.Text {
				// TEXT is a byte string by the format, but not in Arrow.
				kind = encoding.ErrUnsupported
			}
			return fmt.Errorf("%s value %q is not valid UTF-8, which an Arrow utf8 column requires: %w", b.text, v, kind)
		}
	}
	return nil
}

// asciiOnly reports whether s has no byte above 0x7f, checking 32 bytes
// at a time (four independent loads and one test), then eight.
func asciiOnly(s []byte) bool {
	for len(s) >= 32 {
		w := binary.LittleEndian.Uint64(s) | binary.LittleEndian.Uint64(s[8:]) |
			binary.LittleEndian.Uint64(s[16:]) | binary.LittleEndian.Uint64(s[24:32])
		if w&0x8080808080808080 != 0 {
			return false
		}
		s = s[32:]
	}
	for len(s) >= 8 {
		if binary.LittleEndian.Uint64(s)&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for _, c := range s {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func (b *binaryBuilder) gather(src valueBuilder, idx []int32) error {
	s := src.(*binaryBuilder)
	b.reserve(len(idx))
	so, sd := s.offs(), s.values.Buf()
	total := 0
	for _, j := range idx {
		if j >= 0 {
			total += int(so[j+1] - so[j])
		}
	}
	if err := b.reserveBytes(total); err != nil {
		return err
	}
	o, data := b.offs(), b.values.Buf()
	for i, j := range idx {
		if s.has(j) {
			b.size += copy(data[b.size:], sd[so[j]:so[j+1]])
		}
		o[b.n+i+1] = int32(b.size)
	}
	b.gatherValidity(&s.colBase, idx)
	return nil
}

func (b *binaryBuilder) finish(cut, keep int) arrow.ArrayData {
	n, tail := b.n, b.n-cut
	oldOffs, oldVals := b.offsets, b.values
	o := b.offs()
	var start, end int32
	if b.cap > 0 {
		start, end = o[cut], o[n]
	} else {
		// An empty array still needs its single zero offset.
		ensureBytes(oldOffs, 4)
		arrow.Int32Traits.CastFromBytes(oldOffs.Buf())[0] = 0
	}
	b.offsets = memory.NewResizableBuffer(b.mem)
	b.values = memory.NewResizableBuffer(b.mem)
	b.n, b.cap, b.size = 0, 0, 0
	// The validity splits first, so that reserve grows the kept rows'
	// bitmap rather than the one handed out.
	c := max(tail, keep)
	vb, nulls := b.valid.split(b.mem, cut, n, b.growRows(c))
	if c > 0 {
		b.reserve(c)
	}
	if tail > 0 {
		no := b.offs()
		for i := 0; i <= tail; i++ {
			no[i] = o[cut+i] - start
		}
		ensureBytes(b.values, int(end-start))
		copy(b.values.Buf(), oldVals.Buf()[start:end])
		b.size = int(end - start)
	}
	b.n = tail
	oldOffs.ResizeNoShrink((cut + 1) * 4)
	oldVals.ResizeNoShrink(int(start))
	return newData(b.dt, cut, []*memory.Buffer{vb, oldOffs, oldVals}, nulls)
}

func (b *binaryBuilder) release() {
	b.offsets.Release()
	b.values.Release()
	b.valid.release()
	b.n, b.cap, b.size = 0, 0, 0
}
