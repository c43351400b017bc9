// Package blockcache keeps the small reads of a remote file in a bounded
// LRU cache of fixed-size blocks: each run of missing blocks costs one
// request, and a block another read is already fetching is waited for
// rather than fetched twice (a TsFile reader decodes columns in parallel,
// and their first reads often share a block). httpfile and objstore read
// through it.
package blockcache

import (
	"container/list"
	"io"
	"sync"
)

// Fetch fills p with bytes [off, off+len(p)) of the file in one request.
type Fetch func(p []byte, off int64) error

// Cache is the block cache of one file. It is safe for concurrent use.
type Cache struct {
	block, size int64
	max         int
	fetch       Fetch

	mu       sync.Mutex
	closed   bool
	lru      *list.List // of *entry, most recent first
	index    map[int64]*list.Element
	inflight map[int64]chan struct{} // blocks being fetched, closed when done
}

type entry struct {
	n    int64 // block number
	data []byte
}

// New returns the cache of a file of size bytes, in blocks of block bytes,
// keeping at most maxBlocks of them (at least one), fetched with fetch.
func New(size, block int64, maxBlocks int, fetch Fetch) *Cache {
	return &Cache{block: block, size: size, max: max(1, maxBlocks), fetch: fetch,
		lru: list.New(), index: map[int64]*list.Element{}, inflight: map[int64]chan struct{}{}}
}

// Block returns the block size.
func (c *Cache) Block() int64 { return c.block }

// Close drops the cached blocks; reads still in flight end normally but
// cache nothing.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.lru.Init()
	clear(c.index)
	c.mu.Unlock()
}

// Read fills p (nil: only caches) with bytes [off, end) of the file, from
// cached blocks where it can and each run of missing blocks with one
// request. With exact, a run whose part of [off, end) covers a block or
// more (chunk data, say) is fetched exactly into p and not cached, since a
// block-rounded fetch would add up to a block nobody asked for; shorter
// runs (headers, index entries) are fetched as whole blocks and cached, so
// that the small reads around them are free.
func (c *Cache) Read(p []byte, off, end int64, exact bool) error {
	first, last := off/c.block, (end-1)/c.block
	blocks := make([][]byte, last-first+1)
	type run struct {
		b, e  int64
		exact bool
		done  chan struct{}
	}
	var runs []run
	for {
		var wait []chan struct{}
		c.mu.Lock()
		for b := first; b <= last; b++ {
			if blocks[b-first] != nil {
				continue
			}
			if e, ok := c.index[b]; ok {
				c.lru.MoveToFront(e)
				blocks[b-first] = e.Value.(*entry).data
			} else if ch, ok := c.inflight[b]; ok {
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
				lo, hi := max(off, b*c.block), min(end, (e+1)*c.block)
				r := run{b: b, e: e, exact: exact && p != nil && hi-lo >= c.block}
				if !r.exact {
					r.done = make(chan struct{})
					for k := b; k <= e; k++ {
						c.inflight[k] = r.done
					}
				}
				runs = append(runs, r)
				b = e + 1
			}
			c.mu.Unlock()
			break
		}
		c.mu.Unlock()
		for _, ch := range wait {
			<-ch
		}
	}
	var err error
	for _, r := range runs {
		if r.exact {
			if err == nil {
				lo, hi := max(off, r.b*c.block), min(end, (r.e+1)*c.block)
				err = c.fetch(p[lo-off:hi-off], lo)
			}
			continue
		}
		blo, bhi := r.b*c.block, min((r.e+1)*c.block, c.size)
		var buf []byte
		if err == nil {
			buf = make([]byte, bhi-blo)
			err = c.fetch(buf, blo)
		}
		c.mu.Lock()
		for k := r.b; k <= r.e; k++ {
			delete(c.inflight, k)
			if err == nil {
				d := buf[(k-r.b)*c.block : min((k-r.b+1)*c.block, int64(len(buf)))]
				blocks[k-first] = d
				c.put(k, d)
			}
		}
		c.mu.Unlock()
		close(r.done)
	}
	if err != nil || p == nil {
		return err
	}
	for b := first; b <= last; b++ {
		if d := blocks[b-first]; d != nil {
			lo, hi := max(off, b*c.block), min(end, (b+1)*c.block)
			copy(p[lo-off:hi-off], d[lo-b*c.block:])
		}
	}
	return nil
}

// put caches block k; c.mu is held.
func (c *Cache) put(k int64, d []byte) {
	if c.closed {
		return
	}
	if e, ok := c.index[k]; ok {
		c.lru.MoveToFront(e)
		return
	}
	c.index[k] = c.lru.PushFront(&entry{n: k, data: d})
	for c.lru.Len() > c.max {
		e := c.lru.Back()
		c.lru.Remove(e)
		delete(c.index, e.Value.(*entry).n)
	}
}

// ReadAt implements io.ReaderAt's contract for a file of size bytes over
// read, which fills a non-empty p lying wholly inside the file: p is cut
// at the end of the file, a read that ends there says io.EOF, and one at
// or past it reads nothing. Negative offsets are the caller's to refuse,
// with its own error.
func ReadAt(p []byte, off, size int64, read Fetch) (int, error) {
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := p
	if rest := size - off; int64(len(p)) > rest {
		want = p[:rest]
	}
	if len(want) > 0 {
		if err := read(want, off); err != nil {
			return 0, err
		}
	}
	if len(want) < len(p) {
		return len(want), io.EOF
	}
	return len(p), nil
}
