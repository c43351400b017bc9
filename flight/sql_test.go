package flight

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// fakeEngine is a test double of the SQL engine for the protocol layer:
// it answers a few fixed statements with fixed records (the real engine,
// DuckDB, is tested end to end against ts2arrow serve in interop/adbc).
type fakeEngine struct {
	mu    sync.Mutex
	calls []string // every statement run, with its arguments
	// big streams batches until its ctx ends; started is signalled at
	// each batch and ended when the reader saw its ctx end.
	started chan struct{}
	ended   chan error
}

var fakeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "x", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// fakeRows are table t: x = 1..5, s = "r<x>", s NULL when x = 3.
func fakeRecord(keep func(x int64) bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, fakeSchema)
	defer b.Release()
	for x := int64(1); x <= 5; x++ {
		if !keep(x) {
			continue
		}
		b.Field(0).(*array.Int64Builder).Append(x)
		if x == 3 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("r%d", x))
		}
	}
	return b.NewRecordBatch()
}

func stringRecord(names []string, rows ...[]string) (*arrow.Schema, arrow.RecordBatch) {
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	sc := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			b.Field(i).(*array.StringBuilder).Append(v)
		}
	}
	return sc, b.NewRecordBatch()
}

func oneBatch(sc *arrow.Schema, rec arrow.RecordBatch) array.RecordReader {
	defer rec.Release()
	r, _ := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	return r
}

func (e *fakeEngine) QueryArrow(ctx context.Context, q string, args ...any) (array.RecordReader, error) {
	e.mu.Lock()
	e.calls = append(e.calls, fmt.Sprintf("%s %v", q, args))
	e.mu.Unlock()
	if inner, ok := strings.CutPrefix(q, "SELECT * FROM (\n"); ok {
		inner, ok = strings.CutSuffix(inner, "\n) LIMIT 0")
		if !ok {
			return nil, errors.New("Parser Error: bad wrap")
		}
		r, err := e.QueryArrow(ctx, inner, args...)
		if err != nil {
			return nil, err
		}
		defer r.Release()
		return array.NewRecordReader(r.Schema(), nil)
	}
	switch {
	case q == "SELECT x, s FROM t":
		return oneBatch(fakeSchema, fakeRecord(func(int64) bool { return true })), nil
	case q == "SELECT x, s FROM t WHERE x > ?":
		if len(args) != 1 {
			return nil, fmt.Errorf("Invalid Input Error: want 1 parameter, got %d", len(args))
		}
		v, ok := args[0].(int64)
		if !ok {
			return nil, fmt.Errorf("Conversion Error: %T", args[0])
		}
		return oneBatch(fakeSchema, fakeRecord(func(x int64) bool { return x > v })), nil
	case q == "SELECT x, s FROM big":
		// As DuckDB's driver interrupts a statement when its ctx ends.
		context.AfterFunc(ctx, func() {
			if e.ended != nil {
				e.ended <- ctx.Err()
			}
		})
		return &endless{ctx: ctx, e: e}, nil
	case q == "SELECT x, s FROM nosuch":
		return nil, errors.New("Catalog Error: Table with name nosuch does not exist!")
	case strings.HasPrefix(q, "DROP"), strings.HasPrefix(q, "INSERT"):
		return nil, errors.New("query: only read-only statements run here (SELECT, WITH, ...)")
	case strings.Contains(q, "information_schema.schemata") && strings.HasPrefix(q, "SELECT DISTINCT catalog_name"):
		return oneBatch(stringRecord([]string{"catalog_name"}, []string{"memory"})), nil
	case strings.Contains(q, "information_schema.schemata"):
		return oneBatch(stringRecord([]string{"catalog_name", "schema_name"}, []string{"memory", "main"}, []string{"memory", "root.db"})), nil
	case strings.Contains(q, "information_schema.tables"):
		return oneBatch(stringRecord([]string{"catalog_name", "schema_name", "table_name", "table_type"},
			[]string{"memory", "main", "t", "VIEW"})), nil
	case q == `SELECT * FROM "memory"."main"."t"`:
		return oneBatch(fakeSchema, fakeRecord(func(int64) bool { return true })), nil
	}
	return nil, fmt.Errorf("Parser Error: syntax error at or near %q", q)
}

