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
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tsarrow/tsarrow/internal/blockcache"
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

	cache *blockcache.Cache // set once the size is known

	mu    sync.Mutex
	stats Stats
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
	f := &File{url: url, ctx: ctx, opts: o, block: int64(o.BlockSize)}
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
			f.cache = blockcache.New(0, f.block, f.opts.CacheBlocks, f.fetchInto)
			return f, nil
		}
		return nil, fmt.Errorf("httpfile: %s: %s", url, resp.Status)
	case http.StatusOK:
		if resp.ContentLength == 0 {
			// An empty file has no range to serve.
			f.etag = resp.Header.Get("ETag")
			f.cache = blockcache.New(0, f.block, f.opts.CacheBlocks, f.fetchInto)
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
	f.cache = blockcache.New(f.size, f.block, f.opts.CacheBlocks, f.fetchInto)
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
	return blockcache.ReadAt(p, off, f.size, f.read)
}

// read fills p from bytes at off through the block cache: a run of
// missing blocks shorter than a block is fetched as whole blocks and
// cached, so that the small reads around it (headers, index entries) are
// free; a longer one (chunk data) is fetched exactly and not cached.
func (f *File) read(p []byte, off int64) error {
	return f.cache.Read(p, off, off+int64(len(p)), true)
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
