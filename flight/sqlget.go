package flight

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// The result schemas of the catalog commands (format/FlightSql.proto).
var (
	catalogsSchema         = schema_ref.Catalogs
	dbSchemasSchema        = schema_ref.DBSchemas
	tablesSchema           = schema_ref.Tables
	tablesWithSchemaSchema = schema_ref.TablesWithIncludedSchema
	tableTypesSchema       = schema_ref.TableTypes
	xdbcSchema             = schema_ref.XdbcTypeInfo
	sqlInfoSchema          = schema_ref.SqlInfo
	primaryKeysSchema      = schema_ref.PrimaryKeys
	foreignKeysSchema      = schema_ref.ImportedExportedKeysAndCrossReference
)

// doGet streams a Flight SQL ticket, under the server's memory budget
// and timeouts as the plain DoGet.
func (ss *sqlServer) doGet(a *anypb.Any, stream arrowflight.FlightService_DoGetServer) error {
	s := ss.s
	began := time.Now()
	ctx := stream.Context()
	g, err := ss.grantOf(ctx, a)
	if err != nil {
		ss.log(ctx, nil, nil, began, err)
		return ss.status(err)
	}
	st := &streamStats{}
	st.touch()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	untrack, err := ss.track(g.ID, cancel)
	if err != nil {
		ss.log(ctx, g, nil, began, err)
		return err
	}
	defer untrack()
	// CancelFlightInfo, or the client's own cancellation, ends the
	// stream at once: the send the pump may be blocked in ends once this
	// returns.
	err = s.watchStream(st, func() error { return ss.pump(pctx, g, stream, st) }, pctx.Done(),
		status.Error(codes.Canceled, "the statement was cancelled (CancelFlightInfo)"))
	if err != nil && ctx.Err() != nil {
		err = status.FromContextError(ctx.Err()).Err()
	}
	ss.log(ctx, g, st, began, err)
	if err == nil {
		return nil
	}
	return ss.status(err)
}

// pump runs g and sends its result. The stream reserves the fair share
// of the budget: the rows a statement returns are not known before it
// runs. DuckDB's memory is its own (the engine's memory limit); what is
// counted here is the batches in flight, which DuckDB hands over a
// vector (2,048 rows) at a time.
func (ss *sqlServer) pump(ctx context.Context, g *sqlGrant, out arrowflight.FlightService_DoGetServer, st *streamStats) (err error) {
	s := ss.s
	adm, err := s.admit(ctx, st, s.fairShare(), 0)
	if err != nil {
		return err
	}
	defer adm.release()
	// While the engine runs the statement, the stream is busy, not idle
	// (duckdb-go returns the reader once DuckDB has run the statement).
	st.queued.Store(true)
	s.log.Debug("running statement", "statement", g.ID, "sql", g.Kind)
	rdr, err := ss.open(ctx, g, adm.meter)
	st.touch()
	st.queued.Store(false)
	if err != nil {
		return err
	}
	defer rdr.Release()
	schema := rdr.Schema()
	w := newBatchWriter(ctx, out, st, &s.holds, adm.meter, func(a memory.Allocator) []ipc.Option {
		return []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(a)}
	})
	w.maxBytes = s.opts.MaxBatchBytes
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = s.copyBatches(ctx, w, &checkedReader{RecordReader: rdr, limit: s.opts.StreamMemory}, st, adm.meter)
	return engineErr(err)
}

// checkedReader fails a stream whose batch alone is over the stream's
// memory: DuckDB's batches are not on the stream's meter.
type checkedReader struct {
	array.RecordReader
	limit int64
	err   error
}

func (c *checkedReader) Next() bool {
	if c.err != nil || !c.RecordReader.Next() {
		return false
	}
	if n := recordBytes(c.RecordReader.RecordBatch()); n > c.limit {
		c.err = fmt.Errorf("%w: a batch of %d bytes is over the stream's budget of %d", errTooLarge, n, c.limit)
		return false
	}
	return true
}

func (c *checkedReader) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.RecordReader.Err()
}

