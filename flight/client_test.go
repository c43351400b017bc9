package flight

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"runtime"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// wire builds protobuf messages field by field, including what no
// marshaller writes: unknown fields, repeated singular fields, groups,
// non-minimal varints and truncations.
type wire []byte

func (w wire) bytes(num protowire.Number, v []byte) wire {
	return wire(protowire.AppendBytes(protowire.AppendTag(w, num, protowire.BytesType), v))
}

func (w wire) varint(num protowire.Number, v uint64) wire {
	return wire(protowire.AppendVarint(protowire.AppendTag(w, num, protowire.VarintType), v))
}

func (w wire) fixed32(num protowire.Number, v uint32) wire {
	return wire(protowire.AppendFixed32(protowire.AppendTag(w, num, protowire.Fixed32Type), v))
}

func (w wire) fixed64(num protowire.Number, v uint64) wire {
	return wire(protowire.AppendFixed64(protowire.AppendTag(w, num, protowire.Fixed64Type), v))
}

func (w wire) tag(num protowire.Number, typ protowire.Type) wire {
	return wire(protowire.AppendTag(w, num, typ))
}

func (w wire) raw(b ...byte) wire { return append(w, b...) }

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	return b
}

func pattern(n, seed int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), uint64(seed)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// split copies msg into buffers of chunk bytes (one buffer when chunk is
// 0), as gRPC hands over a message received in HTTP/2 frames.
func split(msg []byte, chunk int) mem.BufferSlice {
	if chunk <= 0 {
		chunk = max(len(msg), 1)
	}
	var bs mem.BufferSlice
	for len(msg) > 0 {
		n := min(chunk, len(msg))
		bs = append(bs, mem.SliceBuffer(bytes.Clone(msg[:n])))
		msg = msg[n:]
	}
	return bs
}

// poison overwrites the buffers, as gRPC's reuse of them would.
func poison(bs mem.BufferSlice) {
	for _, b := range bs {
		d := b.ReadOnlyData()
		for i := range d {
			d[i] = 0xA5
		}
	}
}

// decodeBoth decodes msg, cut into buffers of chunk bytes, with the
// client codec and with proto.Unmarshal.
func decodeBoth(msg []byte, chunk int) (got, want *arrowflight.FlightData, gotErr, wantErr error) {
	got, want = new(arrowflight.FlightData), new(arrowflight.FlightData)
	// A reused message is reset first, as proto.Unmarshal resets it.
	got.DataHeader, got.AppMetadata = []byte("stale"), []byte("stale")
	bs := split(msg, chunk)
	gotErr = newClientCodec().Unmarshal(bs, got)
	poison(bs)
	wantErr = proto.Unmarshal(msg, want)
	return got, want, gotErr, wantErr
}

// sameFields reports how got differs from want, the same message decoded
// by proto.Unmarshal, or "": the same field values, including which bytes
// fields are nil. Unknown fields are not compared: the codec skips them.
func sameFields(got, want *arrowflight.FlightData) string {
	want = proto.CloneOf(want)
	want.ProtoReflect().SetUnknown(nil)
	if !proto.Equal(got, want) {
		return "fields differ:\ngot  " + got.String() + "\nwant " + want.String()
	}
	for _, p := range [][2][]byte{{got.DataHeader, want.DataHeader}, {got.AppMetadata, want.AppMetadata}, {got.DataBody, want.DataBody}} {
		if (p[0] == nil) != (p[1] == nil) {
			return "a bytes field is nil on one side only:\ngot  " + got.String() + "\nwant " + want.String()
		}
	}
	return ""
}

