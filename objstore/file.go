package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/tsarrow/tsarrow/internal/blockcache"
)

// Stats count what a File has fetched.
type Stats struct {
	Requests int64 // requests sent, OpenFile's included
	Bytes    int64 // response body bytes received
}

// File is an object read with range requests. It is an io.ReaderAt and
// safe for concurrent use.
//
// Reads are served three ways. Small reads (less than a block: headers,
// index entries) fetch whole blocks, kept in a small LRU cache, and the
// first read in the object's tail fetches the whole tail, so a TsFile's
// footer and index cost one request. Reads that continue one another
// (a scan) start a read-ahead stream: ranges beyond the read are fetched
// in the background, the window growing with the run up to
// Options.ReadAhead, so a scan waits on the network only at its start. Other large reads fetch
// exactly their bytes, split into up to Options.Concurrency parallel
// requests. At most Options.Concurrency requests of a File are in flight.
type File struct {
	s       *Store
	ctx     context.Context
	cancel  context.CancelFunc
	key     string
	size    int64
	etag    string
	modTime time.Time
	// generation is the GCS object generation reads must match (0
	// elsewhere).
	generation int64
	block      int64
	sem        chan struct{} // one token per request in flight

	cache *blockcache.Cache // small reads, in blocks

	mu       sync.Mutex
	tailDone bool // the tail was fetched (or is being fetched)
	stats    Stats
	closed   bool

	streams  [4]stream
	tick     uint64     // counts advance calls, for streams' LRU
	segs     []*segment // read-ahead ranges, sorted by lo, disjoint
	segBytes int64
}

// stream is a run of reads that continue one another: reads within
// [lo, ahead+block) continue it; ahead is where its reads and issued
// ranges end.
type stream struct {
	lo, ahead int64
	used      uint64 // File.tick when last continued
}

// segment is a range fetched ahead of the reads.
type segment struct {
	lo, hi int64
	data   []byte
	done   chan struct{} // closed when data or err is set
	err    error
}

const (
	// cacheBytes bounds the block cache of one File.
	cacheBytes = 4 << 20
	// tailMax bounds the tail fetched at the first read near the end: a
	// TsFile's metadata and index sit there, read in many small pieces.
	tailMax = 1 << 20
	// streamStart is how long a run of reads must be before read-ahead
	// starts (see advance).
	streamStart = 1 << 20
	// minPiece is the smallest request a large read or the read-ahead is
	// split into.
	minPiece = 512 << 10
)

// OpenFile opens key for range reads: metadata in few requests, data in
// coalesced ranges with bounded read-ahead and parallelism; a changed
// object (ETag) fails reads with ErrChanged. ctx bounds every request of
// the File.
func (s *Store) OpenFile(ctx context.Context, key string) (*File, error) {
	if err := checkKey(key); err != nil {
		return nil, s.errorf("HEAD", key, err)
	}
	a, err := s.head(ctx, key)
	if err != nil {
		return nil, err
	}
	f := s.newFile(ctx, key, a.Size, a.ETag, a.ModTime, 1)
	f.generation = versionOf(a)
	return f, nil
}

// newFile returns a File on an object whose metadata the caller learned
// in requests requests.
func (s *Store) newFile(ctx context.Context, key string, size int64, etag string, mod time.Time, requests int64) *File {
	ctx, cancel := context.WithCancel(ctx)
	f := &File{
		s: s, ctx: ctx, cancel: cancel, key: key, size: size, etag: etag, modTime: mod,
		block: int64(s.o.BlockSize), sem: make(chan struct{}, s.o.Concurrency),
		stats: Stats{Requests: requests},
	}
	f.cache = blockcache.New(size, f.block, int(cacheBytes/f.block), f.fetchInto)
	return f
}

// Size returns the object's length.
func (f *File) Size() int64 { return f.size }

// Name returns the object's URL.
func (f *File) Name() string { return f.s.URL(f.key) }

