package flight

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/internal/scan"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Options configure a Server. The zero value of each field selects the
// default noted on it; only Root is required.
type Options struct {
	// Root is the directory whose TsFiles are served, recursively.
	// Directories and files whose names start with "." are skipped. An
	// IoTDB data directory (holding sequence or unsequence), Root or one
	// under it, is served as resolved tables instead (see the package
	// documentation).
	Root string
	// RootFS, when set, is the file system served instead of the
	// directory Root names (a bucket's objstore.FS, say): it is walked as
	// Root would be, its files opened through it (they must implement
	// io.ReaderAt, as objstore's do), and Root is then only the name
	// messages give it (the bucket's URL). A file's version is its size
	// and modification time; the file system tells no identity beyond
	// the name. DoPut (AllowPut) needs a directory and is refused.
	RootFS fs.FS
	// Raw serves the TsFiles of IoTDB data directories one by one, as
	// they are, like any others: deleted points come back and overwritten
	// ones show twice.
	Raw bool
	// ModsV1 is how the deletions of IoTDB 1.x .mods files in a data
	// directory apply (see dataset.ModsV1Rule; zero follows the server
	// version the files show).
	ModsV1 dataset.ModsV1Rule
	// MaxModsSize is the largest mods file of a data directory read, in
	// bytes (dataset.ModsOptions.MaxSize); 0 is dataset.DefaultMaxModsSize.
	// A larger one fails the table's reads with an error naming it.
	MaxModsSize int64
	// Extension selects the files to serve (default ".tsfile").
	Extension string
	// ReadOptions opens each file (default: tsfile's defaults).
	ReadOptions *tsfile.ReadOptions
	// TimeUnit is the unit of the stored timestamps (default
	// arrow.Millisecond; select another with arrowconv.TimeUnitOf).
	TimeUnit arrowconv.TimeUnit
	// Rescan is how often the root is walked for new, changed and removed
	// files (default 30s; negative disables the timer, leaving Rescan).
	Rescan time.Duration

	// PartitionBytes is the estimated Arrow size at which a flight's
	// device ranges are cut into separate endpoints (default 64 MiB). A
	// device larger than this is an endpoint of its own.
	PartitionBytes int64
	// Advertise lists the location URIs put on every endpoint, such as
	// "grpc+tls://flight1.example:8815", for servers sharing the root
	// behind several addresses. Empty leaves locations empty, which Flight
	// clients read as "the server you asked".
	Advertise []string
	// BatchSize is the rows per record batch decoded (default arrowconv's).
	BatchSize int
	// MaxBatchBytes bounds the Arrow bytes of one record batch DoGet
	// sends (default 512 KiB; negative: no bound): a larger batch goes out
	// as row slices of it. gRPC clients refuse messages over 4 MiB unless
	// told otherwise (arrow-go's Flight client among them), which 65,536
	// rows of a wide table exceed; and messages of at most 1 MiB land in
	// gRPC-Go's pooled receive buffers instead of fresh allocations, which
	// measured 20-30% faster end to end than messages of 2.5-5 MB (see
	// the Flight section of benchmarks/README.md).
	MaxBatchBytes int64
	// Workers decode the chunks of one stream in parallel (default
	// GOMAXPROCS).
	Workers int
	// Compression is the default IPC body compression of DoGet streams:
	// "zstd", "lz4" or "" for none. A query can override it.
	Compression string

	// Tokens are the accepted bearer tokens; empty disables
	// authentication. Clients send "authorization: Bearer <token>" (the
	// scheme in any case).
	Tokens []string
	// TLS serves over TLS; set ClientAuth and ClientCAs for mutual TLS.
	TLS *tls.Config
	// TicketKey signs tickets with HMAC-SHA256 (default: 32 random bytes
	// per process). Servers sharing a root behind Advertise must share it,
	// since a client may redeem a ticket at any of them. At least 16 bytes.
	TicketKey []byte
	// TicketTTL is how long a ticket stays valid (default 24h).
	TicketTTL time.Duration

	// MemoryLimit is the server-wide memory budget streams are admitted
	// against (default DefaultMemoryLimit: a quarter of physical memory,
	// capped at 4 GiB). Every DoGet and DoPut stream reserves its share
	// before it decodes anything: at most StreamMemory and at most
	// MemoryLimit/MaxStreams, less when its whole output is smaller, plus
	// an allowance for its buffers outside Arrow. A DoGet stream's batch
	// size is cut so that its batches in flight fit its share, by the
	// bytes a row the file statistics predict, down to 256 rows.
	MemoryLimit int64
	// MaxStreams bounds concurrent DoGet and DoPut streams (default 64).
	// A stream waits up to QueueWait (default 30s) for a slot and its
	// share of MemoryLimit, in arrival order, before failing with
	// RESOURCE_EXHAUSTED.
	MaxStreams int
	QueueWait  time.Duration
	// MaxStreamsPerPeer bounds the streams one client holds at once,
	// clients told apart by IP address (default a quarter of MaxStreams,
	// at least 1; negative: no cap), so that one client cannot take every
	// slot. Its further streams wait as above without holding back other
	// clients' streams.
	MaxStreamsPerPeer int
	// StreamMemory bounds the Arrow memory one stream holds (default 1
	// GiB). It caps the stream's share of MemoryLimit, and is checked
	// again after each batch, for estimates the data proves wrong: a
	// stream over it fails with RESOURCE_EXHAUSTED.
	StreamMemory int64
	// GoMemoryLimit makes NewServer set the Go runtime's soft memory
	// limit (debug.SetMemoryLimit) to what the runtime holds once the
	// root is scanned (idle) plus MemoryLimit, so that the garbage
	// collector keeps the heap near the budget instead of letting it grow
	// to twice the live data, and the resident set stays within its idle
	// size plus 1.1 x MemoryLimit;
	// Shutdown restores the previous limit. It is process-wide, so it is
	// off unless asked for (the serve command asks), and a GOMEMLIMIT in
	// the environment wins over it.
	GoMemoryLimit bool
	// IdleRelease is how long the server must run no stream before it
	// returns freed memory to the operating system (default 5s; negative:
	// never): a forced garbage collection, which also empties the
	// readers' buffer pool, and debug.FreeOSMemory.
	IdleRelease time.Duration
	// IdleTimeout ends a stream whose client has accepted nothing for
	// this long (default 2m); StreamTimeout ends any stream running this
	// long (default: none). Both fail with DEADLINE_EXCEEDED.
	IdleTimeout   time.Duration
	StreamTimeout time.Duration
	// WriteTimeout ends a DoGet stream whose client has taken no data for
	// this long while the server waits to send it more, and a DoPut whose
	// client has sent nothing for this long while the server waits for
	// its next message (default 10s; negative: never), with
	// DEADLINE_EXCEEDED: a client holds a slot and its share of the budget
	// only while it reads or writes. A send waits once the client's
	// flow-control window is full, that is when the client has not read
	// the last megabyte or so.
	WriteTimeout time.Duration
	// MaxHeaderBytes bounds the request metadata of a call (default 16
	// KiB), as HTTP/2 counts a header list: the bytes of every name and
	// value plus 32 per header (RFC 7540, section 6.5.2). gRPC refuses a
	// larger one before the call starts. gRPC-Go's own default is 16 MiB;
	// 16 KiB is gRPC C-core's hard limit for metadata, and twice
	// gRPC-Java's default of 8 KiB.
	MaxHeaderBytes int
	// MaxMessageBytes bounds one message a client sends (default 16
	// MiB), a DoPut record batch among them: gRPC allocates the whole
	// message before it is decoded, so its size is memory outside the
	// Arrow allocator. A DoPut reserves twice this of the budget, at
	// least its fair share. Clients send 4 MiB at most unless told
	// otherwise.
	MaxMessageBytes int

	// AllowPut enables DoPut, which writes new TsFiles under the root.
	AllowPut bool
	// MaxPutBytes bounds the IPC bytes one DoPut may send (default 4 GiB).
	MaxPutBytes int64

	// SQL, when set, also serves Arrow Flight SQL on the same gRPC
	// service, with the same tokens, TLS, memory budget and timeouts:
	// statements (read-only), prepared statements with parameters, the
	// catalog commands, GetSqlInfo, GetXdbcTypeInfo and CancelFlightInfo.
	// See [SQLEngine].
	SQL SQLEngine

	// Allocator is the base of every stream's allocator (default the
	// readers' pooled allocator).
	Allocator memory.Allocator
	// Logger receives one line per stream and the files that cannot be
	// served (default slog.Default()).
	Logger *slog.Logger
}