func TestClientCodecGolden(t *testing.T) {
	desc := &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{"a.tsfile", "weather"}}
	cmd := &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte(`{"table":"weather"}`)}
	header, body := pattern(300, 1), pattern(5000, 2)
	large := pattern(3<<20, 3)
	cases := []struct {
		name string
		msg  []byte
	}{
		{"empty message", nil},
		{"header only", marshal(t, &arrowflight.FlightData{DataHeader: header})},
		{"header and body", marshal(t, &arrowflight.FlightData{DataHeader: header, DataBody: body})},
		{"every field", marshal(t, &arrowflight.FlightData{FlightDescriptor: desc, DataHeader: header,
			AppMetadata: []byte("meta"), DataBody: body})},
		{"body only", marshal(t, &arrowflight.FlightData{DataBody: body[:8]})},
		{"large body", marshal(t, &arrowflight.FlightData{DataHeader: header, DataBody: large})},
		{"fields out of order", wire(nil).bytes(1000, body).bytes(3, []byte("m")).bytes(2, header).bytes(1, marshal(t, cmd))},
		{"empty fields present", wire(nil).bytes(1, nil).bytes(2, nil).bytes(3, nil).bytes(1000, nil)},
		{"last bytes field wins", wire(nil).bytes(2, []byte("first")).bytes(2, header).bytes(1000, body).bytes(1000, []byte("second"))},
		{"a later empty field clears", wire(nil).bytes(2, header).bytes(2, nil).bytes(3, []byte("m")).bytes(3, nil)},
		{"descriptors merge", wire(nil).bytes(1, marshal(t, desc)).bytes(2, header).bytes(1, marshal(t, cmd))},
		{"unknown varint", wire(nil).varint(4, 1<<63).bytes(2, header)},
		{"unknown fixed64", wire(nil).bytes(2, header).fixed64(999, 42).bytes(1000, body)},
		{"unknown fixed32", wire(nil).fixed32(1001, 7).bytes(1000, body)},
		{"unknown bytes", wire(nil).bytes(5, []byte("x")).bytes(protowire.MaxValidNumber, pattern(40000, 4)).bytes(2, header)},
		{"known numbers of other wire types", wire(nil).varint(2, 5).fixed32(1000, 9).fixed64(3, 1).varint(1, 3).bytes(1000, body)},
		{"non-minimal tag and length", wire(nil).raw(0x92, 0x00).raw(0x83, 0x80, 0x00).raw(1, 2, 3).raw(0xc2, 0x3e, 0x81, 0x00).raw(9)},
		{"non-minimal unknown varint", wire(nil).tag(6, protowire.VarintType).raw(0x80, 0x80, 0x00).bytes(2, header)},
		{"descriptor with unknown fields", wire(nil).bytes(1, wire(nil).varint(1, 2).varint(77, 1).bytes(3, []byte("p")))},
	}
	for _, c := range cases {
		for _, chunk := range []int{0, 1, 7, 16 << 10} {
			if chunk < 1024 && len(c.msg) > 64<<10 {
				continue // millions of buffers
			}
			got, want, gotErr, wantErr := decodeBoth(c.msg, chunk)
			require.NoError(t, wantErr, "%s: proto.Unmarshal", c.name)
			require.NoError(t, gotErr, "%s, chunks of %d", c.name, chunk)
			require.Empty(t, sameFields(got, want), "%s, chunks of %d", c.name, chunk)
		}
	}
}

// TestClientCodecLayout checks what the copy looks like: the fields are
// capped sub-slices of one slice, with the body 8-byte aligned.
func TestClientCodecLayout(t *testing.T) {
	for hlen := 0; hlen < 24; hlen++ {
		fd := &arrowflight.FlightData{DataHeader: pattern(hlen, 5), DataBody: pattern(64<<10, 6)}
		got := new(arrowflight.FlightData)
		require.NoError(t, newClientCodec().Unmarshal(split(marshal(t, fd), 16<<10), got))
		require.Equal(t, fd.DataBody, got.DataBody)
		require.Equal(t, cap(got.DataBody), len(got.DataBody))
		require.Zero(t, uintptr(unsafe.Pointer(unsafe.SliceData(got.DataBody)))%8, "header of %d bytes", hlen)
		if hlen > 0 {
			require.Equal(t, cap(got.DataHeader), len(got.DataHeader))
			end := uintptr(unsafe.Pointer(unsafe.SliceData(got.DataHeader))) + uintptr(hlen)
			start := uintptr(unsafe.Pointer(unsafe.SliceData(got.DataBody)))
			require.True(t, start > end && start-end < 16, "header and body not in one copy")
		}
	}
}

