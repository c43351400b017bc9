package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/flight"
	"github.com/tsarrow/tsarrow/objstore"
)

const serveHelp = `Usage: ts2arrow serve --root DIR [--addr HOST:PORT] [--token-file F] [--token-env VAR]
                      [--tls-cert F --tls-key F [--tls-client-ca F]] [--advertise URI]...
                      [--allow-put] [--compression zstd|lz4|none] [--partition-size BYTES]
                      [--memory-limit BYTES] [--max-streams N] [--queue-wait DUR]
                      [--max-streams-per-peer N] [--write-timeout DUR]
                      [--stream-memory BYTES] [--idle-timeout DUR]
                      [--stream-timeout DUR] [--rescan DUR] [--ticket-key-file F]
                      [--ticket-ttl DUR] [--time-unit ms] [--batch-size N]
                      [--log-format text|json] [--quiet|--verbose] [--raw] [--lenient] [--no-verify]

Serves the TsFiles under DIR (recursively; names starting with "." are
skipped) over Apache Arrow Flight, for pyarrow.flight, Spark and any other
Flight client. Files are opened once and shared by every stream; DIR is
walked again every --rescan (default 30s, 0 disables it) for new, changed
and removed files; a file already served is also checked for changes by
every call that uses it. A file that cannot be read is logged as a warning
and left out.

An IoTDB data directory (one holding sequence/ or unsequence/), DIR itself
or any directory under it, is served as its resolved tables rather than
file by file: the rows IoTDB's SELECT returns, with the deletions of the
.mods and .mods2 files applied and, of the copies of a point in several
files, the one IoTDB keeps. Its flights are [table] when DIR is the data
directory and [dir, table] (dir relative to DIR) otherwise; a JSON query
names it alone in "files". Its files are not served one by one. A ticket
of such a flight is bound to the size and modification time of every
data, resource and mods file: after a flush, a compaction or a DELETE,
DoGet answers FAILED_PRECONDITION and the client calls GetFlightInfo
again, so a stream never mixes two states of the directory. DoPut never
writes into a data directory. --raw serves the files of data directories
one by one, as they are (deleted points come back, overwritten ones show
twice).

--root may also be a bucket prefix, such as s3://bucket/iotdb/data/ (or
gs://, az://): its objects are served as the files of a directory would
be, read with range requests, and an IoTDB data directory in it is served
resolved, from its .resource and mods objects, as on disk. A file's version
is then its size and modification time. DoPut (--allow-put) and Flight
SQL (--sql) need a local directory and are refused with such a root.

The Flight RPCs:
  ListFlights    one flight per table across DIR (descriptor path [table]),
                 then one per file and table ([file, table]), then one per
                 table of each data directory ([table] or [dir, table]); a
                 criteria expression naming a table keeps only its flights
  GetFlightInfo  plans a descriptor: a path as above, or a command holding a
                 JSON query, of which only "table" is required:
                   {"table": "weather", "files": ["2024/a.tsfile"],
                    "columns": ["temperature"], "start": "2024-01-01T00:00:00Z",
                    "end": 1704153600000, "where": {"region": "north"},
                    "limit": 1000, "compression": "zstd"}
                 The columns are time, then exactly those named, in that
                 order (all of them without "columns"; time alone for []).
                 One endpoint per file and range of devices, cut at about
                 --partition-size of Arrow data (for a data directory's
                 table: per range of time partitions, cut at about
                 --partition-size of data files); a "limit" gives a single
                 endpoint; no endpoints means no rows. Tickets are signed
                 (not encrypted) and expire after --ticket-ttl.
  GetSchema      the schema of a descriptor's streams
  DoGet          streams an endpoint's ticket as record batches; a file
                 (or a data directory) changed since the flight was planned
                 gives FAILED_PRECONDITION: call GetFlightInfo again
  DoPut          with --allow-put only: writes the client's batches as a new
                 TsFile under DIR (descriptor path [file] or [file, table],
                 or a JSON command {"file", "table", "tags", "attributes"});
                 an existing file is never replaced; timestamps are written
                 in --time-unit, converted exactly from the batches' unit
ListActions, DoAction, PollFlightInfo and DoExchange answer UNIMPLEMENTED
(with --sql=false; see below).

Flight SQL (on by default; --sql=false turns it off): the same address
also speaks Arrow Flight SQL, for JDBC (jdbc:arrow-flight-sql://HOST:PORT),
ADBC (Python's adbc_driver_flightsql, R, Go) and BI tools. The engine is
DuckDB over DIR's tables, resolved as ts2arrow sql resolves a directory,
and again after a --rescan that finds a file added, removed or changed
(statements running keep the tables they started with). Read-only
statements (SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN), prepared
statements with parameters, the catalog calls, GetSqlInfo,
GetXdbcTypeInfo and CancelFlightInfo are answered; updates, ingestion,
Substrait and transactions answer UNIMPLEMENTED. Tokens, TLS, the memory
budget and the timeouts apply as to DoGet; a ticket is good only for the
token that planned it, until --ticket-ttl. DuckDB's own memory is capped
at --memory-limit too. A build without the SQL engine (CGO_ENABLED=0)
serves plain Flight only and logs that Flight SQL is off.
The gRPC health service (grpc.health.v1) answers SERVING until shutdown,
without a token.

Security:
  --token-file F     accepted bearer tokens, one a line (blank lines and lines
                     starting with # are ignored); clients send the header
                     "authorization: Bearer <token>" (scheme in any case)
  --token-env VAR    accepted tokens from the environment variable VAR,
                     comma-separated (may be combined with --token-file)
                     Without either, anyone who can reach --addr reads every
                     file (and, with --allow-put, writes new ones).
  --tls-cert, --tls-key    serve TLS with this PEM certificate and key
  --tls-client-ca F  also require client certificates signed by a CA in F
                     (mutual TLS)
  --ticket-key-file F  the HMAC key tickets are signed with: the file's raw
                     bytes, at least 16 (head -c 32 /dev/urandom > F). Without
                     it every process draws a random key, so a ticket is good
                     only at the server that issued it: servers sharing a root
                     behind --advertise or a load balancer MUST share this
                     file. Keep it secret; whoever holds it can mint tickets.

Limits:
  --memory-limit BYTES   the server's memory budget (default a quarter of
                         physical memory or of the lowest cgroup memory
                         limit over the process's cgroup and its parents,
                         such as a container's or a systemd slice's, at
                         most 4GiB): every stream
                         reserves its share before it decodes (at most
                         --stream-memory and the budget / --max-streams),
                         and its batches are cut to fit it; the Go runtime's
                         memory limit is set to the idle server's memory
                         plus the budget (unless GOMEMLIMIT is set), so
                         that the peak RSS stays within the idle RSS plus
                         1.1 x the budget
  --max-streams N        concurrent DoGet and DoPut streams (default 64)
  --queue-wait DUR       how long a stream waits for a slot and its share
                         of the budget before failing with
                         RESOURCE_EXHAUSTED (default 30s)
  --max-streams-per-peer N  streams one client IP address may run at once
                         (default a quarter of --max-streams); its further
                         streams wait without holding back other clients'
  --stream-memory BYTES  Arrow memory one stream may hold (default 1GiB)
  --idle-timeout DUR     end a stream whose client accepted nothing for DUR
  --write-timeout DUR    end a DoGet whose client takes no data, or a DoPut
                         whose client sends none, for DUR (default 10s)
                         with DEADLINE_EXCEEDED: a client holds a slot only
                         while it reads or writes
  --stream-timeout DUR   end any stream running longer (default: no limit)
Request headers are capped at 16 KiB and a message from a client (a
DoPut batch) at 16 MiB.
BYTES is an integer with an optional suffix: KB, MB, GB, TB (powers of
1000) or K, KiB, M, MiB, G, GiB, T, TiB (powers of 1024).

Logging goes to standard error, one line per stream (client, table, files,
rows, bytes, duration, status), as text or, with --log-format json, JSON
lines; --quiet keeps warnings and errors only, --verbose adds debug lines.
Tokens are never logged. Once listening it prints
  serving DIR on grpc://HOST:PORT        (grpc+tls:// with TLS)
with the port actually bound, so --addr 127.0.0.1:0 picks a free one.
Every page a stream reads is checked against its statistics, as convert
does: a page that contradicts them ends the stream with DATA_LOSS.
--lenient keeps such pages (and reads files with known writer quirks),
logging a warning per file and problem; --no-verify skips the check.
SIGINT or SIGTERM stops accepting streams and lets running ones finish for
up to 30s; a second signal stops at once.

Exit status: 0 after such a shutdown (one asked for is a success, so not
130 or 143 as for the other commands); 1 when the server cannot start (the
address is in use, a file of the flags does not read); 2 on a usage error.

Examples:
  ts2arrow serve --root /var/lib/iotdb/data/datanode/data
  ts2arrow serve --root data/ --addr 0.0.0.0:8815 --token-file tokens.txt \
      --tls-cert server.pem --tls-key server-key.pem
  ts2arrow serve --root data/ --addr 127.0.0.1:0 --log-format json --compression zstd
  ts2arrow serve --root /shared/tsfiles --addr 0.0.0.0:8815 --ticket-key-file key.bin \
      --advertise grpc+tls://flight1.example:8815 --advertise grpc+tls://flight2.example:8815
` + keysHelp + "\n" + objectHelp + `
Options:
`

