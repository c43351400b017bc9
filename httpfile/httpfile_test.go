package httpfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// server serves data with http.ServeContent (ranges, ETag, If-Range) and
// counts the body bytes it writes.
type server struct {
	mu     sync.Mutex
	data   []byte
	etag   string
	served atomic.Int64
	ranges bool
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, etag := s.data, s.etag
	s.mu.Unlock()
	cw := &countingWriter{ResponseWriter: w, n: &s.served}
	if !s.ranges {
		r.Header.Del("Range")
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	http.ServeContent(cw, r, "f", time.Time{}, bytes.NewReader(data))
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.ResponseWriter.Write(p)
}

func newServer(t *testing.T, data []byte) (*server, string) {
	s := &server{data: data, etag: `"v1"`, ranges: true}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL + "/f"
}

func testData(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestReadAt(t *testing.T) {
	data := testData(1<<20 + 12345)
	srv, url := newServer(t, data)
	f, err := Open(context.Background(), url, &Options{BlockSize: 4096, CacheBlocks: 32})
	require.NoError(t, err)
	require.EqualValues(t, len(data), f.Size())
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300; i++ {
		off := r.Int64N(int64(len(data)))
		n := r.IntN(100000)
		if i%3 == 0 {
			n = r.IntN(300)
		}
		p := make([]byte, n)
		got, err := f.ReadAt(p, off)
		want := min(n, len(data)-int(off))
		require.Equal(t, want, got)
		if want < n {
			require.ErrorIs(t, err, io.EOF)
		} else {
			require.NoError(t, err)
		}
		require.Equal(t, data[off:off+int64(want)], p[:want])
	}
	_, err = f.ReadAt(make([]byte, 1), int64(len(data)))
	require.ErrorIs(t, err, io.EOF)
	st := f.Stats()
	require.Equal(t, srv.served.Load(), st.Bytes)
	t.Logf("%d requests, %d bytes", st.Requests, st.Bytes)
}

// TestSmallReadsShareBlocks: neighbouring small reads, like the headers
// and index nodes of a TsFile, cost one request per run of blocks.
func TestSmallReadsShareBlocks(t *testing.T) {
	data := testData(1 << 20)
	srv, url := newServer(t, data)
	f, err := Open(context.Background(), url, &Options{BlockSize: 64 << 10})
	require.NoError(t, err)
	open := f.Stats().Requests
	for off := int64(0); off < 60000; off += 100 {
		p := make([]byte, 50)
		_, err := f.ReadAt(p, off)
		require.NoError(t, err)
		require.Equal(t, data[off:off+50], p)
	}
	require.Equal(t, open+1, f.Stats().Requests, "600 reads inside one block are one request")
	// A read spanning three missing blocks is one request too.
	p := make([]byte, 3*64<<10)
	_, err = f.ReadAt(p, 128<<10)
	require.NoError(t, err)
	require.Equal(t, open+2, f.Stats().Requests)
	require.Equal(t, data[128<<10:128<<10+len(p)], p)
	require.LessOrEqual(t, srv.served.Load(), int64(4*64<<10+2))
}

func TestConcurrentReads(t *testing.T) {
	data := testData(256 << 10)
	_, url := newServer(t, data)
	f, err := Open(context.Background(), url, &Options{BlockSize: 1024, CacheBlocks: 8})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 1))
			for i := 0; i < 200; i++ {
				off := r.Int64N(int64(len(data)) - 5000)
				p := make([]byte, r.IntN(5000))
				if _, err := f.ReadAt(p, off); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(p, data[off:off+int64(len(p))]) {
					errs <- errors.New("wrong bytes")
					return
				}
			}
		}(uint64(g))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestNoRanges(t *testing.T) {
	srv, url := newServer(t, testData(1000))
	srv.ranges = false
	_, err := Open(context.Background(), url, nil)
	require.ErrorIs(t, err, ErrNoRanges)
}

func TestChanged(t *testing.T) {
	data := testData(300 << 10)
	srv, url := newServer(t, data)
	f, err := Open(context.Background(), url, &Options{BlockSize: 4096})
	require.NoError(t, err)
	_, err = f.ReadAt(make([]byte, 10), 0)
	require.NoError(t, err)
	srv.mu.Lock()
	srv.data, srv.etag = testData(200<<10), `"v2"`
	srv.mu.Unlock()
	_, err = f.ReadAt(make([]byte, 10), 100<<10)
	require.ErrorIs(t, err, ErrChanged)
}

func TestNotFound(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	_, err := Open(context.Background(), hs.URL+"/nope", nil)
	require.ErrorContains(t, err, "404")
}

func TestEmptyFile(t *testing.T) {
	_, url := newServer(t, nil)
	f, err := Open(context.Background(), url, nil)
	require.NoError(t, err)
	require.Zero(t, f.Size())
	_, err = f.ReadAt(make([]byte, 1), 0)
	require.ErrorIs(t, err, io.EOF)
}