func TestClientCodecMalformed(t *testing.T) {
	header := pattern(100, 7)
	ok := func() wire { return wire(nil).bytes(2, header) } // a fresh array each time
	cases := []struct {
		name  string
		msg   []byte
		group bool // proto.Unmarshal accepts it; the codec refuses groups
	}{
		{"truncated tag", ok().raw(0x80), false},
		{"truncated length", ok().tag(1000, protowire.BytesType).raw(0x80, 0x80), false},
		{"length past the end", ok().tag(1000, protowire.BytesType).raw(0x80, 0x01).raw(pattern(127, 8)...), false},
		{"huge length", ok().tag(1000, protowire.BytesType).raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), false},
		{"length over 2^63", ok().tag(2, protowire.BytesType).raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), false},
		{"varint overflow", ok().tag(4, protowire.VarintType).raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02), false},
		{"truncated varint value", ok().tag(4, protowire.VarintType).raw(0xff), false},
		{"truncated fixed32", ok().tag(4, protowire.Fixed32Type).raw(1, 2, 3), false},
		{"truncated fixed64", ok().tag(4, protowire.Fixed64Type).raw(1, 2, 3, 4, 5, 6, 7), false},
		{"field number 0", ok().raw(0x02, 0x00), false},
		{"field number too large", ok().tag(protowire.MaxValidNumber, protowire.BytesType).raw(0).raw(0x82, 0x80, 0x80, 0x80, 0x10, 0x00), false},
		{"reserved wire type 6", ok().raw(0x0e), false},
		{"reserved wire type 7", ok().raw(0x0f, 0x00), false},
		{"end group alone", ok().tag(5, protowire.EndGroupType), false},
		{"unterminated group", ok().tag(5, protowire.StartGroupType).varint(1, 1), false},
		{"group", ok().tag(5, protowire.StartGroupType).varint(1, 1).tag(5, protowire.EndGroupType), true},
		{"empty group", wire(nil).tag(1000, protowire.StartGroupType).tag(1000, protowire.EndGroupType).bytes(2, header), true},
		{"bad descriptor", ok().bytes(1, []byte{0xff}), false},
		{"descriptor path not UTF-8", ok().bytes(1, wire(nil).bytes(3, []byte{0xff, 0xfe})), false},
	}
	for _, c := range cases {
		for _, chunk := range []int{0, 1, 5} {
			_, _, gotErr, wantErr := decodeBoth(c.msg, chunk)
			require.Error(t, gotErr, "%s, chunks of %d", c.name, chunk)
			require.ErrorIs(t, gotErr, errFlightData, c.name)
			if c.group {
				require.ErrorIs(t, gotErr, errGroup, c.name)
				require.NoError(t, wantErr, "%s: proto.Unmarshal", c.name)
			} else {
				require.Error(t, wantErr, "%s: proto.Unmarshal", c.name)
			}
		}
	}
}

