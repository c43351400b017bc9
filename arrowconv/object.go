package arrowconv

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/tsfile"
)

// An OBJECT cell (data type 12) holds no object, only the object's size
// and the path of the file IoTDB keeps it in, under the object/ folder of
// a data directory (tsfile.ParseObjectCell has the layout). By default an
// OBJECT column is read as ObjectType, those two values; with
// Options.ObjectBytes it holds the objects' bytes instead, read from
// Options.ObjectRoot.

// ObjectType is the Arrow type of an OBJECT column read as references: a
// nullable struct (null where the cell is) of the object's size in bytes
// and its file's slash-separated path relative to the object folder.
var ObjectType = arrow.StructOf(
	arrow.Field{Name: ObjectSizeField, Type: arrow.PrimitiveTypes.Int64},
	arrow.Field{Name: ObjectPathField, Type: arrow.BinaryTypes.String},
)

// The names of ObjectType's fields.
const (
	ObjectSizeField = "size"
	ObjectPathField = "path"
)

// ObjectBytesType is the Arrow type of an OBJECT column read as bytes
// (Options.ObjectBytes): large_binary, so that a batch of large objects
// does not overflow int32 offsets.
var ObjectBytesType = arrow.BinaryTypes.LargeBinary

// DefaultMaxObjectSize is the largest object Options.ObjectBytes reads
// when Options.MaxObjectSize is 0: 64 MiB. A batch holds up to BatchSize
// objects, so the bound on a batch is BatchSize times this.
const DefaultMaxObjectSize = 64 << 20

// ErrObjectRoot is returned where OBJECT bytes are asked for and no
// object folder is known.
var ErrObjectRoot = errors.New("arrowconv: OBJECT bytes asked for but no object folder is known (Options.ObjectRoot)")

// IsObjectField reports whether f is an OBJECT column in either shape, by
// its MetaType metadata.
func IsObjectField(f arrow.Field) bool {
	v, ok := f.Metadata.GetValue(MetaType)
	return ok && v == tsfile.Object.String()
}

// objectColumn reports whether f is a value column the reader turns from
// raw cells into an OBJECT shape: of TsFile type OBJECT and of either
// Arrow type. (A constant column declared OBJECT, which only a damaged
// schema holds, stays a dictionary of its segments.)
func objectColumn(f arrow.Field) bool {
	return IsObjectField(f) && (arrow.TypeEqual(f.Type, ObjectType) || arrow.TypeEqual(f.Type, ObjectBytesType))
}

// ObjectBytesSchema returns sc with every OBJECT column of ObjectType
// turned into ObjectBytesType, the schema ObjectLoader.Load gives.
func ObjectBytesSchema(sc *arrow.Schema) *arrow.Schema {
	fields := sc.Fields()
	changed := false
	for i, f := range fields {
		if IsObjectField(f) && arrow.TypeEqual(f.Type, ObjectType) {
			fields[i].Type = ObjectBytesType
			changed = true
		}
	}
	if !changed {
		return sc
	}
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md)
}

// objectRefs turns a binary column of raw OBJECT cells into ObjectType.
// col names the column in errors.
func objectRefs(mem memory.Allocator, a *array.Binary, col string) (arrow.Array, error) {
	// Built by hand rather than with a StructBuilder, whose AppendNull
	// appends nulls to the children: these are not nullable, so a null
	// struct holds the zero size and the empty path.
	sizes := array.NewInt64Builder(mem)
	defer sizes.Release()
	paths := array.NewStringBuilder(mem)
	defer paths.Release()
	n := a.Len()
	sizes.Reserve(n)
	paths.Reserve(n)
	paths.ReserveData(len(a.ValueBytes()))
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			sizes.Append(0)
			paths.Append("")
			continue
		}
		ref, err := tsfile.ParseObjectCell(a.Value(i))
		if err != nil {
			return nil, fmt.Errorf("arrowconv: column %q: %w", col, err)
		}
		sizes.Append(ref.Size)
		paths.Append(ref.Path)
	}
	s, p := sizes.NewArray(), paths.NewArray()
	defer s.Release()
	defer p.Release()
	var valid *memory.Buffer
	if nulls := a.NullN(); nulls > 0 {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		defer valid.Release()
		bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), n, valid.Bytes(), 0)
	}
	d := array.NewData(ObjectType, n, []*memory.Buffer{valid}, []arrow.ArrayData{s.Data(), p.Data()}, a.NullN(), 0)
	defer d.Release()
	return array.NewStructData(d), nil
}

// An ObjectLoader reads the objects OBJECT references name.
type ObjectLoader struct {
	// Root is the object folder the paths are relative to.
	Root fs.FS
	// MaxSize is the largest object read (DefaultMaxObjectSize when 0);
	// a larger one is an OptionError naming Options.MaxObjectSize.
	MaxSize int64
	// Mem allocates the bytes (memory.DefaultAllocator when nil).
	Mem memory.Allocator
}

