package httpfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
)

// ErrTooLarge is returned by Download when the file is larger than the
// limit it was given.
var ErrTooLarge = errors.New("httpfile: remote file is larger than the download limit")

// A NoRangesError is what Open returns when the server does not serve byte
// ranges of the URL; it matches ErrNoRanges. Reading such a file means
// downloading all of it (see Download), and Size tells how much that is.
type NoRangesError struct {
	URL string
	// Size is the length of the file the server announced, or -1 when it
	// did not say or what it said cannot be trusted to be the file's.
	Size int64
	// Why says what the server did instead of serving a range.
	Why string
}

func (e *NoRangesError) Error() string {
	return fmt.Sprintf("%v: %s %s", ErrNoRanges, e.URL, e.Why)
}

// Is makes a NoRangesError match ErrNoRanges.
func (e *NoRangesError) Is(target error) bool { return target == ErrNoRanges }

// DefaultMemoryLimit is the largest download Download keeps in memory when
// DownloadOptions.MemoryLimit is not positive.
const DefaultMemoryLimit = 64 << 20

// DownloadOptions configure Download. The zero value selects the defaults
// noted on each field.
type DownloadOptions struct {
	// Client and Header are as in Options.
	Client *http.Client
	Header http.Header
	// MaxSize refuses a larger file with ErrTooLarge: before anything is
	// read when the server announces the length, as soon as the body
	// passes it otherwise. Zero or less means no limit.
	MaxSize int64
	// MemoryLimit is the largest file held in memory (default
	// DefaultMemoryLimit); a larger one is written to a temporary file
	// in TempDir (default os.TempDir()), removed by Close.
	MemoryLimit int64
	TempDir     string
}

// Downloaded is a whole remote file fetched by Download, read from memory
// or a temporary file. It is safe for concurrent use.
type Downloaded struct {
	r    io.ReaderAt
	size int64
	tmp  *os.File // nil when held in memory
	name string   // of tmp, when it could not be removed while open
}

// Download fetches the whole file at url with one GET without a range, for
// servers that do not serve ranges (see Open). The body must be complete:
// a response that ends before its Content-Length is an error, never a
// shorter file. ctx bounds the download.
func Download(ctx context.Context, url string, opts *DownloadOptions) (*Downloaded, error) {
	var o DownloadOptions
	if opts != nil {
		o = *opts
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	req, err := newGet(ctx, url, o.Header)
	if err != nil {
		return nil, err
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("httpfile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("httpfile: %s: %s", url, resp.Status)
	}
	announced := resp.ContentLength // -1 when unknown
	if o.MaxSize > 0 && announced > o.MaxSize {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the limit of %d", ErrTooLarge, url, announced, o.MaxSize)
	}
	// Read one byte past the limit to tell a file at the limit from a
	// larger one.
	body := io.Reader(resp.Body)
	if o.MaxSize > 0 {
		body = io.LimitReader(resp.Body, o.MaxSize+1)
	}
	d := &Downloaded{}
	var buf bytes.Buffer
	if announced < 0 || announced <= o.MemoryLimit {
		n, err := io.Copy(&buf, io.LimitReader(body, o.MemoryLimit+1))
		if err != nil {
			return nil, fmt.Errorf("httpfile: downloading %s: got %d bytes: %w", url, n, err)
		}
		if n <= o.MemoryLimit {
			d.r, d.size = bytes.NewReader(buf.Bytes()), n
			return d, d.check(url, announced, o.MaxSize)
		}
	}
	// Too large for memory: what was read so far goes first.
	if err := d.spill(url, o.TempDir, &buf, body); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.check(url, announced, o.MaxSize); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// spill writes head, then the rest of body, to a temporary file.
func (d *Downloaded) spill(url, dir string, head *bytes.Buffer, body io.Reader) error {
	tmp, err := os.CreateTemp(dir, "tsarrow-download-*")
	if err != nil {
		return fmt.Errorf("httpfile: downloading %s: %w", url, err)
	}
	d.tmp, d.r = tmp, tmp
	// Unlinked at once where the system allows it, so that nothing is
	// left behind even if the process is killed; elsewhere Close removes
	// it.
	if os.Remove(tmp.Name()) != nil {
		d.name = tmp.Name()
	}
	n, err := io.Copy(tmp, io.MultiReader(head, body))
	d.size = n
	if err != nil {
		return fmt.Errorf("httpfile: downloading %s: got %d bytes: %w", url, n, err)
	}
	return nil
}

// check compares the bytes downloaded with the limit and the announced
// length.
func (d *Downloaded) check(url string, announced, maxSize int64) error {
	if maxSize > 0 && d.size > maxSize {
		return fmt.Errorf("%w: %s is over the limit of %d bytes", ErrTooLarge, url, maxSize)
	}
	if announced >= 0 && d.size != announced {
		return fmt.Errorf("httpfile: downloading %s: got %d bytes, Content-Length %d: %w", url, d.size, announced, io.ErrUnexpectedEOF)
	}
	return nil
}

// Size returns the length of the file.
func (d *Downloaded) Size() int64 { return d.size }

// ReadAt reads len(p) bytes at off, as io.ReaderAt specifies.
func (d *Downloaded) ReadAt(p []byte, off int64) (int, error) {
	if d.r == nil {
		return 0, os.ErrClosed
	}
	return d.r.ReadAt(p, off)
}

// Close frees the download: its memory, or its temporary file.
func (d *Downloaded) Close() error {
	d.r = nil
	if d.tmp == nil {
		return nil
	}
	err := d.tmp.Close()
	if d.name != "" {
		if rerr := os.Remove(d.name); err == nil {
			err = rerr
		}
	}
	d.tmp = nil
	return err
}