// TestClientCodecAllocation checks that decoding allocates one copy of
// the message, whatever lengths it claims.
func TestClientCodecAllocation(t *testing.T) {
	header := pattern(400, 10)
	valid := marshal(t, &arrowflight.FlightData{DataHeader: header, DataBody: pattern(512<<10, 9)})
	var unknowns wire
	for len(unknowns) < 256<<10 {
		unknowns = unknowns.varint(7, 1).fixed32(8, 2)
	}
	for _, c := range []struct {
		name  string
		msg   []byte
		valid bool
	}{
		{"valid", valid, true},
		{"unknown fields", unknowns, true},
		{"huge length", wire(nil).bytes(2, header).tag(1000, protowire.BytesType).
			raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f).raw(pattern(40000, 14)...), false},
		{"length past the end", wire(nil).bytes(2, header).tag(1000, protowire.BytesType).
			raw(protowire.AppendVarint(nil, 1<<20)...).raw(pattern(40000, 15)...), false},
	} {
		bs := split(c.msg, 16<<10)
		codec := newClientCodec()
		fd := new(arrowflight.FlightData)
		if c.valid {
			allocs := testing.AllocsPerRun(20, func() { codec.Unmarshal(bs, fd) })
			assert.LessOrEqual(t, allocs, 1.0, c.name)
		}
		// TotalAlloc counts every goroutine of the test binary (gRPC
		// servers of earlier tests wind down now and then), which once
		// added 100 bytes to 20 runs: the least of three tries counts.
		perRun := math.Inf(1)
		for range 3 {
			var before, after runtime.MemStats
			const runs = 20
			runtime.ReadMemStats(&before)
			for i := 0; i < runs; i++ {
				codec.Unmarshal(bs, fd)
			}
			runtime.ReadMemStats(&after)
			perRun = min(perRun, float64(after.TotalAlloc-before.TotalAlloc)/runs)
		}
		// Large allocations are rounded up to 8 KiB pages.
		assert.LessOrEqual(t, perRun, float64(len(c.msg)+8<<10), c.name)
	}
}

// TestClientCodecOtherMessages checks that everything but FlightData goes
// through the protobuf codec, and the name gRPC sends.
func TestClientCodecOtherMessages(t *testing.T) {
	codec, stock := newClientCodec(), encoding.GetCodecV2("proto")
	assert.Equal(t, "proto", codec.Name())
	fi := &arrowflight.FlightInfo{Schema: []byte("s"), TotalRecords: 5, FlightDescriptor: &arrowflight.FlightDescriptor{Cmd: []byte("c")},
		Endpoint: []*arrowflight.FlightEndpoint{{Ticket: &arrowflight.Ticket{Ticket: []byte("t")}}}}
	a, err := codec.Marshal(fi)
	require.NoError(t, err)
	b, err := stock.Marshal(fi)
	require.NoError(t, err)
	assert.Equal(t, b.Materialize(), a.Materialize())
	got := new(arrowflight.FlightInfo)
	require.NoError(t, codec.Unmarshal(split(a.Materialize(), 3), got))
	assert.True(t, proto.Equal(fi, got))
	a.Free()
	b.Free()
	fd := &arrowflight.FlightData{DataHeader: []byte("h"), DataBody: []byte("b")}
	m, err := codec.Marshal(fd)
	require.NoError(t, err)
	assert.Equal(t, marshal(t, fd), m.Materialize())
	m.Free()
	assert.Error(t, codec.Unmarshal(split([]byte{0x80}, 0), new(arrowflight.FlightInfo)))
}

// FuzzClientCodec checks that the codec decodes whatever it is given as
// proto.Unmarshal does (the same field values, or both fail), except for
// the groups it refuses, and never panics.
func FuzzClientCodec(f *testing.F) {
	desc := &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{"x"}}
	for _, seed := range [][]byte{
		nil,
		marshal(f, &arrowflight.FlightData{FlightDescriptor: desc, DataHeader: []byte("header"), AppMetadata: []byte("m"), DataBody: pattern(100, 11)}),
		wire(nil).varint(4, 300).fixed32(5, 1).fixed64(6, 2).bytes(7, []byte("u")).bytes(2, []byte("h")).bytes(2, nil),
		wire(nil).tag(5, protowire.StartGroupType).varint(1, 1).tag(5, protowire.EndGroupType),
		wire(nil).bytes(1, wire(nil).varint(1, 1)).bytes(1, wire(nil).bytes(2, []byte("c"))),
		wire(nil).tag(1000, protowire.BytesType).raw(0x80, 0x01, 1, 2),
	} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(3))
	}
	f.Fuzz(func(t *testing.T, msg []byte, chunk uint8) {
		got, want, gotErr, wantErr := decodeBoth(msg, int(chunk))
		switch {
		case gotErr != nil:
			if !errors.Is(gotErr, errFlightData) {
				t.Fatalf("error not classified: %v", gotErr)
			}
			if wantErr == nil && !errors.Is(gotErr, errGroup) {
				t.Fatalf("codec failed (%v), proto.Unmarshal did not", gotErr)
			}
		case wantErr != nil:
			t.Fatalf("proto.Unmarshal failed (%v), the codec did not: %v", wantErr, got)
		default:
			if d := sameFields(got, want); d != "" {
				t.Fatal(d)
			}
		}
	})
}

