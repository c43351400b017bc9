package flight

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// DoGet sends record batches without copying their bodies.
//
// arrow-go's Flight writer serializes each IPC body into one []byte and
// gRPC's protobuf codec then copies that into the marshalled message: two
// copies of every batch (and their allocations) before gRPC's transport
// copies it a third time into its write buffer. Instead, DoGet writes the
// FlightData protobuf framing itself (field tags and lengths around the
// data header and body) and hands gRPC the Arrow buffers of the body as
// separate mem.Buffers, through a server codec that recognises its
// frames. The bytes on the wire are exactly proto.Marshal of the same
// FlightData, so any Flight client reads them; only the server's memory
// handling differs.
//
// gRPC reads those buffers after SendMsg returns (its writer goroutine
// copies them into HTTP/2 frames later), so the record and any buffer the
// IPC encoder allocated for it must outlive the send: a sendHold keeps
// them until gRPC frees the last buffer it was handed.

// refMin is the smallest body buffer sent by reference; smaller ones (and
// the alignment padding) are copied into the message's framing buffer,
// where a reference would cost more than the copy. It must stay above
// gRPC's pooling threshold (1 KiB), below which gRPC would not tell us
// when it is done with a buffer.
const refMin = 4 << 10

// frameCodec is the server's gRPC codec: protobuf for every message
// except the frames DoGet builds, which are already in wire format.
type frameCodec struct{ proto encoding.CodecV2 }

func newFrameCodec() frameCodec { return frameCodec{proto: encoding.GetCodecV2(proto.Name)} }

// Marshal hands gRPC a frame's buffers as they are and marshals anything
// else as protobuf.
func (c frameCodec) Marshal(v any) (mem.BufferSlice, error) {
	if f, ok := v.(*frame); ok {
		return f.take(), nil
	}
	return c.proto.Marshal(v)
}

func (c frameCodec) Unmarshal(data mem.BufferSlice, v any) error { return c.proto.Unmarshal(data, v) }

// Name is the protobuf codec's: clients ask for and get plain protobuf.
func (frameCodec) Name() string { return proto.Name }

// frame is one marshalled FlightData message, handed to SendMsg.
type frame struct{ bufs mem.BufferSlice }

// take gives the buffers to gRPC, which frees them when it has sent them.
func (f *frame) take() mem.BufferSlice {
	b := f.bufs
	f.bufs = nil
	return b
}

// free releases the buffers if gRPC never took them.
func (f *frame) free() {
	if f.bufs != nil {
		f.bufs.Free()
		f.bufs = nil
	}
}

// FlightData field numbers (arrow/format/Flight.proto).
const (
	fieldDataHeader = 2
	fieldDataBody   = 1000
)

// appendFrame builds the FlightData message {data_header: header,
// data_body: the concatenation of pieces} onto bufs. Pieces of at least
// refMin bytes are referenced, counted on hold, which must then keep them
// unchanged until gRPC frees them; the rest is copied. A nil hold copies
// everything. It returns the message's length.
func appendFrame(bufs mem.BufferSlice, header []byte, pieces [][]byte, hold *sendHold) (mem.BufferSlice, int) {
	body, copied, refs := 0, 0, 0
	for _, p := range pieces {
		body += len(p)
		if hold != nil && len(p) >= refMin {
			refs++
		} else {
			copied += len(p)
		}
	}
	prefix := 0
	if len(header) > 0 {
		prefix += protowire.SizeTag(fieldDataHeader) + protowire.SizeBytes(len(header))
	}
	if body > 0 {
		prefix += protowire.SizeTag(fieldDataBody) + protowire.SizeVarint(uint64(body))
	}
	owned := prefix + copied
	if owned == 0 {
		return bufs, 0 // an empty FlightData: no bytes at all
	}

	// One buffer holds every copied byte; the message is views of it
	// interleaved with the referenced pieces.
	var root mem.Buffer
	var b []byte
	if mem.IsBelowBufferPoolingThreshold(owned) {
		b = make([]byte, 0, owned)
		root = mem.SliceBuffer(b[:owned])
	} else {
		pool := mem.DefaultBufferPool()
		bp := pool.Get(owned)
		b = (*bp)[:0]
		root = mem.NewBuffer(bp, pool)
	}
	if len(header) > 0 {
		b = protowire.AppendTag(b, fieldDataHeader, protowire.BytesType)
		b = protowire.AppendBytes(b, header)
	}
	if body > 0 {
		b = protowire.AppendTag(b, fieldDataBody, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(body))
	}
	var ptrs [][]byte // the *[]byte each referenced mem.Buffer needs
	if refs > 0 {
		ptrs = make([][]byte, refs)
	}
	start := 0
	for _, p := range pieces {
		if hold == nil || len(p) < refMin {
			b = append(b, p...)
			continue
		}
		if len(b) > start {
			bufs = append(bufs, root.Slice(start, len(b)))
			start = len(b)
		}
		ptrs[0] = p
		hold.ref()
		bufs = append(bufs, mem.NewBuffer(&ptrs[0], hold))
		ptrs = ptrs[1:]
	}
	if len(b) > start {
		bufs = append(bufs, root.Slice(start, len(b)))
	}
	root.Free()
	return bufs, prefix + body
}

