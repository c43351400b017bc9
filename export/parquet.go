package export

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetOptions configure WriteParquet. A nil *ParquetOptions selects the
// defaults.
type ParquetOptions struct {
	// Compression is the column chunk compression: "zstd" (the default, also
	// selected by ""), "snappy", "gzip", "lz4" (LZ4_RAW) or "none".
	Compression string
	// RowGroupSize is the number of rows per row group (default
	// DefaultRowGroupSize); every row group but the last is full, whatever
	// the sizes of the input batches.
	RowGroupSize int64
	// Allocator provides the buffers of the writer (default
	// memory.DefaultAllocator).
	Allocator memory.Allocator
}

// DefaultRowGroupSize is the number of rows per Parquet row group when
// ParquetOptions.RowGroupSize is zero.
const DefaultRowGroupSize = 1 << 20

// parquetDictLimit is the dictionary size at which a Parquet column chunk
// falls back to plain encoding. The writer's hash table grows with the
// dictionary until then, one per column and row group, so the 1 MiB
// default held about a quarter of a conversion's heap for FIELD columns
// whose values rarely repeat; 256 KiB still keeps a dictionary of 32Ki
// distinct 8-byte values, plenty for the repeating readings of a sensor.
const parquetDictLimit = 256 << 10

// timeColumn is the name of the time column of arrowconv's streams
// (arrowconv.TimeColumn; this package does not import arrowconv, which
// would tie the writers to TsFile): WriteParquet keeps it out of
// dictionary encoding.
const timeColumn = "time"

// categoryKey and timeCategory are how arrowconv marks its time field
// (arrowconv.MetaCategory, tsfile.TimeCol): a table whose schema records
// a column of category TIME names its time field after that column.
const (
	categoryKey  = "tsfile.category"
	timeCategory = "TIME"
)

// timeFieldName returns the name of sc's time field: the field marked
// with category TIME, else timeColumn (as arrowconv.TimeFieldNameOf).
func timeFieldName(sc *arrow.Schema) string {
	for _, f := range sc.Fields() {
		if c, _ := f.Metadata.GetValue(categoryKey); c == timeCategory {
			return f.Name
		}
	}
	return timeColumn
}

// ParquetCompressions returns the compression names ParquetOptions accepts,
// in a new slice the caller may change.
func ParquetCompressions() []string { return []string{"zstd", "snappy", "gzip", "lz4", "none"} }