func (e *fakeEngine) lastCall() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[len(e.calls)-1]
}

// endless is a reader of batches of 1,000 rows that ends only with its
// ctx, as a long statement whose client cancels it.
type endless struct {
	ctx context.Context
	e   *fakeEngine
	rec arrow.RecordBatch
	n   int64
	err error
}

func (r *endless) Schema() *arrow.Schema { return fakeSchema }
func (r *endless) Retain()               {}
func (r *endless) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
}
func (r *endless) RecordBatch() arrow.RecordBatch { return r.rec }
func (r *endless) Record() arrow.RecordBatch      { return r.rec }
func (r *endless) Err() error                     { return r.err }
func (r *endless) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, fakeSchema)
	defer b.Release()
	for range 1000 {
		r.n++
		b.Field(0).(*array.Int64Builder).Append(r.n)
		b.Field(1).(*array.StringBuilder).Append("v")
	}
	r.rec = b.NewRecordBatch()
	if r.e.started != nil {
		select {
		case r.e.started <- struct{}{}:
		default:
		}
	}
	return true
}

func startSQLServer(t *testing.T, o Options) (*testServer, *fakeEngine) {
	t.Helper()
	dir := t.TempDir()
	writeTestFile(t, dir, "a.tsfile", 2, 10, 1)
	eng := &fakeEngine{}
	o.Root, o.SQL = dir, eng
	return startServer(t, o), eng
}

func sqlClient(t *testing.T, addr string) *flightsql.Client {
	t.Helper()
	c, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// sqlRows runs a FlightInfo's endpoints through the Flight SQL client.
func sqlRows(t *testing.T, ctx context.Context, c *flightsql.Client, fi *arrowflight.FlightInfo, err error) ([]string, *arrow.Schema) {
	t.Helper()
	require.NoError(t, err)
	var all []string
	var sc *arrow.Schema
	for _, ep := range fi.Endpoint {
		r, err := c.DoGet(ctx, ep.Ticket)
		require.NoError(t, err)
		all = append(all, rowsOf(t, r)...)
		sc = r.Schema()
		r.Release()
	}
	return all, sc
}

// TestSQLBesidePlainFlight: one server answers a Flight SQL client and a
// plain Flight client, each with its own commands and tickets, and
// refuses the tickets of one on the other's path.
func TestSQLBesidePlainFlight(t *testing.T) {
	ts, eng := startSQLServer(t, Options{})
	ctx := context.Background()
	sc := sqlClient(t, ts.addr)
	fc := dial(t, ts.addr)

	fi, err := sc.Execute(ctx, "SELECT x, s FROM t")
	rows, schema := sqlRows(t, ctx, sc, fi, err)
	require.Equal(t, []string{"1|r1", "2|r2", "3|∅", "4|r4", "5|r5"}, rows)
	require.True(t, schema.Equal(fakeSchema), schema)
	planned, err := arrowflight.DeserializeSchema(fi.Schema, memory.DefaultAllocator)
	require.NoError(t, err)
	require.True(t, planned.Equal(fakeSchema), "GetFlightInfo's schema is the stream's: %s", planned)
	require.Len(t, fi.Endpoint, 1)
	require.Contains(t, eng.lastCall(), "SELECT x, s FROM t")

	// The plain service, same port.
	pfi, err := fc.GetFlightInfo(ctx, &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte(`{"table":"weather","columns":["count"]}`)})
	require.NoError(t, err)
	prows := readFlight(t, ctx, fc, pfi)
	require.Len(t, prows, 20)
	lf, err := fc.ListFlights(ctx, &arrowflight.Criteria{})
	require.NoError(t, err)
	_, err = lf.Recv()
	require.NoError(t, err)

	// A SQL ticket on the plain path's other shape, and the reverse.
	_, err = sqlClientDoGet(ctx, fc, pfi.Endpoint[0].Ticket)
	require.NoError(t, err)
	bad, _ := flightsql.CreateStatementQueryTicket(pfi.Endpoint[0].Ticket.Ticket)
	_, err = sqlClientDoGet(ctx, fc, &arrowflight.Ticket{Ticket: bad})
	require.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	inner := fi.Endpoint[0].Ticket.Ticket
	_, err = sqlClientDoGet(ctx, fc, &arrowflight.Ticket{Ticket: inner[2:]})
	require.Equal(t, codes.PermissionDenied, status.Code(err), "a Flight SQL handle without its Any is not a plain ticket: %v", err)

	// Plain DoPut still routes to the plain service (disabled here).
	ps, err := fc.DoPut(ctx)
	require.NoError(t, err)
	require.NoError(t, ps.Send(&arrowflight.FlightData{FlightDescriptor: &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{"x.tsfile"}}}))
	_, err = ps.Recv()
	require.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	require.Contains(t, err.Error(), "allow-put")
}