func (o Options) withDefaults() (Options, error) {
	if o.Root == "" {
		return o, errors.New("flight: Options.Root is required")
	}
	if o.RootFS != nil && o.AllowPut {
		return o, fmt.Errorf("flight: AllowPut with RootFS: DoPut writes a file in a directory beside the root's and links it into place, which %s does not offer; serve a local directory to accept DoPut", o.Root)
	}
	if o.Extension == "" {
		o.Extension = ".tsfile"
	}
	if o.Rescan == 0 {
		o.Rescan = 30 * time.Second
	}
	if o.PartitionBytes <= 0 {
		o.PartitionBytes = 64 << 20
	}
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = 512 << 10
	}
	switch o.Compression {
	case "", "none":
		o.Compression = ""
	case "zstd", "lz4":
	default:
		return o, fmt.Errorf("flight: unknown compression %q (want zstd, lz4 or none)", o.Compression)
	}
	if o.TicketKey == nil {
		o.TicketKey = make([]byte, 32)
		if _, err := rand.Read(o.TicketKey); err != nil {
			return o, err
		}
	}
	if len(o.TicketKey) < 16 {
		return o, fmt.Errorf("flight: ticket key of %d bytes is too short (want at least 16)", len(o.TicketKey))
	}
	if o.TicketTTL <= 0 {
		o.TicketTTL = 24 * time.Hour
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = 64
	}
	if o.QueueWait <= 0 {
		o.QueueWait = 30 * time.Second
	}
	if o.MaxStreamsPerPeer == 0 {
		o.MaxStreamsPerPeer = max(o.MaxStreams/4, 1)
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 16 << 10
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 16 << 20
	}
	if o.StreamMemory <= 0 {
		o.StreamMemory = 1 << 30
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultMemoryLimit()
	}
	if o.IdleRelease == 0 {
		o.IdleRelease = 5 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 2 * time.Minute
	}
	if o.MaxPutBytes <= 0 {
		o.MaxPutBytes = 4 << 30
	}
	for _, t := range o.Tokens {
		if t == "" || strings.ContainsAny(t, " \t\r\n") {
			return o, errors.New("flight: a bearer token is empty or contains white space")
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	for _, u := range o.Advertise {
		if err := CheckLocation(u); err != nil {
			return o, fmt.Errorf("flight: advertised location %q: %w", u, err)
		}
	}
	return o, nil
}

// Server serves the TsFiles under a root directory over Arrow Flight.
type Server struct {
	opts    Options
	cat     *catalog
	sign    *signer
	grpc    *grpc.Server
	health  *health.Server
	budget  *memBudget
	arrow   *scan.Meter // every stream's Arrow memory, under the streams' own meters
	log     *slog.Logger
	service *service

	stopScan chan struct{}
	scanDone chan struct{}
	stopOnce sync.Once
	hardOnce sync.Once
	hardStop chan struct{} // closed when Shutdown gives up draining
	streams  sync.WaitGroup
	holds    holdSet // DoGet batches gRPC may still be reading

	restoreGoLimit func()   // undoes GoMemoryLimit at Shutdown
	roots          []string // the root's paths, as given and resolved (redact)
}

// NewServer scans the root once and prepares the gRPC server; Serve starts
// answering. Files that fail to open are logged and listed by Problems.
func NewServer(opts Options) (*Server, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	var ropt tsfile.ReadOptions
	if o.ReadOptions != nil {
		ropt = *o.ReadOptions
	}
	cat, err := newCatalog(o.Root, o.RootFS, o.Extension, ropt, o.TimeUnit.Unit(), o.Logger)
	if err != nil {
		return nil, err
	}
	cat.raw = o.Raw
	cat.modsV1 = o.ModsV1
	cat.maxMods = o.MaxModsSize
	if err := cat.rescan(context.Background()); err != nil {
		return nil, err
	}
	if dd := enclosingDataDir(cat.root); dd != "" && !o.Raw && o.RootFS == nil {
		o.Logger.Warn("the root lies inside an IoTDB data directory, so its files are served one by one: deleted points come back and overwritten ones show twice; serve the data directory itself to read resolved tables", "data_dir", dd)
	}
	s := &Server{
		opts: o, cat: cat, log: o.Logger,
		sign:     &signer{key: o.TicketKey, now: time.Now},
		budget:   newMemBudget(o.MemoryLimit, o.MaxStreams, o.MaxStreamsPerPeer, o.IdleRelease),
		arrow:    scan.NewMeter(o.Allocator),
		health:   health.NewServer(),
		stopScan: make(chan struct{}),
		scanDone: make(chan struct{}),
		hardStop: make(chan struct{}),
	}
	s.service = &service{s: s}
	s.roots = []string{cat.root}
	if abs, err := filepath.Abs(o.Root); err == nil && abs != cat.root && o.RootFS == nil {
		s.roots = append(s.roots, abs)
	}
	if o.GoMemoryLimit {
		// The base is taken once the catalog is built, with its garbage
		// collected: what the server holds idle.
		runtime.GC()
		s.restoreGoLimit = setGoMemoryLimit(goMemoryLimit(runtimeMemory(), o.MemoryLimit), o.Logger)
	}
	gopts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(s.unaryAuth),
		grpc.ChainStreamInterceptor(s.streamAuth),
		// Dead peers are found by keepalive; live but stalled clients by
		// IdleTimeout.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: time.Minute, Timeout: 20 * time.Second}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		// Record batches are large; the default 4 MiB would refuse
		// ordinary DoPut batches. gRPC allocates a message whole, outside
		// the budget's allocator, so the bound is kept modest.
		grpc.MaxRecvMsgSize(o.MaxMessageBytes),
		// Request metadata: gRPC-Go would take 16 MiB of headers (and ten
		// thousand of them) into memory before the call is refused.
		grpc.MaxHeaderListSize(uint32(o.MaxHeaderBytes)),
		grpc.InitialWindowSize(1 << 20),
		grpc.InitialConnWindowSize(4 << 20),
		// DoGet hands gRPC its frames already marshalled, referencing the
		// Arrow buffers (frames.go); everything else is protobuf.
		grpc.ForceServerCodecV2(newFrameCodec()),
	}
	if o.TLS != nil {
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(o.TLS)))
	}
	s.grpc = grpc.NewServer(gopts...)
	if o.SQL != nil {
		ss, err := newSQLServer(s, o.SQL)
		if err != nil {
			return nil, err
		}
		arrowflight.RegisterFlightServiceServer(s.grpc, &dispatcher{plain: s.service, ss: ss,
			sql: flightsql.NewFlightServer(ss)})
	} else {
		arrowflight.RegisterFlightServiceServer(s.grpc, s.service)
	}
	healthpb.RegisterHealthServer(s.grpc, s.health)
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(flightServiceName, healthpb.HealthCheckResponse_SERVING)
	if o.Rescan > 0 {
		go s.rescanLoop(o.Rescan)
	} else {
		close(s.scanDone)
	}
	return s, nil
}

