package icesync

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/tsarrow/tsarrow/arrowconv"
)

// ErrUnsupported is returned for a source column or time unit the Iceberg
// table cannot hold without changing values.
var ErrUnsupported = errors.New("icesync: unsupported")

// ErrTimeRange is returned for a timestamp that does not fit the table's
// microseconds (beyond about 292,000 years from 1970).
var ErrTimeRange = errors.New("icesync: timestamp out of the range of Iceberg microseconds")

// icebergSchema builds the Iceberg schema of a dataset table from the Arrow
// schema dataset.Reader streams (with arrowconv.Options.PlainTags): the time
// column first and required, every TAG, ATTRIBUTE and FIELD after it as an
// optional column of the same name, field IDs 1, 2, ... in that order. The
// column's TsFile category goes into its doc, so that a reader of the table
// knows which columns identify a device.
//
// Times become timestamptz in microseconds, Iceberg format v2's only
// timestamp unit: every millisecond and microsecond value fits (multiplied
// by 1000 or kept), where nanoseconds would be cut, so a nanosecond table is
// refused (format v3's timestamptz_ns would keep them; iceberg-go writes v3,
// but the issue asks for v2 tables that every engine reads).
func icebergSchema(sc *arrow.Schema) (*iceberg.Schema, error) {
	fields := make([]iceberg.NestedField, 0, sc.NumFields())
	for i, f := range sc.Fields() {
		t, err := icebergType(f)
		if err != nil {
			return nil, err
		}
		doc := ""
		if c, ok := f.Metadata.GetValue(arrowconv.MetaCategory); ok {
			doc = "TsFile " + c
			if ty, ok := f.Metadata.GetValue(arrowconv.MetaType); ok {
				doc += " " + ty
			}
		}
		fields = append(fields, iceberg.NestedField{
			ID: i + 1, Name: f.Name, Type: t, Required: i == 0 || !f.Nullable, Doc: doc,
		})
	}
	return iceberg.NewSchema(0, fields...), nil
}

// icebergType maps one Arrow column of a dataset table to its Iceberg type.
func icebergType(f arrow.Field) (iceberg.Type, error) {
	switch t := f.Type.(type) {
	case *arrow.TimestampType:
		if t.Unit == arrow.Nanosecond || t.Unit == arrow.Second {
			// Seconds would fit; TsFile never stores them (arrowconv picks
			// ms, us or ns), so refuse rather than carry an untested path.
			return nil, fmt.Errorf("%w: column %q in %s: Iceberg v2 timestamps are microseconds and would change these values", ErrUnsupported, f.Name, t.Unit)
		}
		return iceberg.TimestampTzType{}, nil
	case *arrow.BooleanType:
		return iceberg.BooleanType{}, nil
	case *arrow.Int32Type:
		return iceberg.Int32Type{}, nil
	case *arrow.Int64Type:
		return iceberg.Int64Type{}, nil
	case *arrow.Float32Type:
		return iceberg.Float32Type{}, nil
	case *arrow.Float64Type:
		return iceberg.Float64Type{}, nil
	case *arrow.StringType:
		return iceberg.StringType{}, nil
	case *arrow.BinaryType:
		return iceberg.BinaryType{}, nil
	case *arrow.Date32Type:
		return iceberg.DateType{}, nil
	}
	return nil, fmt.Errorf("%w: column %q of Arrow type %s", ErrUnsupported, f.Name, f.Type)
}

// conformer turns the batches of a dataset.Reader into batches of the
// table's Arrow schema (with its field IDs): timestamps in milliseconds
// multiplied into microseconds, every other column shared as it is.
type conformer struct {
	mem memory.Allocator
	out *arrow.Schema
}

// conform returns rec in the schema c.out; the caller releases both.
func (c *conformer) conform(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, col := range rec.Columns() {
		ts, ok := col.(*array.Timestamp)
		if !ok {
			col.Retain()
			cols[i] = col
			continue
		}
		a, err := c.micros(rec.Schema().Field(i), ts, c.out.Field(i).Type)
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	return array.NewRecordBatch(c.out, cols, rec.NumRows()), nil
}

// micros converts a timestamp column to microseconds, refusing a value
// that would overflow rather than wrapping it.
func (c *conformer) micros(f arrow.Field, ts *array.Timestamp, out arrow.DataType) (arrow.Array, error) {
	unit := ts.DataType().(*arrow.TimestampType).Unit
	if unit == arrow.Microsecond {
		data := array.NewData(out, ts.Len(), ts.Data().Buffers(), nil, ts.NullN(), ts.Data().Offset())
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	if unit != arrow.Millisecond {
		return nil, fmt.Errorf("%w: column %q in %s", ErrUnsupported, f.Name, unit)
	}
	const lim = math.MaxInt64 / 1000
	vals := ts.TimestampValues()
	if ts.NullN() == 0 {
		// The time column is required, so this is the path of every
		// batch: one tight loop into a buffer of the result's size, no
		// builder and no validity test per value.
		buf := memory.NewResizableBuffer(c.mem)
		buf.Resize(arrow.TimestampTraits.BytesRequired(len(vals)))
		dst := arrow.TimestampTraits.CastFromBytes(buf.Bytes())
		for j, v := range vals {
			if v > lim || v < -lim {
				buf.Release()
				return nil, fmt.Errorf("%w: column %q holds %d ms", ErrTimeRange, f.Name, v)
			}
			dst[j] = v * 1000
		}
		data := array.NewData(out, len(vals), []*memory.Buffer{nil, buf}, nil, 0, 0)
		buf.Release()
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	b := array.NewTimestampBuilder(c.mem, out.(*arrow.TimestampType))
	defer b.Release()
	b.Reserve(ts.Len())
	for j, v := range vals {
		if ts.IsNull(j) {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if v > lim || v < -lim {
			return nil, fmt.Errorf("%w: column %q holds %d ms", ErrTimeRange, f.Name, v)
		}
		b.UnsafeAppend(arrow.Timestamp(v * 1000))
	}
	return b.NewArray(), nil
}
