package arrowconv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
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

// IPCCompressions lists the compression names IPCOptions accepts.
var IPCCompressions = []string{"none", "zstd", "lz4"}

// WriteIPC writes every record of rr to w in the Arrow IPC file format (or
// the stream format, if opts.Stream is set) and returns the number of rows
// written. It reads rr to its end but does not release it. An error from rr
// is returned unchanged; writing errors are wrapped.
//
// Dictionary columns may change their dictionary from one batch to the
// next. A dictionary that extends the previous one (the readers of this
// package only ever append values) is written as a delta dictionary batch
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
		return 0, fmt.Errorf("arrowconv: ipc: unknown compression %q (want %s)", o.Compression, listNames(IPCCompressions))
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
	for rr.Next() {
		rec := rr.RecordBatch()
		n := rec.NumRows()
		var conv func(arrow.RecordBatch) (arrow.RecordBatch, error)
		if uni != nil {
			conv = uni.unify
		}
		if err := writeConverted(rec, conv, iw.Write); err != nil {
			abort()
			return rows, fmt.Errorf("arrowconv: ipc: %w", err)
		}
		rows += n
	}
	if err := rr.Err(); err != nil {
		abort()
		return rows, err
	}
	if err := iw.Close(); err != nil {
		return rows, fmt.Errorf("arrowconv: ipc: %w", err)
	}
	return rows, nil
}

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

// ParquetCompressions lists the compression names ParquetOptions accepts.
var ParquetCompressions = []string{"zstd", "snappy", "gzip", "lz4", "none"}

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
		return 0, fmt.Errorf("arrowconv: parquet: negative row group size %d", o.RowGroupSize)
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
		return 0, fmt.Errorf("arrowconv: parquet: unknown compression %q (want %s)", o.Compression, listNames(ParquetCompressions))
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
	if f, ok := written.FieldsByName(TimeColumn); ok && len(f) == 1 && f[0].Type.ID() == arrow.TIMESTAMP {
		// A device's timestamps do not repeat, so a dictionary never pays
		// for itself on the time column: the writer would only grow a hash
		// table of every value of a page (megabytes per column) before
		// falling back to plain encoding.
		popts = append(popts, parquet.WithDictionaryFor(TimeColumn, false))
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
		return 0, fmt.Errorf("arrowconv: parquet: %w", err)
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
			return 0, fmt.Errorf("arrowconv: parquet: %w", err)
		}
		if err := fw.AppendKeyValueMetadata("ARROW:schema", base64.StdEncoding.EncodeToString(buf.Bytes())); err != nil {
			abort()
			return 0, fmt.Errorf("arrowconv: parquet: %w", err)
		}
	}
	ctx := compute.WithAllocator(context.Background(), o.Allocator)
	// Decoding the next batch while this one is encoded overlaps the two
	// on a second core, which would otherwise add up.
	ra := newReadAhead(rr, 1)
	defer ra.close()
	for ra.next() {
		rec := ra.cur
		n := rec.NumRows()
		if n == 0 {
			continue
		}
		var conv func(arrow.RecordBatch) (arrow.RecordBatch, error)
		if convert {
			conv = func(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
				return toWritten(ctx, o.Allocator, written, rec)
			}
		}
		if err := writeConverted(rec, conv, fw.WriteBuffered); err != nil {
			abort()
			return rows, fmt.Errorf("arrowconv: parquet: %w", err)
		}
		rows += n
	}
	if err := ra.err; err != nil {
		abort()
		return rows, err
	}
	if err := fw.Close(); err != nil {
		return rows, fmt.Errorf("arrowconv: parquet: %w", err)
	}
	return rows, nil
}

