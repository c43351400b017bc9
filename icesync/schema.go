package icesync

import (
	"errors"
	"fmt"
	"math"
	"strings"

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
// refused (format v3's timestamptz_ns would keep them, but the issue asks
// for v2 tables that every engine reads, and v3 support in engines is
// young: DuckDB's iceberg extension and Trino read v2).
func icebergSchema(sc *arrow.Schema) (*iceberg.Schema, error) {
	fields := make([]iceberg.NestedField, 0, sc.NumFields())
	for i, f := range sc.Fields() {
		t, err := icebergType(f)
		if err != nil {
			return nil, err
		}
		doc := ""
		if c, _ := f.Metadata.GetValue(arrowconv.MetaCategory); c == categoryDatabase {
			doc = docDatabase
		} else if c != "" {
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
		switch t.Unit {
		case arrow.Second:
			// Seconds would fit, but IoTDB's timestamp_precision is ms,
			// us or ns: refuse rather than carry an untested path.
			return nil, fmt.Errorf("%w: column %q in seconds: IoTDB stores ms, us or ns (give the --time-unit IoTDB was configured with)", ErrUnsupported, f.Name)
		case arrow.Nanosecond:
			// Nanoseconds need format v3's timestamptz_ns, which not every
			// engine reads yet (the issue asks for v2 tables); a v2 table
			// would cut the last three digits, a silent change of values.
			return nil, fmt.Errorf("%w: column %q holds ns times, and Iceberg v2 timestamps are microseconds, which would cut them; export this table with convert (Parquet keeps nanoseconds) instead", ErrUnsupported, f.Name)
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

// categoryDatabase is the arrowconv.MetaCategory of the database column a
// sync of several databases adds, and docDatabase its doc in the table.
const (
	categoryDatabase = "DATABASE"
	docDatabase      = "tsarrow database: the IoTDB database the row was read from"
	// DatabaseColumn names the column of a table synced from several
	// databases that holds each row's database.
	DatabaseColumn = "database"
)

// columnCategory is the TsFile category of a table column, from the doc
// icebergSchema gives it ("TAG", "FIELD", ...; categoryDatabase for the
// database column), "" when it has none.
func columnCategory(f iceberg.NestedField) string {
	if f.Doc == docDatabase {
		return categoryDatabase
	}
	rest, ok := strings.CutPrefix(f.Doc, "TsFile ")
	if !ok {
		return ""
	}
	c, _, _ := strings.Cut(rest, " ")
	return c
}

// conformer turns the batches of a dataset.Reader into batches of the
// table's Arrow schema (with its field IDs), matching columns by name:
// timestamps in milliseconds multiplied into microseconds, an INT32 or
// FLOAT column widened where the table's column is long or double (a
// promotion Iceberg allows, see evolve), a column of the table the inputs
// lack all null, every other column shared as it is.
type conformer struct {
	mem memory.Allocator
	out *arrow.Schema
}

// conform returns rec in the schema c.out; the caller releases both.
func (c *conformer) conform(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	in := rec.Schema()
	cols := make([]arrow.Array, c.out.NumFields())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	used := 0
	for i, of := range c.out.Fields() {
		idx := in.FieldIndices(of.Name)
		if len(idx) == 0 {
			// A column the table has and these inputs lack (gone from
			// them, or another database's): null, as Iceberg reads a
			// column a data file does not hold.
			cols[i] = array.MakeArrayOfNull(c.mem, of.Type, int(rec.NumRows()))
			continue
		}
		used++
		col := rec.Column(idx[0])
		var err error
		switch {
		case col.DataType().ID() == arrow.TIMESTAMP:
			cols[i], err = c.micros(in.Field(idx[0]), col.(*array.Timestamp), of.Type)
		case arrow.TypeEqual(col.DataType(), of.Type):
			col.Retain()
			cols[i] = col
		default:
			cols[i], err = c.widen(in.Field(idx[0]), col, of.Type)
		}
		if err != nil {
			return nil, err
		}
	}
	if used != in.NumFields() {
		for _, f := range in.Fields() {
			if len(c.out.FieldIndices(f.Name)) == 0 {
				return nil, fmt.Errorf("%w: the inputs' column %q is not in the table", ErrSchemaChanged, f.Name)
			}
		}
	}
	return array.NewRecordBatch(c.out, cols, rec.NumRows()), nil
}

// widen converts an INT32 column to long or a FLOAT column to double.
func (c *conformer) widen(f arrow.Field, col arrow.Array, out arrow.DataType) (arrow.Array, error) {
	switch a := col.(type) {
	case *array.Int32:
		if out.ID() == arrow.INT64 {
			b := array.NewInt64Builder(c.mem)
			defer b.Release()
			b.Reserve(a.Len())
			for j, v := range a.Int32Values() {
				if a.IsNull(j) {
					b.UnsafeAppendBoolToBitmap(false)
				} else {
					b.UnsafeAppend(int64(v))
				}
			}
			return b.NewArray(), nil
		}
	case *array.Float32:
		if out.ID() == arrow.FLOAT64 {
			b := array.NewFloat64Builder(c.mem)
			defer b.Release()
			b.Reserve(a.Len())
			for j, v := range a.Float32Values() {
				if a.IsNull(j) {
					b.UnsafeAppendBoolToBitmap(false)
				} else {
					b.UnsafeAppend(float64(v))
				}
			}
			return b.NewArray(), nil
		}
	}
	return nil, fmt.Errorf("%w: column %q is %s in the inputs and %s in the table", ErrSchemaChanged, f.Name, col.DataType(), out)
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
