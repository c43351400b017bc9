package flight

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// poisonAllocator overwrites what is freed before handing it back, so a
// frame still reading freed memory sends garbage that the comparisons see.
type poisonAllocator struct{ *memory.CheckedAllocator }

func newPoisonAllocator() *poisonAllocator {
	return &poisonAllocator{memory.NewCheckedAllocator(memory.NewGoAllocator())}
}

func (a *poisonAllocator) Free(b []byte) {
	for i := range b {
		b[i] = 0xA5
	}
	a.CheckedAllocator.Free(b)
}

// frameRecords are batches covering what an IPC stream carries: buffers
// above and below refMin, nulls, strings, booleans, a dictionary, its
// delta, its replacement and the replacement's delta, an empty batch and a
// batch sliced out of a larger one (whose offsets and bitmaps the encoder
// must rewrite into new buffers).
func frameRecords(t testing.TB, alloc memory.Allocator) (*arrow.Schema, []arrow.RecordBatch) {
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	fields := []arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}
	plain := arrow.NewSchema(fields, nil)
	schema := arrow.NewSchema(append(fields, arrow.Field{Name: "d", Type: dictType, Nullable: true}), nil)
	batch := func(n int, dict []string, seed int) arrow.RecordBatch {
		b := array.NewRecordBuilder(alloc, plain)
		defer b.Release()
		ib := array.NewInt32Builder(alloc)
		defer ib.Release()
		for i := 0; i < n; i++ {
			if (i+seed)%7 == 0 {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(int64(i * seed))
			}
			b.Field(1).(*array.Float64Builder).Append(float64(i) / float64(seed+1))
			if (i+seed)%5 == 0 {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("value %d of batch %d", i, seed))
			}
			b.Field(3).(*array.BooleanBuilder).Append(i%3 == seed%3)
			if (i+seed)%11 == 0 {
				ib.AppendNull()
			} else {
				ib.Append(int32((i * seed) % len(dict)))
			}
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		sb := array.NewStringBuilder(alloc)
		defer sb.Release()
		sb.AppendValues(dict, nil)
		values := sb.NewArray()
		defer values.Release()
		idx := ib.NewArray()
		defer idx.Release()
		d := array.NewDictionaryArray(dictType, idx, values)
		defer d.Release()
		return array.NewRecordBatch(schema, append(rec.Columns(), d), int64(n))
	}
	big := batch(5000, []string{"x", "y"}, 4)
	defer big.Release()
	return schema, []arrow.RecordBatch{
		batch(3000, []string{"a", "b", "c"}, 1),
		batch(3000, []string{"a", "b", "c", "d"}, 2), // a delta
		batch(0, []string{"a", "b", "c", "d"}, 3),    // the same dictionary
		big.NewSlice(7, 4007),                        // a replacement, sliced
		batch(10, []string{"x", "y", "z"}, 5),        // a delta of the replacement
	}
}

func releaseRecs(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// captureStream is a grpc.ServerStream whose SendMsg marshals with the
// server's codec and keeps the buffers, as gRPC's transport does, until
// flush reads them.
type captureStream struct {
	grpc.ServerStream
	codec frameCodec
	held  []mem.BufferSlice
	// keep is how many messages stay unfreed, as in gRPC's queue; older
	// ones are read and freed at the next send. The batch writer waits for
	// all but the last batch to be freed, so it must be at least 1.
	keep int
	sent [][]byte   // wire bytes of the messages freed
	mu   sync.Mutex // freeOlder may run beside a send
}

func (c *captureStream) SendMsg(m any) error {
	bufs, err := c.codec.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = append(c.held, bufs)
	c.freeOlderLocked()
	return nil
}

// freeOlder reads and frees the messages held beyond the last keep.
func (c *captureStream) freeOlder(keep int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep = keep
	c.freeOlderLocked()
}

func (c *captureStream) freeOlderLocked() {
	for len(c.held) > c.keep {
		c.sent = append(c.sent, c.held[0].Materialize())
		c.held[0].Free()
		c.held = c.held[1:]
	}
}

// flush returns the wire bytes of every message sent and frees them.
func (c *captureStream) flush() [][]byte {
	out := c.sent
	c.sent = nil
	for _, b := range c.held {
		out = append(out, b.Materialize())
		b.Free()
	}
	c.held = nil
	return out
}

// stockMessages is what arrow-go's own Flight writer sends for recs:
// proto.Marshal of each FlightData.
type stockMessages [][]byte

func (s *stockMessages) Send(fd *arrowflight.FlightData) error {
	b, err := proto.Marshal(fd)
	*s = append(*s, b)
	return err
}

func ipcOpts(schema *arrow.Schema, alloc memory.Allocator, extra ...ipc.Option) []ipc.Option {
	return append([]ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(alloc), ipc.WithDictionaryDeltas(true)}, extra...)
}

