package flight

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Client helpers: faster reads for Go programs using arrow-go's Flight
// client, against this server or any other Flight server.
//
// gRPC's protobuf codec receives each FlightData message by copying the
// HTTP/2 frames it arrived in into one buffer, and proto.Unmarshal then
// copies its data_header and data_body again into fresh slices: two
// copies of every record batch before the IPC reader sees it. The codec
// CallOption installs copies the message once, into one fresh slice of
// its own, and points DataHeader, AppMetadata and DataBody into it. The
// copy is what makes the record batches safe to keep: gRPC recycles its
// receive buffers as soon as a message is decoded, while the arrays of a
// batch reference the body for as long as the batch lives.
//
// The body is placed at an 8-byte aligned address in that slice, as
// proto.Unmarshal's own allocation of it would be, so that the Arrow
// buffers inside it (which IPC writers pad to multiples of 8) are aligned
// for consumers that need it, such as the C data interface.
//
// Every other message, and everything the codec sends, goes through
// gRPC's registered protobuf codec; the codec is named "proto" like it, so
// requests carry the content-type application/grpc+proto that every
// Flight server accepts.

// CallOption returns the gRPC call option that receives FlightData
// messages with one copy instead of two (see DoGet). Pass it to the
// streaming calls of an arrow-go Flight client (DoGet, DoExchange, or
// FlightSQL's DoGet) on a connection to any Flight server; the records read
// stay valid after the stream ends, as without it.
func CallOption() grpc.CallOption { return grpc.ForceCodecV2(newClientCodec()) }

// DialOption returns CallOption as a default of every call on a
// connection, for arrow-go's flight.NewClientWithMiddleware and other
// clients built on grpc.NewClient.
func DialOption() grpc.DialOption { return grpc.WithDefaultCallOptions(CallOption()) }

// DoGet starts reading ticket t from c through CallOption and returns the
// stream's record reader, as c.DoGet and flight.NewRecordReader would
// without it. opts are added after CallOption, so they may override it.
//
// The stream's context, derived from ctx, is cancelled when the reader
// reaches the end of the stream or an error, or when DoGet fails; a caller
// that stops reading before then must cancel ctx to end the stream. The
// reader must be released.
func DoGet(ctx context.Context, c arrowflight.Client, t *arrowflight.Ticket, opts ...grpc.CallOption) (*arrowflight.Reader, error) {
	ctx, cancel := context.WithCancel(ctx)
	s, err := c.DoGet(ctx, t, append([]grpc.CallOption{CallOption()}, opts...)...)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("flight: DoGet: %w", err)
	}
	r, err := arrowflight.NewRecordReader(&endingStream{s: s, cancel: cancel})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("flight: DoGet: starting the record reader: %w", err)
	}
	return r, nil
}

// endingStream cancels a stream's context once its last message has been
// received, releasing what gRPC keeps for it.
type endingStream struct {
	s      arrowflight.FlightService_DoGetClient
	cancel context.CancelFunc
}

func (e *endingStream) Recv() (*arrowflight.FlightData, error) {
	fd, err := e.s.Recv()
	if err != nil {
		e.cancel()
	}
	return fd, err
}

// clientCodec is the gRPC codec of CallOption.
type clientCodec struct{ proto encoding.CodecV2 }

func newClientCodec() clientCodec { return clientCodec{proto: encoding.GetCodecV2(grpcproto.Name)} }

// Marshal is the protobuf codec's.
func (c clientCodec) Marshal(v any) (mem.BufferSlice, error) { return c.proto.Marshal(v) }

// Unmarshal decodes a FlightData itself, anything else as protobuf.
func (c clientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	fd, ok := v.(*arrowflight.FlightData)
	if !ok {
		return c.proto.Unmarshal(data, v)
	}
	return unmarshalFlightData(data, fd)
}

// Name is the protobuf codec's, which gRPC sends as the content-subtype.
func (clientCodec) Name() string { return grpcproto.Name }

// FlightData field numbers beside those of frames.go.
const (
	fieldFlightDescriptor = 1
	fieldAppMetadata      = 3
)

var (
	errFlightData = errors.New("flight: malformed FlightData message")
	// errGroup refuses the deprecated group wire types, which no Flight
	// implementation sends; proto.Unmarshal would skip a well-formed
	// group as an unknown field.
	errGroup = fmt.Errorf("%w: group wire type", errFlightData)
)

// unmarshalFlightData copies data into one new slice and decodes it into
// fd as decodeFlightData does, the bytes fields pointing into the copy.
// The slice is the only allocation besides a flight descriptor's: the
// message's size plus at most 7 bytes of alignment, whatever lengths the
// message claims.
func unmarshalFlightData(data mem.BufferSlice, fd *arrowflight.FlightData) error {
	if data.Len() == 0 {
		fd.Reset()
		return nil
	}
	// bytes.Join makes the one copy without clearing the new slice
	// first, unlike make and copy.
	pad := bodyPad(data[0].ReadOnlyData())
	var stack [40][]byte // a 512 KiB message is 32 frames of 16 KiB
	parts := append(stack[:0], zeros[:pad])
	for _, b := range data {
		parts = append(parts, b.ReadOnlyData())
	}
	buf := bytes.Join(parts, nil)
	return decodeFlightData(buf[pad:], fd)
}

