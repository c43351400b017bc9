package flight

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/tsfile"
)

// testTable is the schema of generated files: two TAGs and four FIELDs,
// one of them a string with nulls.
func testTable() *arrow.Schema {
	tag := arrow.NewMetadata([]string{arrowconv.MetaCategory}, []string{"TAG"})
	meta := arrow.NewMetadata([]string{arrowconv.MetaTable}, []string{"weather"})
	return arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: tag},
		{Name: "device", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: tag},
		{Name: "temp", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	}, &meta)
}

// writeTestFile writes a table-model file of devices x rows under dir and
// returns its path. seed varies the values between files.
func writeTestFile(t testing.TB, dir, name string, devices, rows, seed int) string {
	t.Helper()
	schema := testTable()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	for d := 0; d < devices; d++ {
		for i := 0; i < rows; i++ {
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(1_700_000_000_000 + i*1000 + seed)))
			b.Field(1).(*array.StringBuilder).Append([]string{"north", "south"}[d%2])
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("d%03d", d))
			b.Field(3).(*array.Float64Builder).Append(float64(seed*1000+d) + float64(i)/8)
			if i%7 == 3 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Int64Builder).Append(int64(i * (d + 1)))
			}
			b.Field(5).(*array.BooleanBuilder).Append(i%3 == 0)
			if i%5 == 0 {
				b.Field(6).AppendNull()
			} else {
				b.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("s%d-%d", d, i%11))
			}
		}
		recs = append(recs, b.NewRecordBatch())
	}
	rr, err := array.NewRecordReader(schema, recs)
	require.NoError(t, err)
	defer rr.Release()
	for _, r := range recs {
		r.Release()
	}
	var buf bytes.Buffer
	_, err = fromarrow.WriteTsFile(&buf, rr, nil)
	require.NoError(t, err)
	p := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// testServer runs a Server on a loopback port until the test ends.
type testServer struct {
	*Server
	addr string
	log  *lockedBuffer
}

func startServer(t testing.TB, o Options) *testServer {
	t.Helper()
	logs := &lockedBuffer{}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.Rescan == 0 {
		o.Rescan = -1
	}
	srv, err := NewServer(o)
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		require.NoError(t, <-served)
	})
	return &testServer{Server: srv, addr: lis.Addr().String(), log: logs}
}

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// dial connects the arrow-go Flight client.
func dial(t testing.TB, addr string, opts ...grpc.DialOption) arrowflight.Client {
	t.Helper()
	if len(opts) == 0 {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	c, err := arrowflight.NewClientWithMiddleware(addr, nil, nil, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// cell spells one value independently of its Arrow layout.
func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "∅"
	}
	if d, ok := a.(*array.Dictionary); ok {
		return cell(d.Dictionary(), d.GetValueIndex(i))
	}
	return a.ValueStr(i)
}

// rowsOf reads every batch of r as text rows.
func rowsOf(t testing.TB, r array.RecordReader) []string {
	t.Helper()
	out, err := readRows(r)
	require.NoError(t, err)
	return out
}

func readRows(r array.RecordReader) ([]string, error) {
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var sb strings.Builder
			for c := 0; c < int(rec.NumCols()); c++ {
				if c > 0 {
					sb.WriteByte('|')
				}
				sb.WriteString(cell(rec.Column(c), i))
			}
			out = append(out, sb.String())
		}
	}
	return out, r.Err()
}

// doGet reads one endpoint's stream as text rows and its schema.
func doGet(t testing.TB, ctx context.Context, c arrowflight.Client, ep *arrowflight.FlightEndpoint, opts ...grpc.CallOption) ([]string, *arrow.Schema) {
	t.Helper()
	s, err := c.DoGet(ctx, ep.Ticket, opts...)
	require.NoError(t, err)
	r, err := arrowflight.NewRecordReader(s)
	require.NoError(t, err)
	defer r.Release()
	return rowsOf(t, r), r.Schema()
}

// readFlight reads every endpoint of a flight in order.
func readFlight(t testing.TB, ctx context.Context, c arrowflight.Client, fi *arrowflight.FlightInfo, opts ...grpc.CallOption) []string {
	t.Helper()
	var all []string
	for _, ep := range fi.Endpoint {
		rows, _ := doGet(t, ctx, c, ep, opts...)
		all = append(all, rows...)
	}
	return all
}

// localRows reads a table of files in-process with arrowconv, in order.
func localRows(t testing.TB, opts *arrowconv.Options, table string, paths ...string) []string {
	t.Helper()
	var all []string
	for _, p := range paths {
		f, err := tsfile.OpenFile(p, nil)
		require.NoError(t, err)
		var r *arrowconv.Reader
		if _, ok := f.SchemaOf(table); ok {
			r, err = arrowconv.NewTableReader(f, table, opts)
		} else {
			r, err = arrowconv.NewTreeReader(f, table, opts)
		}
		require.NoError(t, err)
		all = append(all, rowsOf(t, r)...)
		r.Release()
		f.Close()
	}
	return all
}

var _ io.Writer = (*lockedBuffer)(nil)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
