package inputs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
	"github.com/tsarrow/tsarrow/objstore"
)

// objectTree is the layout TestExpandObjects lays out on disk and in a
// bucket alike. Names are chosen where key order and path order could
// part: "sub-x" and "sub.tsfile" sort before "sub/" as keys, and a
// folder matched by a pattern brings its TsFiles in at its own place.
var objectTree = []string{
	"a.tsfile", "[odd].tsfile", "?q.tsfile",
	"d/b.tsfile", "d/x/c.TSFILE", "d/notes.txt", "d/sub/y.tsfile", "d/sub-x.tsfile", "d/sub.tsfile",
	"d/sub/deep/z.tsfile", "e/readme", "n/x/q.tsfile",
}

// TestExpandObjects: an object URL names what the same path names on a
// local disk, file for file and in the same order: a prefix as a
// directory (with or without its /), `*`, `**`, `{a,b}` and `[...]`
// patterns (a folder matched gives its TsFiles), a key that holds glob
// characters as itself; and the same errors, usage errors for what names
// no TsFile and the store's not-found error, naming the URL, for what is
// not there.
func TestExpandObjects(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	root := t.TempDir()
	touch(t, root, objectTree...)
	srv.PutDir(t, bucket, "in", root)
	expandLikeLocal(t, root, "s3://"+bucket+"/in/")
	// The bucket's root is a directory too.
	got, err := ExpandContext(context.Background(), []string{"s3://" + bucket}, nil)
	require.NoError(t, err)
	require.Len(t, got, 10)
	require.Equal(t, "s3://"+bucket+"/in/?q.tsfile", got[0])
}

// TestExpandFileURLs: file:// URLs (objstore's fileblob, no server)
// expand as the paths they name.
func TestExpandFileURLs(t *testing.T) {
	root := t.TempDir()
	touch(t, root, objectTree...)
	expandLikeLocal(t, root, "file://"+filepath.ToSlash(root)+"/")
}

// expandLikeLocal checks that the URLs below base, a copy of the local
// tree root, expand as the paths below root do.
func expandLikeLocal(t *testing.T, root, base string) {
	t.Helper()
	ctx := context.Background()
	local := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for _, rel := range []string{
		"d", "d/", "d/sub", "d/*", "d/**", "**/*.tsfile", "**", "*.tsfile", "d/{b,sub}.tsfile",
		"d/sub*", "d/[bs]*", "[odd].tsfile", "?q.tsfile", "n", "*/x", "**/x",
	} {
		want, err := Expand([]string{local(rel)})
		require.NoError(t, err, rel)
		got, err := ExpandContext(ctx, []string{base + rel}, nil)
		require.NoError(t, err, rel)
		var mapped []string
		for _, w := range want {
			r, err := filepath.Rel(root, w)
			require.NoError(t, err)
			mapped = append(mapped, base+filepath.ToSlash(r))
		}
		require.Equal(t, mapped, got, "%s: the objects differ from the local files", rel)
	}
	// A file named twice is read once; arguments keep their order.
	got, err := ExpandContext(ctx, []string{base + "d/b.tsfile", base + "d/*.tsfile", base + "a.tsfile"}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{base + "d/b.tsfile", base + "d/sub-x.tsfile", base + "d/sub.tsfile", base + "a.tsfile"}, got)

	for _, tc := range []struct {
		rel      string
		usage    bool
		notExist bool
	}{
		{"e", true, false},
		{"e/", true, false},
		{"*.parquet", true, false},
		{"[a-", true, false},
		{"missing.tsfile", false, true},
		{"missing/", false, true},
	} {
		_, lerr := Expand([]string{local(tc.rel)})
		require.Equal(t, tc.usage, errors.Is(lerr, ErrUsage), "local %s: %v", tc.rel, lerr)
		_, err := ExpandContext(ctx, []string{base + tc.rel}, nil)
		require.Error(t, err, tc.rel)
		require.Equal(t, tc.usage, errors.Is(err, ErrUsage), "%s: %v", tc.rel, err)
		require.Equal(t, tc.notExist, errors.Is(err, fs.ErrNotExist), "%s: %v", tc.rel, err)
		if tc.notExist {
			require.Contains(t, err.Error(), base+tc.rel, "the error names the URL")
			require.NotContains(t, err.Error(), "\n")
		}
	}
}