// sqlClientDoGet reads a whole DoGet stream, returning its error.
func sqlClientDoGet(ctx context.Context, c arrowflight.Client, t *arrowflight.Ticket) (int, error) {
	s, err := c.DoGet(ctx, t)
	if err != nil {
		return 0, err
	}
	r, err := arrowflight.NewRecordReader(s)
	if err != nil {
		return 0, err
	}
	defer r.Release()
	rows, err := readRows(r)
	return len(rows), err
}

func TestSQLPreparedStatement(t *testing.T) {
	ts, eng := startSQLServer(t, Options{})
	ctx := context.Background()
	c := sqlClient(t, ts.addr)
	ps, err := c.Prepare(ctx, "SELECT x, s FROM t WHERE x > ?")
	require.NoError(t, err)
	defer ps.Close(ctx)

	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "p", Type: arrow.PrimitiveTypes.Int64}}, nil))
	b.Field(0).(*array.Int64Builder).Append(3)
	params := b.NewRecordBatch()
	b.Release()
	defer params.Release()
	ps.SetParameters(params)
	fi, err := ps.Execute(ctx)
	rows, _ := sqlRows(t, ctx, c, fi, err)
	require.Equal(t, []string{"4|r4", "5|r5"}, rows)
	require.Equal(t, "SELECT x, s FROM t WHERE x > ? [3]", eng.lastCall())

	// The same statement, rebound.
	b = array.NewRecordBuilder(memory.DefaultAllocator, params.Schema())
	b.Field(0).(*array.Int64Builder).Append(1)
	p2 := b.NewRecordBatch()
	b.Release()
	defer p2.Release()
	ps.SetParameters(p2)
	fi, err = ps.Execute(ctx)
	rows, _ = sqlRows(t, ctx, c, fi, err)
	require.Equal(t, []string{"2|r2", "3|∅", "4|r4", "5|r5"}, rows)

	// Two rows of parameters are refused.
	b = array.NewRecordBuilder(memory.DefaultAllocator, params.Schema())
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	p3 := b.NewRecordBatch()
	b.Release()
	defer p3.Release()
	ps.SetParameters(p3)
	_, err = ps.Execute(ctx)
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)

	// A prepared statement without parameters.
	ps2, err := c.Prepare(ctx, "SELECT x, s FROM t")
	require.NoError(t, err)
	require.True(t, ps2.DatasetSchema().Equal(fakeSchema))
	fi, err = ps2.Execute(ctx)
	rows, _ = sqlRows(t, ctx, c, fi, err)
	require.Len(t, rows, 5)
	require.NoError(t, ps2.Close(ctx))
}