// open starts what g asks for.
func (ss *sqlServer) open(ctx context.Context, g *sqlGrant, mem memory.Allocator) (array.RecordReader, error) {
	switch g.Kind {
	case kindQuery:
		args, err := g.args()
		if err != nil {
			return nil, err
		}
		rdr, err := ss.eng.QueryArrow(ctx, g.Query, args...)
		return rdr, engineErr(err)
	case kindCatalogs:
		return ss.catalogs(ctx, mem)
	case kindSchemas:
		return ss.dbSchemas(ctx, g, mem)
	case kindTables:
		return ss.tables(ctx, g, mem)
	case kindTableTypes:
		return stringsReader(mem, tableTypesSchema, duckTableTypes)
	case kindXdbc:
		return xdbcTypes(mem, g.DataType)
	case kindSQLInfo:
		return ss.sqlInfo(ctx, g)
	case kindKeys:
		sc, err := arrowflight.DeserializeSchema(g.Schema, mem)
		if err != nil {
			return nil, err
		}
		return array.NewRecordReader(sc, nil)
	}
	return nil, fmt.Errorf("%w: unknown kind %q", errBadTicket, g.Kind)
}

// duckTableTypes are the table_type values of DuckDB's
// information_schema.tables.
var duckTableTypes = []string{"BASE TABLE", "LOCAL TEMPORARY", "VIEW"}

// hiddenSchemas are DuckDB's own schemas and catalogs, left out of the
// catalog answers as DuckDB's SHOW ALL TABLES leaves them out.
const (
	userCatalogs = `catalog_name NOT IN ('system', 'temp')`
	userSchemas  = `schema_name NOT IN ('information_schema', 'pg_catalog')`
)

// queryStrings runs q and returns its columns as strings (NULL as nil).
func (ss *sqlServer) queryStrings(ctx context.Context, q string, args ...any) ([][]*string, error) {
	rdr, err := ss.eng.QueryArrow(ctx, q, args...)
	if err != nil {
		return nil, engineErr(err)
	}
	defer rdr.Release()
	var rows [][]*string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]*string, rec.NumCols())
			for j, c := range rec.Columns() {
				if c.IsNull(i) {
					continue
				}
				// A copy: the batch's memory (DuckDB's) goes with the next.
				v := strings.Clone(c.ValueStr(i))
				row[j] = &v
			}
			rows = append(rows, row)
		}
	}
	return rows, engineErr(rdr.Err())
}

func (ss *sqlServer) catalogs(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	rows, err := ss.queryStrings(ctx, `SELECT DISTINCT catalog_name FROM information_schema.schemata WHERE `+userCatalogs+` ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	return rowsReader(mem, catalogsSchema, rows)
}

// filters builds the WHERE conjuncts of a catalog query.
func filters(g *sqlGrant, catalog, schema, table string) (string, []any) {
	where := []string{userCatalogs, userSchemas}
	var args []any
	if g.Catalog != nil {
		where, args = append(where, catalog+` = ?`), append(args, *g.Catalog)
	}
	if g.SchemaLike != nil {
		where, args = append(where, schema+` LIKE ? ESCAPE '\'`), append(args, *g.SchemaLike)
	}
	if table != "" && g.TableLike != nil {
		where, args = append(where, table+` LIKE ? ESCAPE '\'`), append(args, *g.TableLike)
	}
	return strings.Join(where, " AND "), args
}

func (ss *sqlServer) dbSchemas(ctx context.Context, g *sqlGrant, mem memory.Allocator) (array.RecordReader, error) {
	where, args := filters(g, "catalog_name", "schema_name", "")
	rows, err := ss.queryStrings(ctx, `SELECT catalog_name, schema_name FROM information_schema.schemata WHERE `+where+` ORDER BY 1, 2`, args...)
	if err != nil {
		return nil, err
	}
	return rowsReader(mem, dbSchemasSchema, rows)
}