// ModTime returns the object's modification time as OpenFile saw it.
func (f *File) ModTime() time.Time { return f.modTime }

// Stats returns what the File has fetched so far.
func (f *File) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Close cancels the File's requests in flight and drops its buffers;
// later reads fail.
func (f *File) Close() error {
	f.cancel()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cache.Close()
	f.segs, f.segBytes = nil, 0
	return nil
}

// errClosed is returned by reads of a closed File.
var errClosed = errors.New("read of a closed file")

// ReadAt reads len(p) bytes at off, as io.ReaderAt specifies.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, f.s.errorf("GET", f.key, fmt.Errorf("negative offset %d", off))
	}
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return 0, f.s.errorf("GET", f.key, errClosed)
	}
	return blockcache.ReadAt(p, off, f.size, f.read)
}

// read fills p (not empty, within the object) with the bytes at off.
func (f *File) read(p []byte, off int64) error {
	end := off + int64(len(p))
	tailLo := f.size - min(f.size, max(f.block, min(tailMax, f.size/64)))
	tailLo -= tailLo % f.block
	f.mu.Lock()
	fetchTail := !f.tailDone && end > tailLo && end-off < f.block
	if fetchTail {
		f.tailDone = true
	}
	f.mu.Unlock()
	if fetchTail {
		// The first small read near the end: the footer. Fetch the
		// whole tail into the block cache; the index reads that follow
		// find it there.
		if err := f.readBlocks(nil, tailLo, f.size); err != nil {
			return err
		}
	}

	f.mu.Lock()
	var segs []*segment
	for _, s := range f.segs {
		if s.lo < end && s.hi > off {
			segs = append(segs, s)
		}
	}
	if off < tailLo {
		// Reads in the tail are metadata, served from the tail's blocks.
		f.advance(off, end)
	}
	f.mu.Unlock()

	// Fetch what no read-ahead range covers, then copy from the ranges.
	var errs []error
	at := off
	for i := 0; at < end; i++ {
		gapEnd := end
		if i < len(segs) {
			gapEnd = max(at, segs[i].lo)
		}
		if gapEnd > at {
			errs = append(errs, f.fetchGap(p[at-off:gapEnd-off], at))
		}
		if i >= len(segs) {
			break
		}
		at = segs[i].hi
	}
	for _, s := range segs {
		select {
		case <-s.done:
		case <-f.ctx.Done():
			return f.s.wrap("GET", f.key, f.ctx.Err())
		}
		if s.err != nil {
			errs = append(errs, s.err)
			f.mu.Lock()
			f.dropSegment(s) // a later read tries again
			f.mu.Unlock()
			continue
		}
		lo, hi := max(off, s.lo), min(end, s.hi)
		copy(p[lo-off:hi-off], s.data[lo-s.lo:hi-s.lo])
		if end >= s.hi {
			// Read to its end: a stream has passed it.
			f.mu.Lock()
			f.dropSegment(s)
			f.mu.Unlock()
		}
	}
	return firstError(errs)
}

// fetchGap fills p from bytes at off that no read-ahead range holds: a
// small read through the block cache, a large one exactly, in parallel
// pieces.
func (f *File) fetchGap(p []byte, off int64) error {
	if int64(len(p)) < f.block {
		return f.readBlocks(p, off, off+int64(len(p)))
	}
	pieces := min(int64(cap(f.sem)), (int64(len(p))+minPiece-1)/minPiece)
	if pieces <= 1 {
		return f.fetchInto(p, off)
	}
	step := (int64(len(p)) + pieces - 1) / pieces
	errs := make([]error, pieces)
	var wg sync.WaitGroup
	for i := range pieces {
		lo, hi := i*step, min(int64(len(p)), (i+1)*step)
		wg.Go(func() { errs[i] = f.fetchInto(p[lo:hi], off+lo) })
	}
	wg.Wait()
	return firstError(errs)
}