func TestSQLCatalog(t *testing.T) {
	ts, _ := startSQLServer(t, Options{})
	ctx := context.Background()
	c := sqlClient(t, ts.addr)

	fi, err := c.GetCatalogs(ctx)
	rows, sc := sqlRows(t, ctx, c, fi, err)
	require.Equal(t, []string{"memory"}, rows)
	require.True(t, sc.Equal(catalogsSchema))

	fi, err = c.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{})
	rows, sc = sqlRows(t, ctx, c, fi, err)
	require.Equal(t, []string{"memory|main", "memory|root.db"}, rows)
	require.True(t, sc.Equal(dbSchemasSchema))

	fi, err = c.GetTables(ctx, &flightsql.GetTablesOpts{IncludeSchema: true})
	require.NoError(t, err)
	r, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, r.Schema().Equal(tablesWithSchemaSchema))
	require.True(t, r.Next())
	rec := r.RecordBatch()
	require.EqualValues(t, 1, rec.NumRows())
	require.Equal(t, "t", rec.Column(2).ValueStr(0))
	require.Equal(t, "VIEW", rec.Column(3).ValueStr(0))
	ts0, err := arrowflight.DeserializeSchema(rec.Column(4).(*array.Binary).Value(0), memory.DefaultAllocator)
	require.NoError(t, err)
	require.Equal(t, []string{"x", "s"}, []string{ts0.Field(0).Name, ts0.Field(1).Name})
	require.Equal(t, arrow.PrimitiveTypes.Int64, ts0.Field(0).Type)
	f0md := ts0.Field(0).Metadata
	md := flightsql.ColumnMetadata{Data: &f0md}
	tn, _ := md.TableName()
	require.Equal(t, "t", tn)
	r.Release()

	fi, err = c.GetTableTypes(ctx)
	rows, _ = sqlRows(t, ctx, c, fi, err)
	require.Equal(t, []string{"BASE TABLE", "LOCAL TEMPORARY", "VIEW"}, rows)

	fi, err = c.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoFlightSqlServerName, flightsql.SqlInfoFlightSqlServerReadOnly, flightsql.SqlInfoIdentifierQuoteChar})
	rows, _ = sqlRows(t, ctx, c, fi, err)
	require.Equal(t, []string{`0|[0,"tsarrow"]`, `3|[1,true]`, `504|[0,"\""]`}, rows)

	fi, err = c.GetXdbcTypeInfo(ctx, nil)
	rows, sc = sqlRows(t, ctx, c, fi, err)
	require.True(t, sc.Equal(xdbcSchema))
	require.Len(t, rows, len(duckXdbcTypes))
	bigint := int32(pb.XdbcDataType_XDBC_BIGINT)
	fi, err = c.GetXdbcTypeInfo(ctx, &bigint)
	rows, _ = sqlRows(t, ctx, c, fi, err)
	require.Len(t, rows, 1)
	require.True(t, strings.HasPrefix(rows[0], "BIGINT|-5|19|"), rows[0])

	fi, err = c.GetPrimaryKeys(ctx, flightsql.TableRef{Table: "t"})
	rows, _ = sqlRows(t, ctx, c, fi, err)
	require.Empty(t, rows)
}

func TestSQLErrors(t *testing.T) {
	ts, _ := startSQLServer(t, Options{})
	ctx := context.Background()
	c := sqlClient(t, ts.addr)
	for _, tc := range []struct {
		q    string
		code codes.Code
		msg  string
	}{
		{"SELEC nonsense", codes.InvalidArgument, "Parser Error"},
		{"SELECT x, s FROM nosuch", codes.NotFound, "nosuch does not exist"},
		{"DROP TABLE t", codes.InvalidArgument, "read-only"},
	} {
		_, err := c.Execute(ctx, tc.q)
		require.Equal(t, tc.code, status.Code(err), "%s: %v", tc.q, err)
		require.Contains(t, err.Error(), tc.msg)
	}
	_, err := c.ExecuteUpdate(ctx, "INSERT INTO t VALUES (1)")
	require.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
	require.Contains(t, err.Error(), "read-only")
	_, err = c.BeginTransaction(ctx)
	require.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
	_, err = c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: []byte{1}, Version: "0.1"})
	require.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
}

