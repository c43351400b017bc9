package flight

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/scan"
)

// streamStats is what a stream has done so far, shared between the
// goroutine producing it and the handler watching it.
type streamStats struct {
	rows, bytes atomic.Int64
	progress    atomic.Int64 // UnixNano of the last batch decoded or accepted
	queued      atomic.Bool  // waiting to be admitted, which is not idling
	// sending is the UnixNano since which a batch has been waiting to go
	// to the client (0: none is), for Options.WriteTimeout.
	sending atomic.Int64
	share   atomic.Int64 // bytes of the memory budget reserved, once admitted
	batch   atomic.Int64 // rows per batch its share allows (DoGet)
	meter   atomic.Pointer[scan.Meter]
}

func (st *streamStats) touch() { st.progress.Store(time.Now().UnixNano()) }

// DoGet streams the record batches of a ticket's partitions.
//
// The batches are produced and sent on a goroutine of their own while the
// handler watches the stream's timeouts and the server's shutdown: a Send
// blocked by a client that stopped reading can only be ended by the
// handler returning, which makes gRPC close the stream.
func (sv *service) DoGet(t *arrowflight.Ticket, stream arrowflight.FlightService_DoGetServer) error {
	s := sv.s
	began := time.Now()
	ctx := stream.Context()
	g, err := s.sign.verify(t.GetTicket())
	if err != nil {
		s.logStream(ctx, "DoGet", nil, nil, began, err)
		return toStatus(err)
	}
	st := &streamStats{}
	st.touch()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = s.watchStream(st, func() error { return s.pump(pctx, g, stream, st) }, nil, nil)
	if err != nil && ctx.Err() != nil {
		err = status.FromContextError(ctx.Err()).Err()
	}
	s.logStream(ctx, "DoGet", g, st, began, err)
	if err == nil {
		return nil
	}
	return toStatus(err)
}

// watchStream runs pump, which produces and sends a stream's batches, on
// a goroutine of its own and waits for it, ending the stream early (the
// handler returning makes gRPC close it, which also ends a Send blocked on
// a client that stopped reading) when the client stalls it (stalled), it
// runs longer than StreamTimeout, the server stops hard, or cancelled is
// closed (cancelErr; nil cancelled never is). DoGet and Flight SQL's DoGet
// share it.
func (s *Server) watchStream(st *streamStats, pump func() error, cancelled <-chan struct{}, cancelErr error) error {
	done := make(chan error, 1)
	s.streams.Add(1)
	go func() {
		defer s.streams.Done()
		done <- pump()
	}()
	var overall <-chan time.Time
	if s.opts.StreamTimeout > 0 {
		tm := time.NewTimer(s.opts.StreamTimeout)
		defer tm.Stop()
		overall = tm.C
	}
	tick := time.NewTicker(s.watchEvery())
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			if err := s.stalled(st, "took"); err != nil {
				return err
			}
		case <-overall:
			return status.Errorf(codes.DeadlineExceeded, "stream ran longer than %s", s.opts.StreamTimeout)
		case <-s.hardStop:
			return status.Error(codes.Unavailable, "server shutting down")
		case <-cancelled:
			return cancelErr
		}
	}
}

// watchEvery is how often a stream's handler checks its timeouts.
func (s *Server) watchEvery() time.Duration {
	every := min(s.opts.IdleTimeout/4, time.Second)
	if s.opts.WriteTimeout > 0 {
		every = min(every, s.opts.WriteTimeout/4)
	}
	return every
}

// stalled returns the error that ends a stream whose client has stalled
// it: for DoGet (verb "took"), nothing accepted for IdleTimeout; for both,
// one message waiting on the client for WriteTimeout (DoPut, verb "sent":
// the next message from it).
func (s *Server) stalled(st *streamStats, verb string) error {
	if idle := time.Since(time.Unix(0, st.progress.Load())); verb == "took" && idle > s.opts.IdleTimeout && !st.queued.Load() {
		return status.Errorf(codes.DeadlineExceeded, "stream idle for %s (the client accepted nothing)", idle.Round(time.Second))
	}
	if since := st.sending.Load(); since != 0 && s.opts.WriteTimeout > 0 {
		if w := time.Since(time.Unix(0, since)); w > s.opts.WriteTimeout {
			return status.Errorf(codes.DeadlineExceeded, "the client %s no data for %s, so the stream gave up its slot (a client holds one only while it reads or writes; the operator sets the limit with --write-timeout)", verb, w.Round(100*time.Millisecond))
		}
	}
	return nil
}

