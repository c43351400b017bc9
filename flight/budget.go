package flight

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/internal/scan"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Sizing of a stream's share of the memory budget.
const (
	// batchesInFlight is a stream's Arrow memory in batches: a reader
	// alone peaks at about 3.3 times its largest batch (the batch handed
	// out, and the builders' buffers while they grow, when the old and the
	// new one are both held: measured 3.25-3.30x for batches of 1,000 to
	// 11,000 rows of 1.5 KB strings), and DoGet holds the batch being sent
	// and at most one sent before it whose buffers gRPC still holds
	// (batchWriter.write); the reader hands over unbuffered (copyBatches).
	// That is about 5.3 batches at worst: measured on a loaded 2-core
	// machine, 4.3 typically and 5.2 at most in 80 streams. A stream's
	// share divided by this and by the bytes of a row gives its batch
	// size.
	batchesInFlight = 6
	// minBatchRows is the fewest rows a batch is cut to, however small the
	// share: below it the per-batch costs (a round of column jobs, an IPC
	// message) dominate. A stream whose floor exceeds its share takes the
	// floor, and the budget is what makes others wait for it.
	minBatchRows = 256
	// streamOverhead is the memory of a stream outside its Arrow batches,
	// counted in its reservation: the page-stream windows and chunk buffers
	// of the reader, decompression scratch and gRPC's send buffers. About
	// 256 KiB a column is read through a window (tsfile.PageStream). The
	// windows and chunk buffers come from the stream's allocator, so its
	// meter counts them too; a chunk's buffer grows only as its pages parse
	// (tsfile.ChunkBuffer), so a declared size no bytes bear out costs
	// nothing.
	streamOverhead = 1 << 20
	columnOverhead = 256 << 10
	// defaultMemoryLimit applies where physical memory cannot be read.
	defaultMemoryLimit    = 1 << 30
	maxDefaultMemoryLimit = 4 << 30
)

// DefaultMemoryLimit is the budget a zero Options.MemoryLimit selects: a
// quarter of the machine's physical memory (or of the lowest memory limit
// of the process's cgroup and its parents, when that is lower: a
// container's, a systemd slice's), capped at 4 GiB; 1 GiB where neither
// can be read.
func DefaultMemoryLimit() int64 {
	phys := physicalMemory()
	if phys <= 0 {
		return defaultMemoryLimit
	}
	return min(phys/4, maxDefaultMemoryLimit)
}

// admission is what a stream was granted: its reservation, and the batch
// size its share allows.
type admission struct {
	share int64
	batch int
	done  func()
	// meter counts the Arrow memory the stream holds (streamStats.meter),
	// and its readers' chunk buffers and page-stream windows.
	meter *scan.Meter
}

func (a *admission) release() {
	if a != nil && a.done != nil {
		a.done()
		a.done = nil
	}
}

// memBudget admits streams against the server's two limits at once: the
// count of streams (Options.MaxStreams) and the bytes they reserve
// (Options.MemoryLimit). Waiters are served in arrival order, so a stream
// asking for much is not starved by a run of small ones.
type memBudget struct {
	limit      int64
	maxStreams int
	perPeer    int // streams one peer may hold; <= 0: no cap

	mu      sync.Mutex
	used    int64          // bytes reserved by admitted streams
	streams int            // admitted streams
	peers   map[string]int // admitted streams by peer
	queue   []*budgetWaiter

	// Giving memory back once the server is idle: quiet is how long no
	// stream must run first (negative: never); gen tells a timer whether
	// a stream came and went since it was set.
	quiet    time.Duration
	timer    *time.Timer
	gen      uint64
	giveBack func()
}

type budgetWaiter struct {
	peer  string
	need  int64
	ready chan struct{} // closed once admitted
}

func newMemBudget(limit int64, maxStreams, perPeer int, quiet time.Duration) *memBudget {
	return &memBudget{limit: limit, maxStreams: maxStreams, perPeer: perPeer, quiet: quiet,
		peers: map[string]int{}, giveBack: freeOSMemory}
}

// freeOSMemory returns the heap's free pages to the operating system.
// Twice, because a sync.Pool (the readers' buffer pool among them) keeps
// what it held through one collection as its victim cache and drops it
// only at the next.
func freeOSMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// fits reports whether a stream needing need bytes can be admitted now,
// its peer's cap aside (peerFull).
func (b *memBudget) fits(need int64) bool {
	return b.streams < b.maxStreams && b.used+need <= b.limit
}

// peerFull reports whether peer holds as many streams as one peer may.
func (b *memBudget) peerFull(peer string) bool {
	return b.perPeer > 0 && b.peers[peer] >= b.perPeer
}

