// Package objstore reads and writes objects in S3, Azure Blob Storage,
// Google Cloud Storage and local directories (file://) through one API, so
// that every command taking a path can take an object URL instead.
//
// It is built on gocloud.dev/blob, one well-kept library covering the
// three clouds, with the drivers configured here the way each cloud's own
// tools are: AWS credentials and endpoints from the SDK's default chain and
// AWS_ENDPOINT_URL, Azure from a connection string, account key or default
// credential, GCS from application default credentials.
//
// Object URLs are scheme://bucket/key with the key taken literally: a key
// may contain '?', '#', spaces or '%', so no query or escape is parsed.
//
// Files opened for reading (OpenFile, FS) are io.ReaderAt values built on
// range requests: metadata costs a small fixed number of requests, small
// reads share cached blocks, and sequential reads are fetched ahead in
// large ranges with bounded parallelism.
package objstore

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"gocloud.dev/blob"
)

// ErrChanged is matched by the error of a read from a File whose object
// was replaced (its ETag, size or modification time differ) since
// OpenFile.
var ErrChanged = errors.New("objstore: object changed while read")

// Options configure stores; the zero value is the default everywhere.
type Options struct {
	// S3Endpoint is the S3 service's URL, for S3-compatible stores; empty
	// means AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else AWS itself.
	// Path-style addressing is chosen automatically for an IP address or
	// localhost endpoint.
	S3Endpoint string
	// S3Region is the S3 region; empty means AWS_REGION,
	// AWS_DEFAULT_REGION or the shared config, and us-east-1 when an
	// endpoint is set and nothing names a region.
	S3Region string
	// Concurrency bounds the parallel range requests of one file (default
	// 8).
	Concurrency int
	// ReadAhead is how many bytes a file fetches ahead of sequential
	// reads (default 8 MiB; 0 = default, negative = off).
	ReadAhead int64
	// BlockSize is the cache block of small reads (default 64 KiB).
	BlockSize int
	// Retries is how many times a throttled or transient request is
	// retried (default 4; backoff 100 ms doubling, capped at 2 s).
	Retries int
	// HTTPClient sends every request of the S3 driver (tests); nil means
	// the SDK's default transport.
	HTTPClient *http.Client
	// Warn, if set, receives one-line warnings: each retry of an S3
	// request. It may be called from several goroutines at once.
	Warn func(msg string)
}

const (
	defaultConcurrency = 8
	defaultReadAhead   = 8 << 20
	defaultBlockSize   = 64 << 10
	defaultRetries     = 4
)

// withDefaults returns o (nil allowed) with its zero fields set.
func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Concurrency <= 0 {
		r.Concurrency = defaultConcurrency
	}
	if r.ReadAhead == 0 {
		r.ReadAhead = defaultReadAhead
	}
	if r.ReadAhead < 0 {
		r.ReadAhead = 0
	}
	if r.BlockSize <= 0 {
		r.BlockSize = defaultBlockSize
	}
	if r.Retries <= 0 {
		r.Retries = defaultRetries
	}
	return r
}

// Store is one bucket (or container, or local root directory). It is safe
// for concurrent use.
type Store struct {
	scheme string // as in the URL it was opened with: s3, gs, az, azblob, file
	bucket string // "" for file://
	b      *blob.Bucket
	o      Options

	// pageSize is the listing page size (0 = the driver's default, 1,000
	// for S3); tests set it small to exercise pagination.
	pageSize int
	// partSize is the part size of multipart uploads (0 = 16 MiB); tests
	// set S3's minimum, 5 MiB, to upload several parts cheaply.
	partSize int
}

// Open returns the store of url's bucket and the key (or prefix) url names
// within it. The caller closes what it opens. Opening is cheap: it sends
// no request, so a missing bucket or wrong credentials show at the first
// operation.
func Open(ctx context.Context, url string, o *Options) (*Store, string, error) {
	u, err := parseURL(url)
	if err != nil {
		return nil, "", err
	}
	opts := o.withDefaults()
	b, err := openBucket(ctx, u, &opts)
	if err != nil {
		return nil, "", err
	}
	return &Store{scheme: u.scheme, bucket: u.bucket, b: b, o: opts}, u.key, nil
}

