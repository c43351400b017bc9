package fromarrow

import (
	"fmt"
	"io"
	"strings"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

// The defaults are those of IoTDB 2.x, so that a file written here is as
// compact as one IoTDB flushes and loads into it without surprises:
//
//   - apache/iotdb iotdb-core/node-commons/src/assembly/resources/conf/
//     iotdb-system.properties.template (commit 0044a543d748, 2.x line):
//     default_boolean_encoding=RLE, default_int32_encoding=TS_2DIFF,
//     default_int64_encoding=TS_2DIFF, default_float_encoding=GORILLA,
//     default_double_encoding=GORILLA, default_text_encoding=PLAIN, the
//     per-type boolean/int32/int64/float/double/text_compressor=LZ4, and
//     compressor=LZ4, "also used as the default compressor of time column
//     in aligned timeseries".
//   - apache/tsfile java/tsfile/src/main/java/org/apache/tsfile/common/conf/
//     TSFileConfig.java (commit 02b503b92416): timeEncoding TS_2DIFF,
//     booleanEncoding RLE, int32Encoding (INT32 and DATE) TS_2DIFF,
//     int64Encoding (INT64 and TIMESTAMP) TS_2DIFF, float/doubleEncoding
//     GORILLA, textEncoding (STRING, BLOB and TEXT) PLAIN, and compressor
//     LZ4, which each per-type compression falls back to.
//
// The time column stays TS_2DIFF: upstream readers decode every time stream
// with the time encoder of their configuration, TS_2DIFF by default, never
// with the encoding a time chunk's header names (tsfile.WriteOptions).

// DefaultCompression is the page compression WriteTsFile uses where
// Options name none: LZ4, IoTDB's compressor.
const DefaultCompression = encoding.LZ4

// DefaultEncoding returns the encoding WriteTsFile gives a FIELD column of
// type t that Options.Encodings does not name: IoTDB's default for the type
// (RLE for BOOLEAN, TS_2DIFF for INT32, DATE, INT64 and TIMESTAMP, GORILLA
// for FLOAT and DOUBLE, PLAIN for TEXT, STRING, BLOB and OBJECT).
func DefaultEncoding(t tsfile.DataType) tsfile.Encoding {
	switch t {
	case tsfile.Boolean:
		return encoding.RLE
	case tsfile.Int32, tsfile.Date, tsfile.Int64, tsfile.Timestamp:
		return encoding.TS2Diff
	case tsfile.Float, tsfile.Double:
		return encoding.Gorilla
	}
	return encoding.Plain
}

// A PageCompression selects a page compression in Options, whose zero value
// must mean the default, LZ4, although the zero tsfile.Compression is
// UNCOMPRESSED. Select one with CompressionOf.
type PageCompression struct {
	c   tsfile.Compression
	set bool
}

// CompressionOf returns the PageCompression that selects c;
// CompressionOf(encoding.Uncompressed) writes pages uncompressed.
func CompressionOf(c tsfile.Compression) PageCompression { return PageCompression{c: c, set: true} }

// Compression returns the compression selected: DefaultCompression for the
// zero value.
func (p PageCompression) Compression() tsfile.Compression {
	if !p.set {
		return DefaultCompression
	}
	return p.c
}

// IsSet reports whether p was made by CompressionOf.
func (p PageCompression) IsSet() bool { return p.set }

// String returns the name of the compression selected.
func (p PageCompression) String() string { return p.Compression().String() }

// WritableEncodings returns the encodings WriteTsFile can write for a
// FIELD column of type t, in identifier order: the pairs the format allows
// (Encodings.md) that this writer also encodes.
func WritableEncodings(t tsfile.DataType) []tsfile.Encoding {
	var out []tsfile.Encoding
	for e := tsfile.Encoding(0); e <= encoding.Laminar; e++ {
		if e != encoding.Freq && encodingWritable(t, e) {
			out = append(out, e)
		}
	}
	return out
}

// encodingWritable asks the TsFile writer whether it writes a column of
// type t in encoding e, so that the answer is the writer's own table and
// never drifts from it. It writes one value to a discarded file.
func encodingWritable(t tsfile.DataType, e tsfile.Encoding) bool {
	w, err := tsfile.NewWriter(io.Discard, nil)
	if err != nil {
		return false
	}
	defer w.Close()
	col := tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: t, Encoding: e}, Values: tsfile.NewValues(t, 1)}
	return w.WriteAligned(tsfile.NewDeviceID("probe"), []int64{1}, []tsfile.AlignedColumn{col}) == nil
}