// quoteIdent quotes a DuckDB identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (ss *sqlServer) tables(ctx context.Context, g *sqlGrant, mem memory.Allocator) (array.RecordReader, error) {
	q := `SELECT catalog_name, schema_name, table_name, table_type FROM (
		SELECT table_catalog AS catalog_name, table_schema AS schema_name, table_name, table_type
		FROM information_schema.tables)`
	where, args := filters(g, "catalog_name", "schema_name", "table_name")
	if len(g.TableTypes) > 0 {
		where += ` AND table_type IN (?` + strings.Repeat(`, ?`, len(g.TableTypes)-1) + `)`
		for _, t := range g.TableTypes {
			args = append(args, t)
		}
	}
	rows, err := ss.queryStrings(ctx, q+` WHERE `+where+` ORDER BY 1, 2, 3`, args...)
	if err != nil {
		return nil, err
	}
	if !g.IncludeSchema {
		return rowsReader(mem, tablesSchema, rows)
	}
	b := array.NewRecordBuilder(mem, tablesWithSchemaSchema)
	defer b.Release()
	for _, r := range rows {
		for i := range 4 {
			appendString(b.Field(i).(*array.StringBuilder), r[i])
		}
		// The schema a query of the table gets: the engine's own answer.
		name := quoteIdent(*r[0]) + "." + quoteIdent(*r[1]) + "." + quoteIdent(*r[2])
		sc, err := ss.resultSchema(ctx, "SELECT * FROM "+name, nil)
		if err != nil {
			return nil, err
		}
		sc = withColumnMetadata(sc, *r[0], *r[1], *r[2])
		b.Field(4).(*array.BinaryBuilder).Append(arrowflight.SerializeSchema(sc, mem))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(tablesWithSchemaSchema, []arrow.RecordBatch{rec})
}

// withColumnMetadata adds Flight SQL's column metadata (ARROW:FLIGHT:SQL:*)
// naming the table of each column, which JDBC's ResultSetMetaData reads.
func withColumnMetadata(sc *arrow.Schema, catalog, schema, table string) *arrow.Schema {
	fields := sc.Fields()
	for i, f := range fields {
		md := flightsql.NewColumnMetadataBuilder().CatalogName(catalog).SchemaName(schema).
			TableName(table).TypeName(f.Type.String()).IsReadOnly(true).Metadata()
		keys, vals := md.Keys(), md.Values()
		for _, k := range f.Metadata.Keys() {
			if _, ok := md.GetValue(k); !ok {
				v, _ := f.Metadata.GetValue(k)
				keys, vals = append(keys, k), append(vals, v)
			}
		}
		fields[i].Metadata = arrow.NewMetadata(keys, vals)
	}
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md)
}

func appendString(b *array.StringBuilder, v *string) {
	if v == nil {
		b.AppendNull()
	} else {
		b.Append(*v)
	}
}