// CheckLocation reports whether u is a location URI Flight clients
// understand, as Options.Advertise requires; the error does not repeat u.
func CheckLocation(u string) error {
	if u == arrowflight.LocationReuseConnection {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	switch p.Scheme {
	case "grpc", "grpc+tcp", "grpc+tls":
		if p.Host == "" {
			return errors.New("no host:port")
		}
	case "grpc+unix":
	default:
		return fmt.Errorf("scheme %q is not grpc, grpc+tcp, grpc+tls or grpc+unix", p.Scheme)
	}
	return nil
}

const flightServiceName = "arrow.flight.protocol.FlightService"

// Serve accepts connections on lis until Shutdown.
func (s *Server) Serve(lis net.Listener) error {
	err := s.grpc.Serve(lis)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Shutdown stops accepting streams and waits for running ones to finish;
// when ctx ends first, it cancels them and closes every connection. The
// health service reports NOT_SERVING from the start, so load balancers
// stop routing here while streams drain.
func (s *Server) Shutdown(ctx context.Context) error {
	s.health.Shutdown()
	s.stopOnce.Do(func() { close(s.stopScan) })
	<-s.scanDone
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		s.hardOnce.Do(func() { close(s.hardStop) })
		s.grpc.Stop()
		<-done
		err = ctx.Err()
	}
	// Streams whose handler gave up on a stalled client may still be
	// unwinding; their files stay open until they do.
	s.streams.Wait()
	// gRPC has closed every connection: what it still held of DoGet
	// batches it will never write.
	s.holds.releaseAll()
	s.cat.close()
	s.budget.stop()
	if s.restoreGoLimit != nil {
		s.restoreGoLimit()
	}
	return err
}

// Rescan walks the root now, as the timer does.
func (s *Server) Rescan(ctx context.Context) error { return s.cat.rescan(ctx) }

// Files returns the files being served, as paths relative to the root in
// path order.
func (s *Server) Files() []string { return s.cat.Files() }

// Problems returns the files under the root that are not served and why,
// keyed by path relative to the root.
func (s *Server) Problems() map[string]string { return s.cat.Problems() }

func (s *Server) rescanLoop(every time.Duration) {
	defer close(s.scanDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stopScan:
			return
		case <-t.C:
			if err := s.cat.rescan(context.Background()); err != nil {
				s.log.Error("rescan failed", "error", err)
			}
		}
	}
}