// writableCompression reports why pages cannot be written in c, or nil.
func writableCompression(c tsfile.Compression) error {
	if c == encoding.LZO {
		// Its codec only decodes (tsfile.Writer refuses it too).
		return fmt.Errorf("LZO pages can be read but not written: %w", encoding.ErrUnsupported)
	}
	_, err := encoding.LookupCodec(c)
	return err
}

// WritableCompressions lists the page compressions WriteTsFile writes.
func WritableCompressions() []tsfile.Compression {
	var out []tsfile.Compression
	for c := tsfile.Compression(0); c < 16; c++ {
		if writableCompression(c) == nil {
			out = append(out, c)
		}
	}
	return out
}

func names[T fmt.Stringer](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = x.String()
	}
	return strings.Join(s, ", ")
}

// resolveCodecs gives every FIELD column of p its encoding and compression
// (the one Options name, else IoTDB's default for its type) and the time
// column its encoding and compression, checking each pair the options
// named, so that a pair the writer refuses is an *OptionError naming the
// column and the choices before anything is written.
func (p *tsPlan) resolveCodecs(o *Options) error {
	var opts Options
	if o != nil {
		opts = *o
	}
	def := opts.Compression.Compression()
	if err := writableCompression(def); err != nil {
		return &OptionError{Problem: fmt.Sprintf("compression %s for every column: %v", def, err),
			Option: "Compression", Remedy: "to one of " + names(WritableCompressions())}
	}
	codec := map[string]tsfile.SeriesSchema{} // stored name -> resolved
	for i := range p.fields {
		f := &p.fields[i]
		in := p.input.Field(f.col).Name
		f.Encoding = DefaultEncoding(f.DataType)
		if e, ok := opts.Encodings[in]; ok {
			if !encodingWritable(f.DataType, e) {
				return &OptionError{Problem: fmt.Sprintf("column %q is %s, which %s cannot encode", in, f.DataType, e),
					Option: "Encodings", Remedy: fmt.Sprintf("for %q to one of %s", in, names(WritableEncodings(f.DataType)))}
			}
			f.Encoding = e
		}
		f.Compression = def
		if c, ok := opts.Compressions[in]; ok {
			if err := writableCompression(c); err != nil {
				return &OptionError{Problem: fmt.Sprintf("compression %s for column %q: %v", c, in, err),
					Option: "Compressions", Remedy: fmt.Sprintf("for %q to one of %s", in, names(WritableCompressions()))}
			}
			f.Compression = c
		}
		codec[f.Name] = f.SeriesSchema
	}
	for i := range p.schema.Columns {
		c := &p.schema.Columns[i]
		if s, ok := codec[c.Name]; ok && c.Category == tsfile.Field {
			c.Encoding, c.Compression = s.Encoding, s.Compression
		}
	}

	var w tsfile.WriteOptions
	if p.write != nil {
		w = *p.write
	}
	if opts.TimeEncoding != (tsfile.TimeEncoding{}) {
		w.TimeEncoding = opts.TimeEncoding
	}
	switch {
	case opts.TimeCompression.IsSet():
		w.TimeCompression = opts.TimeCompression.Compression()
	case w.TimeCompression == encoding.Uncompressed:
		// IoTDB compresses the time chunks of aligned series with its
		// compressor (iotdb-system.properties.template, compressor).
		w.TimeCompression = def
	}
	if err := writableCompression(w.TimeCompression); err != nil {
		return &OptionError{Problem: fmt.Sprintf("compression %s for the time column: %v", w.TimeCompression, err),
			Option: "TimeCompression", Remedy: "to one of " + names(WritableCompressions())}
	}
	if opts.TablePointCount {
		w.TablePointCount = true
	}
	for _, prop := range w.Properties {
		if strings.HasPrefix(prop.Key, tsfile.TablePointCountPrefix) {
			w.TablePointCount = true
		}
	}
	p.write = &w
	for i := range p.schema.Columns {
		if c := &p.schema.Columns[i]; c.Category == tsfile.TimeCol {
			// The TIME column holds no chunks of its own: it says how the
			// time chunks are stored, as the C++ writer's does.
			c.Encoding, c.Compression = w.TimeEncoding.Encoding(), w.TimeCompression
		}
	}
	return nil
}