// reserve waits up to wait for a stream slot and need bytes of the budget,
// and returns the function that gives both back. need is capped at the
// whole budget, so that any one stream can run on an idle server. A peer
// (a client's address) holds at most perPeer streams: its next waits, and
// does not hold back the streams of other peers queued behind it.
func (b *memBudget) reserve(ctx context.Context, peer string, need int64, wait time.Duration) (func(), error) {
	need = min(max(need, 0), b.limit)
	b.mu.Lock()
	if !b.peerFull(peer) && b.fits(need) && !b.queuedAheadLocked() {
		b.admitLocked(peer, need)
		b.mu.Unlock()
		return b.releaser(peer, need), nil
	}
	w := &budgetWaiter{peer: peer, need: need, ready: make(chan struct{})}
	b.queue = append(b.queue, w)
	b.mu.Unlock()

	t := time.NewTimer(wait)
	defer t.Stop()
	var err error
	select {
	case <-w.ready:
		return b.releaser(peer, need), nil
	case <-t.C:
		err = b.exhausted(peer, need, wait)
	case <-ctx.Done():
		err = status.FromContextError(ctx.Err()).Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready:
		// Admitted while giving up: hand the reservation back.
		b.releaseLocked(peer, need)
	default:
		for i, q := range b.queue {
			if q == w {
				b.queue = append(b.queue[:i], b.queue[i+1:]...)
				break
			}
		}
		// The head may have been the one holding the others back.
		b.grantLocked()
	}
	return nil, err
}

// exhausted is the error of a stream that waited in vain, saying which
// limit held it back and what to do.
func (b *memBudget) exhausted(peer string, need int64, wait time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.peerFull(peer) {
		return status.Errorf(codes.ResourceExhausted, "this client already runs %d streams, as many as one client address may (waited %s); finish or cancel one first, or read its streams to the end (the operator can raise --max-streams-per-peer)", b.perPeer, wait)
	}
	if b.streams >= b.maxStreams {
		return status.Errorf(codes.ResourceExhausted, "all %d streams are busy (waited %s); retry later", b.maxStreams, wait)
	}
	return status.Errorf(codes.ResourceExhausted,
		"the server's memory budget is spent: %d streams hold %s of %s and this stream needs %s (waited %s); retry later, or read fewer columns (the operator can raise --memory-limit)",
		b.streams, byteCount(b.used), byteCount(b.limit), byteCount(need), wait)
}

// queuedAheadLocked reports whether a waiter that could be served now
// is queued: a newcomer does not overtake it. Waiters held back only by
// their own peer's cap do not count.
func (b *memBudget) queuedAheadLocked() bool {
	for _, w := range b.queue {
		if !b.peerFull(w.peer) {
			return true
		}
	}
	return false
}

func (b *memBudget) admitLocked(peer string, need int64) {
	b.used += need
	b.streams++
	b.peers[peer]++
	b.gen++
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
}

func (b *memBudget) releaser(peer string, need int64) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.releaseLocked(peer, need)
			b.mu.Unlock()
		})
	}
}

func (b *memBudget) releaseLocked(peer string, need int64) {
	b.used -= need
	b.streams--
	if b.peers[peer]--; b.peers[peer] <= 0 {
		delete(b.peers, peer)
	}
	b.grantLocked()
	if b.streams == 0 && b.quiet >= 0 {
		gen := b.gen
		b.timer = time.AfterFunc(b.quiet, func() { b.idle(gen) })
	}
}

// grantLocked admits waiters in arrival order while they fit. A waiter
// whose peer is at its cap is passed over, keeping its place; the first
// other one that does not fit stops the round, so that a stream asking
// for much is not starved by a run of small ones.
func (b *memBudget) grantLocked() {
	for i := 0; i < len(b.queue); {
		w := b.queue[i]
		if b.peerFull(w.peer) {
			i++
			continue
		}
		if !b.fits(w.need) {
			return
		}
		b.queue = append(b.queue[:i], b.queue[i+1:]...)
		b.admitLocked(w.peer, w.need)
		close(w.ready)
	}
}

// idle gives memory back if no stream has run since the timer of
// generation gen was set.
func (b *memBudget) idle(gen uint64) {
	b.mu.Lock()
	still := b.gen == gen && b.streams == 0
	if still {
		b.timer = nil
	}
	b.mu.Unlock()
	if still {
		b.giveBack()
	}
}

// stop cancels a pending give-back, at shutdown.
func (b *memBudget) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen++
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
}