// Load returns rec with every OBJECT column of ObjectType replaced by the
// objects' bytes, with schema ObjectBytesSchema(rec.Schema()). An object
// whose file is missing, or holds another size than its cell records, is
// an error naming the file; rec is left to the caller.
func (l *ObjectLoader) Load(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	sc := rec.Schema()
	out := ObjectBytesSchema(sc)
	if out == sc {
		rec.Retain()
		return rec, nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		f := sc.Field(i)
		if !IsObjectField(f) || !arrow.TypeEqual(f.Type, ObjectType) {
			cols[i] = rec.Column(i)
			cols[i].Retain()
			continue
		}
		c, err := l.column(rec.Column(i).(*array.Struct), f.Name)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecordBatch(out, cols, rec.NumRows()), nil
}

// column reads the objects of one column of references.
func (l *ObjectLoader) column(a *array.Struct, col string) (arrow.Array, error) {
	if l.Root == nil {
		return nil, fmt.Errorf("column %q: %w", col, ErrObjectRoot)
	}
	mem := l.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	max := l.MaxSize
	if max <= 0 {
		max = DefaultMaxObjectSize
	}
	sizes := a.Field(0).(*array.Int64)
	paths := a.Field(1).(*array.String)
	b := array.NewBinaryBuilder(mem, ObjectBytesType)
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, err := l.read(paths.Value(i), sizes.Value(i), max, col)
		if err != nil {
			return nil, err
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// read reads one object, checked against the size its cell records.
func (l *ObjectLoader) read(p string, size, max int64, col string) ([]byte, error) {
	name := path.Clean(p)
	if !fs.ValidPath(name) || name == "." {
		return nil, fmt.Errorf("arrowconv: column %q: OBJECT path %q does not name a file inside the object folder: %w", col, p, tsfile.ErrCorrupt)
	}
	if size > max {
		return nil, &OptionError{
			Problem: fmt.Sprintf("column %q: object %s holds %d bytes, over the limit of %d", col, name, size, max),
			Option:  "MaxObjectSize", Remedy: "to a larger size"}
	}
	f, err := l.Root.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("arrowconv: column %q: object file %s is missing from the object folder: %w", col, name, err)
		}
		return nil, fmt.Errorf("arrowconv: column %q: object file %s: %w", col, name, err)
	}
	defer f.Close()
	buf := make([]byte, size)
	if _, err := io.ReadFull(f, buf); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("arrowconv: column %q: object file %s holds fewer bytes than the %d its cell records: %w", col, name, size, tsfile.ErrCorrupt)
		}
		return nil, fmt.Errorf("arrowconv: column %q: object file %s: %w", col, name, err)
	}
	var one [1]byte
	if n, _ := f.Read(one[:]); n > 0 {
		return nil, fmt.Errorf("arrowconv: column %q: object file %s holds more bytes than the %d its cell records: %w", col, name, size, tsfile.ErrCorrupt)
	}
	return buf, nil
}

// objectConv turns the raw OBJECT columns of the builders' records into
// the output shape: references, then bytes under Options.ObjectBytes.
type objectConv struct {
	cols   []int // output columns that are OBJECT
	mem    memory.Allocator
	loader *ObjectLoader // nil: references
}

// newObjectConv returns the conversion of schema out (the output, in
// which OBJECT columns have their final type), nil when it has no OBJECT
// column.
func newObjectConv(out *arrow.Schema, o *Options) *objectConv {
	var cols []int
	for i, f := range out.Fields() {
		if objectColumn(f) {
			cols = append(cols, i)
		}
	}
	if cols == nil {
		return nil
	}
	c := &objectConv{cols: cols, mem: o.Allocator}
	if o.ObjectBytes {
		c.loader = &ObjectLoader{Root: o.ObjectRoot, MaxSize: o.MaxObjectSize, Mem: o.Allocator}
	}
	return c
}

// rawSchema is out with the OBJECT columns binary, the type the builders
// make.
func (c *objectConv) rawSchema(out *arrow.Schema) *arrow.Schema { return rawObjectSchema(out) }

// convert turns raw (of rawSchema) into a record of out; raw is released.
func (c *objectConv) convert(raw arrow.RecordBatch, out *arrow.Schema) (arrow.RecordBatch, error) {
	defer raw.Release()
	cols := make([]arrow.Array, raw.NumCols())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i := range cols {
		cols[i] = raw.Column(i)
		cols[i].Retain()
	}
	for _, i := range c.cols {
		refs, err := objectRefs(c.mem, cols[i].(*array.Binary), out.Field(i).Name)
		if err != nil {
			return nil, err
		}
		cols[i].Release()
		cols[i] = refs
		if c.loader != nil {
			v, err := c.loader.column(refs.(*array.Struct), out.Field(i).Name)
			if err != nil {
				return nil, err
			}
			cols[i].Release()
			cols[i] = v
		}
	}
	return array.NewRecordBatch(out, cols, raw.NumRows()), nil
}

// rawObjectSchema is sc with its OBJECT columns binary.
func rawObjectSchema(sc *arrow.Schema) *arrow.Schema {
	fields := sc.Fields()
	for i, f := range fields {
		if objectColumn(f) {
			fields[i].Type = arrow.BinaryTypes.Binary
		}
	}
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md)
}