// pieceList collects the slices an ipc.Payload's body is written as (the
// buffers and their alignment padding) without copying them.
type pieceList [][]byte

func (l *pieceList) Write(p []byte) (int, error) {
	if len(p) > 0 {
		*l = append(*l, p)
	}
	return len(p), nil
}

// sendHold keeps alive what the messages of one batch reference: the
// record (its arrays' buffers) and the buffers the IPC encoder allocated
// for it and released while gRPC may still read them (rebased offsets,
// truncated bitmaps, compressed bodies). It is the mem.BufferPool of the
// referenced pieces: gRPC's Put of the last one releases it all.
//
// gRPC frees a message's buffers once written, when its stream is reset
// or when it fails to queue it; a message queued when the connection
// dies is never freed, and is left to the garbage collector: when no
// buffer of gRPC's references the hold any more, a cleanup releases it.
// Server.Shutdown releases every hold left once gRPC has stopped.
type sendHold struct{ *holdState }

// holdState is the part of a sendHold its cleanup may reach: it must not
// point back at the sendHold.
type holdState struct {
	pending atomic.Int64 // referenced pieces not yet freed, +1 while the batch is written
	done    atomic.Bool
	freed   chan struct{} // closed by release
	refs    int           // pieces referenced, counted by the writer alone
	rec     arrow.RecordBatch
	base    memory.Allocator
	mu      sync.Mutex
	frees   [][]byte
	set     *holdSet
	cleanup runtime.Cleanup
}

func newHold(rec arrow.RecordBatch, base memory.Allocator, set *holdSet) *sendHold {
	rec.Retain()
	h := &sendHold{&holdState{rec: rec, base: base, set: set, freed: make(chan struct{})}}
	h.pending.Store(1)
	return h
}

func (h *sendHold) ref() {
	h.refs++
	h.pending.Add(1)
}

// Get implements mem.BufferPool; gRPC only ever puts back.
func (h *sendHold) Get(int) *[]byte { panic("flight: Get from a sendHold") }

// Put implements mem.BufferPool: gRPC is done with one referenced piece.
func (h *sendHold) Put(*[]byte) { h.unref() }

// seal ends the batch's writing: no piece is added after it.
func (h *sendHold) seal() {
	if h.refs > 0 && h.pending.Load() > 1 {
		h.set.add(h.holdState)
		h.cleanup = runtime.AddCleanup(h, (*holdState).release, h.holdState)
	}
	h.unref()
}

func (s *holdState) unref() {
	if s.pending.Add(-1) == 0 {
		s.release()
	}
}

// deferFree keeps b from the allocator until the hold is released.
func (s *holdState) deferFree(b []byte) {
	s.mu.Lock()
	s.frees = append(s.frees, b)
	s.mu.Unlock()
}