// rowsReader builds a reader of one batch of string columns.
func rowsReader(mem memory.Allocator, sc *arrow.Schema, rows [][]*string) (array.RecordReader, error) {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, r := range rows {
		for i := range sc.NumFields() {
			appendString(b.Field(i).(*array.StringBuilder), r[i])
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(sc, []arrow.RecordBatch{rec})
}

func stringsReader(mem memory.Allocator, sc *arrow.Schema, vals []string) (array.RecordReader, error) {
	rows := make([][]*string, len(vals))
	for i := range vals {
		rows[i] = []*string{&vals[i]}
	}
	return rowsReader(mem, sc, rows)
}

func (ss *sqlServer) sqlInfo(ctx context.Context, g *sqlGrant) (array.RecordReader, error) {
	sc, ch, err := ss.DoGetSqlInfo(ctx, &pb.CommandGetSqlInfo{Info: g.Info})
	if err != nil {
		return nil, err
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for c := range ch {
		if c.Err != nil {
			err = c.Err
		}
		if c.Data != nil {
			recs = append(recs, c.Data)
		}
	}
	if err != nil {
		return nil, err
	}
	return array.NewRecordReader(sc, recs)
}

// xdbcType is one row of GetXdbcTypeInfo: a DuckDB type and the
// JDBC/ODBC type it maps to.
type xdbcType struct {
	name     string
	dataType pb.XdbcDataType
	size     int32 // column_size; 0: null
	prefix   string
	params   []string
	radix    int32 // num_prec_radix; 0: null
	subcode  int32 // datetime_subcode; 0: null
}

// duckXdbcTypes are DuckDB's scalar types
// (https://duckdb.org/docs/stable/sql/data_types/overview).
var duckXdbcTypes = []xdbcType{
	{name: "BOOLEAN", dataType: pb.XdbcDataType_XDBC_BIT, size: 1},
	{name: "TINYINT", dataType: pb.XdbcDataType_XDBC_TINYINT, size: 3, radix: 10},
	{name: "SMALLINT", dataType: pb.XdbcDataType_XDBC_SMALLINT, size: 5, radix: 10},
	{name: "INTEGER", dataType: pb.XdbcDataType_XDBC_INTEGER, size: 10, radix: 10},
	{name: "BIGINT", dataType: pb.XdbcDataType_XDBC_BIGINT, size: 19, radix: 10},
	{name: "HUGEINT", dataType: pb.XdbcDataType_XDBC_DECIMAL, size: 38, radix: 10},
	{name: "FLOAT", dataType: pb.XdbcDataType_XDBC_REAL, size: 24, radix: 2},
	{name: "DOUBLE", dataType: pb.XdbcDataType_XDBC_DOUBLE, size: 53, radix: 2},
	{name: "DECIMAL", dataType: pb.XdbcDataType_XDBC_DECIMAL, size: 38, params: []string{"precision", "scale"}, radix: 10},
	{name: "VARCHAR", dataType: pb.XdbcDataType_XDBC_VARCHAR, prefix: "'"},
	{name: "BLOB", dataType: pb.XdbcDataType_XDBC_VARBINARY, prefix: "'"},
	{name: "DATE", dataType: pb.XdbcDataType_XDBC_DATE, prefix: "DATE '", subcode: 1},
	{name: "TIME", dataType: pb.XdbcDataType_XDBC_TIME, prefix: "TIME '", subcode: 2},
	{name: "TIMESTAMP", dataType: pb.XdbcDataType_XDBC_TIMESTAMP, prefix: "TIMESTAMP '", subcode: 3},
	{name: "TIMESTAMP WITH TIME ZONE", dataType: pb.XdbcDataType_XDBC_TIMESTAMP, prefix: "TIMESTAMPTZ '", subcode: 3},
}

func xdbcTypes(mem memory.Allocator, only *int32) (array.RecordReader, error) {
	b := array.NewRecordBuilder(mem, xdbcSchema)
	defer b.Release()
	opt32 := func(f int, v int32) {
		if v == 0 {
			b.Field(f).AppendNull()
		} else {
			b.Field(f).(*array.Int32Builder).Append(v)
		}
	}
	for _, t := range duckXdbcTypes {
		if only != nil && *only != int32(t.dataType) {
			continue
		}
		b.Field(0).(*array.StringBuilder).Append(t.name)
		b.Field(1).(*array.Int32Builder).Append(int32(t.dataType))
		opt32(2, t.size)
		if t.prefix == "" {
			b.Field(3).AppendNull()
			b.Field(4).AppendNull()
		} else {
			b.Field(3).(*array.StringBuilder).Append(t.prefix)
			b.Field(4).(*array.StringBuilder).Append("'")
		}
		if t.params == nil {
			b.Field(5).AppendNull()
		} else {
			lb := b.Field(5).(*array.ListBuilder)
			lb.Append(true)
			for _, p := range t.params {
				lb.ValueBuilder().(*array.StringBuilder).Append(p)
			}
		}
		b.Field(6).(*array.Int32Builder).Append(int32(pb.Nullable_NULLABILITY_NULLABLE))
		b.Field(7).(*array.BooleanBuilder).Append(t.dataType == pb.XdbcDataType_XDBC_VARCHAR)
		b.Field(8).(*array.Int32Builder).Append(int32(pb.Searchable_SEARCHABLE_FULL))
		switch t.radix {
		case 0:
			b.Field(9).AppendNull()
		default:
			b.Field(9).(*array.BooleanBuilder).Append(false)
		}
		b.Field(10).(*array.BooleanBuilder).Append(false)
		b.Field(11).(*array.BooleanBuilder).Append(false)
		b.Field(12).(*array.StringBuilder).Append(t.name)
		if t.params != nil {
			b.Field(13).(*array.Int32Builder).Append(0)
			b.Field(14).(*array.Int32Builder).Append(38)
		} else {
			b.Field(13).AppendNull()
			b.Field(14).AppendNull()
		}
		dt := int32(t.dataType)
		if t.subcode != 0 {
			dt = int32(pb.XdbcDataType_XDBC_DATETIME)
		}
		b.Field(15).(*array.Int32Builder).Append(dt)
		opt32(16, t.subcode)
		opt32(17, t.radix)
		b.Field(18).AppendNull()
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(xdbcSchema, []arrow.RecordBatch{rec})
}

// rowArgs are the values of row i of rec as arguments for the engine.
func rowArgs(rec arrow.RecordBatch, i int) ([]any, error) {
	args := make([]any, rec.NumCols())
	for j, c := range rec.Columns() {
		v, err := argOf(c, i)
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "parameter %d (%s): %v", j+1, rec.Schema().Field(j).Name, err)
		}
		args[j] = v
	}
	return args, nil
}

func argOf(c arrow.Array, i int) (any, error) {
	if c.IsNull(i) {
		return nil, nil
	}
	switch a := c.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return int64(a.Value(i)), nil
	case *array.Int16:
		return int64(a.Value(i)), nil
	case *array.Int32:
		return int64(a.Value(i)), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint8:
		return uint64(a.Value(i)), nil
	case *array.Uint16:
		return uint64(a.Value(i)), nil
	case *array.Uint32:
		return uint64(a.Value(i)), nil
	case *array.Uint64:
		return a.Value(i), nil
	case *array.Float32:
		return float64(a.Value(i)), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return strings.Clone(a.Value(i)), nil
	case *array.LargeString:
		return strings.Clone(a.Value(i)), nil
	case *array.StringView:
		return strings.Clone(a.Value(i)), nil
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...), nil
	case *array.LargeBinary:
		return append([]byte(nil), a.Value(i)...), nil
	case *array.Date32:
		return a.Value(i).ToTime().UTC(), nil
	case *array.Date64:
		return a.Value(i).ToTime().UTC(), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC(), nil
	case *array.Decimal128:
		// As text: DuckDB casts it to the parameter's DECIMAL exactly.
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale), nil
	case *array.DenseUnion:
		// JDBC's binder sends parameters of unknown type as a dense union.
		child := a.Field(a.ChildID(i))
		return argOf(child, int(a.ValueOffset(i)))
	case *array.Dictionary:
		return argOf(a.Dictionary(), a.GetValueIndex(i))
	}
	return nil, fmt.Errorf("type %s is not supported as a parameter", c.DataType())
}