var zeros [7]byte

// bodyPad returns the bytes to put before a message, of which head is
// the start, so that its data_body starts at a multiple of 8 from the
// start of the copy (an allocation, itself aligned). It looks only at
// head, which holds the header and the body's tag in every message of a
// Flight writer, and returns 0 when it does not find the body there.
func bodyPad(head []byte) int {
	off := 0
	for off < len(head) {
		tag, n := protowire.ConsumeVarint(head[off:])
		if n < 0 || protowire.Type(tag&7) != protowire.BytesType {
			return 0
		}
		off += n
		size, m := protowire.ConsumeVarint(head[off:])
		if m < 0 {
			return 0
		}
		off += m
		if tag>>3 == fieldDataBody {
			return (8 - off%8) % 8
		}
		if size > uint64(len(head)-off) {
			return 0
		}
		off += int(size)
	}
	return 0
}

// fieldReader walks the fields of a protobuf message.
type fieldReader struct {
	b   []byte
	off int // of the next field in b
}

// field is one field read by fieldReader.
type field struct {
	num protowire.Number
	typ protowire.Type
	val []byte // a BytesType value, without its length
}

// next returns the next field, or ok false at the end of the message.
// Fields of the other wire types are read past, their values left out.
func (r *fieldReader) next() (f field, ok bool, err error) {
	if r.off == len(r.b) {
		return f, false, nil
	}
	rest := r.b[r.off:]
	tag, n := protowire.ConsumeVarint(rest)
	if n < 0 {
		return f, false, fmt.Errorf("%w: tag at byte %d: %v", errFlightData, r.off, protowire.ParseError(n))
	}
	num := tag >> 3
	if num < uint64(protowire.MinValidNumber) || num > uint64(protowire.MaxValidNumber) {
		return f, false, fmt.Errorf("%w: field number %d at byte %d", errFlightData, num, r.off)
	}
	f.num, f.typ = protowire.Number(num), protowire.Type(tag&7)
	rest = rest[n:]
	var m int
	switch f.typ {
	case protowire.VarintType:
		_, m = protowire.ConsumeVarint(rest)
	case protowire.Fixed32Type:
		_, m = protowire.ConsumeFixed32(rest)
	case protowire.Fixed64Type:
		_, m = protowire.ConsumeFixed64(rest)
	case protowire.BytesType:
		f.val, m = protowire.ConsumeBytes(rest)
		// Capped, so that appending to one field cannot overwrite the
		// next.
		f.val = f.val[:len(f.val):len(f.val)]
	case protowire.StartGroupType, protowire.EndGroupType:
		return f, false, fmt.Errorf("%w: field %d at byte %d", errGroup, num, r.off)
	default:
		return f, false, fmt.Errorf("%w: field %d at byte %d has the reserved wire type %d", errFlightData, num, r.off, f.typ)
	}
	if m < 0 {
		return f, false, fmt.Errorf("%w: field %d at byte %d: %v", errFlightData, num, r.off, protowire.ParseError(m))
	}
	r.off += n + m
	return f, true, nil
}

// decodeFlightData decodes the FlightData message b into fd, which it
// resets first, as proto.Unmarshal does, except that it skips the fields
// FlightData does not have (proto.Unmarshal keeps them as unknown fields,
// which no Flight reader looks at) and refuses groups. The bytes fields
// become sub-slices of b, nil when empty as proto.Unmarshal leaves them. It
// allocates nothing but the flight descriptor, if there is one.
func decodeFlightData(b []byte, fd *arrowflight.FlightData) error {
	fd.Reset()
	r := fieldReader{b: b}
	for {
		f, ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if f.typ != protowire.BytesType {
			// An unknown field, or a known number of another wire type,
			// which proto.Unmarshal keeps as an unknown field too.
			continue
		}
		switch f.num {
		case fieldFlightDescriptor:
			// A message field repeated on the wire is merged, as
			// proto.Unmarshal merges it.
			if fd.FlightDescriptor == nil {
				fd.FlightDescriptor = new(arrowflight.FlightDescriptor)
			}
			if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(f.val, fd.FlightDescriptor); err != nil {
				return fmt.Errorf("%w: flight_descriptor: %w", errFlightData, err)
			}
		case fieldDataHeader:
			fd.DataHeader = nonEmpty(f.val)
		case fieldAppMetadata:
			fd.AppMetadata = nonEmpty(f.val)
		case fieldDataBody:
			fd.DataBody = nonEmpty(f.val)
		}
	}
}

func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
