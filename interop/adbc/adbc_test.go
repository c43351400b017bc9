// Package adbc tests ts2arrow serve's Arrow Flight SQL with real clients:
// the ADBC Flight SQL driver for Go (the driver Python's
// adbc_driver_flightsql and R's adbcflightsql wrap), and arrow-go's Flight
// SQL client for what ADBC does not expose. Each test starts `ts2arrow
// serve`, built with -tags duckdb_arrow, as a child process.
//
// It is a module of its own so that the main module does not require the
// ADBC driver and its dependencies.
package adbc_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	sqlclient "github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// bin is the ts2arrow binary TestMain builds.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "adbc-ts2arrow-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "ts2arrow")
	build := exec.Command("go", "build", "-tags", "duckdb_arrow", "-o", bin, "./cmd/ts2arrow")
	build.Dir = "../.."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ts2arrow with -tags duckdb_arrow:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a running `ts2arrow serve`.
type server struct {
	addr string // host:port
	root string
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  strings.Builder
	done chan error
}

func (s *server) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

var startLine = regexp.MustCompile(`serving .* on grpc(\+tls)?://([0-9.:]+)`)

// serve starts ts2arrow serve on a root holding testdata/sample.tsfile and
// stops it when the test ends.
func serve(t *testing.T, args ...string) *server {
	t.Helper()
	root := t.TempDir()
	data, err := os.ReadFile("../../testdata/sample.tsfile")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sample.tsfile"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--root", root, "--addr", "127.0.0.1:0", "--rescan", "0"}, args...)...) // a later --rescan wins
	cmd.Env = append(os.Environ(), "TS2ARROW_TEST_TOKENS=tok-one,tok-two")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, root: root, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			s.mu.Unlock()
			if m := startLine.FindStringSubmatch(line); m != nil {
				addr <- m[2]
			}
		}
		close(addr)
		s.done <- cmd.Wait()
	}()
	a, ok := <-addr
	if !ok {
		<-s.done
		t.Fatalf("serve did not start:\n%s", s.logs())
	}
	s.addr = a
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("serve: %v\n%s", err, s.logs())
		}
	})
	return s
}

// count is how many lines of the server's log hold sub.
func (s *server) count(sub string) int { return strings.Count(s.logs(), sub) }

// waitFor waits until n lines of the server's log hold sub.
func (s *server) waitFor(sub string, n int) {
	for s.count(sub) < n {
		time.Sleep(10 * time.Millisecond)
	}
}

// stop asks the server to shut down, as an operator's SIGTERM does, and
// waits for it: a statement DuckDB still ran would hold the shutdown.
func (s *server) stop() error {
	if s.cmd.ProcessState != nil {
		return nil
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	return <-s.done
}

// open connects the ADBC Flight SQL driver.
func open(t *testing.T, uri string, opts map[string]string) adbc.Connection {
	t.Helper()
	o := map[string]string{adbc.OptionKeyURI: uri}
	for k, v := range opts {
		o[k] = v
	}
	db, err := flightsql.NewDriver(memory.DefaultAllocator).NewDatabase(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cn, err := db.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cn.Close() })
	return cn
}

// query runs q through ADBC and returns its rows as text and its schema.
func query(ctx context.Context, cn adbc.Connection, q string, params arrow.RecordBatch) ([]string, *arrow.Schema, error) {
	st, err := cn.NewStatement()
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	if err := st.SetSqlQuery(q); err != nil {
		return nil, nil, err
	}
	if params != nil {
		if err := st.Prepare(ctx); err != nil {
			return nil, nil, err
		}
		if err := st.Bind(ctx, params); err != nil {
			return nil, nil, err
		}
	}
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer rdr.Release()
	rows, err := readRows(rdr)
	return rows, rdr.Schema(), err
}

// cell spells a value independently of its Arrow layout (a dictionary's
// value, not its index).
func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	if d, ok := a.(*array.Dictionary); ok {
		return cell(d.Dictionary(), d.GetValueIndex(i))
	}
	return a.ValueStr(i)
}

