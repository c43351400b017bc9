package objstore

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in                  string
		scheme, bucket, key string
		bad                 bool
	}{
		{in: "s3://b/k", scheme: "s3", bucket: "b", key: "k"},
		{in: "s3://b", scheme: "s3", bucket: "b"},
		{in: "s3://b/", scheme: "s3", bucket: "b"},
		{in: "s3://b/dir/", scheme: "s3", bucket: "b", key: "dir/"},
		{in: "S3://b/k", scheme: "s3", bucket: "b", key: "k"},
		{in: "s3://b/a b?x=1#f%20", scheme: "s3", bucket: "b", key: "a b?x=1#f%20"},
		{in: "gs://b/k/**/*.tsfile", scheme: "gs", bucket: "b", key: "k/**/*.tsfile"},
		{in: "az://c/k", scheme: "az", bucket: "c", key: "k"},
		{in: "azblob://c/k", scheme: "azblob", bucket: "c", key: "k"},
		{in: "file:///tmp/x y", scheme: "file", key: "tmp/x y"},
		{in: "file://localhost/tmp/x", scheme: "file", key: "tmp/x"},
		{in: "file:///", scheme: "file"},
		{in: "file://tmp/x", bad: true},
		{in: "file:///tmp/../etc", bad: true},
		{in: "s3:///k", bad: true},
		{in: "s3://b?x/k", bad: true},
		{in: "s3://user@b/k", bad: true},
		{in: "http://b/k", bad: true},
		{in: "/tmp/x", bad: true},
		{in: "s3:/b/k", bad: true},
	} {
		u, err := parseURL(tc.in)
		if tc.bad {
			if err == nil || !errors.Is(err, errURL) {
				t.Errorf("parseURL(%q) = %+v, %v, want an error", tc.in, u, err)
			}
			continue
		}
		if err != nil || u != (objURL{tc.scheme, tc.bucket, tc.key}) {
			t.Errorf("parseURL(%q) = %+v, %v, want %s %s %q", tc.in, u, err, tc.scheme, tc.bucket, tc.key)
		}
	}
}

// FuzzParseURL checks that parseURL never panics, that what it accepts is
// an object URL, and that Store.URL gives the same URL back (up to the
// scheme's case and file's "localhost" and extra slashes).
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"s3://b/k", "gs://b/a b?x#y", "file:///tmp/x", "az://c/", "azblob://c/k/../x", "file://localhost//x", "s3://b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := parseURL(s)
		if err != nil {
			if IsURL(s) && !errors.Is(err, errURL) {
				t.Fatalf("parseURL(%q): %v does not match errURL", s, err)
			}
			return
		}
		if !IsURL(s) {
			t.Fatalf("parseURL(%q) accepted a non-URL", s)
		}
		st := &Store{scheme: u.scheme, bucket: u.bucket}
		back := st.URL(u.key)
		u2, err := parseURL(back)
		if err != nil || u2 != u {
			t.Fatalf("parseURL(%q) = %+v; URL gives %q, which parses as %+v, %v", s, u, back, u2, err)
		}
		if u.scheme != "file" && !strings.HasSuffix(s, u.key) {
			t.Fatalf("parseURL(%q): key %q is not the URL's tail", s, u.key)
		}
	})
}
