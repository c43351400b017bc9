package httpfile

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// noRangeServer ignores Range headers the ways servers do. Its handler
// answers a ranged request with 200 and: the whole body (whole), only the
// bytes asked for (partial); a plain GET always gets the whole body. With
// chunked the length is not announced; short announces the length but
// sends only half of the body.
func noRangeServer(t *testing.T, data []byte, mode string) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := data
		if mode == "partial" && r.Header.Get("Range") != "" {
			body = data[:1]
		}
		switch mode {
		case "chunked":
			// Flushing before writing makes the server send no length.
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		case "short":
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			body = body[:len(body)/2]
		default:
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Write(body)
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/f"
}

// TestNoRangesError: Open tells a server without ranges apart, with the
// size a download would cost when the server said it.
func TestNoRangesError(t *testing.T) {
	data := testData(5000)
	for _, c := range []struct {
		mode string
		size int64
	}{{"whole", 5000}, {"partial", -1}, {"chunked", -1}} {
		_, err := Open(context.Background(), noRangeServer(t, data, c.mode), nil)
		require.ErrorIs(t, err, ErrNoRanges, c.mode)
		var nr *NoRangesError
		require.ErrorAs(t, err, &nr, c.mode)
		require.Equal(t, c.size, nr.Size, c.mode)
	}
}

// TestDownload: the whole body, from memory or a temporary file that does
// not outlive the download; a body over the limit or shorter than its
// Content-Length is an error.
func TestDownload(t *testing.T) {
	data := testData(300 << 10)
	ctx := context.Background()
	for _, mode := range []string{"whole", "partial", "chunked"} {
		for _, memLimit := range []int64{0, 1 << 10} {
			dir := t.TempDir()
			d, err := Download(ctx, noRangeServer(t, data, mode), &DownloadOptions{MemoryLimit: memLimit, TempDir: dir, MaxSize: int64(len(data))})
			require.NoError(t, err, mode)
			require.EqualValues(t, len(data), d.Size())
			got := make([]byte, len(data))
			n, err := d.ReadAt(got, 0)
			require.NoError(t, err)
			require.Equal(t, len(data), n)
			require.True(t, bytes.Equal(data, got), mode)
			_, err = d.ReadAt(got[:10], int64(len(data))-5)
			require.ErrorIs(t, err, io.EOF)
			require.NoError(t, d.Close())
			left, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, left, "temporary files left behind")
		}
	}
	for _, mode := range []string{"whole", "chunked"} {
		dir := t.TempDir()
		_, err := Download(ctx, noRangeServer(t, data, mode), &DownloadOptions{MemoryLimit: 1 << 10, TempDir: dir, MaxSize: int64(len(data)) - 1})
		require.ErrorIs(t, err, ErrTooLarge, mode)
		left, _ := os.ReadDir(dir)
		require.Empty(t, left)
	}
	for _, memLimit := range []int64{0, 1 << 10} {
		_, err := Download(ctx, noRangeServer(t, data, "short"), &DownloadOptions{MemoryLimit: memLimit, TempDir: t.TempDir()})
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	}
}

// TestHeader: Options.Header goes with every range request and
// DownloadOptions.Header with the download.
func TestHeader(t *testing.T) {
	data := testData(4 << 10)
	s := &server{data: data, ranges: true}
	var missing atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer x" {
			missing.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	h := http.Header{"Authorization": {"Bearer x"}}

	f, err := Open(context.Background(), hs.URL, &Options{Header: h})
	require.NoError(t, err)
	got := make([]byte, len(data))
	_, err = f.ReadAt(got, 0)
	require.NoError(t, err)
	require.Equal(t, data, got)

	d, err := Download(context.Background(), hs.URL, &DownloadOptions{Header: h})
	require.NoError(t, err)
	defer d.Close()
	require.Equal(t, int64(len(data)), d.Size())
	require.Zero(t, missing.Load())
}