// advance updates the read-ahead streams with a read of [off, end) and
// issues the ranges the continued stream's window now asks for; f.mu is
// held. A few streams are kept, so that a scan's stream survives the
// index reads between its chunks (each of those starts, or continues, a
// stream of its own).
func (f *File) advance(off, end int64) {
	ra := f.s.o.ReadAhead
	if ra <= 0 || f.closed {
		return
	}
	f.tick++
	for i := range f.streams {
		st := &f.streams[i]
		// A read continues a stream if it lies in what the stream read
		// or fetched, or just past it: a scan skips small structures
		// and pages it does not need.
		if st.ahead == 0 || off < st.lo || off > st.ahead+f.block {
			continue
		}
		st.used = f.tick
		// The window is what the stream has read so far, up to
		// ReadAhead, and opens only after a run of streamStart bytes:
		// scattered short runs (a 1% time window: a chunk header and a
		// few pages per device) then fetch nothing they do not read,
		// while a scan soon fetches ReadAhead ahead of itself.
		if extent := end - st.lo; extent >= min(ra, streamStart) {
			win := min(ra, extent)
			if target := min(f.size, end+win); target-st.ahead >= min(minPiece, win/2) || (target == f.size && target > st.ahead) {
				f.issue(max(st.ahead, end), target)
				st.ahead = target
			}
		}
		st.ahead = max(st.ahead, end)
		// Ranges read to their end are dropped by read; these are ranges
		// a stream skipped, or fetched for a stream since abandoned.
		for f.segBytes > 4*ra && len(f.segs) > 0 {
			f.dropSegment(f.segs[0])
		}
		return
	}
	// A new stream, in place of the least recently used one, whose
	// ranges go with it.
	j := 0
	for i := range f.streams {
		if f.streams[i].used < f.streams[j].used {
			j = i
		}
	}
	if old := f.streams[j]; old.ahead > 0 {
		for _, sg := range slices.Clone(f.segs) {
			if sg.lo >= old.lo && sg.hi <= old.ahead {
				f.dropSegment(sg)
			}
		}
	}
	f.streams[j] = stream{lo: off, ahead: end, used: f.tick}
}

// issue starts fetching [lo, hi) in pieces, skipping what read-ahead
// ranges already cover; f.mu is held.
func (f *File) issue(lo, hi int64) {
	piece := max(minPiece, f.s.o.ReadAhead/int64(cap(f.sem)))
	for lo < hi {
		// Skip a covered start.
		i, _ := slices.BinarySearchFunc(f.segs, lo, func(s *segment, x int64) int {
			switch {
			case s.hi <= x:
				return -1
			case s.lo > x:
				return 1
			}
			return 0
		})
		if i < len(f.segs) && f.segs[i].lo <= lo {
			lo = f.segs[i].hi
			continue
		}
		e := min(hi, lo+piece)
		if i < len(f.segs) {
			e = min(e, f.segs[i].lo)
		}
		s := &segment{lo: lo, hi: e, done: make(chan struct{})}
		f.segs = slices.Insert(f.segs, i, s)
		f.segBytes += e - lo
		go func() {
			data := make([]byte, s.hi-s.lo)
			err := f.fetchInto(data, s.lo)
			if err == nil {
				s.data = data
			}
			s.err = err
			close(s.done)
		}()
		lo = e
	}
}

// dropSegment forgets s; f.mu is held.
func (f *File) dropSegment(s *segment) {
	if i := slices.Index(f.segs, s); i >= 0 {
		f.segs = slices.Delete(f.segs, i, i+1)
		f.segBytes -= s.hi - s.lo
	}
}

// readBlocks fills p (nil: only caches) with bytes [off, end) through the
// block cache (internal/blockcache, httpfile's scheme).
func (f *File) readBlocks(p []byte, off, end int64) error {
	return f.cache.Read(p, off, end, false)
}

