package export

import (
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IPCOptions configure WriteIPC. A nil *IPCOptions selects the defaults.
type IPCOptions struct {
	// Stream selects the Arrow IPC stream format instead of the file
	// format.
	Stream bool
	// Compression is the IPC body compression: "" or "none" (the default),
	// "zstd", or "lz4" (LZ4 frame).
	Compression string
	// Allocator provides the buffers of the writer (default
	// memory.DefaultAllocator).
	Allocator memory.Allocator
}

// IPCCompressions returns the compression names IPCOptions accepts, in a
// new slice the caller may change.
func IPCCompressions() []string { return []string{"none", "zstd", "lz4"} }

// WriteIPC writes every record of rr to w in the Arrow IPC file format (or
// the stream format, if opts.Stream is set) and returns the number of rows
// written. It reads rr to its end but does not release it. An error from rr
// is returned unchanged; writing errors are wrapped.
//
// Dictionary columns may change their dictionary from one batch to the
// next. A dictionary that extends the previous one (the readers of
// package arrowconv only ever append values) is written as a delta dictionary batch
// in both formats. The stream format writes any other change as a
// dictionary replacement. The file format allows only one dictionary per
// column, extended by deltas, so WriteIPC unifies a replaced dictionary of
// string, binary or fixed-width values with the dictionary written so far:
// the values it lacks are appended and the batch's indices are remapped.
// A replaced dictionary of another value type, or one nested inside another
// type, is an error for the file format.
func WriteIPC(w io.Writer, rr array.RecordReader, opts *IPCOptions) (rows int64, err error) {
	var o IPCOptions
	if opts != nil {
		o = *opts
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	schema := rr.Schema()
	ipcOpts := []ipc.Option{
		ipc.WithSchema(schema),
		ipc.WithAllocator(o.Allocator),
		ipc.WithDictionaryDeltas(true),
	}
	switch o.Compression {
	case "", "none":
	case "zstd":
		ipcOpts = append(ipcOpts, ipc.WithZstd())
	case "lz4":
		ipcOpts = append(ipcOpts, ipc.WithLZ4())
	default:
		return 0, fmt.Errorf("export: ipc: unknown compression %q (want %s)", o.Compression, listNames(IPCCompressions()))
	}

	var (
		sink = &cutWriter{w: w}
		iw   *ipc.Writer
		uni  *dictUnifier
	)
	if o.Stream {
		iw = ipc.NewWriter(sink, ipcOpts...)
	} else {
		framer := &ipcFileFramer{w: sink, schema: schema, mem: o.Allocator, dictSeen: map[int64]bool{}}
		iw = ipc.NewWriterWithPayloadWriter(framer, ipcOpts...)
		uni = newDictUnifier(o.Allocator, schema)
		defer uni.release()
	}
	// abort releases the writer after a failure without completing the
	// output: a stream gets no end-of-stream marker, a file no footer.
	abort := func() {
		sink.cut = true
		iw.Close()
	}
	var conv func(arrow.RecordBatch) (arrow.RecordBatch, error)
	if uni != nil {
		conv = uni.unify
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		n := rec.NumRows()
		if err := writeConverted(rec, conv, iw.Write); err != nil {
			abort()
			return rows, fmt.Errorf("export: ipc: %w", err)
		}
		rows += n
	}
	if err := rr.Err(); err != nil {
		abort()
		return rows, err
	}
	if err := iw.Close(); err != nil {
		return rows, fmt.Errorf("export: ipc: %w", err)
	}
	return rows, nil
}

// dictUnifier keeps one dictionary per top-level dictionary column across
// the batches of a stream, for the IPC file format: each batch's column is
// made to index into a dictionary that extends the one of the batch before.
type dictUnifier struct {
	mem  memory.Allocator
	cols []*unifiedDict // by column; nil for other columns
}

// unifiedDict is the dictionary of one column so far.
type unifiedDict struct {
	dict    arrow.Array
	pos     map[string]int // value -> first index in dict, for dict[:indexed]
	indexed int
}

// newDictUnifier returns a unifier for the dictionary columns of schema,
// or nil if it has none.
func newDictUnifier(mem memory.Allocator, schema *arrow.Schema) *dictUnifier {
	u := &dictUnifier{mem: mem, cols: make([]*unifiedDict, schema.NumFields())}
	some := false
	for i, f := range schema.Fields() {
		if f.Type.ID() == arrow.DICTIONARY {
			u.cols[i] = &unifiedDict{}
			some = true
		}
	}
	if !some {
		return nil
	}
	return u
}

// release drops the dictionaries held. It accepts a nil unifier.
func (u *dictUnifier) release() {
	if u == nil {
		return
	}
	for _, c := range u.cols {
		if c != nil && c.dict != nil {
			c.dict.Release()
			c.dict = nil
		}
	}
}

// unify returns rec, retained, if each of its dictionaries is, or
// extends, the column's dictionary so far, and otherwise a new record
// whose changed columns index into the unified dictionaries. The caller
// releases the result.
func (u *dictUnifier) unify(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, s := range u.cols {
		if s == nil {
			continue
		}
		col, ok := rec.Column(i).(*array.Dictionary)
		if !ok {
			return nil, fmt.Errorf("column %q is %T, not a dictionary", rec.ColumnName(i), rec.Column(i))
		}
		repl, err := s.unify(u.mem, col)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
		}
		if repl == nil {
			continue
		}
		if cols == nil {
			cols = make([]arrow.Array, rec.NumCols())
		}
		cols[i] = repl
	}
	if cols == nil {
		rec.Retain()
		return rec, nil
	}
	all := make([]arrow.Array, rec.NumCols())
	for i := range all {
		if cols[i] != nil {
			all[i] = cols[i]
		} else {
			all[i] = rec.Column(i)
		}
	}
	return array.NewRecordBatch(rec.Schema(), all, rec.NumRows()), nil
}

// unify makes col index into the column's dictionary, returning a
// replacement column, or nil when col already does.
func (s *unifiedDict) unify(mem memory.Allocator, col *array.Dictionary) (arrow.Array, error) {
	d := col.Dictionary()
	if s.dict == nil {
		d.Retain()
		s.dict = d
		return nil, nil
	}
	if d.Data() == s.dict.Data() {
		return nil, nil
	}
	n, m := int64(d.Len()), int64(s.dict.Len())
	if n >= m && array.SliceEqual(s.dict, 0, m, d, 0, m) {
		// An extension (or the same values): it becomes the dictionary.
		d.Retain()
		s.dict.Release()
		s.dict = d
		return nil, nil
	}
	if n < m && array.SliceEqual(d, 0, n, s.dict, 0, n) {
		// A prefix: the indices are valid in the longer dictionary.
		return array.NewDictionaryArray(col.DataType(), col.Indices(), s.dict), nil
	}
	return s.remap(mem, col)
}

// remap appends the values of col's dictionary that the column's
// dictionary lacks and returns col with its indices rewritten.
func (s *unifiedDict) remap(mem memory.Allocator, col *array.Dictionary) (arrow.Array, error) {
	d := col.Dictionary()
	newKey, ok1 := dictKeys(d)
	oldKey, ok2 := dictKeys(s.dict)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("dictionary replaced, not extended, and %s dictionaries cannot be unified; the IPC file format allows one dictionary per column (use the stream format)", d.DataType())
	}
	if s.pos == nil {
		s.pos = map[string]int{}
	}
	for j := s.indexed; j < s.dict.Len(); j++ {
		if s.dict.IsNull(j) {
			continue
		}
		k := oldKey(j)
		if _, dup := s.pos[k]; !dup {
			s.pos[k] = j
		}
	}
	m := s.dict.Len()
	s.indexed = m
	mapping := make([]int, d.Len()) // index in d -> index in the unified dictionary, -1 for null
	var added []int                 // indices in d of new values
	for j := range mapping {
		if d.IsNull(j) {
			mapping[j] = -1
			continue
		}
		k := newKey(j)
		p, ok := s.pos[k]
		if !ok {
			p = m + len(added)
			s.pos[k] = p
			added = append(added, j)
		}
		mapping[j] = p
	}
	size := m + len(added)
	if size > 0 && int64(size-1) > maxDictIndex(col.Indices().DataType()) {
		return nil, fmt.Errorf("unified dictionary of %d values overflows %s indices", size, col.Indices().DataType())
	}

	dict := s.dict
	if len(added) > 0 {
		parts := []arrow.Array{s.dict}
		for a := 0; a < len(added); {
			b := a + 1
			for b < len(added) && added[b] == added[b-1]+1 {
				b++
			}
			parts = append(parts, array.NewSlice(d, int64(added[a]), int64(added[b-1]+1)))
			a = b
		}
		var err error
		dict, err = array.Concatenate(parts, mem)
		for _, p := range parts[1:] {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
		s.dict.Release()
		s.dict = dict
		s.indexed = size
	}

	vals := make([]int64, col.Len())
	valid := make([]bool, col.Len())
	for r := range vals {
		if col.IsNull(r) {
			continue
		}
		if p := mapping[col.GetValueIndex(r)]; p >= 0 {
			vals[r], valid[r] = int64(p), true
		}
	}
	idx, err := newIndices(mem, col.Indices().DataType(), vals, valid)
	if err != nil {
		return nil, err
	}
	defer idx.Release()
	return array.NewDictionaryArray(col.DataType(), idx, dict), nil
}

// dictKeys returns a function giving the identity of each value of a
// dictionary: its bytes for string and binary types, the bytes of its slot
// for fixed-width types. It reports false for value types it cannot key.
func dictKeys(a arrow.Array) (func(int) string, bool) {
	switch a := a.(type) {
	case interface{ Value(int) string }:
		return a.Value, true
	case interface{ Value(int) []byte }:
		return func(i int) string { return string(a.Value(i)) }, true
	}
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	bufs := a.Data().Buffers()
	if !ok || fw.BitWidth()%8 != 0 || len(bufs) != 2 || bufs[1] == nil {
		return nil, false
	}
	w, data, off := fw.BitWidth()/8, bufs[1].Bytes(), a.Data().Offset()
	return func(i int) string { return string(data[(off+i)*w : (off+i+1)*w]) }, true
}

// maxDictIndex is the largest index an integer index type holds.
func maxDictIndex(dt arrow.DataType) int64 {
	switch dt.ID() {
	case arrow.INT8:
		return math.MaxInt8
	case arrow.UINT8:
		return math.MaxUint8
	case arrow.INT16:
		return math.MaxInt16
	case arrow.UINT16:
		return math.MaxUint16
	case arrow.INT32:
		return math.MaxInt32
	case arrow.UINT32:
		return math.MaxUint32
	}
	return math.MaxInt64
}

// newIndices builds an index array of type dt.
func newIndices(mem memory.Allocator, dt arrow.DataType, vals []int64, valid []bool) (arrow.Array, error) {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	switch b := b.(type) {
	case *array.Int8Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	case *array.Int16Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	case *array.Int32Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	case *array.Int64Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	case *array.Uint8Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	case *array.Uint16Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	case *array.Uint32Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	case *array.Uint64Builder:
		fillIndices(b.Append, b.AppendNull, vals, valid)
	default:
		return nil, fmt.Errorf("unsupported dictionary index type %s", dt)
	}
	return b.NewArray(), nil
}

func fillIndices[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](add func(T), null func(), vals []int64, valid []bool) {
	for i, v := range vals {
		if valid[i] {
			add(T(v))
		} else {
			null()
		}
	}
}