// testHookPartSent, when set by a test before the server starts, runs
// after each part of a DoGet stream is sent.
var testHookPartSent func(file string)

// pump streams the parts of g in order through one IPC stream. The bytes
// sent are counted in st once gRPC accepts them: a send returns once flow
// control has room, so progress stops when the client does.
func (s *Server) pump(ctx context.Context, g *grant, out grpc.ServerStream, st *streamStats) (err error) {
	if g.Dataset != nil {
		return s.pumpDataset(ctx, g, out, st)
	}
	entries := make([]*entry, 0, len(g.Parts))
	defer func() { releaseAll(entries) }()
	for _, p := range g.Parts {
		e, err := s.cat.get(p.File)
		if err != nil {
			if errors.Is(err, errNotFound) {
				return fmt.Errorf("%w: %s is no longer served (removed since the flight was planned); call GetFlightInfo again", errStale, p.File)
			}
			return err
		}
		entries = append(entries, e)
		if e.fingerprint() != p.Version {
			return fmt.Errorf("%w: %s changed since the flight was planned; call GetFlightInfo again", errStale, p.File)
		}
		if _, ok := e.table(g.Table); !ok {
			return fmt.Errorf("%w: %s has no table %q", errStale, p.File, g.Table)
		}
	}
	opts := arrowconv.Options{
		BatchSize: s.opts.BatchSize, Workers: s.opts.Workers,
		TimeUnit: s.opts.TimeUnit,
		Columns:  g.Columns, Where: g.Where,
	}
	if g.Start != nil && g.End != nil {
		opts.Time = &arrowconv.TimeRange{Start: *g.Start, End: *g.End}
	}
	// The stream's share of the budget is reserved, and its batch size
	// cut to fit, before anything is decoded.
	rows, width, cols := s.estimateParts(g, entries, &opts)
	share, batch := s.sizeStream(rows, width, cols)
	adm, err := s.admit(ctx, st, share, batch)
	if err != nil {
		return err
	}
	defer adm.release()
	meter := adm.meter
	opts.Allocator, opts.BatchSize = meter, adm.batch
	var w *batchWriter
	var schema *arrow.Schema
	defer func() {
		if w != nil {
			if cerr := w.Close(); err == nil {
				err = cerr
			}
		}
	}()
	left := g.Limit
	for i, p := range g.Parts {
		e := entries[i]
		devs, err := e.f.Devices(g.Table)
		if err != nil {
			return fmt.Errorf("%s: %w", p.File, err)
		}
		if p.Lo < 0 || p.Hi > len(devs) || p.Lo >= p.Hi {
			return fmt.Errorf("%w: %s has %d devices, not [%d, %d)", errStale, p.File, len(devs), p.Lo, p.Hi)
		}
		o := opts
		o.Devices = devs[p.Lo:p.Hi]
		o.Limit = left
		var rdr *arrowconv.Reader
		if g.Tree {
			rdr, err = arrowconv.NewTreeReader(e.f, g.Table, &o)
		} else {
			rdr, err = arrowconv.NewTableReader(e.f, g.Table, &o)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p.File, err)
		}
		// arrowconv gives the columns in the query's order; checked here.
		rs, err := projection(rdr.Schema(), g.Columns)
		if err != nil {
			rdr.Release()
			return fmt.Errorf("%w: %s: %v", errStale, p.File, err)
		}
		if w == nil {
			schema = rs
			w = newBatchWriter(ctx, out, st, &s.holds, meter, func(a memory.Allocator) []ipc.Option {
				return s.ipcOptions(schema, g, a)
			})
			w.maxBytes = s.opts.MaxBatchBytes
		} else if !rs.Equal(schema) {
			rdr.Release()
			return fmt.Errorf("%w: %s: schema changed since the flight was planned", errStale, p.File)
		}
		n, err := s.copyBatches(ctx, w, rdr, st, meter)
		rdr.Release()
		s.logWarnings(e)
		if testHookPartSent != nil {
			testHookPartSent(p.File)
		}
		// A file rewritten in place while being read is read through the
		// index of its old version: what was sent may be wrong rows, or
		// may have failed as corrupt. Say so rather than end cleanly.
		if s.cat.rewritten(e) {
			return fmt.Errorf("%w: %s was rewritten while it was being read, so the rows sent may be wrong: discard them and call GetFlightInfo again", errStale, p.File)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p.File, err)
		}
		if g.Limit > 0 {
			if left -= n; left <= 0 {
				break
			}
		}
	}
	return nil
}