// fetchInto fills p with bytes [off, off+len(p)) of the object in one
// request, checking that the object is still the version OpenFile saw.
func (f *File) fetchInto(p []byte, off int64) error {
	select {
	case f.sem <- struct{}{}:
	case <-f.ctx.Done():
		return f.s.wrap("GET", f.key, f.ctx.Err())
	}
	defer func() { <-f.sem }()
	op := fmt.Sprintf("GET bytes %d-%d of", off, off+int64(len(p))-1)
	f.mu.Lock()
	f.stats.Requests++
	f.mu.Unlock()
	r, err := f.s.b.NewRangeReader(f.ctx, f.key, off, int64(len(p)), &blob.ReaderOptions{BeforeRead: f.ifMatch})
	if err != nil {
		if gcerrors.Code(err) == gcerrors.FailedPrecondition || status(err) == 412 {
			return &opError{op: op, url: f.Name(), detail: fmt.Sprintf("no longer has ETag %s", f.etag), kind: ErrChanged, err: err}
		}
		return f.s.wrap(op, f.key, err)
	}
	defer r.Close()
	var gr *storage.Reader
	if f.generation != 0 && r.As(&gr) && gr.Attrs.Generation != 0 && gr.Attrs.Generation != f.generation {
		// A server that ignored the generation condition.
		return &opError{op: op, url: f.Name(), detail: fmt.Sprintf("now generation %d, was %d", gr.Attrs.Generation, f.generation), kind: ErrChanged}
	}
	if r.Size() != f.size || !sameTime(r.ModTime(), f.modTime) {
		return &opError{op: op, url: f.Name(), detail: fmt.Sprintf("now %d bytes modified %s, was %d bytes modified %s",
			r.Size(), r.ModTime().UTC().Format(time.RFC3339Nano), f.size, f.modTime.UTC().Format(time.RFC3339Nano)), kind: ErrChanged}
	}
	n, err := io.ReadFull(r, p)
	f.mu.Lock()
	f.stats.Bytes += int64(n)
	f.mu.Unlock()
	if err != nil {
		return &opError{op: op, url: f.Name(), detail: fmt.Sprintf("got %d bytes: %s", n, describe(err)), err: err}
	}
	return nil
}

// ifMatch makes a range GET conditional on the version OpenFile saw (S3
// and Azure: the ETag; GCS: the generation), so that a replaced object
// answers 412 instead of bytes of another version. fetchInto also
// compares size and modification time, for fileblob.
func (f *File) ifMatch(as func(any) bool) error {
	var in *s3.GetObjectInput
	var az *azblobblob.DownloadStreamOptions
	var gcs **storage.ObjectHandle
	switch {
	case f.etag != "" && as(&in):
		in.IfMatch = &f.etag
	case f.etag != "" && as(&az):
		etag := azcore.ETag(f.etag)
		az.AccessConditions = &azblobblob.AccessConditions{ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfMatch: &etag}}
	case f.generation != 0 && as(&gcs):
		*gcs = (*gcs).If(storage.Conditions{GenerationMatch: f.generation})
	}
	return nil
}

// versionOf returns the GCS generation of a, or 0.
func versionOf(a *blob.Attributes) int64 {
	var oa storage.ObjectAttrs
	if a.As(&oa) {
		return oa.Generation
	}
	return 0
}

// sameTime reports whether two modification times of an object can be
// the same: equal, or equal to the second where one of them has no
// fraction (S3's and GCS's GET answers carry whole seconds, their
// listings and HEADs more), or unknown.
func sameTime(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() || a.Equal(b) {
		return true
	}
	if a.Nanosecond() == 0 || b.Nanosecond() == 0 {
		return a.Truncate(time.Second).Equal(b.Truncate(time.Second))
	}
	return false
}

// firstError returns the first non-nil error of errs: parallel requests of
// one read mostly fail for one cause, and an error is one line.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