// WriteParquet writes every record of rr to w as one Parquet file and
// returns the number of rows written. It reads rr to its end but does not
// release it, and it does not close w. An error from rr is returned
// unchanged, and writing errors are wrapped; either way the output stops
// where the failure happened, with no footer.
//
// Rows are buffered into row groups of opts.RowGroupSize rows. Every column
// chunk carries statistics (min, max, null count) and is dictionary
// encoded while its dictionary page stays under the writer's limit (1 MiB;
// uncompressed chunks fall back to plain encoding where a dictionary saves
// nothing). Arrow dictionary columns, whose dictionary may change at every
// batch, are dictionary encoded anew in each column chunk, holding only
// the values the chunk uses. The Arrow schema, with its schema and field
// metadata, is stored in the file (the "ARROW:schema" key), so that Arrow
// readers get dictionary columns and time zones back; the schema metadata
// is also written as Parquet key-value metadata.
//
// Parquet has no counterpart for some Arrow types: timestamps in seconds
// are stored in milliseconds (the values multiplied by 1000, read back as
// timestamp[ms]), and string_view and binary_view columns are stored as
// byte arrays, read back as utf8 and binary. Timestamps with a time zone
// are stored with isAdjustedToUTC set, those without it unset; all units
// but seconds are stored as they are (nanoseconds as NANOS).
func WriteParquet(w io.Writer, rr array.RecordReader, opts *ParquetOptions) (rows int64, err error) {
	var o ParquetOptions
	if opts != nil {
		o = *opts
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	switch {
	case o.RowGroupSize == 0:
		o.RowGroupSize = DefaultRowGroupSize
	case o.RowGroupSize < 0:
		return 0, fmt.Errorf("export: parquet: negative row group size %d", o.RowGroupSize)
	}
	codec, ok := map[string]compress.Compression{
		"":       compress.Codecs.Zstd,
		"zstd":   compress.Codecs.Zstd,
		"snappy": compress.Codecs.Snappy,
		"gzip":   compress.Codecs.Gzip,
		"lz4":    compress.Codecs.Lz4Raw,
		"none":   compress.Codecs.Uncompressed,
	}[o.Compression]
	if !ok {
		return 0, fmt.Errorf("export: parquet: unknown compression %q (want %s)", o.Compression, listNames(ParquetCompressions()))
	}

	stored, written, convert := parquetSchemas(rr.Schema())
	popts := []parquet.WriterProperty{
		parquet.WithAllocator(o.Allocator),
		parquet.WithCompression(codec),
		parquet.WithStats(true),
		parquet.WithDictionaryDefault(true),
		parquet.WithDictionaryPageSizeLimit(parquetDictLimit),
		parquet.WithMaxRowGroupLength(o.RowGroupSize),
		parquet.WithCreatedBy("tsarrow"),
	}
	timeName := timeFieldName(rr.Schema())
	if f, ok := written.FieldsByName(timeName); ok && len(f) == 1 && f[0].Type.ID() == arrow.TIMESTAMP {
		// A device's timestamps do not repeat, so a dictionary never pays
		// for itself on the time column: the writer would only grow a hash
		// table of every value of a page (megabytes per column) before
		// falling back to plain encoding.
		popts = append(popts, parquet.WithDictionaryFor(timeName, false))
	}
	props := parquet.NewWriterProperties(popts...)
	var aopts []pqarrow.WriterOption
	if stored == written {
		aopts = append(aopts, pqarrow.WithStoreSchema())
	}
	aopts = append(aopts, pqarrow.WithAllocator(o.Allocator))
	// The sink is no io.Closer, so the file writer leaves w open; after a
	// failure it drops the footer the file writer's Close writes.
	sink := &cutWriter{w: w}
	fw, err := pqarrow.NewFileWriter(written, sink, props, pqarrow.NewArrowWriterProperties(aopts...))
	if err != nil {
		return 0, fmt.Errorf("export: parquet: %w", err)
	}
	abort := func() {
		sink.cut = true
		fw.Close()
	}
	if stored != written {
		// The schema the Arrow readers restore: dictionary columns read
		// back as dictionaries. It is what WithStoreSchema stores, the
		// schema as an IPC stream of no batches.
		var buf bytes.Buffer
		sw := ipc.NewWriter(&buf, ipc.WithSchema(stored), ipc.WithAllocator(o.Allocator))
		if err := sw.Close(); err != nil {
			abort()
			return 0, fmt.Errorf("export: parquet: %w", err)
		}
		if err := fw.AppendKeyValueMetadata("ARROW:schema", base64.StdEncoding.EncodeToString(buf.Bytes())); err != nil {
			abort()
			return 0, fmt.Errorf("export: parquet: %w", err)
		}
	}
	ctx := compute.WithAllocator(context.Background(), o.Allocator)
	// Decoding the next batch while this one is encoded overlaps the two
	// on a second core, which would otherwise add up.
	ra := newReadAhead(rr, 1)
	defer ra.close()
	var conv func(arrow.RecordBatch) (arrow.RecordBatch, error)
	if convert {
		conv = func(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
			return toWritten(ctx, o.Allocator, written, rec)
		}
	}
	for ra.next() {
		rec := ra.cur
		n := rec.NumRows()
		if n == 0 {
			continue
		}
		if err := writeConverted(rec, conv, fw.WriteBuffered); err != nil {
			abort()
			return rows, fmt.Errorf("export: parquet: %w", err)
		}
		rows += n
	}
	if err := ra.err; err != nil {
		abort()
		return rows, err
	}
	if err := fw.Close(); err != nil {
		return rows, fmt.Errorf("export: parquet: %w", err)
	}
	return rows, nil
}

// readAhead reads a RecordReader on its own goroutine, up to depth batches
// ahead of the consumer.
type readAhead struct {
	ch   chan arrow.RecordBatch
	stop chan struct{}
	cur  arrow.RecordBatch
	err  error // rr.Err(), valid once next has returned false
}

func newReadAhead(rr array.RecordReader, depth int) *readAhead {
	ra := &readAhead{ch: make(chan arrow.RecordBatch, depth), stop: make(chan struct{})}
	go func() {
		defer close(ra.ch)
		for rr.Next() {
			rec := rr.RecordBatch()
			rec.Retain()
			select {
			case ra.ch <- rec:
			case <-ra.stop:
				rec.Release()
				return
			}
		}
		ra.err = rr.Err() // published by closing ch
	}()
	return ra
}

// next releases the current batch and receives the next one.
func (ra *readAhead) next() bool {
	if ra.cur != nil {
		ra.cur.Release()
		ra.cur = nil
	}
	rec, ok := <-ra.ch
	ra.cur = rec
	return ok
}

// close stops the reading goroutine and releases what it read; after it
// returns the RecordReader is no longer in use.
func (ra *readAhead) close() {
	if ra.cur != nil {
		ra.cur.Release()
		ra.cur = nil
	}
	select {
	case <-ra.stop:
	default:
		close(ra.stop)
	}
	for rec := range ra.ch {
		rec.Release()
	}
}

// parquetSchemas returns the schema to store in a Parquet file for s and
// the schema of the records to hand the Parquet writer, and reports
// whether records need converting from s to the latter.
//
// The Parquet writer takes no view types, so top-level string_view and
// binary_view columns become utf8 and binary in both. Top-level dictionary
// columns are written as their values: the Parquet writer writes an Arrow
// dictionary directly only while it stays equal within a row
// group and falls back to plain encoding for the rest of the chunk when it
// changes, which the growing dictionaries of the readers do at every
// batch; handed the values, it dictionary-encodes them itself, one
// dictionary per column chunk holding only the values the chunk uses,
// and its statistics are exact. The stored schema keeps the dictionary
// type, so Arrow readers get dictionary columns back. (WriteParquet
// stores it itself then, without renaming list elements to "element" as
// pqarrow does for the schemas it stores; the readers of arrowconv make
// no lists.) When the two schemas are the same, stored == written.
func parquetSchemas(s *arrow.Schema) (stored, written *arrow.Schema, convert bool) {
	sf, wf := s.Fields(), s.Fields()
	views, dicts := false, false
	for i, f := range sf {
		switch f.Type.ID() {
		case arrow.STRING_VIEW:
			sf[i].Type, wf[i].Type = arrow.BinaryTypes.String, arrow.BinaryTypes.String
			views = true
		case arrow.BINARY_VIEW:
			sf[i].Type, wf[i].Type = arrow.BinaryTypes.Binary, arrow.BinaryTypes.Binary
			views = true
		case arrow.DICTIONARY:
			wf[i].Type = f.Type.(*arrow.DictionaryType).ValueType
			dicts = true
		}
	}
	if !views && !dicts {
		return s, s, false
	}
	meta := s.Metadata()
	stored = s
	if views {
		stored = arrow.NewSchema(sf, &meta)
	}
	written = stored
	if dicts {
		written = arrow.NewSchema(wf, &meta)
	}
	return stored, written, true
}

// toWritten converts rec to the written schema of parquetSchemas: views
// copied into plain arrays with mem, dictionaries decoded with ctx's
// allocator.
func toWritten(ctx context.Context, mem memory.Allocator, written *arrow.Schema, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range rec.Columns() {
		switch c := c.(type) {
		case *array.StringView:
			b := array.NewStringBuilder(mem)
			b.Reserve(c.Len())
			for j := 0; j < c.Len(); j++ {
				if c.IsNull(j) {
					b.AppendNull()
				} else {
					b.Append(c.Value(j))
				}
			}
			cols[i] = b.NewArray()
			b.Release()
		case *array.BinaryView:
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			b.Reserve(c.Len())
			for j := 0; j < c.Len(); j++ {
				if c.IsNull(j) {
					b.AppendNull()
				} else {
					b.Append(c.Value(j))
				}
			}
			cols[i] = b.NewArray()
			b.Release()
		case *array.Dictionary:
			dense, err := compute.TakeArray(ctx, c.Dictionary(), c.Indices())
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
			}
			cols[i] = dense
		default:
			c.Retain()
			cols[i] = c
		}
		if !arrow.TypeEqual(cols[i].DataType(), written.Field(i).Type) {
			return nil, fmt.Errorf("column %q: converted to %s, not %s", rec.ColumnName(i), cols[i].DataType(), written.Field(i).Type)
		}
	}
	return array.NewRecordBatch(written, cols, rec.NumRows()), nil
}