// release returns everything held; later calls do nothing.
func (s *holdState) release() {
	if !s.done.CompareAndSwap(false, true) {
		return
	}
	if s.set != nil {
		s.set.remove(s)
	}
	s.mu.Lock()
	frees := s.frees
	s.frees = nil
	s.mu.Unlock()
	for _, b := range frees {
		s.base.Free(b)
	}
	s.rec.Release()
	close(s.freed)
}

// holdSet is the server's holds in flight, for Shutdown.
type holdSet struct {
	mu sync.Mutex
	m  map[*holdState]struct{}
}

func (hs *holdSet) add(s *holdState) {
	hs.mu.Lock()
	if hs.m == nil {
		hs.m = make(map[*holdState]struct{})
	}
	hs.m[s] = struct{}{}
	hs.mu.Unlock()
}

func (hs *holdSet) remove(s *holdState) {
	hs.mu.Lock()
	delete(hs.m, s)
	hs.mu.Unlock()
	s.cleanup.Stop()
}

// releaseAll releases every hold; only once gRPC can no longer read them.
func (hs *holdSet) releaseAll() {
	hs.mu.Lock()
	all := make([]*holdState, 0, len(hs.m))
	for s := range hs.m {
		all = append(all, s)
	}
	hs.mu.Unlock()
	for _, s := range all {
		s.release()
	}
}

// holdAllocator is the IPC encoder's allocator: while a batch is being
// written, what the encoder frees goes to the batch's hold instead of
// back to base, since a message may still reference it.
type holdAllocator struct {
	base memory.Allocator
	mu   sync.Mutex
	cur  *holdState
}

func (a *holdAllocator) Allocate(size int) []byte { return a.base.Allocate(size) }

func (a *holdAllocator) Reallocate(size int, b []byte) []byte { return a.base.Reallocate(size, b) }

func (a *holdAllocator) Free(b []byte) {
	a.mu.Lock()
	cur := a.cur
	a.mu.Unlock()
	if cur != nil {
		cur.deferFree(b)
		return
	}
	a.base.Free(b)
}

func (a *holdAllocator) open(s *holdState) {
	a.mu.Lock()
	a.cur = s
	a.mu.Unlock()
}

// frameWriter is the ipc.PayloadWriter of a DoGet stream: it sends each
// IPC message as one frame.
type frameWriter struct {
	stream grpc.ServerStream
	st     *streamStats
	hold   *sendHold // the batch being written, if any
	pieces pieceList
}

func (w *frameWriter) Start() error { return nil }
func (w *frameWriter) Close() error { return nil }

func (w *frameWriter) WritePayload(p ipc.Payload) error {
	var header []byte
	if meta := p.Meta(); meta != nil {
		defer meta.Release()
		header = meta.Bytes()
	}
	w.pieces = w.pieces[:0]
	if err := p.SerializeBody(&w.pieces); err != nil {
		return err
	}
	// A new BufferSlice each time: gRPC keeps the one it is given.
	bufs, n := appendFrame(make(mem.BufferSlice, 0, 2*len(w.pieces)+1), header, w.pieces, w.hold)
	clear(w.pieces) // no reference kept past the send
	f := &frame{bufs: bufs}
	err := w.stream.SendMsg(f)
	f.free()
	if err != nil {
		return err
	}
	w.st.bytes.Add(int64(n))
	w.st.touch()
	return nil
}

// batchWriter writes a stream's record batches through an ipc.Writer
// whose payloads go to a frameWriter.
type batchWriter struct {
	ctx      context.Context // the stream's: ends a wait for gRPC
	ipc      *ipc.Writer
	fw       *frameWriter
	alloc    *holdAllocator
	holds    *holdSet
	maxBytes int64 // split batches larger than this; <= 0 never
	// last and before are the holds of the two batches written last.
	last, before *holdState
}

