package flight

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// SQLEngine runs the read-only SQL statements of Flight SQL.
// *query.DB (package github.com/tsarrow/tsarrow/query, which links
// DuckDB) satisfies it; this package never imports it, so that a
// program serving Flight without SQL needs no cgo.
//
// QueryArrow runs one statement, with args bound to its parameters in
// order, and returns its result as a stream of record batches, which the
// caller releases. Cancelling ctx interrupts the statement. It refuses
// statements that change anything.
//
// An engine may also have the method NumInput (as *query.DB does), which
// prepares a statement without running it and tells how many parameters
// it takes, refusing what QueryArrow would refuse.
type SQLEngine interface {
	QueryArrow(ctx context.Context, query string, args ...any) (array.RecordReader, error)
}

// sqlPreparer is the optional part of an SQLEngine.
type sqlPreparer interface {
	NumInput(ctx context.Context, query string) (int, error)
}

// ServerName is what GetSqlInfo answers for FLIGHT_SQL_SERVER_NAME.
const ServerName = "tsarrow"

// ServerVersion is what GetSqlInfo answers for
// FLIGHT_SQL_SERVER_VERSION; the serve command sets it to its version.
var ServerVersion = "devel"

// sqlTicketVersion leads the handles of Flight SQL tickets and prepared
// statements: a version of their own, so that the plain DoGet refuses
// them and Flight SQL refuses the plain tickets (signer.verify).
const sqlTicketVersion = 3

// Kinds of sqlGrant: what a ticket or handle stands for.
const (
	kindQuery      = "query"    // a statement, with its parameters
	kindPrepared   = "prepared" // a prepared statement's handle
	kindCatalogs   = "catalogs"
	kindSchemas    = "schemas"
	kindTables     = "tables"
	kindTableTypes = "table_types"
	kindXdbc       = "xdbc"
	kindSQLInfo    = "sql_info"
	kindKeys       = "keys" // primary, exported, imported keys, cross references: none
)

// sqlGrant is what a Flight SQL ticket or prepared statement handle
// authorizes; signed like the plain tickets, so that a client can change
// nothing in it, and bound to the bearer token of the call that got it.
type sqlGrant struct {
	Expires int64  `json:"exp"` // Unix seconds
	Caller  string `json:"who,omitempty"`
	ID      string `json:"id"` // names the statement for CancelFlightInfo
	Kind    string `json:"k"`
	Query   string `json:"q,omitempty"`
	// Params is the IPC stream of the one row of parameters bound
	// through DoPut.
	Params        []byte   `json:"p,omitempty"`
	Catalog       *string  `json:"cat,omitempty"`
	SchemaLike    *string  `json:"sch,omitempty"`
	TableLike     *string  `json:"tab,omitempty"`
	TableTypes    []string `json:"tt,omitempty"`
	IncludeSchema bool     `json:"is,omitempty"`
	DataType      *int32   `json:"dt,omitempty"`
	Info          []uint32 `json:"info,omitempty"`
	Schema        []byte   `json:"s,omitempty"` // kindKeys: the empty result's schema
}

func (s *signer) signSQL(g *sqlGrant) ([]byte, error) {
	body, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	out := append(make([]byte, 0, 1+len(body)+sha256.Size), sqlTicketVersion)
	out = append(out, body...)
	m := hmac.New(sha256.New, s.key)
	m.Write(out)
	return m.Sum(out), nil
}

func (s *signer) verifySQL(t []byte) (*sqlGrant, error) {
	if len(t) > maxTicketSize {
		return nil, fmt.Errorf("%w: %d bytes", errBadTicket, len(t))
	}
	if len(t) < 1+sha256.Size+2 || t[0] != sqlTicketVersion {
		return nil, fmt.Errorf("%w: not a Flight SQL handle issued by this server", errBadTicket)
	}
	signed, mac := t[:len(t)-sha256.Size], t[len(t)-sha256.Size:]
	m := hmac.New(sha256.New, s.key)
	m.Write(signed)
	if !hmac.Equal(mac, m.Sum(nil)) {
		return nil, fmt.Errorf("%w: signature does not match", errBadTicket)
	}
	var g sqlGrant
	if err := json.Unmarshal(signed[1:], &g); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadTicket, err)
	}
	if s.now().Unix() > g.Expires {
		return nil, fmt.Errorf("%w: expired at %s; plan the statement again", errStale, time.Unix(g.Expires, 0).UTC().Format(time.RFC3339))
	}
	return &g, nil
}

