package flight

import (
	"context"
	"strings"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// Flight SQL and the plain Flight service share one gRPC service, the
// FlightService, so every RPC is routed by what it carries. Flight SQL
// wraps each command, ticket and action body in a protobuf Any whose type
// URL names a message of the package arrow.flight.protocol.sql
// (format/FlightSql.proto); the plain service's commands are JSON objects
// and its tickets start with a version byte of 1 or 2, neither of which
// parses as such an Any (a first byte of '{', 0x01 or 0x02 is not the tag
// of Any's field 1). So:
//
//   - GetFlightInfo, GetSchema, PollFlightInfo: a CMD descriptor holding a
//     Flight SQL Any goes to Flight SQL, any other to the plain service;
//   - DoGet: a ticket holding a Flight SQL Any is one this server issued
//     for Flight SQL (sqlDoGet); any other goes to the plain service;
//   - DoPut: the descriptor of the first message decides, as above;
//   - DoAction and ListActions: Flight SQL's (the plain service has none);
//   - Handshake, ListFlights, DoExchange: the plain service.

// sqlTypePrefix begins the type URL of every Flight SQL message.
const sqlTypePrefix = "type.googleapis.com/arrow.flight.protocol.sql."

// sqlAny parses b as a Flight SQL Any, or returns nil.
func sqlAny(b []byte) *anypb.Any {
	if len(b) == 0 || b[0] != 0x0a { // field 1 (type_url), length-delimited
		return nil
	}
	var a anypb.Any
	if err := proto.Unmarshal(b, &a); err != nil || !strings.HasPrefix(a.GetTypeUrl(), sqlTypePrefix) {
		return nil
	}
	return &a
}

func isSQLDescriptor(d *arrowflight.FlightDescriptor) bool {
	return d != nil && d.GetType() == arrowflight.DescriptorCMD && sqlAny(d.GetCmd()) != nil
}

// dispatcher is the FlightService of a server with Flight SQL.
type dispatcher struct {
	arrowflight.BaseFlightServer
	plain *service
	sql   arrowflight.FlightServer
	ss    *sqlServer
}

func (d *dispatcher) Handshake(stream arrowflight.FlightService_HandshakeServer) error {
	return d.plain.Handshake(stream)
}

func (d *dispatcher) ListFlights(c *arrowflight.Criteria, stream arrowflight.FlightService_ListFlightsServer) error {
	return d.plain.ListFlights(c, stream)
}

func (d *dispatcher) GetFlightInfo(ctx context.Context, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	if isSQLDescriptor(desc) {
		fi, err := d.sql.GetFlightInfo(ctx, desc)
		return fi, d.ss.status(err)
	}
	return d.plain.GetFlightInfo(ctx, desc)
}

func (d *dispatcher) PollFlightInfo(ctx context.Context, desc *arrowflight.FlightDescriptor) (*arrowflight.PollInfo, error) {
	if isSQLDescriptor(desc) {
		return nil, status.Error(codes.Unimplemented, "PollFlightInfo is not offered; call GetFlightInfo, which plans a statement without running it")
	}
	return d.plain.PollFlightInfo(ctx, desc)
}

func (d *dispatcher) GetSchema(ctx context.Context, desc *arrowflight.FlightDescriptor) (*arrowflight.SchemaResult, error) {
	if isSQLDescriptor(desc) {
		sr, err := d.sql.GetSchema(ctx, desc)
		return sr, d.ss.status(err)
	}
	return d.plain.GetSchema(ctx, desc)
}

func (d *dispatcher) DoGet(t *arrowflight.Ticket, stream arrowflight.FlightService_DoGetServer) error {
	if a := sqlAny(t.GetTicket()); a != nil {
		return d.ss.doGet(a, stream)
	}
	return d.plain.DoGet(t, stream)
}

func (d *dispatcher) DoPut(stream arrowflight.FlightService_DoPutServer) error {
	// The first message carries the descriptor. It is read with the
	// server's write timeout, as the plain DoPut reads the ones after it.
	type recv struct {
		fd  *arrowflight.FlightData
		err error
	}
	ch := make(chan recv, 1)
	go func() {
		fd, err := stream.Recv()
		ch <- recv{fd, err}
	}()
	var wait <-chan time.Time
	if w := d.ss.s.opts.WriteTimeout; w > 0 {
		t := time.NewTimer(w)
		defer t.Stop()
		wait = t.C
	}
	var first recv
	select {
	case first = <-ch:
	case <-wait:
		return status.Errorf(codes.DeadlineExceeded, "the client sent nothing for %s after opening DoPut", d.ss.s.opts.WriteTimeout)
	case <-stream.Context().Done():
		return status.FromContextError(stream.Context().Err()).Err()
	}
	if first.err != nil {
		return first.err
	}
	ps := &peekedPut{FlightService_DoPutServer: stream, first: first.fd}
	if isSQLDescriptor(first.fd.GetFlightDescriptor()) {
		return d.ss.status(d.sql.DoPut(ps))
	}
	return d.plain.DoPut(ps)
}

func (d *dispatcher) DoExchange(stream arrowflight.FlightService_DoExchangeServer) error {
	return d.plain.DoExchange(stream)
}

func (d *dispatcher) DoAction(a *arrowflight.Action, stream arrowflight.FlightService_DoActionServer) error {
	switch a.GetType() {
	case flightsql.BeginTransactionActionType, flightsql.BeginSavepointActionType,
		flightsql.EndTransactionActionType, flightsql.EndSavepointActionType:
		return status.Errorf(codes.Unimplemented, "%s: this Flight SQL server is read-only and has no transactions; run queries without one", a.GetType())
	case flightsql.CreatePreparedSubstraitPlanActionType:
		return status.Error(codes.Unimplemented, "Substrait plans are not supported; send SQL")
	}
	return d.ss.status(d.sql.DoAction(a, stream))
}

func (d *dispatcher) ListActions(e *arrowflight.Empty, stream arrowflight.FlightService_ListActionsServer) error {
	for _, t := range []string{
		flightsql.CreatePreparedStatementActionType,
		flightsql.ClosePreparedStatementActionType,
		arrowflight.CancelFlightInfoActionType,
	} {
		if err := stream.Send(&arrowflight.ActionType{Type: t}); err != nil {
			return err
		}
	}
	return nil
}

// peekedPut replays the first message of a DoPut stream, read to route it.
type peekedPut struct {
	arrowflight.FlightService_DoPutServer
	first *arrowflight.FlightData
}

func (p *peekedPut) Recv() (*arrowflight.FlightData, error) {
	if fd := p.first; fd != nil {
		p.first = nil
		return fd, nil
	}
	return p.FlightService_DoPutServer.Recv()
}

// RecvMsg is what arrow-go's Flight reader calls (through Recv in its
// generated code); both replay the first message.
func (p *peekedPut) RecvMsg(m any) error {
	if fd := p.first; fd != nil {
		if dst, ok := m.(*arrowflight.FlightData); ok {
			p.first = nil
			proto.Merge(dst, fd)
			return nil
		}
	}
	return p.FlightService_DoPutServer.RecvMsg(m)
}
