package objstore

import (
	"errors"
	"fmt"
	"strings"
)

// objURL is an object URL split into its parts.
type objURL struct {
	scheme string // s3, gs, az, azblob, file
	bucket string // bucket or container; "" for file
	key    string // the rest, literally (may be "" or end in "/")
}

// schemes are the URL schemes IsURL accepts, with their "://".
var schemes = []string{"s3://", "gs://", "az://", "azblob://", "file://"}

// IsURL reports whether s names an object store: s3://, gs://, az://,
// azblob://, or file:// (the last through gocloud's fileblob, so the same
// code runs without a server). The scheme is matched case-insensitively.
func IsURL(s string) bool {
	for _, p := range schemes {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// errURL is matched by the errors of parseURL.
var errURL = errors.New("not an object URL")

// parseURL splits scheme://bucket/key. Nothing after the bucket is
// interpreted: '?', '#', '%' and spaces are part of the key, since S3 keys
// may hold them and net/url would take them for a query, a fragment or an
// escape. file:///abs/path names the local absolute path /abs/path; its
// "bucket" is the root directory and its key the path without the leading
// slash.
func parseURL(s string) (objURL, error) {
	i := strings.Index(s, "://")
	if i < 0 || !IsURL(s) {
		return objURL{}, fmt.Errorf("objstore: %q: %w (want s3://, gs://, az://, azblob:// or file://)", s, errURL)
	}
	u := objURL{scheme: strings.ToLower(s[:i])}
	rest := s[i+3:]
	if u.scheme == "file" {
		// file:///abs/path, or file://localhost/abs/path as RFC 8089 allows.
		if strings.HasPrefix(rest, "localhost/") {
			rest = rest[len("localhost"):]
		}
		if !strings.HasPrefix(rest, "/") {
			return objURL{}, fmt.Errorf("objstore: %q: %w: a file URL needs an absolute path, file:///abs/path", s, errURL)
		}
		u.key = strings.TrimLeft(rest, "/")
		if err := checkFileKey(u.key); err != nil {
			return objURL{}, fmt.Errorf("objstore: %q: %w: %v", s, errURL, err)
		}
		return u, nil
	}
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		u.bucket = rest
	} else {
		u.bucket, u.key = rest[:j], rest[j+1:]
	}
	if err := checkBucket(u.scheme, u.bucket); err != nil {
		return objURL{}, fmt.Errorf("objstore: %q: %w: %v", s, errURL, err)
	}
	return u, nil
}

// checkBucket refuses bucket names that cannot be one: empty, or holding
// characters no store allows in a bucket or container name (these would
// otherwise change the request's host or path).
func checkBucket(scheme, b string) error {
	if b == "" {
		return errors.New("no bucket name")
	}
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.':
		case c == '_' || (c >= 'A' && c <= 'Z'):
			// Legacy S3 buckets and GCS allow '_'; some S3-compatible
			// stores allow upper case. Let the store decide.
		default:
			return fmt.Errorf("bucket name %q holds %q", b, c)
		}
	}
	return nil
}

// checkFileKey refuses file paths with "." or ".." segments, which name
// another file than they seem to once a key is joined to the root.
func checkFileKey(k string) error {
	for seg := range strings.SplitSeq(k, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("path segment %q", seg)
		}
	}
	return nil
}