// messageReader replays wire messages to arrow-go's Flight reader.
type messageReader struct{ msgs [][]byte }

func (r *messageReader) Recv() (*arrowflight.FlightData, error) {
	if len(r.msgs) == 0 {
		return nil, io.EOF
	}
	fd := &arrowflight.FlightData{}
	err := proto.Unmarshal(r.msgs[0], fd)
	r.msgs = r.msgs[1:]
	return fd, err
}

// requireSameRecords reads an IPC stream with arrow-go's Flight reader and
// compares it batch by batch with want.
func requireSameRecords(t *testing.T, want []arrow.RecordBatch, r *arrowflight.Reader) {
	t.Helper()
	i := 0
	for r.Next() {
		require.Less(t, i, len(want), "more batches than sent")
		got := r.RecordBatch()
		require.True(t, array.RecordEqual(want[i], got), "batch %d differs:\nwant %v\ngot  %v", i, want[i], got)
		i++
	}
	require.NoError(t, r.Err())
	require.Equal(t, len(want), i, "batches read")
}

var compressions = []struct {
	name string
	opts []ipc.Option
}{{"none", nil}, {"zstd", []ipc.Option{ipc.WithZstd()}}, {"lz4", []ipc.Option{ipc.WithLZ4()}}}

// TestFramesMatchProtoMarshal checks that the frames DoGet hands gRPC are,
// byte for byte, proto.Marshal of the FlightData arrow-go's writer would
// send, that arrow-go's reader decodes them into the batches sent, and
// that what the frames reference stays intact until gRPC frees it, while
// the batches are released and later ones encoded (the allocator poisons
// what it gets back).
func TestFramesMatchProtoMarshal(t *testing.T) {
	for _, c := range compressions {
		t.Run(c.name, func(t *testing.T) {
			alloc := newPoisonAllocator()
			schema, recs := frameRecords(t, alloc)

			var stock stockMessages
			sw := arrowflight.NewRecordWriter(&stock, ipcOpts(schema, alloc, c.opts...)...)
			for _, r := range recs {
				require.NoError(t, sw.Write(r))
			}
			require.NoError(t, sw.Close())

			cs := &captureStream{codec: newFrameCodec(), keep: 1}
			var holds holdSet
			bw := newBatchWriter(context.Background(), cs, &streamStats{}, &holds, alloc, func(a memory.Allocator) []ipc.Option {
				return ipcOpts(schema, a, c.opts...)
			})
			want := make([]arrow.RecordBatch, len(recs))
			for i, r := range recs {
				require.NoError(t, bw.Write(r))
				// The caller lets go at once, as DoGet does.
				want[i] = r
			}

			// Compare what the frames hold, read after the originals
			// are released (the last batch's, which gRPC still holds
			// until the end-of-stream message), with records rebuilt
			// independently.
			_, fresh := frameRecords(t, memory.NewGoAllocator())
			releaseRecs(recs)
			require.NotZero(t, alloc.CurrentAlloc(), "the frames' memory is held until gRPC frees it")
			require.NoError(t, bw.Close())

			got := cs.flush()
			alloc.AssertSize(t, 0)
			assert.Empty(t, holds.m)
			require.Len(t, got, len(stock))
			for i := range stock {
				require.Equal(t, stock[i], got[i], "message %d", i)
			}

			r, err := arrowflight.NewRecordReader(&messageReader{msgs: got})
			require.NoError(t, err)
			defer r.Release()
			requireSameRecords(t, fresh, r)
			releaseRecs(fresh)
		})
	}
}