// writeConverted writes rec, first converted by conv when it is not nil
// (the converted batch is released after writing).
func writeConverted(rec arrow.RecordBatch, conv func(arrow.RecordBatch) (arrow.RecordBatch, error), write func(arrow.RecordBatch) error) error {
	if conv != nil {
		c, err := conv(rec)
		if err != nil {
			return err
		}
		defer c.Release()
		rec = c
	}
	return write(rec)
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

// cutWriter passes writes to w until cut, then drops them, so that
// closing a writer after a failure completes nothing.
type cutWriter struct {
	w   io.Writer
	cut bool
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.cut {
		return len(p), nil
	}
	return c.w.Write(p)
}

// listNames spells names as `"a", "b" or "c"`.
func listNames(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
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
// pqarrow does for the schemas it stores; the readers of this package make
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

// The IPC file format is the stream format between a leading magic and a
// footer that lists where the schema's dictionary batches and the record
// batches are. arrow-go's ipc.FileWriter refuses any dictionary that
// differs from the first one written for its column, deltas included,
// although the format allows deltas. ipcFileFramer frames the messages of
// an ipc.Writer (which emits deltas) as a file instead: it records where
// each dictionary and record batch message lands, and at the end writes
// the footer that ipc.FileWriter writes for the same schema, with the
// block lists filled in.
type ipcFileFramer struct {
	w        io.Writer
	pos      int64
	schema   *arrow.Schema
	mem      memory.Allocator
	dicts    []ipcBlock
	recs     []ipcBlock
	dictSeen map[int64]bool // dictionary ids with a non-delta batch
	started  bool           // the magic is written
	failed   bool           // write no footer
}

// ipcBlock is a Block of the IPC footer: where a message starts, the
// length of its prefixed and padded metadata, and the length of its body.
type ipcBlock struct {
	offset int64
	meta   int32
	body   int64
}

// ipcMagic is the leading and trailing magic of the IPC file format.
const ipcMagic = "ARROW1"

// Message header types of the IPC flatbuffers schema.
const (
	ipcHeaderSchema     = 1
	ipcHeaderDictionary = 2
	ipcHeaderRecord     = 3
)

func (f *ipcFileFramer) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	f.pos += int64(n)
	return n, err
}

// Start writes the magic, padded to 8 bytes, unless it is written. (The
// ipc.Writer does not call it; the first payload does.)
func (f *ipcFileFramer) Start() error {
	if f.started {
		return nil
	}
	f.started = true
	if _, err := f.Write([]byte(ipcMagic + "\x00\x00")); err != nil {
		f.failed = true
		return err
	}
	return nil
}

// WritePayload writes one message and records its block.
func (f *ipcFileFramer) WritePayload(p ipc.Payload) error {
	if err := f.writePayload(p); err != nil {
		f.failed = true
		return err
	}
	return nil
}

func (f *ipcFileFramer) writePayload(p ipc.Payload) error {
	if err := f.Start(); err != nil {
		return err
	}
	meta := p.Meta()
	if meta == nil {
		return errors.New("IPC payload without metadata")
	}
	msg, err := parseIPCMessage(meta.Bytes())
	meta.Release()
	if err != nil {
		return err
	}
	if msg.header == ipcHeaderDictionary {
		if f.dictSeen[msg.dictID] && !msg.isDelta {
			return fmt.Errorf("the dictionary with id %d was replaced, not extended; the IPC file format allows one dictionary per column and deltas to it (use the stream format)", msg.dictID)
		}
		f.dictSeen[msg.dictID] = true
	}
	start := f.pos
	n, err := p.WritePayload(f)
	if err != nil {
		return err
	}
	if body := f.pos - start - int64(n); body != msg.bodyLength {
		return fmt.Errorf("IPC message body of %d bytes declares %d", body, msg.bodyLength)
	}
	blk := ipcBlock{offset: start, meta: int32(n), body: msg.bodyLength}
	switch msg.header {
	case ipcHeaderDictionary:
		f.dicts = append(f.dicts, blk)
	case ipcHeaderRecord:
		f.recs = append(f.recs, blk)
	}
	return nil
}

// Close writes the end-of-stream marker and the footer.
func (f *ipcFileFramer) Close() error {
	if f.failed {
		return nil
	}
	if err := f.Start(); err != nil {
		return err
	}
	footer, err := ipcFooter(f.schema, f.mem, f.dicts, f.recs)
	if err != nil {
		return err
	}
	out := make([]byte, 0, 8+len(footer)+4+len(ipcMagic))
	out = binary.LittleEndian.AppendUint32(out, 0xFFFFFFFF) // continuation
	out = binary.LittleEndian.AppendUint32(out, 0)          // end of stream
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	out = append(out, ipcMagic...)
	_, err = f.Write(out)
	return err
}

// ipcFooter returns the footer flatbuffer of an IPC file of the schema with
// the given blocks. It takes the footer ipc.FileWriter writes for a file of
// no batches, which holds the schema exactly as the stream's schema message
// does (the same dictionary ids), and points its two empty block vectors at
// vectors appended to it.
func ipcFooter(schema *arrow.Schema, mem memory.Allocator, dicts, recs []ipcBlock) ([]byte, error) {
	var buf bytes.Buffer
	fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err != nil {
		return nil, err
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	tail := 4 + len(ipcMagic)
	if len(b) < tail || string(b[len(b)-len(ipcMagic):]) != ipcMagic {
		return nil, errors.New("unexpected IPC file layout from ipc.FileWriter")
	}
	size := int(binary.LittleEndian.Uint32(b[len(b)-tail:]))
	if size <= 0 || size > len(b)-tail {
		return nil, errors.New("unexpected IPC footer size from ipc.FileWriter")
	}
	footer := append([]byte(nil), b[len(b)-tail-size:len(b)-tail]...)
	root, err := fbRoot(footer)
	if err != nil {
		return nil, err
	}
	// Footer fields: version, schema, dictionaries, recordBatches.
	for i, blocks := range [2][]ipcBlock{dicts, recs} {
		field := root.field(2 + i)
		if field == 0 || field+4 > len(footer) {
			return nil, errors.New("IPC footer from ipc.FileWriter lacks its block vectors")
		}
		// A vector of Block structs: its uint32 length, then 24-byte,
		// 8-aligned structs {offset int64, metaDataLength int32, pad,
		// bodyLength int64}.
		for len(footer)%8 != 4 {
			footer = append(footer, 0)
		}
		vec := len(footer)
		footer = binary.LittleEndian.AppendUint32(footer, uint32(len(blocks)))
		for _, blk := range blocks {
			footer = binary.LittleEndian.AppendUint64(footer, uint64(blk.offset))
			footer = binary.LittleEndian.AppendUint32(footer, uint32(blk.meta))
			footer = binary.LittleEndian.AppendUint32(footer, 0)
			footer = binary.LittleEndian.AppendUint64(footer, uint64(blk.body))
		}
		binary.LittleEndian.PutUint32(footer[field:], uint32(vec-field))
	}
	return footer, nil
}

// ipcMessage is what the framer needs of an IPC Message flatbuffer.
type ipcMessage struct {
	header     byte
	bodyLength int64
	dictID     int64 // dictionary batches only
	isDelta    bool
}

// parseIPCMessage reads the header type and body length of an IPC Message
// flatbuffer, and the id and delta flag of a dictionary batch.
func parseIPCMessage(b []byte) (ipcMessage, error) {
	var m ipcMessage
	t, err := fbRoot(b)
	if err != nil {
		return m, err
	}
	// Message fields: version, header_type, header, bodyLength,
	// custom_metadata.
	if p := t.field(1); p != 0 {
		m.header = b[p]
	}
	if p := t.field(3); p != 0 {
		if p+8 > len(b) {
			return m, errors.New("truncated IPC message metadata")
		}
		m.bodyLength = int64(binary.LittleEndian.Uint64(b[p:]))
	}
	if m.header != ipcHeaderDictionary {
		return m, nil
	}
	h, err := t.table(2)
	if err != nil {
		return m, err
	}
	// DictionaryBatch fields: id, data, isDelta.
	if p := h.field(0); p != 0 {
		if p+8 > len(b) {
			return m, errors.New("truncated IPC message metadata")
		}
		m.dictID = int64(binary.LittleEndian.Uint64(b[p:]))
	}
	if p := h.field(2); p != 0 {
		m.isDelta = b[p] != 0
	}
	return m, nil
}

// fbTable is a flatbuffers table: the buffer and the table's position.
type fbTable struct {
	b   []byte
	pos int
	vt  int // position of the vtable
}

// fbRoot returns the root table of a flatbuffer.
func fbRoot(b []byte) (fbTable, error) {
	if len(b) < 4 {
		return fbTable{}, errors.New("truncated flatbuffer")
	}
	return fbAt(b, int(binary.LittleEndian.Uint32(b)))
}

// fbAt returns the table at pos, checking that it and its vtable lie in b.
func fbAt(b []byte, pos int) (fbTable, error) {
	if pos < 0 || pos+4 > len(b) {
		return fbTable{}, errors.New("flatbuffer table out of bounds")
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(b[pos:])))
	if vt < 0 || vt+4 > len(b) {
		return fbTable{}, errors.New("flatbuffer vtable out of bounds")
	}
	if n := int(binary.LittleEndian.Uint16(b[vt:])); n < 4 || vt+n > len(b) {
		return fbTable{}, errors.New("flatbuffer vtable out of bounds")
	}
	return fbTable{b: b, pos: pos, vt: vt}, nil
}

// field returns the position of field k, or 0 when the field is absent.
func (t fbTable) field(k int) int {
	slot := 4 + 2*k
	if slot+2 > int(binary.LittleEndian.Uint16(t.b[t.vt:])) {
		return 0
	}
	off := int(binary.LittleEndian.Uint16(t.b[t.vt+slot:]))
	if off == 0 || t.pos+off >= len(t.b) {
		return 0
	}
	return t.pos + off
}

// table returns the table field k refers to.
func (t fbTable) table(k int) (fbTable, error) {
	p := t.field(k)
	if p == 0 || p+4 > len(t.b) {
		return fbTable{}, errors.New("flatbuffer table field absent")
	}
	return fbAt(t.b, p+int(binary.LittleEndian.Uint32(t.b[p:])))
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