// log writes the one line a Flight SQL stream gets.
func (ss *sqlServer) log(ctx context.Context, g *sqlGrant, st *streamStats, began time.Time, err error) {
	attrs := []slog.Attr{slog.String("rpc", "DoGet"), slog.String("client", client(ctx))}
	if g != nil {
		attrs = append(attrs, slog.String("sql", g.Kind), slog.String("statement", g.ID))
		if g.Query != "" {
			q := g.Query
			if len(q) > 200 {
				q = q[:200] + "..."
			}
			attrs = append(attrs, slog.String("query", q))
		}
	}
	if st != nil {
		attrs = append(attrs, slog.Int64("rows", st.rows.Load()), slog.Int64("bytes", st.bytes.Load()))
		if sh := st.share.Load(); sh > 0 {
			attrs = append(attrs, slog.Int64("memory_share", sh))
		}
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(began)))
	level := slog.LevelInfo
	code := codes.OK
	if err != nil {
		code = status.Code(ss.status(err))
		attrs = append(attrs, slog.String("error", err.Error()))
		level = slog.LevelWarn
		if code == codes.Internal || code == codes.DataLoss {
			level = slog.LevelError
		}
	}
	attrs = append(attrs, slog.String("code", code.String()))
	ss.s.log.LogAttrs(context.Background(), level, "stream", attrs...)
}