// logWarnings logs what reads of e's file worked around under
// ReadOptions.Lenient (a page contradicting its statistics, a writer
// quirk) since the last call: the file is shared by every stream, so each
// warning is logged once.
func (s *Server) logWarnings(e *entry) {
	ws := e.f.Warnings()
	for {
		done := e.warned.Load()
		if done >= int64(len(ws)) {
			return
		}
		if e.warned.CompareAndSwap(done, int64(len(ws))) {
			for _, w := range ws[done:] {
				s.log.Warn("tsfile read with a warning", "file", e.rel, "warning", w.String())
			}
			return
		}
	}
}

// estimateParts predicts the rows of a file stream, the Arrow bytes of one
// of its rows and its column count from the files' statistics
// (arrowconv.PlanTable), as GetFlightInfo does. A part that cannot be
// planned counts at the width of its schema; reading it reports the error.
func (s *Server) estimateParts(g *grant, entries []*entry, opts *arrowconv.Options) (rows int64, width float64, cols int) {
	var bytes int64
	for i, p := range g.Parts {
		e := entries[i]
		o := *opts
		if devs, err := e.f.Devices(g.Table); err == nil && p.Lo >= 0 && p.Hi <= len(devs) && p.Lo < p.Hi {
			o.Devices = devs[p.Lo:p.Hi]
		}
		var pl *arrowconv.Plan
		var err error
		if g.Tree {
			pl, err = arrowconv.PlanTree(e.f, g.Table, &o)
		} else {
			pl, err = arrowconv.PlanTable(e.f, g.Table, &o)
		}
		if err != nil {
			continue
		}
		r, b := pl.Totals(0)
		rows, bytes = rows+r, bytes+b
		cols = max(cols, len(pl.Schema.Fields()))
		if rows == 0 && width == 0 {
			width = schemaWidth(pl.Schema)
		}
	}
	if rows > 0 {
		width = float64(bytes) / float64(rows)
	}
	if g.Limit > 0 && (rows == 0 || rows > g.Limit) {
		rows = g.Limit
	}
	return rows, width, cols
}

func (s *Server) ipcOptions(schema *arrow.Schema, g *grant, mem memory.Allocator) []ipc.Option {
	opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
	switch g.Compression {
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	}
	return opts
}

// copyBatches writes the reader's batches, checking between them for
// cancellation and the stream's memory budget. The next batch is decoded
// while the previous one is encoded and sent, so that decoding and the
// network each keep a core busy instead of taking turns. The hand-over is
// unbuffered: a decoded batch waiting in a buffer while another is decoded
// was one batch more than the stream's share counts (batchesInFlight), and
// a peak over the share on a loaded machine; the throughput it bought was
// within the benchmark's noise.
func (s *Server) copyBatches(ctx context.Context, w *batchWriter, rdr array.RecordReader, st *streamStats, meter *scan.Meter) (n int64, err error) {
	ch := make(chan arrow.RecordBatch)
	stop := make(chan struct{})
	var rerr error
	go func() {
		defer close(ch)
		for rdr.Next() {
			st.touch()
			rec := rdr.RecordBatch()
			rec.Retain()
			select {
			case ch <- rec:
			case <-stop:
				rec.Release()
				return
			}
		}
		rerr = rdr.Err()
	}()
	defer func() {
		// The decoder must be done with rdr before the caller releases it.
		close(stop)
		for rec := range ch {
			rec.Release()
		}
		if err == nil {
			err = rerr
		}
	}()
	for rec := range ch {
		if err := ctx.Err(); err != nil {
			rec.Release()
			return n, err
		}
		if use := meter.InUse(); use > s.opts.StreamMemory {
			rec.Release()
			return n, fmt.Errorf("%w: the stream holds %d bytes of Arrow memory, over its budget of %d; ask for fewer columns or a smaller batch size", errTooLarge, use, s.opts.StreamMemory)
		}
		err := w.Write(rec)
		rows := rec.NumRows()
		rec.Release()
		if err != nil {
			return n, err
		}
		n += rows
		st.rows.Add(rows)
	}
	return n, nil
}

