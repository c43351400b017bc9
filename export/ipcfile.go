package export

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

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