// inUse returns the admitted streams and the bytes they reserved.
func (b *memBudget) inUse() (streams int, bytes int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.streams, b.used
}

// fairShare is the most one stream reserves: StreamMemory, but no more
// than an even split of the budget between MaxStreams streams, so that a
// full house of streams fits in the budget.
func (s *Server) fairShare() int64 {
	return min(s.opts.StreamMemory, s.opts.MemoryLimit/int64(s.opts.MaxStreams))
}

// sizeStream picks a stream's reservation and batch size from what it
// will read: rows in all (0: unknown) at width Arrow bytes a row over
// cols columns. The batch is Options.BatchSize (or the rows, if fewer)
// when that fits the fair share; otherwise as many rows as do, batches in
// flight counted, but never under minBatchRows.
func (s *Server) sizeStream(rows int64, width float64, cols int) (share int64, batch int) {
	full := s.opts.BatchSize
	if full <= 0 {
		full = arrowconv.DefaultBatchSize
	}
	if rows > 0 && rows < int64(full) {
		full = max(int(rows), 1)
	}
	width = max(width, 1)
	overhead := int64(streamOverhead + columnOverhead*cols)
	cost := func(n int) int64 { return overhead + int64(math.Ceil(float64(batchesInFlight*n)*width)) }
	fair := s.fairShare()
	batch = full
	if cost(full) > fair {
		fit := float64(fair-overhead) / (batchesInFlight * width)
		batch = max(min(int(fit), full), min(minBatchRows, full))
	}
	return min(cost(batch), s.opts.MemoryLimit), batch
}

// admit reserves a stream's share, waiting up to QueueWait, and gives it
// the meter its Arrow memory is counted on.
func (s *Server) admit(ctx context.Context, st *streamStats, share int64, batch int) (*admission, error) {
	// Waiting is not idling: the idle timeout counts from admission.
	st.queued.Store(true)
	done, err := s.budget.reserve(ctx, peerKey(ctx), share, s.opts.QueueWait)
	st.touch()
	st.queued.Store(false)
	if err != nil {
		return nil, err
	}
	st.share.Store(share)
	st.batch.Store(int64(batch))
	meter := scan.NewMeter(s.arrow)
	st.meter.Store(meter)
	return &admission{share: share, batch: batch, done: done, meter: meter}, nil
}

// schemaWidth estimates the Arrow bytes of a row of schema without
// statistics: fixed widths as they are, 4 + 32 for a string or binary
// value (an offset and a modest value), 4 for a dictionary index; with a
// validity bit a column.
func schemaWidth(schema *arrow.Schema) float64 {
	w := 0.0
	for _, f := range schema.Fields() {
		w += 0.125
		switch t := f.Type.(type) {
		case *arrow.BooleanType:
			w += 0.125
		case *arrow.DictionaryType:
			w += float64(t.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8)
		case arrow.FixedWidthDataType:
			w += float64(t.BitWidth() / 8)
		default:
			w += 4 + 32
		}
	}
	return w
}

// goMemoryLimit is the Go runtime's soft memory limit for a budget: what
// the process held before serving (base: the catalog's indexes, the
// runtime's own) plus the budget. That is what bounds the resident set:
// without it the heap grows to twice the live data before a collection
// (GOGC). What the budget does not count (gRPC's connections, goroutine
// stacks, the program's code paged in, the collector's overshoot) is left
// to the tenth of the budget the documented bound allows, peak RSS within
// idle RSS + 1.1 x the budget: cmd/ts2arrow's TestServeRSSWithinBudget
// measures it, 32 clients and then 200 connections dropped mid-stream
// under a 48 MiB budget peaking at 1.02-1.08x the budget above idle.
// Under the old limit, the budget plus a quarter (at least 64 MiB), they
// peaked at 1.47x and 1.91x.
func goMemoryLimit(base, budget int64) int64 {
	return base + budget
}

// runtimeMemory is the memory the Go runtime holds from the operating
// system and has not returned: about the resident set, less the
// program's code.
func runtimeMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// byteCount formats a byte count for messages.
func byteCount(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// setGoMemoryLimit sets the runtime's soft memory limit unless GOMEMLIMIT
// set one, and returns what restores the previous limit.
func setGoMemoryLimit(limit int64, log interface{ Info(string, ...any) }) func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		log.Info("GOMEMLIMIT is set, so the Go memory limit is left to it", "memory_limit", limit)
		return nil
	}
	prev := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}

// activeStreams returns the streams admitted and running.
func (s *Server) activeStreams() int {
	n, _ := s.budget.inUse()
	return n
}