// stockServer serves fixed batches with arrow-go's own Flight writer and
// gRPC's protobuf codec, as any Flight server would, and records the
// content-type each call came with.
type stockServer struct {
	arrowflight.BaseFlightServer
	schema *arrow.Schema
	recs   []arrow.RecordBatch
}

func (s *stockServer) DoGet(_ *arrowflight.Ticket, stream arrowflight.FlightService_DoGetServer) error {
	w := arrowflight.NewRecordWriter(stream, ipc.WithSchema(s.schema), ipc.WithDictionaryDeltas(true))
	defer w.Close()
	for i, r := range s.recs {
		w.SetFlightDescriptor(&arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte{byte(i)}})
		if err := w.WriteWithAppMetadata(r, []byte{'m', byte(i)}); err != nil {
			return err
		}
	}
	return nil
}

// TestClientAgainstStockServer reads a stream of arrow-go's Flight
// writer (dictionaries, deltas, app metadata, descriptors) through
// CallOption, DialOption and DoGet.
func TestClientAgainstStockServer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	schema, want := frameRecords(t, memory.NewGoAllocator())
	defer releaseRecs(want)
	types := make(chan string, 16)
	gs := grpc.NewServer(grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		md, _ := metadata.FromIncomingContext(ss.Context())
		types <- md.Get("content-type")[0]
		return h(srv, ss)
	}))
	arrowflight.RegisterFlightServiceServer(gs, &stockServer{schema: schema, recs: want})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	defer func() {
		gs.Stop()
		require.NoError(t, <-served)
	}()
	insec := grpc.WithTransportCredentials(insecure.NewCredentials())
	plain := dialNoCleanup(t, lis.Addr().String())
	defer plain.Close()
	withDial, err := arrowflight.NewClientWithMiddleware(lis.Addr().String(), nil, nil, insec, DialOption())
	require.NoError(t, err)
	defer withDial.Close()
	tk := &arrowflight.Ticket{Ticket: []byte("t")}

	check := func(name string, r *arrowflight.Reader) {
		defer r.Release()
		i := 0
		for r.Next() {
			require.Less(t, i, len(want), name)
			require.True(t, array.RecordEqual(want[i], r.RecordBatch()), "%s: batch %d", name, i)
			assert.Equal(t, []byte{'m', byte(i)}, r.LatestAppMetadata(), name)
			assert.Equal(t, []byte{byte(i)}, r.LatestFlightDescriptor().GetCmd(), name)
			i++
		}
		require.NoError(t, r.Err(), name)
		require.Equal(t, len(want), i, name)
	}
	s, err := plain.DoGet(context.Background(), tk, CallOption())
	require.NoError(t, err)
	r, err := arrowflight.NewRecordReader(s)
	require.NoError(t, err)
	check("CallOption", r)
	assert.Equal(t, "application/grpc+proto", <-types)

	s, err = withDial.DoGet(context.Background(), tk)
	require.NoError(t, err)
	r, err = arrowflight.NewRecordReader(s)
	require.NoError(t, err)
	check("DialOption", r)
	assert.Equal(t, "application/grpc+proto", <-types)

	r, err = DoGet(context.Background(), plain, tk)
	require.NoError(t, err)
	check("DoGet", r)
	assert.Equal(t, "application/grpc+proto", <-types)

	s, err = plain.DoGet(context.Background(), tk)
	require.NoError(t, err)
	r, err = arrowflight.NewRecordReader(s)
	require.NoError(t, err)
	check("stock", r)
	assert.Equal(t, "application/grpc", <-types)
}