// byteSize is a flag holding a number of bytes, such as 64MiB.
type byteSize int64

func (b *byteSize) String() string { return formatBytes(int64(*b)) }

// Type names the value in --help (pflag.Value).
func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
}

// parseBytes reads a size: an integer or decimal number with an optional
// unit suffix (see byteUnits), such as 500KB, 64MiB or 1.5GiB.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mul, ok := byteUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("want a size such as 500KB, 64MiB or 1GiB")
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/mul {
			return 0, fmt.Errorf("size %s is out of range", s)
		}
		return n * mul, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("want a size such as 500KB, 64MiB or 1GiB")
	}
	v := f * float64(mul)
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %s is out of range", s)
	}
	return int64(v), nil
}

// formatBytes spells n in the largest binary unit that divides it.
func formatBytes(n int64) string {
	for _, u := range []struct {
		name string
		mul  int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mul == 0 {
			return strconv.FormatInt(n/u.mul, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", serveHelp, stderr)
	root := fs.String("root", "", "directory whose TsFiles (and IoTDB data directories) are served (required)")
	addr := fs.String("addr", "127.0.0.1:8815", "address to listen on, HOST:PORT (port 0 picks a free one)")
	tokenFile := fs.String("token-file", "", "file of accepted bearer tokens, one a line")
	tokenEnv := fs.String("token-env", "", "environment variable holding accepted bearer tokens, comma-separated")
	tlsCert := fs.String("tls-cert", "", "PEM certificate (chain) to serve TLS with; needs --tls-key")
	tlsKey := fs.String("tls-key", "", "PEM private key of --tls-cert")
	tlsClientCA := fs.String("tls-client-ca", "", "PEM CA certificates that client certificates must chain to (mutual TLS)")
	var advertise listFlag
	fs.Var(&advertise, "advertise", "location URI put on every endpoint, such as grpc+tls://host:8815 (repeatable)")
	allowPut := fs.Bool("allow-put", false, "enable DoPut, which writes new TsFiles under the root")
	compression := fs.String("compression", "none", "default IPC body compression of DoGet streams: zstd, lz4 or none")
	partition := byteSize(64 << 20)
	fs.Var(&partition, "partition-size", "estimated Arrow bytes at which a flight's devices are cut into endpoints")
	memoryLimit := byteSize(flight.DefaultMemoryLimit())
	fs.Var(&memoryLimit, "memory-limit", "the server's memory budget, which streams are admitted against (a quarter of physical memory or of the cgroup memory limit when lower, at most 4GiB)")
	maxStreams := fs.Int("max-streams", 64, "concurrent DoGet and DoPut streams")
	perPeer := fs.Int("max-streams-per-peer", 0, "streams one client IP address may run at once (0: a quarter of --max-streams)")
	queueWait := fs.Duration("queue-wait", 30*time.Second, "how long a stream waits for a slot and its share of --memory-limit")
	streamMemory := byteSize(1 << 30)
	fs.Var(&streamMemory, "stream-memory", "Arrow memory one stream may hold")
	idle := fs.Duration("idle-timeout", 2*time.Minute, "end a stream whose client accepted nothing for this long")
	writeTimeout := fs.Duration("write-timeout", 10*time.Second, "end a DoGet whose client takes no data, or a DoPut whose client sends none, for this long, freeing its slot")
	streamTimeout := fs.Duration("stream-timeout", 0, "end any stream running this long (0: no limit)")
	rescan := fs.Duration("rescan", 30*time.Second, "how often the root is walked for new, changed and removed files (0: never)")
	keyFile := fs.String("ticket-key-file", "", "file whose raw bytes (at least 16) sign tickets; share it between servers of one root")
	ttl := fs.Duration("ticket-ttl", 24*time.Hour, "how long a ticket stays valid")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: s, ms, us or ns")
	batch := fs.Int("batch-size", 65536, "rows per record batch")
	maxBatch := byteSize(512 << 10)
	fs.Var(&maxBatch, "max-batch-bytes", "Arrow bytes above which a batch is sent as row slices (gRPC clients refuse messages over 4 MiB by default)")
	logFormat := fs.String("log-format", "text", "log format on standard error: text or json")
	quiet := fs.Bool("quiet", false, "log warnings and errors only")
	verbose := fs.Bool("verbose", false, "log debug lines too")
	rawFiles := fs.Bool("raw", false, "serve the TsFiles of IoTDB data directories one by one, as they are (see above)")
	lenient := fs.Bool("lenient", false, "read files with known writer quirks and pages that contradict their statistics, logging a warning for each (see convert --help)")
	noVerify := fs.Bool("no-verify", false, "do not check decoded pages against their statistics (see convert --help)")
	keys := addKeyFlags(fs)
	modsV1 := fs.String("mods-v1", "auto", "in IoTDB data directories, how .mods deletions apply: offset, whole or auto (see convert --help)")
	var maxMods byteSize
	addMaxModsFlag(fs, &maxMods)
	sqlOn := fs.Bool("sql", true, "also serve Arrow Flight SQL on the same address (--sql=false: plain Flight only)")
	obj := addObjectFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	ropts, err := keys.readOptions(*lenient)
	if err != nil {
		return err
	}
	ropts.NoVerify = *noVerify
	if len(pos) > 0 {
		return usagef("serve takes no arguments (got %q); name the directory with --root DIR", pos[0])
	}
	if *root == "" {
		return usagef("serve needs --root DIR")
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usagef("--addr %q: want HOST:PORT", *addr)
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	if *tlsClientCA != "" && *tlsCert == "" {
		return usagef("--tls-client-ca needs --tls-cert and --tls-key")
	}
	for _, u := range advertise {
		if err := flight.CheckLocation(u); err != nil {
			return usagef("--advertise %q: %v", u, err)
		}
	}
	switch *compression {
	case "zstd", "lz4", "none":
	default:
		return usagef("unknown --compression %q (want zstd, lz4 or none)", *compression)
	}
	switch {
	case partition <= 0:
		return usagef("--partition-size must be positive")
	case *maxStreams <= 0:
		return usagef("--max-streams must be positive")
	case streamMemory <= 0:
		return usagef("--stream-memory must be positive")
	case memoryLimit <= 0:
		return usagef("--memory-limit must be positive")
	case *queueWait <= 0:
		return usagef("--queue-wait must be positive")
	case *idle <= 0:
		return usagef("--idle-timeout must be positive")
	case *writeTimeout <= 0:
		return usagef("--write-timeout must be positive")
	case *perPeer < 0:
		return usagef("--max-streams-per-peer must not be negative")
	case *streamTimeout < 0:
		return usagef("--stream-timeout must not be negative")
	case *rescan < 0:
		return usagef("--rescan must not be negative")
	case *ttl <= 0:
		return usagef("--ticket-ttl must be positive")
	case *batch <= 0:
		return usagef("--batch-size must be positive")
	case *quiet && *verbose:
		return usagef("--quiet and --verbose exclude each other")
	}
	tu, err := timeUnitFlag(*unit)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if *quiet {
		level = slog.LevelWarn
	} else if *verbose {
		level = slog.LevelDebug
	}
	var handler slog.Handler
	switch *logFormat {
	case "text":
		handler = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})
	case "json":
		handler = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})
	default:
		return usagef("unknown --log-format %q (want text or json)", *logFormat)
	}
	log := slog.New(handler)

	opts := flight.Options{
		Root: *root, TimeUnit: arrowconv.TimeUnitOf(tu), BatchSize: *batch,
		PartitionBytes: int64(partition), Advertise: advertise, AllowPut: *allowPut,
		MaxStreams: *maxStreams, StreamMemory: int64(streamMemory),
		MemoryLimit: int64(memoryLimit), QueueWait: *queueWait, GoMemoryLimit: true,
		IdleTimeout: *idle, StreamTimeout: *streamTimeout, TicketTTL: *ttl,
		WriteTimeout: *writeTimeout, MaxStreamsPerPeer: *perPeer,
		Rescan: *rescan, Logger: log, ReadOptions: ropts, MaxBatchBytes: int64(maxBatch),
		Raw: *rawFiles,
	}
	dso, err := (&datasetFlags{modsV1: *modsV1, maxMods: maxMods}).options(nil)
	if err != nil {
		return err
	}
	opts.ModsV1 = dso.ModsV1
	opts.MaxModsSize = int64(maxMods)
	if *rescan == 0 {
		opts.Rescan = -1 // flight reads 0 as its default
	}
	if *compression != "none" {
		opts.Compression = *compression
	}
	if *tokenFile != "" {
		toks, err := readTokenFile(*tokenFile)
		if err != nil {
			return err
		}
		opts.Tokens = append(opts.Tokens, toks...)
	}
	if *tokenEnv != "" {
		toks, err := envTokens(*tokenEnv)
		if err != nil {
			return err
		}
		opts.Tokens = append(opts.Tokens, toks...)
	}
	if *tlsCert != "" {
		if opts.TLS, err = serverTLS(*tlsCert, *tlsKey, *tlsClientCA); err != nil {
			return err
		}
	}
	if *keyFile != "" {
		key, err := os.ReadFile(*keyFile)
		if err != nil {
			return err
		}
		if len(key) < 16 {
			return &fileError{*keyFile, fmt.Errorf("ticket key of %d bytes is too short (want at least 16 raw bytes, such as head -c 32 /dev/urandom)", len(key))}
		}
		opts.TicketKey = key
	}
	objectRoot := objstore.IsURL(*root)
	if objectRoot {
		if *allowPut {
			return usagef("--allow-put needs a local --root: DoPut writes a checked temporary file beside its target and links it into place, which a bucket does not offer")
		}
		if *sqlOn && fs.Changed("sql") {
			return usagef("Flight SQL (--sql) is not served over an object root yet; pass --sql=false, or serve a local copy")
		}
		*sqlOn = false
		rfs, closeStore, err := objectRootFS(context.Background(), *root, obj.options(), log)
		if err != nil {
			return err
		}
		defer closeStore()
		opts.RootFS = rfs
		opts.Root = strings.TrimSuffix(*root, "/")
	} else {
		st, err := os.Stat(*root)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return &fileError{*root, errors.New("is not a directory")}
		}
	}

	if *sqlOn {
		eng, closer, err := openSQLEngine(context.Background(), *root, ropts, *dso, *rawFiles, opts.TimeUnit, int64(memoryLimit), *rescan, log)
		if err != nil {
			return fmt.Errorf("opening the SQL engine for Flight SQL: %w", err)
		}
		if eng == nil {
			// A warning only when --sql was asked for: by default a build
			// without the engine is a plain Flight server, and says so.
			level := slog.LevelInfo
			if fs.Changed("sql") {
				level = slog.LevelWarn
			}
			log.Log(context.Background(), level, "this build has no SQL engine, so Flight SQL is off (build with CGO_ENABLED=1 and -tags duckdb_arrow); plain Flight is served")
		} else {
			opts.SQL = eng
			defer closer.Close()
			flight.ServerVersion = strings.TrimPrefix(strings.SplitN(versionText(buildInfo()), "\n", 2)[0], "ts2arrow ")
		}
	}

	// From here a signal shuts the server down rather than killing it;
	// one that arrives while the root is scanned is acted on once
	// serving starts.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	srv, err := flight.NewServer(opts)
	if err != nil {
		lis.Close()
		return err
	}
	if opts.SQL != nil {
		// The tables are resolved once the server has scanned the root,
		// whose readable files it knows then.
		startSQLEngine(opts.SQL, func() []string {
			var files []string
			if len(srv.DataDirs()) > 0 {
				return nil
			}
			for _, f := range srv.Files() {
				files = append(files, filepath.Join(*root, filepath.FromSlash(f)))
			}
			return files
		})
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()

	scheme := "grpc"
	if opts.TLS != nil {
		scheme = "grpc+tls"
	}
	where := scheme + "://" + lis.Addr().String()
	shown := *root
	if abs, err := filepath.Abs(*root); err == nil && !objectRoot {
		shown = abs
	}
	if len(opts.Tokens) == 0 {
		if *allowPut {
			log.Warn("DoPut is enabled without authentication: anyone who can reach the server can write files under the root; pass --token-file or --token-env")
		} else if !loopback(lis.Addr()) {
			log.Warn("no authentication on a non-loopback address: anyone who can reach it can read every file; pass --token-file or --token-env")
		}
	}
	if len(advertise) > 0 && *keyFile == "" {
		log.Warn("--advertise without --ticket-key-file: tickets issued here are valid only at this process")
	}
	problems := srv.Problems()
	// The start line comes last, so that whoever waits for it has seen
	// every warning, and is written whatever the level, since scripts read
	// the address from it.
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "serving "+shown+" on "+where, 0)
	rec.AddAttrs(slog.String("addr", where), slog.String("root", shown),
		slog.Int("files", len(srv.Files())), slog.Int("unreadable", len(problems)),
		slog.Int("data_dirs", len(srv.DataDirs())),
		slog.Bool("auth", len(opts.Tokens) > 0), slog.Bool("tls", opts.TLS != nil),
		slog.Bool("mutual_tls", *tlsClientCA != ""), slog.Bool("put", *allowPut),
		slog.Bool("flight_sql", opts.SQL != nil))
	_ = handler.Handle(context.Background(), rec)

	select {
	case err := <-served:
		// The listener failed; stop what is left.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		if err == nil {
			err = errors.New("server stopped unexpectedly")
		}
		return err
	case sig := <-sigs:
		log.Info("shutting down: draining running streams for up to 30s; signal again to stop at once", "signal", sig.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		select {
		case sig := <-sigs:
			log.Warn("second signal: stopping running streams now", "signal", sig.String())
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("streams still running were cancelled", "error", err)
	}
	if err := <-served; err != nil {
		log.Warn("serve ended with an error", "error", err)
	}
	log.Info("stopped")
	return nil
}