// TestExpandObjectsOptions: the options reach the store: an endpoint
// given in Options is used when the environment names none, and a wrong
// one fails.
func TestExpandObjectsOptions(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.Put(t, bucket, "k/a.tsfile", []byte("x"))
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	ctx := context.Background()
	got, err := ExpandContext(ctx, []string{"s3://" + bucket + "/k/"}, &objstore.Options{S3Endpoint: srv.Endpoint})
	require.NoError(t, err)
	require.Equal(t, []string{"s3://" + bucket + "/k/a.tsfile"}, got)
	_, err = ExpandContext(ctx, []string{"s3://" + bucket + "/k/"}, &objstore.Options{S3Endpoint: "http://127.0.0.1:1"})
	require.Error(t, err)
}

// TestLayoutContext: objects in a time partition folder of a data
// directory, or with a mods object beside them, are IoTDB data, as the
// same files on disk are (Layout); a file merely below a folder named
// sequence is not.
func TestLayoutContext(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	root := t.TempDir()
	touch(t, root,
		"data/sequence/db/1/2820/1-1-0-0.tsfile", "data/sequence/db/1/2820/1-1-0-0.tsfile.resource",
		"plain/sequence/x.tsfile",
		"m/a.tsfile", "m/sub/b.tsfile", "m/sub/b.tsfile.mods2",
		"v1/c.tsfile", "v1/c.tsfile.mods",
	)
	srv.PutDir(t, bucket, "", root)
	ctx := context.Background()
	for _, tc := range []struct {
		files             []string
		inLayout, withMod bool
	}{
		{[]string{"data/sequence/db/1/2820/1-1-0-0.tsfile"}, true, false},
		{[]string{"plain/sequence/x.tsfile"}, false, false},
		{[]string{"m/a.tsfile"}, false, false},
		{[]string{"m/a.tsfile", "m/sub/b.tsfile"}, false, true},
		{[]string{"m/sub/b.tsfile"}, false, true},
		{[]string{"v1/c.tsfile"}, false, true},
		{[]string{"plain/sequence/x.tsfile", "v1/c.tsfile"}, false, true},
	} {
		var urls, paths []string
		for _, f := range tc.files {
			urls = append(urls, "s3://"+bucket+"/"+f)
			paths = append(paths, filepath.Join(root, filepath.FromSlash(f)))
		}
		l, m, err := LayoutContext(ctx, urls, nil)
		require.NoError(t, err, tc.files)
		require.Equal(t, tc.inLayout, l, tc.files)
		require.Equal(t, tc.withMod, m, tc.files)
		// As Layout says of the same files on disk.
		ll, lm := Layout(paths)
		require.Equal(t, []bool{ll, ll || lm}, []bool{l, l || m}, tc.files)
	}

	store, _, err := objstore.Open(ctx, "s3://"+bucket+"/", nil)
	require.NoError(t, err)
	defer store.Close()
	for _, tc := range []struct {
		prefix string
		want   bool
	}{{"data", true}, {"data/", true}, {"m", false}, {"", false}, {"plain", true}, {"missing", false}} {
		got, err := IsObjectDataDir(ctx, store, tc.prefix)
		require.NoError(t, err, tc.prefix)
		require.Equal(t, tc.want, got, tc.prefix)
		if _, err := os.Stat(filepath.Join(root, tc.prefix)); err == nil {
			require.Equal(t, IsDataDir(filepath.Join(root, tc.prefix)), got, tc.prefix)
		}
	}
}

// TestGlobPrefix: the listing of a pattern starts at the folder of its
// first glob character.
func TestGlobPrefix(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"a/b/*.tsfile", "a/b/"},
		{"a/b*/c", "a/"},
		{"**/x", ""},
		{"x*", ""},
		{"a/{b,c}/d", "a/"},
		{`a/\*b/c`, "a/"},
		{"a/b/c", "a/b/"},
	} {
		require.Equal(t, tc.want, globPrefix(tc.pattern), tc.pattern)
		require.True(t, strings.HasPrefix(tc.pattern, tc.want))
	}
}