// logStream writes the one line a stream gets.
func (s *Server) logStream(ctx context.Context, rpc string, g *grant, st *streamStats, began time.Time, err error) {
	attrs := []slog.Attr{slog.String("rpc", rpc), slog.String("client", client(ctx))}
	if g != nil {
		devices := 0
		files := map[string]bool{}
		for _, p := range g.Parts {
			devices += p.Hi - p.Lo
			files[p.File] = true
		}
		attrs = append(attrs, slog.String("table", g.Table), slog.Int("files", len(files)),
			slog.Int("parts", len(g.Parts)), slog.Int("devices", devices))
		if g.Dataset != nil {
			attrs = append(attrs, slog.String("data_dir", g.Dataset.Dir))
		}
		if len(g.Parts) == 1 {
			attrs = append(attrs, slog.String("file", g.Parts[0].File))
		}
		if g.Columns != nil {
			attrs = append(attrs, slog.Int("columns", len(g.Columns)))
		}
		if g.Start != nil {
			attrs = append(attrs, slog.Int64("start", *g.Start), slog.Int64("end", *g.End))
		}
		if len(g.Where) > 0 {
			attrs = append(attrs, slog.Any("where", g.Where))
		}
		if g.Limit > 0 {
			attrs = append(attrs, slog.Int64("limit", g.Limit))
		}
		if g.Compression != "" {
			attrs = append(attrs, slog.String("compression", g.Compression))
		}
	}
	if st != nil {
		attrs = append(attrs, slog.Int64("rows", st.rows.Load()), slog.Int64("bytes", st.bytes.Load()))
		if m := st.meter.Load(); m != nil {
			attrs = append(attrs, slog.Int64("peak_memory", m.Peak()))
		}
		if sh := st.share.Load(); sh > 0 {
			attrs = append(attrs, slog.Int64("memory_share", sh))
		}
		if b := st.batch.Load(); b > 0 {
			attrs = append(attrs, slog.Int64("batch_rows", b))
		}
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(began)))
	level := slog.LevelInfo
	if err != nil {
		code := status.Code(toStatus(err))
		attrs = append(attrs, slog.String("code", code.String()), slog.String("error", err.Error()))
		if code == codes.Internal || code == codes.DataLoss {
			level = slog.LevelError
		} else {
			level = slog.LevelWarn
		}
	} else {
		attrs = append(attrs, slog.String("code", codes.OK.String()))
	}
	s.log.LogAttrs(context.Background(), level, "stream", attrs...)
}

// peerKey is the identity a stream counts against Options.MaxStreamsPerPeer
// by: the client's IP address (its connections differ in port only), or
// the address as it is for other networks (a Unix socket's peers are all
// one).
func peerKey(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return ""
	}
	if ta, ok := p.Addr.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	a := p.Addr.String()
	if host, _, err := net.SplitHostPort(a); err == nil {
		return host
	}
	return p.Addr.Network() + ":" + a
}

// client names the peer of a call: its address, and the subject of its
// certificate under mutual TLS.
func client(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return "unknown"
	}
	name := p.Addr.String()
	if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(ti.State.PeerCertificates) > 0 {
		name += " cn=" + ti.State.PeerCertificates[0].Subject.CommonName
	}
	return name
}
