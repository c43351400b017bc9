package export

import (
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// WriteJSONL writes r as JSON Lines with the default options:
// WriteJSONLWith(w, r, nil).
func WriteJSONL(w io.Writer, r array.RecordReader) (int64, error) {
	return WriteJSONLWith(w, r, nil)
}

// WriteJSONLWith writes one JSON object per record row, one per line (JSON
// Lines), with the fields in schema order. Values follow WriteCSVWith's
// conventions where JSON has no type of its own: timestamps are strings
// in ISO 8601 (TimeISO, the default) or the raw stored integers as JSON
// numbers (TimeEpoch), DATE is a "YYYY-MM-DD" string, binary a "0x" + hex
// string, a struct (such as an OBJECT reference, {"size":N,"path":"..."})
// an object of its fields in order, and NaN and the infinities, which JSON numbers cannot hold, the
// strings "NaN", "Infinity" and "-Infinity". A null is JSON null.
//
// It consumes r up to its end and returns the number of rows written.
func WriteJSONLWith(w io.Writer, r array.RecordReader, opts *TextOptions) (int64, error) {
	tf := opts.timeFormat()
	fields := r.Schema().Fields()
	keys := make([][]byte, len(fields))
	for i, f := range fields {
		k := []byte{'{'}
		if i > 0 {
			k = []byte{','}
		}
		k = appendJSONString(k, f.Name)
		keys[i] = append(k, ':')
	}
	cell := func(a arrow.Array) (cellFunc, error) { return jsonCell(a, tf) }
	return writeLines(w, r, nil, cell, func(line []byte, cells []cellFunc, i int) []byte {
		for c, f := range cells {
			line = f(append(line, keys[c]...), i)
		}
		if len(cells) == 0 {
			line = append(line, '{')
		}
		return append(line, '}', '\n')
	})
}

// jsonCell returns the JSON formatter of a column, nulls included.
func jsonCell(a arrow.Array, tf TimeFormat) (cellFunc, error) {
	var f cellFunc
	switch a := a.(type) {
	case *array.Float32:
		f = func(d []byte, i int) []byte { return appendJSONFloat(d, float64(a.Value(i)), 32) }
	case *array.Float64:
		f = func(d []byte, i int) []byte { return appendJSONFloat(d, a.Value(i), 64) }
	case *array.String:
		f = func(d []byte, i int) []byte { return appendJSONString(d, a.Value(i)) }
	case *array.LargeString:
		f = func(d []byte, i int) []byte { return appendJSONString(d, a.Value(i)) }
	case *array.StringView:
		f = func(d []byte, i int) []byte { return appendJSONString(d, a.Value(i)) }
	case *array.Dictionary:
		dict, err := jsonCell(a.Dictionary(), tf)
		if err != nil {
			return nil, err
		}
		f = func(d []byte, i int) []byte { return dict(d, a.GetValueIndex(i)) }
	case *array.Timestamp:
		v, err := valueCell(a, tf)
		if err != nil {
			return nil, err
		}
		f = v
		if tf != TimeEpoch {
			// ISO 8601 needs no escaping.
			f = func(d []byte, i int) []byte { return append(v(append(d, '"'), i), '"') }
		}
	case *array.Struct:
		v, err := structJSON(a, tf)
		if err != nil {
			return nil, err
		}
		f = v
	case *array.Binary, *array.LargeBinary, *array.BinaryView, *array.Date32:
		// Their CSV forms (0x-hex, YYYY-MM-DD) need no escaping.
		v, err := valueCell(a, tf)
		if err != nil {
			return nil, err
		}
		f = func(d []byte, i int) []byte { return append(v(append(d, '"'), i), '"') }
	default:
		// Booleans and integers are JSON literals in their CSV form.
		v, err := valueCell(a, tf)
		if err != nil {
			return nil, fmt.Errorf("no JSON form for Arrow type %s", a.DataType())
		}
		f = v
	}
	return func(d []byte, i int) []byte {
		if a.IsNull(i) {
			return append(d, "null"...)
		}
		return f(d, i)
	}, nil
}

func appendJSONFloat(d []byte, v float64, bits int) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(appendJavaFloat(append(d, '"'), v, bits), '"')
	}
	return appendJavaFloat(d, v, bits)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendJSONString(d []byte, s string) []byte {
	const hex = "0123456789abcdef"
	d = append(d, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				d = append(d, '\\', c)
			case c == '\n':
				d = append(d, '\\', 'n')
			case c == '\r':
				d = append(d, '\\', 'r')
			case c == '\t':
				d = append(d, '\\', 't')
			case c < 0x20:
				d = append(d, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				d = append(d, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			d = append(d, "\ufffd"...)
		} else {
			d = append(d, s[i:i+n]...)
		}
		i += n
	}
	return append(d, '"')
}

// structJSON returns the JSON formatter of a struct column's non-null
// rows: an object of its fields, in order, each in its own JSON form.
func structJSON(a *array.Struct, tf TimeFormat) (cellFunc, error) {
	st := a.DataType().(*arrow.StructType)
	keys := make([][]byte, st.NumFields())
	fields := make([]cellFunc, st.NumFields())
	for k := range fields {
		key := []byte{'{'}
		if k > 0 {
			key = []byte{','}
		}
		key = appendJSONString(key, st.Field(k).Name)
		keys[k] = append(key, ':')
		// Field(k) holds the struct's rows at the struct's own offset.
		f, err := jsonCell(a.Field(k), tf)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", st.Field(k).Name, err)
		}
		fields[k] = f
	}
	return func(d []byte, i int) []byte {
		for k, f := range fields {
			d = f(append(d, keys[k]...), i)
		}
		if len(fields) == 0 {
			d = append(d, '{')
		}
		return append(d, '}')
	}, nil
}