// TestFrameEmptyAndHeaderOnly covers the messages with no body: the
// schema, an empty FlightData, and a body-less frame without a hold.
func TestFrameEmptyAndHeaderOnly(t *testing.T) {
	for _, fd := range []*arrowflight.FlightData{
		{},
		{DataHeader: []byte{1, 2, 3}},
		{DataHeader: make([]byte, 5000)},
		{DataHeader: []byte{9}, DataBody: make([]byte, 9000)},
		{DataBody: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		want, err := proto.Marshal(fd)
		require.NoError(t, err)
		var pieces [][]byte
		if len(fd.DataBody) > 0 {
			pieces = [][]byte{fd.DataBody[:len(fd.DataBody)/2], fd.DataBody[len(fd.DataBody)/2:]}
		}
		bufs, n := appendFrame(nil, fd.DataHeader, pieces, nil)
		got := bufs.Materialize()
		bufs.Free()
		assert.True(t, bytes.Equal(want, got), "%x\n%x", want, got)
		assert.Equal(t, len(want), n)
	}
}

// frameServer serves fixed batches through the frame writer.
type frameServer struct {
	arrowflight.BaseFlightServer
	schema *arrow.Schema
	recs   []arrow.RecordBatch
	alloc  memory.Allocator
	holds  *holdSet
	opts   []ipc.Option
}

func (s *frameServer) DoGet(_ *arrowflight.Ticket, stream arrowflight.FlightService_DoGetServer) error {
	bw := newBatchWriter(stream.Context(), stream, &streamStats{}, s.holds, s.alloc, func(a memory.Allocator) []ipc.Option {
		return ipcOpts(s.schema, a, s.opts...)
	})
	for _, r := range s.recs {
		if err := bw.Write(r); err != nil {
			return err
		}
	}
	return bw.Close()
}

// TestFramesOverGRPC sends the batches through a gRPC server with the
// frame codec to arrow-go's Flight client, with a small window so that
// frames wait in gRPC's queue while later batches are encoded, and checks
// that every byte of memory comes back.
func TestFramesOverGRPC(t *testing.T) {
	for _, c := range compressions {
		t.Run(c.name, func(t *testing.T) {
			alloc := newPoisonAllocator()
			schema, recs := frameRecords(t, alloc)
			_, want := frameRecords(t, memory.NewGoAllocator())
			defer releaseRecs(want)
			holds := &holdSet{}
			fs := &frameServer{schema: schema, recs: recs, alloc: alloc, holds: holds, opts: c.opts}
			gs := grpc.NewServer(grpc.ForceServerCodecV2(newFrameCodec()))
			arrowflight.RegisterFlightServiceServer(gs, fs)
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			go gs.Serve(lis)
			defer gs.Stop()

			cl := dial(t, lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
			for round := 0; round < 3; round++ {
				s, err := cl.DoGet(context.Background(), &arrowflight.Ticket{Ticket: []byte("x")})
				require.NoError(t, err)
				r, err := arrowflight.NewRecordReader(s)
				require.NoError(t, err)
				requireSameRecords(t, want, r)
				r.Release()
			}
			releaseRecs(recs)
			waitFor(t, "the frames' memory to return", func() bool { return alloc.CurrentAlloc() == 0 })
			holds.mu.Lock()
			assert.Empty(t, holds.m)
			holds.mu.Unlock()
		})
	}
}

// TestFramesSplitLargeBatches checks that batches over maxBytes go out as
// row slices that read back as the same rows, each under the bound.
func TestFramesSplitLargeBatches(t *testing.T) {
	alloc := newPoisonAllocator()
	schema, recs := frameRecords(t, alloc)
	cs := &captureStream{codec: newFrameCodec(), keep: 1}
	var holds holdSet
	bw := newBatchWriter(context.Background(), cs, &streamStats{}, &holds, alloc, func(a memory.Allocator) []ipc.Option {
		return ipcOpts(schema, a)
	})
	const limit = 20 << 10
	bw.maxBytes = limit
	for _, r := range recs {
		require.NoError(t, bw.Write(r))
	}
	require.NoError(t, bw.Close())
	msgs := cs.flush()
	for i, m := range msgs {
		assert.Less(t, len(m), limit+4<<10, "message %d", i)
	}
	r, err := arrowflight.NewRecordReader(&messageReader{msgs: msgs})
	require.NoError(t, err)
	defer r.Release()
	want := rowsOfRecords(t, schema, recs...)
	batches := 0
	var got []string
	for r.Next() {
		batches++
		got = append(got, rowsOfRecords(t, schema, r.RecordBatch())...)
	}
	require.NoError(t, r.Err())
	assert.Greater(t, batches, len(recs))
	assert.Equal(t, want, got)
	releaseRecs(recs)
	alloc.AssertSize(t, 0)
}

func rowsOfRecords(t testing.TB, schema *arrow.Schema, recs ...arrow.RecordBatch) []string {
	r, err := array.NewRecordReader(schema, recs)
	require.NoError(t, err)
	defer r.Release()
	return rowsOf(t, r)
}

// TestBatchBytesBound reads a file through the server with a batch bound
// and a client that refuses larger messages: every row arrives.
func TestBatchBytesBound(t *testing.T) {
	root := bigRoot(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv := startServer(t, Options{Root: root, Allocator: mem, MaxBatchBytes: 100 << 10})
	c := dial(t, srv.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(110<<10)))
	fi := getInfo(t, c, pathDesc("weather"))
	got := readFlight(t, context.Background(), c, fi)
	assert.Equal(t, localRows(t, nil, "weather", filepath.Join(root, "big.tsfile")), got)
	waitFor(t, "the streams' memory to return", func() bool { return mem.CurrentAlloc() == 0 })
}

// TestBatchWriterHoldsOneBatchBack checks that a stream has at most two
// batches in gRPC's hands: the third write waits until the first batch's
// messages are freed, and a cancelled stream ends the wait with its error.
func TestBatchWriterHoldsOneBatchBack(t *testing.T) {
	alloc := newPoisonAllocator()
	schema, recs := frameRecords(t, alloc)
	require.GreaterOrEqual(t, len(recs), 3)
	defer releaseRecs(recs)
	for _, cancelled := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancelled=%v", cancelled), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cs := &captureStream{codec: newFrameCodec(), keep: 1 << 20} // gRPC frees nothing
			var holds holdSet
			bw := newBatchWriter(ctx, cs, &streamStats{}, &holds, alloc, func(a memory.Allocator) []ipc.Option {
				return ipcOpts(schema, a)
			})
			require.NoError(t, bw.Write(recs[0]))
			require.NoError(t, bw.Write(recs[1]))
			done := make(chan error, 1)
			go func() { done <- bw.Write(recs[2]) }()
			select {
			case err := <-done:
				t.Fatalf("the third batch was written while the first is held (err %v)", err)
			case <-time.After(100 * time.Millisecond):
			}
			if cancelled {
				cancel()
				require.ErrorIs(t, <-done, context.Canceled)
			} else {
				// gRPC writes out the first batch: the third goes on.
				cs.freeOlder(1)
				require.NoError(t, <-done)
			}
			require.NoError(t, bw.Close())
			cs.freeOlder(0)
			cs.flush()
			waitFor(t, "the holds to be released", func() bool {
				holds.mu.Lock()
				defer holds.mu.Unlock()
				return len(holds.m) == 0
			})
		})
	}
}
