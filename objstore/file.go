package objstore

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Stats count what a File has fetched.
type Stats struct {
	Requests int64 // requests sent, OpenFile's included
	Bytes    int64 // response body bytes received
}

// File is an object read with range requests. It is an io.ReaderAt and
// safe for concurrent use.
type File struct {
	s       *Store
	ctx     context.Context
	key     string
	size    int64
	etag    string
	modTime time.Time
	block   int64

	mu       sync.Mutex
	lru      *list.List // of *cached, most recent first
	index    map[int64]*list.Element
	inflight map[int64]chan struct{} // blocks being fetched, closed when done
	stats    Stats
	closed   bool
}

type cached struct {
	n    int64 // block number
	data []byte
}

// cacheBytes bounds the block cache of one File.
const cacheBytes = 4 << 20

// OpenFile opens key for range reads: metadata in few requests, data in
// coalesced ranges with bounded read-ahead and parallelism; a changed
// object (ETag) fails reads with ErrChanged. ctx bounds every request of
// the File.
func (s *Store) OpenFile(ctx context.Context, key string) (*File, error) {
	if err := checkKey(key); err != nil {
		return nil, s.errorf("HEAD", key, err)
	}
	a, err := s.b.Attributes(ctx, key)
	if err != nil {
		return nil, s.wrap("HEAD", key, err)
	}
	return s.newFile(ctx, key, a.Size, a.ETag, a.ModTime, 1), nil
}

// newFile returns a File on an object whose metadata the caller learned
// in requests requests.
func (s *Store) newFile(ctx context.Context, key string, size int64, etag string, mod time.Time, requests int64) *File {
	block := int64(s.o.BlockSize)
	return &File{
		s: s, ctx: ctx, key: key, size: size, etag: etag, modTime: mod, block: block,
		lru: list.New(), index: map[int64]*list.Element{}, inflight: map[int64]chan struct{}{},
		stats: Stats{Requests: requests},
	}
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

// Close drops the File's cache; later reads fail.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.lru.Init()
	clear(f.index)
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
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := p
	if rest := f.size - off; int64(len(p)) > rest {
		want = p[:rest]
	}
	if err := f.read(want, off); err != nil {
		return 0, err
	}
	if len(want) < len(p) {
		return len(want), io.EOF
	}
	return len(p), nil
}

// read fills p from bytes at off: from cached blocks where it can, and
// each run of missing blocks with one request. A run shorter than a block
// is fetched as whole blocks and cached, so that the small reads around it
// (headers, index entries) are free; a longer one (chunk data) is fetched
// exactly and not cached. A block another read is already fetching is
// waited for rather than fetched twice. (The scheme is httpfile's.)
func (f *File) read(p []byte, off int64) error {
	first, last := off/f.block, (off+int64(len(p))-1)/f.block
	end := off + int64(len(p))
	blocks := make([][]byte, last-first+1)
	type run struct {
		b, e  int64
		exact bool
		done  chan struct{}
	}
	var runs []run
	for {
		var wait []chan struct{}
		f.mu.Lock()
		for b := first; b <= last; b++ {
			if blocks[b-first] != nil {
				continue
			}
			if e, ok := f.index[b]; ok {
				f.lru.MoveToFront(e)
				blocks[b-first] = e.Value.(*cached).data
			} else if ch, ok := f.inflight[b]; ok {
				wait = append(wait, ch)
			}
		}
		if len(wait) == 0 {
			for b := first; b <= last; {
				if blocks[b-first] != nil {
					b++
					continue
				}
				e := b
				for e+1 <= last && blocks[e+1-first] == nil {
					e++
				}
				lo, hi := max(off, b*f.block), min(end, (e+1)*f.block)
				r := run{b: b, e: e, exact: hi-lo >= f.block}
				if !r.exact {
					r.done = make(chan struct{})
					for k := b; k <= e; k++ {
						f.inflight[k] = r.done
					}
				}
				runs = append(runs, r)
				b = e + 1
			}
			f.mu.Unlock()
			break
		}
		f.mu.Unlock()
		for _, ch := range wait {
			<-ch
		}
	}
	var err error
	for _, r := range runs {
		lo, hi := max(off, r.b*f.block), min(end, (r.e+1)*f.block)
		if r.exact {
			if err == nil {
				err = f.fetchInto(p[lo-off:hi-off], lo)
			}
			continue
		}
		var buf []byte
		if err == nil {
			blo, bhi := r.b*f.block, min((r.e+1)*f.block, f.size)
			buf = make([]byte, bhi-blo)
			if err = f.fetchInto(buf, blo); err == nil {
				copy(p[lo-off:hi-off], buf[lo-blo:])
			}
		}
		f.mu.Lock()
		for k := r.b; k <= r.e; k++ {
			delete(f.inflight, k)
			if err == nil {
				f.put(k, buf[(k-r.b)*f.block:min((k-r.b+1)*f.block, int64(len(buf)))])
			}
		}
		f.mu.Unlock()
		close(r.done)
	}
	if err != nil {
		return err
	}
	for b := first; b <= last; b++ {
		if d := blocks[b-first]; d != nil {
			lo, hi := max(off, b*f.block), min(end, (b+1)*f.block)
			copy(p[lo-off:hi-off], d[lo-b*f.block:])
		}
	}
	return nil
}

// put caches block k; f.mu is held.
func (f *File) put(k int64, d []byte) {
	if f.closed {
		return
	}
	if e, ok := f.index[k]; ok {
		f.lru.MoveToFront(e)
		return
	}
	f.index[k] = f.lru.PushFront(&cached{n: k, data: d})
	for int64(f.lru.Len())*f.block > cacheBytes {
		e := f.lru.Back()
		f.lru.Remove(e)
		delete(f.index, e.Value.(*cached).n)
	}
}

// fetchInto fills p with bytes [off, off+len(p)) of the object in one
// request, checking that the object is still the version OpenFile saw.
func (f *File) fetchInto(p []byte, off int64) error {
	op := fmt.Sprintf("GET bytes %d-%d of", off, off+int64(len(p))-1)
	f.mu.Lock()
	f.stats.Requests++
	f.mu.Unlock()
	r, err := f.s.b.NewRangeReader(f.ctx, f.key, off, int64(len(p)), &blob.ReaderOptions{BeforeRead: f.ifMatch})
	if err != nil {
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			return &opError{op: op, url: f.Name(), detail: fmt.Sprintf("no longer has ETag %s", f.etag), kind: ErrChanged, err: err}
		}
		return f.s.wrap(op, f.key, err)
	}
	defer r.Close()
	if r.Size() != f.size || (!f.modTime.IsZero() && !r.ModTime().IsZero() && !r.ModTime().Equal(f.modTime)) {
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

// ifMatch makes an S3 range GET conditional on the ETag OpenFile saw, so
// that a replaced object answers 412 instead of bytes of another version.
// Other drivers compare size and modification time instead (fetchInto).
func (f *File) ifMatch(as func(any) bool) error {
	var in *s3.GetObjectInput
	if f.etag != "" && as(&in) {
		in.IfMatch = &f.etag
	}
	return nil
}