// authorize checks the bearer token of a call against every configured
// token in constant time, so timing reveals neither a token nor which one
// matched.
func (s *Server) authorize(ctx context.Context, method string) error {
	if len(s.opts.Tokens) == 0 || strings.HasPrefix(method, "/grpc.health.v1.Health/") {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return status.Error(codes.Unauthenticated, "missing bearer token (send the header authorization: Bearer <token>)")
	}
	// The scheme is case-insensitive and followed by one or more spaces
	// (RFC 7235, section 2.1); clients do send "bearer".
	scheme, got, _ := strings.Cut(vals[0], " ")
	got = strings.TrimLeft(got, " ")
	if !strings.EqualFold(scheme, "Bearer") || got == "" {
		return status.Error(codes.Unauthenticated, "authorization header is not a bearer token (send authorization: Bearer <token>)")
	}
	match := 0
	for _, t := range s.opts.Tokens {
		match |= subtle.ConstantTimeCompare([]byte(got), []byte(t))
	}
	if match != 1 {
		return status.Error(codes.Unauthenticated, "bearer token not accepted")
	}
	return nil
}

func (s *Server) unaryAuth(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := s.authorize(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	resp, err := h(ctx, req)
	return resp, s.redact(err)
}

func (s *Server) streamAuth(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := s.authorize(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return s.redact(h(srv, ss))
}

// redact takes the root's own path out of a status a client gets, as a
// last guard behind clientMessage and the catalog's relative names: an
// error of a library below that names a file by its server path (a
// reader's, a data directory's) then names it relative to the root. The
// log line of the stream, written before, keeps it whole.
func (s *Server) redact(err error) error {
	st, ok := status.FromError(err)
	if !ok || err == nil {
		return err
	}
	msg := st.Message()
	for _, r := range s.roots {
		msg = strings.ReplaceAll(msg, r+string(filepath.Separator), "")
	}
	if msg == st.Message() {
		return err
	}
	p := st.Proto()
	p.Message = msg
	return status.FromProto(p).Err()
}

// service implements the Flight RPCs.
type service struct {
	arrowflight.BaseFlightServer
	s *Server
}

// The RPCs below are not offered; they answer UNIMPLEMENTED with what to
// use instead, rather than the generated "method X not implemented".

// ListActions answers UNIMPLEMENTED: the server has no actions.
func (sv *service) ListActions(*arrowflight.Empty, arrowflight.FlightService_ListActionsServer) error {
	return status.Error(codes.Unimplemented, "this server has no actions; plan reads with GetFlightInfo and stream them with DoGet")
}

// DoAction answers UNIMPLEMENTED: the server has no actions. Tickets
// expire by themselves (CancelFlightInfo and RenewFlightEndpoint are not
// needed to free anything), and a stream is cancelled by cancelling its
// call.
func (sv *service) DoAction(a *arrowflight.Action, _ arrowflight.FlightService_DoActionServer) error {
	return status.Errorf(codes.Unimplemented, "this server has no actions (asked for %q); plan reads with GetFlightInfo and stream them with DoGet", a.GetType())
}

// PollFlightInfo answers UNIMPLEMENTED: planning reads only file indexes,
// so GetFlightInfo answers at once and there is nothing to poll.
func (sv *service) PollFlightInfo(context.Context, *arrowflight.FlightDescriptor) (*arrowflight.PollInfo, error) {
	return nil, status.Error(codes.Unimplemented, "PollFlightInfo is not offered; call GetFlightInfo, which answers at once")
}

// DoExchange answers UNIMPLEMENTED.
func (sv *service) DoExchange(arrowflight.FlightService_DoExchangeServer) error {
	return status.Error(codes.Unimplemented, "DoExchange is not offered; read with GetFlightInfo and DoGet, write with DoPut")
}

// Sentinels for the catalog's lookups, mapped to gRPC codes by toStatus.
// Messages that reach clients keep the "flight:" prefix they had before the
// package was renamed flight, so that clients matching them go on working;
// errors returned to Go callers say "flight:".
var (
	errNotFound    = errors.New("flight: not found")
	errUnavailable = errors.New("flight: not readable")
	errExists      = errors.New("flight: already exists")
	errDisabled    = errors.New("flight: disabled")
	errTooLarge    = errors.New("flight: over a limit")
)

// toStatus maps an error to the gRPC status a client sees. Messages name
// files relative to the root, never the server's own paths.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	code := codes.Internal
	switch {
	case errors.Is(err, errBadQuery):
		code = codes.InvalidArgument
	case errors.Is(err, errOutsideRoot), errors.Is(err, errBadTicket), errors.Is(err, errDisabled):
		code = codes.PermissionDenied
	case errors.Is(err, errStale), errors.Is(err, errUnavailable):
		code = codes.FailedPrecondition
	case errors.Is(err, errNotFound):
		code = codes.NotFound
	case errors.Is(err, errExists):
		code = codes.AlreadyExists
	case errors.Is(err, errTooLarge):
		code = codes.ResourceExhausted
	case errors.Is(err, tsfile.ErrCorrupt):
		code = codes.DataLoss
	case errors.Is(err, tsfile.ErrUnsupported):
		code = codes.Unimplemented
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ENAMETOOLONG):
		code = codes.InvalidArgument
	}
	return status.Error(code, clientMessage(err))
}

// clientMessage is err's message without the server's own paths: the
// operating system's errors carry them (open /srv/data/x.tsfile: ...),
// while the messages around them name files relative to the root, as
// the client does. The log keeps the whole error.
func clientMessage(err error) string {
	msg := err.Error()
	for e := err; e != nil; {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(e, &pe):
			msg = strings.ReplaceAll(msg, pe.Error(), pe.Op+": "+pe.Err.Error())
			e = pe.Err
		case errors.As(e, &le):
			msg = strings.ReplaceAll(msg, le.Error(), le.Op+": "+le.Err.Error())
			e = le.Err
		default:
			e = nil
		}
	}
	return msg
}
