// Package httpfile reads a file on a web server or object-store gateway
// as an io.ReaderAt, with HTTP range requests, so that a TsFile reader
// fetches the footer and then only the chunks a query needs instead of
// downloading the file.
//
// Small reads are rounded out to blocks kept in a small LRU cache, so the
// many reads of headers and index nodes near each other cost one request;
// larger reads fetch exactly their bytes, reusing cached blocks at their
// edges, with one request per run of missing blocks.
//
// For servers that do not serve ranges, Download fetches the whole file
// once, bounded in size.
package httpfile

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// ErrNoRanges is matched by the error Open returns, a *NoRangesError, when
// the server does not serve byte ranges of the URL.
var ErrNoRanges = errors.New("httpfile: server does not support range requests")

// ErrChanged is returned by reads when the remote file changed (its ETag
// or size) since Open.
var ErrChanged = errors.New("httpfile: remote file changed")

// Options configure a File. The zero value selects the defaults noted on
// each field.
type Options struct {
	// Client sends the requests (default http.DefaultClient).
	Client *http.Client
	// Header is added to every request, for example Authorization.
	Header http.Header
	// BlockSize is the granularity of the cache: a read of less than a
	// block fetches whole blocks and caches them. The default is 16 KiB,
	// or a 256th of a smaller file (at least 1 KiB), whose scattered
	// headers would otherwise each cost a good part of the file.
	BlockSize int
	// CacheBlocks is how many blocks the cache holds (default 256, so
	// 4 MiB with the default block size).
	CacheBlocks int
}

// Stats count what a File has fetched.
type Stats struct {
	Requests int64 // range requests sent, Open's included
	Bytes    int64 // response body bytes received
}

// File is a remote file read with range requests. It is safe for
// concurrent use.
type File struct {
	url   string
	size  int64
	etag  string
	ctx   context.Context
	opts  Options
	block int64

	mu       sync.Mutex
	lru      *list.List // of *cached, most recent first
	index    map[int64]*list.Element
	inflight map[int64]chan struct{} // blocks being fetched, closed when done
	stats    Stats
}

type cached struct {
	n    int64 // block number
	data []byte
}

// Open learns the size of the file at url with a one-byte range request
// and returns a File reading it. ctx bounds every later request too.
func Open(ctx context.Context, url string, opts *Options) (*File, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	autoBlock := o.BlockSize <= 0
	if autoBlock {
		o.BlockSize = 16 << 10
	}
	if o.CacheBlocks <= 0 {
		o.CacheBlocks = 256
	}
	f := &File{url: url, ctx: ctx, opts: o, block: int64(o.BlockSize), lru: list.New(), index: map[int64]*list.Element{}, inflight: map[int64]chan struct{}{}}
	resp, err := f.get(0, 1)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusRequestedRangeNotSatisfiable:
		// An empty file has no byte 0.
		if total, ok := contentRangeTotal(resp.Header.Get("Content-Range")); ok && total == 0 {
			f.etag = resp.Header.Get("ETag")
			return f, nil
		}
		return nil, fmt.Errorf("httpfile: %s: %s", url, resp.Status)
	case http.StatusOK:
		if resp.ContentLength == 0 {
			// An empty file has no range to serve.
			f.etag = resp.Header.Get("ETag")
			return f, nil
		}
		if resp.ContentLength > 1 {
			return nil, &NoRangesError{URL: url, Size: resp.ContentLength, Why: "answered a range request with the whole file, 200 OK"}
		}
		// Not the whole file, or nothing says so: the body is the range,
		// sent without saying it is one.
		return nil, &NoRangesError{URL: url, Size: -1, Why: "answered a range request with 200 OK instead of 206 Partial Content"}
	default:
		return nil, fmt.Errorf("httpfile: %s: %s", url, resp.Status)
	}
	total, ok := contentRangeTotal(resp.Header.Get("Content-Range"))
	if !ok {
		return nil, &NoRangesError{URL: url, Size: -1, Why: fmt.Sprintf("sent Content-Range %q", resp.Header.Get("Content-Range"))}
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 2))
	f.count(n)
	f.size, f.etag = total, resp.Header.Get("ETag")
	if autoBlock {
		f.block = min(f.block, max(1<<10, f.size/256))
	}
	return f, nil
}

// Size returns the length of the file.
func (f *File) Size() int64 { return f.size }

// URL returns the file's address.
func (f *File) URL() string { return f.url }

// Stats returns what the File has fetched so far.
func (f *File) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

func (f *File) count(n int64) {
	f.mu.Lock()
	f.stats.Bytes += n
	f.mu.Unlock()
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt specifies.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("httpfile: negative offset %d", off)
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
// exactly and not cached, since a block-rounded fetch would add up to a
// block of bytes nobody asked for to every chunk. A block another read is
// already fetching is waited for rather than fetched twice: a TsFile reader
// decodes columns in parallel, and their first reads often share a block.
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
	if e, ok := f.index[k]; ok {
		f.lru.MoveToFront(e)
		return
	}
	f.index[k] = f.lru.PushFront(&cached{n: k, data: d})
	for f.lru.Len() > f.opts.CacheBlocks {
		e := f.lru.Back()
		f.lru.Remove(e)
		delete(f.index, e.Value.(*cached).n)
	}
}

// fetchInto fills p with bytes [off, off+len(p)) of the file in one
// request.
func (f *File) fetchInto(p []byte, off int64) error {
	resp, err := f.get(off, int64(len(p)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && strongETag(f.etag) {
		return fmt.Errorf("%w: %s no longer has ETag %s", ErrChanged, f.url, f.etag)
	}
	if resp.StatusCode != http.StatusPartialContent {
		return fmt.Errorf("httpfile: %s bytes %d-%d: %s", f.url, off, off+int64(len(p))-1, resp.Status)
	}
	if etag := resp.Header.Get("ETag"); f.etag != "" && etag != "" && etag != f.etag {
		return fmt.Errorf("%w: %s ETag %s, was %s", ErrChanged, f.url, etag, f.etag)
	}
	if total, ok := contentRangeTotal(resp.Header.Get("Content-Range")); ok && total != f.size {
		return fmt.Errorf("%w: %s is %d bytes, was %d", ErrChanged, f.url, total, f.size)
	}
	n, err := io.ReadFull(resp.Body, p)
	f.count(int64(n))
	if err != nil {
		return fmt.Errorf("httpfile: %s bytes %d-%d: got %d bytes: %w", f.url, off, off+int64(len(p))-1, n, err)
	}
	return nil
}

// newGet is a GET of url bounded by ctx and carrying header: the request
// of a range read and of Download alike.
func newGet(ctx context.Context, url string, header http.Header) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("httpfile: %w", err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return req, nil
}

func (f *File) get(off, n int64) (*http.Response, error) {
	req, err := newGet(f.ctx, f.url, f.opts.Header)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	if strongETag(f.etag) {
		// A changed file then answers 200 with the whole body, which
		// fetchInto refuses, instead of bytes of another version. (If-Range
		// takes strong validators only.)
		req.Header.Set("If-Range", f.etag)
	}
	f.mu.Lock()
	f.stats.Requests++
	f.mu.Unlock()
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("httpfile: %w", err)
	}
	return resp, nil
}

func strongETag(e string) bool { return e != "" && !strings.HasPrefix(e, "W/") }

// contentRangeTotal parses the complete length of "bytes a-b/total" or
// "bytes */total".
func contentRangeTotal(s string) (int64, bool) {
	i := strings.LastIndexByte(s, '/')
	if !strings.HasPrefix(s, "bytes ") || i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 64)
	return n, err == nil && n >= 0
}