// URL returns scheme://bucket/key, the object's name in messages and
// listings; Open of it gives the same store and key back.
func (s *Store) URL(key string) string {
	if s.scheme == "file" {
		return "file:///" + key
	}
	return s.scheme + "://" + s.bucket + "/" + key
}

// Close releases the store's connections.
func (s *Store) Close() error { return s.b.Close() }

// Object describes one object.
type Object struct {
	Key     string    // its key within the bucket
	Size    int64     // its length in bytes
	ModTime time.Time // when it was last written
	ETag    string    // the store's version tag (quoted as the store sends it)
}

// Stat returns the object at key; a missing object's error matches
// fs.ErrNotExist.
func (s *Store) Stat(ctx context.Context, key string) (Object, error) {
	if err := checkKey(key); err != nil {
		return Object{}, s.errorf("HEAD", key, err)
	}
	a, err := s.head(ctx, key)
	if err != nil {
		return Object{}, err
	}
	return Object{Key: key, Size: a.Size, ModTime: a.ModTime, ETag: a.ETag}, nil
}

// List returns every object under prefix (recursive, all pages, sorted by
// key). prefix "" lists the whole bucket. Keys ending in "/" (the empty
// "directory" markers some tools write) are left out.
func (s *Store) List(ctx context.Context, prefix string) ([]Object, error) {
	var out []Object
	err := s.listPages(ctx, prefix, "", func(o *blob.ListObject) error {
		if !o.IsDir && !strings.HasSuffix(o.Key, "/") {
			out = append(out, Object{Key: o.Key, Size: o.Size, ModTime: o.ModTime, ETag: etagOf(o)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// listPages calls fn for every entry of a listing under prefix, page by
// page; with delimiter "/" the entries are the prefix's immediate objects
// and subdirectories (IsDir).
func (s *Store) listPages(ctx context.Context, prefix, delimiter string, fn func(*blob.ListObject) error) error {
	opts := &blob.ListOptions{Prefix: prefix, Delimiter: delimiter}
	if s.scheme == "file" {
		return s.listFile(prefix, delimiter, fn)
	}
	token := blob.FirstPageToken
	for {
		page, next, err := s.b.ListPage(ctx, token, cmp.Or(s.pageSize, 1000), opts)
		if err != nil {
			return s.wrap("LIST", prefix, err)
		}
		for _, o := range page {
			if err := fn(o); err != nil {
				return err
			}
		}
		if len(next) == 0 {
			return nil
		}
		token = next
	}
}

// Delete removes the object at key. Deleting a missing object is an error
// matching fs.ErrNotExist on stores that say so (S3 does not: its DELETE
// of a missing key succeeds).
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return s.errorf("DELETE", key, err)
	}
	if err := s.b.Delete(ctx, key); err != nil {
		return s.wrap("DELETE", key, err)
	}
	return nil
}

// checkKey refuses keys no store accepts.
func checkKey(key string) error {
	if key == "" {
		return errors.New("empty key")
	}
	return nil
}

// etagOf returns the ETag of a listed object where the driver's listing
// gives one.
func etagOf(o *blob.ListObject) string {
	var s3o s3types.Object
	if o.As(&s3o) && s3o.ETag != nil {
		return *s3o.ETag
	}
	return ""
}

// head returns key's attributes. S3 answers a failed HEAD with a status
// and no body, which cannot tell a missing key from a missing bucket, nor
// say why access was denied; the error then carries what a one-byte GET
// says instead (one more request, on the error path only).
func (s *Store) head(ctx context.Context, key string) (*blob.Attributes, error) {
	a, err := s.b.Attributes(ctx, key)
	if err == nil {
		return a, nil
	}
	e := s.wrap("HEAD", key, err)
	st := status(err)
	if oe, ok := e.(*opError); ok && s.scheme == "s3" && st >= 300 && st < 500 {
		if r, gerr := s.b.NewRangeReader(ctx, key, 0, 1, nil); gerr != nil {
			if status(gerr) == st {
				oe.detail = describe(gerr)
			}
		} else {
			r.Close()
		}
	}
	return nil, e
}