func newBatchWriter(ctx context.Context, stream grpc.ServerStream, st *streamStats, holds *holdSet, base memory.Allocator, opts func(memory.Allocator) []ipc.Option) *batchWriter {
	bw := &batchWriter{
		ctx:   ctx,
		fw:    &frameWriter{stream: stream, st: st},
		alloc: &holdAllocator{base: base},
		holds: holds,
	}
	bw.ipc = ipc.NewWriterWithPayloadWriter(bw.fw, opts(bw.alloc)...)
	return bw
}

// Write sends rec (after the schema, and its dictionaries when they
// changed), as row slices of at most maxBytes when it is larger.
func (bw *batchWriter) Write(rec arrow.RecordBatch) error {
	n := rec.NumRows()
	size := recordBytes(rec)
	if bw.maxBytes <= 0 || size <= bw.maxBytes || n < 2 {
		return bw.write(rec)
	}
	parts := (size + bw.maxBytes - 1) / bw.maxBytes
	// Slices of whole bitmap words where that is possible; a slice still
	// too large (values of uneven length) is split again.
	step := (n + parts - 1) / parts
	if step > 64 {
		step = (step + 63) &^ 63
	}
	if step >= n {
		step = (n + 1) / 2
	}
	for lo := int64(0); lo < n; lo += step {
		s := rec.NewSlice(lo, min(lo+step, n))
		err := bw.Write(s)
		s.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (bw *batchWriter) write(rec arrow.RecordBatch) error {
	// From here until the batch is handed to gRPC, the stream waits for
	// its client (Options.WriteTimeout).
	bw.fw.st.sending.Store(time.Now().UnixNano())
	defer bw.fw.st.sending.Store(0)
	// At most one batch written earlier is still in gRPC's hands when the
	// next is written. A send returns once gRPC's write quota has room,
	// which is while the last bytes of the batch before are still queued:
	// without this wait a stream held three batches in gRPC at times (seen
	// on a loaded 2-core machine), one more than its share of the budget
	// counts (batchesInFlight). The wait is short: those bytes were already
	// being written when the previous send returned.
	if p := bw.before; p != nil {
		select {
		case <-p.freed:
		case <-bw.ctx.Done():
			return bw.ctx.Err()
		}
	}
	h := newHold(rec, bw.alloc.base, bw.holds)
	bw.alloc.open(h.holdState)
	bw.fw.hold = h
	err := bw.ipc.Write(rec)
	bw.fw.hold = nil
	bw.alloc.open(nil)
	h.seal()
	bw.before, bw.last = bw.last, h.holdState
	return err
}

// Close sends the schema if no batch was sent, and releases the
// encoder's dictionaries.
func (bw *batchWriter) Close() error { return bw.ipc.Close() }

// recordBytes is the size of a batch's Arrow data (dictionaries aside,
// which go in messages of their own): about its IPC body.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += arrayBytes(c.Data())
	}
	return n
}

func arrayBytes(d arrow.ArrayData) int64 {
	rows, off := int64(d.Len()), int64(d.Offset())
	bufs := d.Buffers()
	var n int64
	if len(bufs) > 0 && bufs[0] != nil {
		n += (rows + 7) / 8
	}
	switch dt := d.DataType().(type) {
	case *arrow.DictionaryType:
		n += rows * int64(dt.IndexType.(arrow.FixedWidthDataType).BitWidth()/8)
	case *arrow.BooleanType:
		n += (rows + 7) / 8
	case arrow.FixedWidthDataType:
		n += rows * int64(dt.BitWidth()/8)
	case *arrow.StringType, *arrow.BinaryType:
		if len(bufs) > 1 && bufs[1] != nil && rows > 0 {
			offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[off : off+rows+1]
			n += (rows+1)*4 + int64(offs[rows]-offs[0])
		}
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		if len(bufs) > 1 && bufs[1] != nil && rows > 0 {
			offs := arrow.Int64Traits.CastFromBytes(bufs[1].Bytes())[off : off+rows+1]
			n += (rows+1)*8 + offs[rows] - offs[0]
		}
	default: // nested and view types: whole buffers, an upper bound
		for _, b := range bufs[1:] {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			n += arrayBytes(c)
		}
	}
	return n
}