func TestSQLTokens(t *testing.T) {
	ts, _ := startSQLServer(t, Options{Tokens: []string{"tok-a", "tok-b"}})
	c := sqlClient(t, ts.addr)
	_, err := c.Execute(context.Background(), "SELECT x, s FROM t")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	_, err = c.Execute(bearer("wrong"), "SELECT x, s FROM t")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)

	fi, err := c.Execute(bearer("tok-a"), "SELECT x, s FROM t")
	require.NoError(t, err)
	rows, _ := sqlRows(t, bearer("tok-a"), c, fi, nil)
	require.Len(t, rows, 5)
	// Another token's caller cannot redeem the ticket.
	r, err := c.DoGet(bearer("tok-b"), fi.Endpoint[0].Ticket)
	if err == nil {
		r.Release()
	}
	require.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	require.Contains(t, err.Error(), "another bearer token")

	// Nor its prepared statement.
	ps, err := c.Prepare(bearer("tok-a"), "SELECT x, s FROM t")
	require.NoError(t, err)
	_, err = ps.Execute(bearer("tok-b"))
	require.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
}

func TestSQLTicketExpires(t *testing.T) {
	ts, _ := startSQLServer(t, Options{TicketTTL: time.Hour})
	c := sqlClient(t, ts.addr)
	ctx := context.Background()
	fi, err := c.Execute(ctx, "SELECT x, s FROM t")
	require.NoError(t, err)
	ts.sign.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	_, err = sqlClientDoGet(ctx, dial(t, ts.addr), fi.Endpoint[0].Ticket)
	require.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	require.Contains(t, err.Error(), "expired")
}

// TestSQLCancel: CancelFlightInfo and a client's own cancellation both
// end the statement's stream and cancel the ctx the engine runs it on.
func TestSQLCancel(t *testing.T) {
	ts, eng := startSQLServer(t, Options{})
	eng.started = make(chan struct{}, 1)
	eng.ended = make(chan error, 4)
	c := sqlClient(t, ts.addr)
	ctx := context.Background()

	fi, err := c.Execute(ctx, "SELECT x, s FROM big")
	require.NoError(t, err)
	r, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, r.Next())
	res, err := c.CancelFlightInfo(ctx, &arrowflight.CancelFlightInfoRequest{Info: fi})
	require.NoError(t, err)
	require.Equal(t, arrowflight.CancelStatusCancelled, res.Status)
	require.ErrorIs(t, <-eng.ended, context.Canceled)
	for r.Next() {
	}
	require.Equal(t, codes.Canceled, status.Code(r.Err()), "%v", r.Err())
	r.Release()
	// Its ticket is refused from then on.
	_, err = sqlClientDoGet(ctx, dial(t, ts.addr), fi.Endpoint[0].Ticket)
	require.Equal(t, codes.Canceled, status.Code(err), "%v", err)

	// A client cancelling its own call.
	fi, err = c.Execute(ctx, "SELECT x, s FROM big")
	require.NoError(t, err)
	cctx, cancel := context.WithCancel(ctx)
	r, err = c.DoGet(cctx, fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, r.Next())
	cancel()
	require.ErrorIs(t, <-eng.ended, context.Canceled)
	r.Release()
}

// TestSQLServerPlainPut: with Flight SQL on, a plain DoPut (its first
// message read to route it) still writes its file, whole.
func TestSQLServerPlainPut(t *testing.T) {
	ts, _ := startSQLServer(t, Options{AllowPut: true})
	src := writeTestFile(t, t.TempDir(), "src.tsfile", 3, 40, 7)
	c := dial(t, ts.addr)
	require.NoError(t, putFile(t, c, src, &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{"put.tsfile", "weather"}}))
	require.NoError(t, ts.Rescan(context.Background()))
	fi, err := c.GetFlightInfo(context.Background(), &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{"put.tsfile", "weather"}})
	require.NoError(t, err)
	require.Equal(t, localRows(t, nil, "weather", src), readFlight(t, context.Background(), c, fi))
}