// sqlServer implements Flight SQL over an SQLEngine.
type sqlServer struct {
	flightsql.BaseServer
	s   *Server
	eng SQLEngine

	mu        sync.Mutex
	running   map[string]map[*context.CancelFunc]struct{} // statement ID -> its DoGet streams
	cancelled map[string]int64                            // statement ID -> expiry (Unix seconds)
}

func newSQLServer(s *Server, eng SQLEngine) (*sqlServer, error) {
	ss := &sqlServer{s: s, eng: eng, running: map[string]map[*context.CancelFunc]struct{}{}, cancelled: map[string]int64{}}
	ss.Alloc = memory.DefaultAllocator
	for id, v := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:          ServerName,
		flightsql.SqlInfoFlightSqlServerVersion:       ServerVersion,
		flightsql.SqlInfoFlightSqlServerArrowVersion:  "18",
		flightsql.SqlInfoFlightSqlServerReadOnly:      true,
		flightsql.SqlInfoFlightSqlServerSql:           true,
		flightsql.SqlInfoFlightSqlServerSubstrait:     false,
		flightsql.SqlInfoFlightSqlServerTransaction:   int32(pb.SqlSupportedTransaction_SQL_SUPPORTED_TRANSACTION_NONE),
		flightsql.SqlInfoFlightSqlServerCancel:        true,
		flightsql.SqlInfoFlightSqlServerBulkIngestion: false,
		flightsql.SqlInfoTransactionsSupported:        false,
		flightsql.SqlInfoDDLCatalog:                   false,
		flightsql.SqlInfoDDLSchema:                    false,
		flightsql.SqlInfoDDLTable:                     false,
		// DuckDB: unquoted identifiers are case-insensitive, quoted ones
		// keep their case (and match case-insensitively too).
		flightsql.SqlInfoIdentifierCase:            int32(flightsql.SqlCaseSensitivityCaseInsensitive),
		flightsql.SqlInfoQuotedIdentifierCase:      int32(flightsql.SqlCaseSensitivityCaseInsensitive),
		flightsql.SqlInfoIdentifierQuoteChar:       `"`,
		flightsql.SqlInfoSearchStringEscape:        `\`,
		flightsql.SqlInfoAllTablesAreASelectable:   true,
		flightsql.SqlInfoNullOrdering:              int32(pb.SqlNullOrdering_SQL_NULLS_SORTED_AT_END),
		flightsql.SqlInfoSchemaTerm:                "schema",
		flightsql.SqlInfoCatalogTerm:               "catalog",
		flightsql.SqlInfoProcedureTerm:             "procedure",
		flightsql.SqlInfoCatalogAtStart:            true,
		flightsql.SqlInfoSupportsColumnAliasing:    true,
		flightsql.SqlInfoNullPlusNullIsNull:        true,
		flightsql.SqlInfoSelectForUpdateSupported:  false,
		flightsql.SqlInfoStoredProceduresSupported: false,
		flightsql.SqlInfoMaxStatements:             int64(1),
	} {
		if err := ss.RegisterSqlInfo(id, v); err != nil {
			return nil, err
		}
	}
	return ss, nil
}

// caller identifies the bearer token of a call, keyed so that a ticket,
// signed but not encrypted, does not show it: "" without tokens.
func (ss *sqlServer) caller(ctx context.Context) string {
	if len(ss.s.opts.Tokens) == 0 {
		return ""
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return ""
	}
	_, tok, _ := strings.Cut(vals[0], " ")
	m := hmac.New(sha256.New, ss.s.sign.key)
	m.Write([]byte("flight sql caller\x00"))
	m.Write([]byte(strings.TrimLeft(tok, " ")))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// issue signs g for the caller of ctx.
func (ss *sqlServer) issue(ctx context.Context, g *sqlGrant) ([]byte, error) {
	g.Expires = ss.s.sign.now().Add(ss.s.opts.TicketTTL).Unix()
	g.Caller = ss.caller(ctx)
	if g.ID == "" {
		var id [12]byte
		if _, err := rand.Read(id[:]); err != nil {
			return nil, err
		}
		g.ID = hex.EncodeToString(id[:])
	}
	return ss.s.sign.signSQL(g)
}

// redeem verifies a handle and that the caller of ctx got it.
func (ss *sqlServer) redeem(ctx context.Context, handle []byte) (*sqlGrant, error) {
	g, err := ss.s.sign.verifySQL(handle)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal([]byte(g.Caller), []byte(ss.caller(ctx))) {
		return nil, fmt.Errorf("%w: issued to another bearer token", errBadTicket)
	}
	return g, nil
}

// ticket is the Flight SQL ticket of g: a TicketStatementQuery holding
// the signed grant, as the specification has statement tickets.
func (ss *sqlServer) ticket(ctx context.Context, g *sqlGrant) ([]byte, error) {
	h, err := ss.issue(ctx, g)
	if err != nil {
		return nil, err
	}
	return flightsql.CreateStatementQueryTicket(h)
}

// info is the FlightInfo of one endpoint streaming g, whose result has
// schema sc.
func (ss *sqlServer) info(ctx context.Context, desc *arrowflight.FlightDescriptor, g *sqlGrant, sc *arrow.Schema) (*arrowflight.FlightInfo, error) {
	t, err := ss.ticket(ctx, g)
	if err != nil {
		return nil, err
	}
	ep := &arrowflight.FlightEndpoint{Ticket: &arrowflight.Ticket{Ticket: t}}
	for _, u := range ss.s.opts.Advertise {
		ep.Location = append(ep.Location, &arrowflight.Location{Uri: u})
	}
	return &arrowflight.FlightInfo{
		Schema:           arrowflight.SerializeSchema(sc, memory.DefaultAllocator),
		FlightDescriptor: desc,
		Endpoint:         []*arrowflight.FlightEndpoint{ep},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}, nil
}

// errSQL marks an error of the engine (a statement it refused or could
// not run), mapped to a status by sqlStatus.
var errSQL = errors.New("flight sql")

// status maps what a Flight SQL handler returns to the status a client
// gets, taking the root's paths out of it.
func (ss *sqlServer) status(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if !errors.Is(err, errSQL) {
		return toStatus(err)
	}
	msg := clientMessage(err)
	msg = strings.TrimPrefix(msg, errSQL.Error()+": ")
	code := codes.InvalidArgument
	switch {
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, errors.ErrUnsupported):
		code = codes.Unimplemented
	case strings.Contains(msg, "Catalog Error"):
		// DuckDB: "Catalog Error: Table with name x does not exist!"
		code = codes.NotFound
	case strings.Contains(msg, "Permission Error"):
		// DuckDB: "Permission Error: Cannot access file ... - file system
		// operations are disabled by configuration" (query.Options.Confine).
		code = codes.PermissionDenied
	case strings.Contains(msg, "INTERRUPT Error"), strings.Contains(msg, "Interrupt Error"):
		code = codes.Canceled
	case strings.Contains(msg, "Out of Memory Error"):
		code = codes.ResourceExhausted
	case strings.Contains(msg, "Not implemented Error"):
		code = codes.Unimplemented
	case strings.Contains(msg, "IO Error"), strings.Contains(msg, "INTERNAL Error"), strings.Contains(msg, "Fatal Error"):
		code = codes.Internal
	}
	return status.Error(code, msg)
}

// engineErr wraps an error of the engine.
func engineErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return fmt.Errorf("%w: %w", errSQL, err)
}

// trimStatement drops what may end a statement and would break the
// subquery it is wrapped in: white space, semicolons.
func trimStatement(q string) string {
	return strings.TrimRight(q, " \t\r\n;")
}

// resultSchema learns the schema of a statement's result without
// reading it: the statement as a subquery under LIMIT 0, which DuckDB
// plans and ends at once. Statements that cannot be a subquery (SHOW,
// DESCRIBE, PRAGMA, EXPLAIN) run as they are: their results are small.
func (ss *sqlServer) resultSchema(ctx context.Context, q string, args []any) (*arrow.Schema, error) {
	rdr, err := ss.eng.QueryArrow(ctx, "SELECT * FROM (\n"+trimStatement(q)+"\n) LIMIT 0", args...)
	if err != nil {
		rdr, err = ss.eng.QueryArrow(ctx, q, args...)
		if err != nil {
			return nil, engineErr(err)
		}
	}
	defer rdr.Release()
	return rdr.Schema(), nil
}

// paramCount is the number of parameters q takes, when the engine can
// prepare it without running it; -1 if it cannot tell. (Preparing through
// database/sql instead would run every statement but the last of a
// query holding several, a write among them.)
func (ss *sqlServer) paramCount(ctx context.Context, q string) (int, error) {
	p, ok := ss.eng.(sqlPreparer)
	if !ok {
		return -1, nil
	}
	n, err := p.NumInput(ctx, q)
	if err != nil {
		return 0, engineErr(err)
	}
	return n, nil
}

// args are the parameters of g as Go values for the engine.
func (g *sqlGrant) args() ([]any, error) {
	if len(g.Params) == 0 {
		return nil, nil
	}
	r, err := ipc.NewReader(bytes.NewReader(g.Params))
	if err != nil {
		return nil, fmt.Errorf("%w: parameters: %v", errBadTicket, err)
	}
	defer r.Release()
	if !r.Next() {
		return nil, fmt.Errorf("%w: parameters: no row", errBadTicket)
	}
	return rowArgs(r.RecordBatch(), 0)
}

// GetFlightInfoStatement plans a statement: its result's schema, and a
// ticket that runs it.
func (ss *sqlServer) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return nil, errNoTransactions
	}
	sc, err := ss.resultSchema(ctx, cmd.GetQuery(), nil)
	if err != nil {
		return nil, err
	}
	return ss.info(ctx, desc, &sqlGrant{Kind: kindQuery, Query: cmd.GetQuery()}, sc)
}

// GetSchemaStatement answers the schema of a statement's result.
func (ss *sqlServer) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *arrowflight.FlightDescriptor) (*arrowflight.SchemaResult, error) {
	sc, err := ss.resultSchema(ctx, cmd.GetQuery(), nil)
	if err != nil {
		return nil, err
	}
	return &arrowflight.SchemaResult{Schema: arrowflight.SerializeSchema(sc, memory.DefaultAllocator)}, nil
}

var errNoTransactions = status.Error(codes.Unimplemented, "this Flight SQL server is read-only and has no transactions; run statements without one")

// CreatePreparedStatement signs the statement into a handle: the server
// keeps nothing, so a handle needs no closing and survives nothing but
// its expiry (Options.TicketTTL).
func (ss *sqlServer) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	if len(req.GetTransactionId()) > 0 {
		return res, errNoTransactions
	}
	q := req.GetQuery()
	n, err := ss.paramCount(ctx, q)
	if err != nil {
		return res, err
	}
	switch {
	case n > 0:
		// The result's schema needs the parameters' types; NULLs of
		// unknown type bind in most places, and where they do not the
		// schema comes with GetFlightInfo, after binding.
		if sc, err := ss.resultSchema(ctx, q, make([]any, n)); err == nil {
			res.DatasetSchema = sc
		}
		fields := make([]arrow.Field, n)
		for i := range fields {
			fields[i] = arrow.Field{Name: fmt.Sprintf("$%d", i+1), Type: arrow.Null, Nullable: true}
		}
		res.ParameterSchema = arrow.NewSchema(fields, nil)
	case n == 0:
		// A statement that cannot run fails here, as a client expects.
		if res.DatasetSchema, err = ss.resultSchema(ctx, q, nil); err != nil {
			return res, err
		}
		res.ParameterSchema = arrow.NewSchema(nil, nil)
	default:
		// The engine cannot tell the parameters: the schema if it comes
		// without them, else at GetFlightInfo.
		if sc, err := ss.resultSchema(ctx, q, nil); err == nil {
			res.DatasetSchema = sc
		}
	}
	res.Handle, err = ss.issue(ctx, &sqlGrant{Kind: kindPrepared, Query: q})
	return res, err
}

// ClosePreparedStatement checks the handle; nothing is held for it.
func (ss *sqlServer) ClosePreparedStatement(ctx context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	_, err := ss.prepared(ctx, req.GetPreparedStatementHandle())
	return err
}

func (ss *sqlServer) prepared(ctx context.Context, h []byte) (*sqlGrant, error) {
	g, err := ss.redeem(ctx, h)
	if err != nil {
		return nil, err
	}
	if g.Kind != kindPrepared {
		return nil, fmt.Errorf("%w: not a prepared statement handle", errBadTicket)
	}
	return g, nil
}

// maxParamBytes bounds the IPC bytes of the parameters bound to a
// prepared statement, which travel in its handle.
const maxParamBytes = 256 << 10

// DoPutPreparedStatementQuery binds a row of parameters: the answer is
// a new handle carrying them (Flight SQL's DoPutPreparedStatementResult),
// which the client uses from then on.
func (ss *sqlServer) DoPutPreparedStatementQuery(ctx context.Context, cmd flightsql.PreparedStatementQuery, rdr arrowflight.MessageReader, _ arrowflight.MetadataWriter) ([]byte, error) {
	g, err := ss.prepared(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	var w *ipc.Writer
	rows := int64(0)
	for rdr.Next() {
		rec := rdr.RecordBatch()
		if rows += rec.NumRows(); rows > 1 {
			return nil, status.Error(codes.InvalidArgument, "bind one row of parameters to a query (this server runs a query once, not once per row)")
		}
		if rec.NumRows() == 0 {
			continue
		}
		if _, err := rowArgs(rec, 0); err != nil {
			return nil, err
		}
		if w == nil {
			w = ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
		}
		if err := w.Write(rec); err != nil {
			return nil, err
		}
		if buf.Len() > maxParamBytes {
			return nil, status.Errorf(codes.InvalidArgument, "parameters of %d bytes are over the limit of %d", buf.Len(), maxParamBytes)
		}
	}
	if err := rdr.Err(); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "reading the parameters: %v", err)
	}
	g.Params = nil
	if w != nil {
		if err := w.Close(); err != nil {
			return nil, err
		}
		g.Params = buf.Bytes()
	}
	g.ID = ""
	return ss.issue(ctx, g)
}

// preparedSchema opens a prepared statement's handle and answers the
// schema of its result with the parameters bound to it.
func (ss *sqlServer) preparedSchema(ctx context.Context, handle []byte) (*sqlGrant, *arrow.Schema, error) {
	g, err := ss.prepared(ctx, handle)
	if err != nil {
		return nil, nil, err
	}
	args, err := g.args()
	if err != nil {
		return nil, nil, err
	}
	sc, err := ss.resultSchema(ctx, g.Query, args)
	if err != nil {
		return nil, nil, err
	}
	return g, sc, nil
}

// GetFlightInfoPreparedStatement plans a prepared statement with the
// parameters bound to its handle.
func (ss *sqlServer) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	g, sc, err := ss.preparedSchema(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return ss.info(ctx, desc, &sqlGrant{Kind: kindQuery, Query: g.Query, Params: g.Params}, sc)
}

// GetSchemaPreparedStatement answers a prepared statement's result schema.
func (ss *sqlServer) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *arrowflight.FlightDescriptor) (*arrowflight.SchemaResult, error) {
	_, sc, err := ss.preparedSchema(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return &arrowflight.SchemaResult{Schema: arrowflight.SerializeSchema(sc, memory.DefaultAllocator)}, nil
}

// The catalog commands plan a ticket each; DoGet asks the engine.

func (ss *sqlServer) GetFlightInfoCatalogs(ctx context.Context, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.info(ctx, desc, &sqlGrant{Kind: kindCatalogs}, catalogsSchema)
}

func (ss *sqlServer) GetFlightInfoSchemas(ctx context.Context, cmd flightsql.GetDBSchemas, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.info(ctx, desc, &sqlGrant{Kind: kindSchemas, Catalog: cmd.GetCatalog(), SchemaLike: cmd.GetDBSchemaFilterPattern()}, dbSchemasSchema)
}

func (ss *sqlServer) GetFlightInfoTables(ctx context.Context, cmd flightsql.GetTables, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	g := &sqlGrant{Kind: kindTables, Catalog: cmd.GetCatalog(), SchemaLike: cmd.GetDBSchemaFilterPattern(),
		TableLike: cmd.GetTableNameFilterPattern(), TableTypes: cmd.GetTableTypes(), IncludeSchema: cmd.GetIncludeSchema()}
	sc := tablesSchema
	if g.IncludeSchema {
		sc = tablesWithSchemaSchema
	}
	return ss.info(ctx, desc, g, sc)
}

func (ss *sqlServer) GetFlightInfoTableTypes(ctx context.Context, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.info(ctx, desc, &sqlGrant{Kind: kindTableTypes}, tableTypesSchema)
}

func (ss *sqlServer) GetFlightInfoXdbcTypeInfo(ctx context.Context, cmd flightsql.GetXdbcTypeInfo, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.info(ctx, desc, &sqlGrant{Kind: kindXdbc, DataType: cmd.GetDataType()}, xdbcSchema)
}

func (ss *sqlServer) GetFlightInfoSqlInfo(ctx context.Context, cmd flightsql.GetSqlInfo, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.info(ctx, desc, &sqlGrant{Kind: kindSQLInfo, Info: cmd.GetInfo()}, sqlInfoSchema)
}

// Keys: the views have none, and BI tools ask; an empty answer of the
// right schema is the truth.

func (ss *sqlServer) keys(ctx context.Context, desc *arrowflight.FlightDescriptor, sc *arrow.Schema) (*arrowflight.FlightInfo, error) {
	return ss.info(ctx, desc, &sqlGrant{Kind: kindKeys, Schema: arrowflight.SerializeSchema(sc, memory.DefaultAllocator)}, sc)
}

func (ss *sqlServer) GetFlightInfoPrimaryKeys(ctx context.Context, _ flightsql.TableRef, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.keys(ctx, desc, primaryKeysSchema)
}

func (ss *sqlServer) GetFlightInfoExportedKeys(ctx context.Context, _ flightsql.TableRef, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.keys(ctx, desc, foreignKeysSchema)
}

func (ss *sqlServer) GetFlightInfoImportedKeys(ctx context.Context, _ flightsql.TableRef, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.keys(ctx, desc, foreignKeysSchema)
}

func (ss *sqlServer) GetFlightInfoCrossReference(ctx context.Context, _ flightsql.CrossTableRef, desc *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return ss.keys(ctx, desc, foreignKeysSchema)
}

// What changes data is refused: the server is read-only.

var errReadOnly = status.Error(codes.Unimplemented, "this Flight SQL server is read-only: updates, ingestion and transactions are not offered")

func (ss *sqlServer) DoPutCommandStatementUpdate(context.Context, flightsql.StatementUpdate) (int64, error) {
	return 0, errReadOnly
}

func (ss *sqlServer) DoPutPreparedStatementUpdate(context.Context, flightsql.PreparedStatementUpdate, arrowflight.MessageReader) (int64, error) {
	return 0, errReadOnly
}

func (ss *sqlServer) DoPutCommandStatementIngest(context.Context, flightsql.StatementIngest, arrowflight.MessageReader) (int64, error) {
	return 0, errReadOnly
}

var errSubstrait = status.Error(codes.Unimplemented, "Substrait plans are not supported; send SQL")

func (ss *sqlServer) DoPutCommandSubstraitPlan(context.Context, flightsql.StatementSubstraitPlan) (int64, error) {
	return 0, errReadOnly
}

func (ss *sqlServer) GetFlightInfoSubstraitPlan(context.Context, flightsql.StatementSubstraitPlan, *arrowflight.FlightDescriptor) (*arrowflight.FlightInfo, error) {
	return nil, errSubstrait
}

func (ss *sqlServer) GetSchemaSubstraitPlan(context.Context, flightsql.StatementSubstraitPlan, *arrowflight.FlightDescriptor) (*arrowflight.SchemaResult, error) {
	return nil, errSubstrait
}

// CancelFlightInfo cancels the statement of a FlightInfo this server
// planned: its running streams end with CANCELLED, and its tickets are
// refused from then on.
func (ss *sqlServer) CancelFlightInfo(ctx context.Context, req *arrowflight.CancelFlightInfoRequest) (arrowflight.CancelFlightInfoResult, error) {
	var ids []string
	var exp int64
	for _, ep := range req.GetInfo().GetEndpoint() {
		a := sqlAny(ep.GetTicket().GetTicket())
		if a == nil {
			return arrowflight.CancelFlightInfoResult{}, status.Error(codes.InvalidArgument, "CancelFlightInfo: not a Flight SQL FlightInfo of this server")
		}
		g, err := ss.grantOf(ctx, a)
		if err != nil {
			return arrowflight.CancelFlightInfoResult{}, ss.status(err)
		}
		ids = append(ids, g.ID)
		exp = max(exp, g.Expires)
	}
	if len(ids) == 0 {
		return arrowflight.CancelFlightInfoResult{Status: arrowflight.CancelStatusNotCancellable}, nil
	}
	ss.mu.Lock()
	now := ss.s.sign.now().Unix()
	for id, e := range ss.cancelled {
		if e < now {
			delete(ss.cancelled, id)
		}
	}
	for _, id := range ids {
		ss.cancelled[id] = exp
		for c := range ss.running[id] {
			(*c)()
		}
	}
	ss.mu.Unlock()
	return arrowflight.CancelFlightInfoResult{Status: arrowflight.CancelStatusCancelled}, nil
}

// grantOf verifies the grant in a Flight SQL ticket.
func (ss *sqlServer) grantOf(ctx context.Context, a *anypb.Any) (*sqlGrant, error) {
	var t pb.TicketStatementQuery
	if err := a.UnmarshalTo(&t); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "a Flight SQL ticket of type %s: this server issues TicketStatementQuery tickets only, in the endpoints of GetFlightInfo", a.GetTypeUrl())
	}
	g, err := ss.redeem(ctx, t.GetStatementHandle())
	if err != nil {
		return nil, err
	}
	if g.Kind == kindPrepared {
		return nil, fmt.Errorf("%w: a prepared statement handle is not a ticket", errBadTicket)
	}
	return g, nil
}

// track registers a stream of statement id for CancelFlightInfo; the
// returned function unregisters it. It fails once id was cancelled.
func (ss *sqlServer) track(id string, cancel context.CancelFunc) (func(), error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if _, ok := ss.cancelled[id]; ok {
		return nil, status.Error(codes.Canceled, "the statement was cancelled (CancelFlightInfo)")
	}
	m := ss.running[id]
	if m == nil {
		m = map[*context.CancelFunc]struct{}{}
		ss.running[id] = m
	}
	c := &cancel
	m[c] = struct{}{}
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		delete(m, c)
		if len(m) == 0 {
			delete(ss.running, id)
		}
	}, nil
}