func readRows(r array.RecordReader) ([]string, error) {
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			var sb strings.Builder
			for c := range int(rec.NumCols()) {
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

// convertRows are the rows `ts2arrow convert` writes for the sample, read
// back from its Arrow IPC stream, with their schema.
func convertRows(t *testing.T) ([]string, *arrow.Schema) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sample.arrows")
	if b, err := exec.Command(bin, "convert", "../../testdata/sample.tsfile", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	rows, err := readRows(r)
	if err != nil {
		t.Fatal(err)
	}
	return rows, r.Schema()
}

func TestQueryEqualsConvert(t *testing.T) {
	s := serve(t)
	cn := open(t, "grpc://"+s.addr, nil)
	want, wantSchema := convertRows(t)
	if len(want) == 0 {
		t.Fatal("convert gave no rows")
	}
	got, schema, err := query(context.Background(), cn, "SELECT * FROM weather", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names, wantNames []string
	for _, f := range schema.Fields() {
		names = append(names, f.Name)
	}
	for _, f := range wantSchema.Fields() {
		wantNames = append(wantNames, f.Name)
	}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("columns %v, convert's %v", names, wantNames)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%d rows over Flight SQL, %d from convert; first differing:\n%s", len(got), len(want), firstDiff(got, want))
	}

	// HUGEINT (DuckDB's sum of BIGINT) arrives as a valid decimal128.
	rows, sc, err := query(context.Background(), cn, "SELECT sum(x) AS s FROM (VALUES (9223372036854775807::BIGINT), (2::BIGINT)) v(x)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if dt, ok := sc.Field(0).Type.(*arrow.Decimal128Type); !ok || dt.Scale != 0 || rows[0] != "9223372036854775809" {
		t.Fatalf("sum: %s = %v", sc.Field(0).Type, rows)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return "flight sql: " + a[i] + "\nconvert:    " + b[i]
		}
	}
	return "(one is a prefix of the other)"
}

func TestPreparedStatement(t *testing.T) {
	s := serve(t)
	cn := open(t, "grpc://"+s.addr, nil)
	ctx := context.Background()
	stations, _, err := query(ctx, cn, "SELECT station, count(*) FROM weather GROUP BY station ORDER BY station", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(stations) < 2 {
		t.Fatalf("stations: %v", stations)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "station", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, row := range stations {
		name, n, _ := strings.Cut(row, "|")
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		b.Field(0).(*array.StringBuilder).Append(name)
		b.Field(1).(*array.Int64Builder).Append(1)
		params := b.NewRecordBatch()
		b.Release()
		got, _, err := query(ctx, cn, "SELECT count(*) FROM weather WHERE station = ? AND 1 = ?", params)
		params.Release()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != n {
			t.Fatalf("station %s: %v, want %s", name, got, n)
		}
	}
}

func TestCatalog(t *testing.T) {
	s := serve(t)
	cn := open(t, "grpc://"+s.addr, nil)
	ctx := context.Background()

	_, want, err := query(ctx, cn, "SELECT * FROM weather", nil)
	if err != nil {
		t.Fatal(err)
	}
	main := "main"
	sc, err := cn.GetTableSchema(ctx, nil, &main, "weather")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Fields()) != len(want.Fields()) {
		t.Fatalf("GetTableSchema: %s\nquery: %s", sc, want)
	}
	for i, f := range sc.Fields() {
		if f.Name != want.Field(i).Name || !arrow.TypeEqual(f.Type, want.Field(i).Type) {
			t.Fatalf("GetTableSchema column %d: %s %s; the query's %s %s", i, f.Name, f.Type, want.Field(i).Name, want.Field(i).Type)
		}
	}
	if _, err := cn.GetTableSchema(ctx, nil, &main, "no_such_table"); err == nil {
		t.Fatal("GetTableSchema of an unknown table did not fail")
	}

	rdr, err := cn.GetTableTypes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	types, err := readRows(rdr)
	rdr.Release()
	if err != nil || !slices.Contains(types, "VIEW") {
		t.Fatalf("table types %v, %v", types, err)
	}

	rdr, err = cn.GetObjects(ctx, adbc.ObjectDepthAll, nil, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := readRows(rdr)
	rdr.Release()
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(objs, "\n")
	for _, w := range []string{"main", "weather", "temperature", "station"} {
		if !strings.Contains(all, w) {
			t.Fatalf("GetObjects has no %q:\n%s", w, all)
		}
	}
	tbl := "weath%"
	rdr, err = cn.GetObjects(ctx, adbc.ObjectDepthTables, nil, nil, &tbl, nil, []string{"VIEW"})
	if err != nil {
		t.Fatal(err)
	}
	objs, err = readRows(rdr)
	rdr.Release()
	if err != nil || !strings.Contains(strings.Join(objs, "\n"), "weather") {
		t.Fatalf("GetObjects weath%%: %v %v", objs, err)
	}
}

// adbcCode is the gRPC code of an ADBC error.
func adbcCode(err error) codes.Code {
	var ae adbc.Error
	if errors.As(err, &ae) {
		for _, d := range ae.Details {
			if s, ok := d.(interface{ GRPCStatus() *status.Status }); ok {
				return s.GRPCStatus().Code()
			}
		}
		switch ae.Code {
		case adbc.StatusInvalidArgument:
			return codes.InvalidArgument
		case adbc.StatusNotFound:
			return codes.NotFound
		case adbc.StatusUnauthenticated:
			return codes.Unauthenticated
		case adbc.StatusUnauthorized:
			return codes.PermissionDenied
		case adbc.StatusNotImplemented:
			return codes.Unimplemented
		case adbc.StatusCancelled:
			return codes.Canceled
		}
	}
	return status.Code(err)
}

func TestErrors(t *testing.T) {
	s := serve(t, "--token-env", "TS2ARROW_TEST_TOKENS")
	ctx := context.Background()
	cn := open(t, "grpc://"+s.addr, map[string]string{flightsql.OptionAuthorizationHeader: "Bearer tok-one"})
	if rows, _, err := query(ctx, cn, "SELECT count(*) FROM weather", nil); err != nil || len(rows) != 1 {
		t.Fatalf("with the token: %v %v", rows, err)
	}
	for _, tc := range []struct {
		q    string
		code codes.Code
		msg  string
	}{
		{"SELEC * FROM weather", codes.InvalidArgument, "syntax error"},
		{"SELECT * FROM no_such_table", codes.NotFound, "no_such_table"},
		{"SELECT no_such_column FROM weather", codes.InvalidArgument, "no_such_column"},
		{"CREATE TABLE x (a INT)", codes.InvalidArgument, "read"},
		{"SELECT 1; SELECT 2", codes.InvalidArgument, "one at a time"},
		// The engine is confined to the served tables (query.Options.Confine).
		{"SELECT * FROM read_text('/etc/hostname')", codes.PermissionDenied, "disabled by configuration"},
		{"SELECT * FROM glob('/*')", codes.PermissionDenied, "disabled by configuration"},
		{"SELECT * FROM tsfile('/etc')", codes.InvalidArgument, "confined"},
	} {
		_, _, err := query(ctx, cn, tc.q, nil)
		if err == nil || adbcCode(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v (code %s), want %s with %q", tc.q, err, adbcCode(err), tc.code, tc.msg)
		}
	}
	for _, hdr := range []string{"Bearer wrong", ""} {
		opts := map[string]string{}
		if hdr != "" {
			opts[flightsql.OptionAuthorizationHeader] = hdr
		}
		bad := open(t, "grpc://"+s.addr, opts)
		_, _, err := query(ctx, bad, "SELECT 1", nil)
		if adbcCode(err) != codes.Unauthenticated {
			t.Errorf("header %q: %v (code %s), want Unauthenticated", hdr, err, adbcCode(err))
		}
	}
	// A ticket planned with one token is refused to another.
	c := sqlClient(t, s.addr)
	// Preparing a query of several statements would run all but the
	// last: refused, and the view is still there.
	if _, err := c.Prepare(bearer("tok-one"), "DROP VIEW weather; SELECT 1"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("prepare of two statements: %v", err)
	}
	if rows, _, err := query(ctx, cn, "SELECT count(*) FROM weather", nil); err != nil || len(rows) != 1 {
		t.Fatalf("after the refused prepare: %v %v", rows, err)
	}
	fi, err := c.Execute(bearer("tok-one"), "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(c, bearer("tok-two"), fi); status.Code(got) != codes.PermissionDenied {
		t.Errorf("another token's ticket: %v", got)
	}
	if got := drain(c, bearer("tok-one"), fi); got != nil {
		t.Errorf("the ticket's own token: %v", got)
	}
}

func bearer(tok string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok)
}

// drain reads the first endpoint of fi, returning the error.
func drain(c *sqlclient.Client, ctx context.Context, fi *arrowflight.FlightInfo) error {
	r, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	if err != nil {
		return err
	}
	defer r.Release()
	for r.Next() {
	}
	return r.Err()
}

func sqlClient(t *testing.T, addr string, opts ...grpc.DialOption) *sqlclient.Client {
	t.Helper()
	if len(opts) == 0 {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	c, err := sqlclient.NewClient(addr, nil, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, certPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, certPEM
}

func TestTLS(t *testing.T) {
	cert, key, pemBytes := selfSigned(t)
	s := serve(t, "--tls-cert", cert, "--tls-key", key)
	cn := open(t, "grpc+tls://"+s.addr, map[string]string{flightsql.OptionSSLRootCerts: string(pemBytes)})
	rows, _, err := query(context.Background(), cn, "SELECT count(*) FROM weather", nil)
	if err != nil || len(rows) != 1 {
		t.Fatalf("over TLS: %v %v", rows, err)
	}
	// Plain text to a TLS server fails.
	plain := open(t, "grpc://"+s.addr, map[string]string{flightsql.OptionTimeoutQuery: "5"})
	if _, _, err := query(context.Background(), plain, "SELECT 1", nil); err == nil {
		t.Fatal("a plain-text client was answered by the TLS server")
	}
}

// TestConcurrentClients: 8 clients, each its own connection, query at
// once and each gets the whole answer.
func TestConcurrentClients(t *testing.T) {
	s := serve(t)
	ctx := context.Background()
	want, _, err := query(ctx, open(t, "grpc://"+s.addr, nil), "SELECT * FROM weather ORDER BY ALL", nil)
	if err != nil {
		t.Fatal(err)
	}
	cns := make([]adbc.Connection, 8)
	for i := range cns {
		cns[i] = open(t, "grpc://"+s.addr, nil)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(cns))
	for i, cn := range cns {
		wg.Go(func() {
			for range 3 {
				got, _, err := query(ctx, cn, "SELECT * FROM weather ORDER BY ALL", nil)
				if err == nil && !slices.Equal(got, want) {
					err = fmt.Errorf("client %d: %d rows, want %d", i, len(got), len(want))
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestCancelMidStream: a client that cancels its query while DuckDB runs
// it, or after the first batch, gets CANCELLED; the server interrupts
// DuckDB (else its shutdown, at the test's end, would wait for a statement
// of hours) and goes on answering.
func TestCancelMidStream(t *testing.T) {
	s := serve(t, "--verbose")
	cn := open(t, "grpc://"+s.addr, nil)

	// After the first batch of a large result.
	ctx, cancel := context.WithCancel(context.Background())
	st, err := cn.NewStatement()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetSqlQuery("SELECT i, i * 2 AS j FROM range(3000000) t(i)"); err != nil {
		t.Fatal(err)
	}
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rdr.Next() {
		t.Fatalf("no first batch: %v", rdr.Err())
	}
	cancel()
	for rdr.Next() {
	}
	if rdr.Err() == nil {
		t.Fatal("a cancelled stream ended without an error")
	}
	rdr.Release()
	st.Close()

	// While DuckDB runs the statement (the server logs "running
	// statement" at --verbose as it hands it to DuckDB).
	const slow = "SELECT count(*) FROM range(1000000000000) a(i) WHERE i % 7 = 3"
	c := sqlClient(t, s.addr)
	fc, err := arrowflight.NewClientWithMiddleware(s.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	fi, err := c.Execute(context.Background(), slow)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	running := s.count("running statement")
	stream, err := fc.DoGet(ctx, fi.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	s.waitFor("running statement", running+1)
	cancel()
	if _, err := stream.Recv(); status.Code(err) != codes.Canceled {
		t.Fatalf("cancelled statement: %v", err)
	}

	// CancelFlightInfo ends it from another connection.
	fi, err = c.Execute(context.Background(), slow)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	running = s.count("running statement")
	go func() { done <- drain(c, context.Background(), fi) }()
	s.waitFor("running statement", running+1)
	res, err := sqlClient(t, s.addr).CancelFlightInfo(context.Background(), &arrowflight.CancelFlightInfoRequest{Info: fi})
	if err != nil || res.Status != arrowflight.CancelStatusCancelled {
		t.Fatalf("CancelFlightInfo: %v %v", res, err)
	}
	if err := <-done; status.Code(err) != codes.Canceled {
		t.Fatalf("after CancelFlightInfo: %v", err)
	}
	// Its ticket is refused from then on.
	if err := drain(c, context.Background(), fi); status.Code(err) != codes.Canceled {
		t.Fatalf("a cancelled statement's ticket: %v", err)
	}

	if rows, _, err := query(context.Background(), cn, "SELECT count(*) FROM weather", nil); err != nil || len(rows) != 1 {
		t.Fatalf("after the cancellations: %v %v", rows, err)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("shutdown: %v\n%s", err, s.logs())
	}
	if !strings.Contains(s.logs(), "code=Canceled") {
		t.Fatalf("no stream logged as cancelled:\n%s", s.logs())
	}
}

// TestFlightSQLClient checks with arrow-go's client what ADBC does not
// expose: GetSqlInfo, GetXdbcTypeInfo, updates refused, and that the
// plain Flight service answers on the same port.
func TestFlightSQLClient(t *testing.T) {
	s := serve(t)
	c := sqlClient(t, s.addr)
	ctx := context.Background()

	fi, err := c.GetSqlInfo(ctx, []sqlclient.SqlInfo{sqlclient.SqlInfoFlightSqlServerName, sqlclient.SqlInfoFlightSqlServerReadOnly, sqlclient.SqlInfoIdentifierQuoteChar})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	info, err := readRows(r)
	r.Release()
	if err != nil || !slices.Equal(info, []string{`0|[0,"tsarrow"]`, `3|[1,true]`, `504|[0,"\""]`}) {
		t.Fatalf("GetSqlInfo: %q %v", info, err)
	}

	fi, err = c.GetXdbcTypeInfo(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err = c.DoGet(ctx, fi.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	types, err := readRows(r)
	r.Release()
	if err != nil || len(types) < 10 || !strings.HasPrefix(types[0], "BOOLEAN|-7|") {
		t.Fatalf("GetXdbcTypeInfo: %q %v", types, err)
	}

	if _, err := c.ExecuteUpdate(ctx, "INSERT INTO weather SELECT * FROM weather"); status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("update: %v", err)
	}
	if _, err := c.BeginTransaction(ctx); status.Code(err) != codes.Unimplemented {
		t.Fatalf("transaction: %v", err)
	}

	// The plain Flight service, same address.
	fc, err := arrowflight.NewClientWithMiddleware(s.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	pfi, err := fc.GetFlightInfo(ctx, &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorCMD, Cmd: []byte(`{"table":"weather"}`)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ep := range pfi.Endpoint {
		st, err := fc.DoGet(ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := arrowflight.NewRecordReader(st)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := readRows(rr)
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
		n += len(rows)
	}
	want, _ := convertRows(t)
	if n != len(want) {
		t.Fatalf("plain DoGet: %d rows, convert %d", n, len(want))
	}
}

// TestTablesFollowTheRoot: a file added under the root joins its table
// once a rescan sees it, as plain Flight's flights do.
func TestTablesFollowTheRoot(t *testing.T) {
	s := serve(t, "--rescan", "100ms")
	cn := open(t, "grpc://"+s.addr, nil)
	ctx := context.Background()
	before, _, err := query(ctx, cn, "SELECT count(*) FROM weather", nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(s.root, "sample.tsfile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.root, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.root, "more", ".tmp"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(s.root, "more", ".tmp"), filepath.Join(s.root, "more", "copy.tsfile")); err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(before[0], &n)
	want := fmt.Sprint(2 * n)
	for {
		got, _, err := query(ctx, cn, "SELECT count(*) FROM weather", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] == want {
			break
		}
		if got[0] != before[0] {
			t.Fatalf("count %s: neither %s before nor %s after", got[0], before[0], want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(s.logs(), "SQL tables resolved again") {
		t.Fatalf("no reload logged:\n%s", s.logs())
	}
}