// TestClientDoGet reads flights of this server with DoGet and compares
// them with the stock client's reads and in-process conversion, after
// every stream has ended and gRPC has reused its buffers for others.
func TestClientDoGet(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	root, files := testRoot(t)
	big := writeTestFile(t, root, "big.tsfile", 4, 60_000, 4)
	paths := []string{files[0], files[1], big, files[2]} // path order
	want := localRows(t, nil, "weather", paths...)
	srv := startServerNoCleanup(t, Options{Root: root, PartitionBytes: 2 << 20})
	defer srv.stop(t)
	c := dialNoCleanup(t, srv.addr)
	defer c.Close()
	ctx := context.Background()

	for _, comp := range []string{"", "lz4"} {
		fi := getInfo(t, c, cmdDesc(t, Query{Table: "weather", Compression: comp}))
		require.Greater(t, len(fi.Endpoint), 1)
		var kept []arrow.RecordBatch
		var schema *arrow.Schema
		for _, ep := range fi.Endpoint {
			r, err := DoGet(ctx, c, ep.Ticket)
			require.NoError(t, err)
			schema = r.Schema()
			for r.Next() {
				rec := r.RecordBatch()
				rec.Retain()
				kept = append(kept, rec)
			}
			require.NoError(t, r.Err())
			r.Release()
		}
		// The stock client's reads of the same flight, which reuse the
		// buffers the kept batches were received in.
		stock := readFlight(t, ctx, c, fi)
		runtime.GC()
		got := rowsOfRecords(t, schema, kept...)
		releaseRecs(kept)
		require.Equal(t, want, stock, "stock client, compression %q", comp)
		require.Equal(t, want, got, "DoGet, compression %q", comp)
		require.Equal(t, want, readFlight(t, ctx, c, fi, CallOption()), "CallOption, compression %q", comp)
	}

	_, err := DoGet(ctx, c, &arrowflight.Ticket{Ticket: []byte("forged")})
	require.Error(t, err)
	assert.Equal(t, codes.PermissionDenied, status.Code(err))
	assert.Contains(t, err.Error(), "flight: DoGet")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	fi := getInfo(t, c, pathDesc("weather"))
	_, err = DoGet(cctx, c, fi.Endpoint[0].Ticket)
	assert.Equal(t, codes.Canceled, status.Code(err))
}

// BenchmarkClientCodec decodes a 512 KiB FlightData received in 16 KiB
// frames with gRPC's protobuf codec and with the client codec.
func BenchmarkClientCodec(b *testing.B) {
	msg := marshal(b, &arrowflight.FlightData{DataHeader: pattern(400, 12), DataBody: pattern(512<<10, 13)})
	pool := mem.DefaultBufferPool()
	frames := func() mem.BufferSlice {
		var bs mem.BufferSlice
		for rest := msg; len(rest) > 0; {
			n := min(16<<10, len(rest))
			bs = append(bs, mem.Copy(rest[:n], pool))
			rest = rest[n:]
		}
		return bs
	}
	for _, c := range []struct {
		name  string
		codec encoding.CodecV2
	}{{"proto", encoding.GetCodecV2("proto")}, {"client", newClientCodec()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				bs := frames()
				fd := new(arrowflight.FlightData)
				if err := c.codec.Unmarshal(bs, fd); err != nil {
					b.Fatal(err)
				}
				bs.Free()
			}
		})
	}
}