// readTokenFile reads bearer tokens, one a line; blank lines and lines
// starting with # are ignored. Errors never quote a token.
func readTokenFile(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var toks []string
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.ContainsAny(t, " \t") {
			return nil, &fileError{name, fmt.Errorf("line %d: a token contains white space", line)}
		}
		toks = append(toks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, &fileError{name, err}
	}
	if len(toks) == 0 {
		// Serving without authentication because a file was empty would
		// be a nasty surprise.
		return nil, &fileError{name, errors.New("holds no tokens")}
	}
	return toks, nil
}

// envTokens reads comma-separated bearer tokens from an environment
// variable.
func envTokens(name string) ([]string, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return nil, usagef("--token-env %s: the variable is not set", name)
	}
	var toks []string
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if strings.ContainsAny(t, " \t\r\n") {
			return nil, usagef("--token-env %s: a token contains white space", name)
		}
		toks = append(toks, t)
	}
	if len(toks) == 0 {
		return nil, usagef("--token-env %s holds no tokens", name)
	}
	return toks, nil
}

// serverTLS loads the certificate and key, and for mutual TLS the CAs that
// client certificates must chain to.
func serverTLS(certFile, keyFile, clientCA string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading --tls-cert %s and --tls-key %s: %w", certFile, keyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCA != "" {
		pem, err := os.ReadFile(clientCA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &fileError{clientCA, errors.New("holds no PEM certificate")}
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

func loopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

var _ pflag.Value = (*byteSize)(nil)
