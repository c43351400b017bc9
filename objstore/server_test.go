package objstore_test

// Tests of objstore against real servers on 127.0.0.1 (internal/objtest):
// versitygw for S3, Azurite for Azure Blob, fake-gcs-server for GCS, and
// a fault-injecting proxy in front of versitygw. Fixtures are put and
// results checked through the servers' own SDKs (objtest), not through
// objstore.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tsarrow/tsarrow/internal/objtest"
	"github.com/tsarrow/tsarrow/objstore"
)

// s3Options are the options that reach srv at endpoint (srv's, or a
// proxy's in front of it); the credentials come from the environment
// (srv.Setenv), as a user's would.
func s3Options(srv *objtest.Server, endpoint string) *objstore.Options {
	return &objstore.Options{S3Endpoint: endpoint, S3Region: srv.Region}
}

// open opens url's store and closes it when t ends.
func open(t *testing.T, url string, o *objstore.Options) (*objstore.Store, string) {
	t.Helper()
	st, key, err := objstore.Open(context.Background(), url, o)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { st.Close() })
	return st, key
}

// randomBytes returns n bytes from a seeded generator: the same bytes on
// every run.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// checkError checks that err is a one-line error matching is (errors.Is,
// when is is not nil), saying each of want and none of never.
func checkError(t *testing.T, what string, err error, is error, want, never []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	msg := err.Error()
	if is != nil && !errors.Is(err, is) {
		t.Errorf("%s: %q is not %v", what, msg, is)
	}
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("%s: error of more than one line: %q", what, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: %q does not say %q", what, msg, w)
		}
	}
	for _, n := range never {
		if n != "" && strings.Contains(msg, n) {
			t.Errorf("%s: %q contains %q, which it must never show", what, msg, n)
		}
	}
}

// TestServerListBeyondOnePage: a listing of more objects than one page
// holds (S3 answers at most 1,000 keys a request) returns every object
// under the prefix, nested ones too, sorted, with their sizes; a glob
// over the same keys pages as well.
func TestServerListBeyondOnePage(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	objects := map[string][]byte{}
	for i := range 1100 {
		objects[fmt.Sprintf("k/%04d.tsfile", i)] = bytes.Repeat([]byte{'x'}, i%17+1)
	}
	for i := range 150 {
		objects[fmt.Sprintf("k/d%d/%03d", i%3, i)] = bytes.Repeat([]byte{'y'}, i%5+1)
	}
	objects["other/k"] = []byte("not under k/")
	// A key that starts as the prefix does but is not under k/. (Not
	// "k" itself: the posix backend cannot hold an object k beside a
	// directory k/.)
	objects["kk"] = []byte("not under k/")
	srv.PutMany(t, bucket, objects)

	// The keys in order, the model a listing must match.
	var want []string
	for k := range objects {
		if strings.HasPrefix(k, "k/") {
			want = append(want, k)
		}
	}
	slices.Sort(want)
	if len(want) != 1250 {
		t.Fatalf("model has %d keys", len(want))
	}

	st, _ := open(t, "s3://"+bucket+"/", s3Options(srv, srv.Endpoint))
	got, err := st.List(context.Background(), "k/")
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("List(k/) returned %d objects, want %d", len(got), len(want))
	}
	for i, o := range got {
		if o.Key != want[i] {
			t.Fatalf("List(k/)[%d] = %q, want %q", i, o.Key, want[i])
		}
		if o.Size != int64(len(objects[o.Key])) {
			t.Errorf("List(k/)[%d] %s: size %d, want %d", i, o.Key, o.Size, len(objects[o.Key]))
		}
	}
	all, err := st.List(context.Background(), "")
	if err != nil {
		t.Fatalf("List(\"\"): %v", err)
	}
	if len(all) != len(objects) {
		t.Errorf("List(\"\") returned %d objects, want %d", len(all), len(objects))
	}
	if keys := srv.Keys(t, bucket, "k/"); !slices.Equal(keys, want) {
		t.Errorf("the server lists %d keys under k/, the model %d", len(keys), len(want))
	}

	// * does not cross '/': the 1,100 top-level objects, over two pages.
	urls, err := objstore.Glob(context.Background(), "s3://"+bucket+"/k/*.tsfile", s3Options(srv, srv.Endpoint))
	if err != nil {
		t.Fatalf("Glob: %v", err)
	}
	var wantURLs []string
	for _, k := range want {
		if strings.HasSuffix(k, ".tsfile") {
			wantURLs = append(wantURLs, "s3://"+bucket+"/"+k)
		}
	}
	if !slices.Equal(urls, wantURLs) {
		t.Errorf("Glob(k/*.tsfile) returned %d URLs, want %d (first %q)", len(urls), len(wantURLs), urls[:min(len(urls), 3)])
	}
}

// TestServerRangeReads: ReadAt returns the object's bytes for ranges of
// every shape (one byte, across cache blocks, the whole object, past the
// end), with the read-ahead and cache settings a user may choose, and from
// goroutines at once.
func TestServerRangeReads(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	data := randomBytes(3<<20+12345, 7)
	srv.Put(t, bucket, "data/f.bin", data)
	size := int64(len(data))

	type span struct{ off, n int64 }
	spans := []span{
		{0, 1}, {0, 16}, {size - 1, 1}, {size - 100, 100}, {0, size},
		{65535, 2}, {65536 - 10, 65536 + 20}, {1 << 20, 1 << 20}, {12345, 777777},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		off := r.Int64N(size)
		spans = append(spans, span{off, 1 + r.Int64N(min(size-off, 300000))})
	}
	for _, tc := range []struct {
		name string
		o    objstore.Options
	}{
		{"defaults", objstore.Options{}},
		{"no read-ahead, small blocks, serial", objstore.Options{ReadAhead: -1, BlockSize: 4096, Concurrency: 1}},
		{"small read-ahead, parallel", objstore.Options{ReadAhead: 256 << 10, BlockSize: 32 << 10, Concurrency: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.S3Endpoint, o.S3Region = srv.Endpoint, srv.Region
			st, key := open(t, "s3://"+bucket+"/data/f.bin", &o)
			f, err := st.OpenFile(context.Background(), key)
			if err != nil {
				t.Fatalf("OpenFile: %v", err)
			}
			defer f.Close()
			if f.Size() != size {
				t.Fatalf("Size = %d, want %d", f.Size(), size)
			}
			if want := "s3://" + bucket + "/data/f.bin"; f.Name() != want {
				t.Errorf("Name = %q, want %q", f.Name(), want)
			}
			for _, sp := range spans {
				p := make([]byte, sp.n)
				n, err := f.ReadAt(p, sp.off)
				if err != nil && !(err == io.EOF && sp.off+sp.n == size) {
					t.Fatalf("ReadAt(%d bytes at %d): %v", sp.n, sp.off, err)
				}
				if int64(n) != sp.n || !bytes.Equal(p, data[sp.off:sp.off+sp.n]) {
					t.Fatalf("ReadAt(%d bytes at %d): %d bytes, not the object's", sp.n, sp.off, n)
				}
			}
			// Past the end: what is there, then io.EOF (io.ReaderAt).
			p := make([]byte, 50)
			if n, err := f.ReadAt(p, size-20); n != 20 || err != io.EOF || !bytes.Equal(p[:20], data[size-20:]) {
				t.Errorf("ReadAt across the end = %d, %v; want 20, EOF and the last bytes", n, err)
			}
			if n, err := f.ReadAt(p, size); n != 0 || err != io.EOF {
				t.Errorf("ReadAt at the end = %d, %v; want 0, EOF", n, err)
			}
			// The same spans from four goroutines at once.
			var wg sync.WaitGroup
			errs := make(chan string, len(spans))
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := g; i < len(spans); i += 4 {
						sp := spans[i]
						p := make([]byte, sp.n)
						n, err := f.ReadAt(p, sp.off)
						if (err != nil && err != io.EOF) || int64(n) != sp.n || !bytes.Equal(p, data[sp.off:sp.off+sp.n]) {
							errs <- fmt.Sprintf("concurrent ReadAt(%d bytes at %d): %d, %v", sp.n, sp.off, n, err)
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			if s := f.Stats(); s.Requests < 1 || s.Bytes < 1 {
				t.Errorf("Stats = %+v after reads", s)
			}
		})
	}
}

// TestServerWrongCredentials: a secret the server does not accept gives,
// for every operation, one line naming the object and the status (403),
// matching fs.ErrPermission, and never the secret, the right one or the
// wrong one. An access key the server does not know is refused too, in
// one line without the secrets; versitygw answers it 404
// XAdminUserNotFound (AWS answers 403 InvalidAccessKeyId), so only the
// refusal is checked there.
func TestServerWrongCredentials(t *testing.T) {
	srv := objtest.S3(t)
	bucket := srv.Bucket(t)
	srv.Put(t, bucket, "x.tsfile", []byte("tsfile bytes"))
	const wrongSecret = "objtest-WRONG-secret-4f1d2c"
	for _, tc := range []struct {
		name, access string
		is           error    // what every error must match
		says         []string // what every error must say besides the URL
	}{
		{"wrong secret", srv.AccessKey, fs.ErrPermission, []string{"403"}},
		{"unknown access key", "objtest-nobody", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Setenv(t)
			t.Setenv("AWS_ACCESS_KEY_ID", tc.access)
			t.Setenv("AWS_SECRET_ACCESS_KEY", wrongSecret)
			ctx := context.Background()
			st, key := open(t, "s3://"+bucket+"/x.tsfile", s3Options(srv, srv.Endpoint))
			never := []string{wrongSecret, srv.SecretKey}
			says := func(url string) []string { return append([]string{url}, tc.says...) }
			url := "s3://" + bucket + "/x.tsfile"
			_, err := st.Stat(ctx, key)
			checkError(t, "Stat", err, tc.is, says(url), never)
			_, err = st.List(ctx, "")
			checkError(t, "List", err, tc.is, says("s3://"+bucket), never)
			f, err := st.OpenFile(ctx, key)
			if err == nil {
				_, err = f.ReadAt(make([]byte, 4), 0)
				f.Close()
			}
			checkError(t, "OpenFile+ReadAt", err, tc.is, says(url), never)
			w, err := st.Create(ctx, "new.parquet")
			if err == nil {
				if _, err = w.Write([]byte("data")); err == nil {
					err = w.Commit()
				}
				if err != nil {
					w.Abort()
				}
			}
			checkError(t, "Create+Write+Commit", err, tc.is, says("s3://"+bucket+"/new.parquet"), never)
		})
	}
	// Nothing was written with the wrong credentials.
	if keys := srv.Keys(t, bucket, ""); !slices.Equal(keys, []string{"x.tsfile"}) {
		t.Errorf("bucket holds %q after the refused writes", keys)
	}
}

// TestServerMissing: a missing bucket, and a missing key in a bucket
// that exists, are fs.ErrNotExist, in one line naming the bucket (and
// key).
func TestServerMissing(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	ctx := context.Background()
	missing := "objtest-no-such-bucket-" + fmt.Sprint(rand.Uint32())
	st, _ := open(t, "s3://"+missing+"/", s3Options(srv, srv.Endpoint))
	_, err := st.Stat(ctx, "a/x.tsfile")
	checkError(t, "Stat in a missing bucket", err, fs.ErrNotExist, []string{"s3://" + missing + "/a/x.tsfile"}, []string{srv.SecretKey})
	_, err = st.OpenFile(ctx, "a/x.tsfile")
	checkError(t, "OpenFile in a missing bucket", err, fs.ErrNotExist, []string{"s3://" + missing + "/a/x.tsfile"}, []string{srv.SecretKey})
	_, err = st.List(ctx, "a/")
	checkError(t, "List of a missing bucket", err, fs.ErrNotExist, []string{"s3://" + missing}, []string{srv.SecretKey})
	w, err := st.Create(ctx, "out.parquet")
	if err == nil {
		if _, err = w.Write([]byte("data")); err == nil {
			err = w.Commit()
		}
	}
	checkError(t, "Create+Commit in a missing bucket", err, nil, []string{"s3://" + missing + "/out.parquet"}, []string{srv.SecretKey})

	bucket := srv.Bucket(t)
	st2, _ := open(t, "s3://"+bucket+"/", s3Options(srv, srv.Endpoint))
	_, err = st2.Stat(ctx, "no/such.tsfile")
	checkError(t, "Stat of a missing key", err, fs.ErrNotExist, []string{"s3://" + bucket + "/no/such.tsfile"}, nil)
	_, err = st2.OpenFile(ctx, "no/such.tsfile")
	checkError(t, "OpenFile of a missing key", err, fs.ErrNotExist, []string{"s3://" + bucket + "/no/such.tsfile"}, nil)
	if objs, err := st2.List(ctx, "no/"); err != nil || len(objs) != 0 {
		t.Errorf("List of an empty prefix = %v, %v; want nothing, no error", objs, err)
	}
}

// TestServerRetries: a server answering 503 SlowDown twice and then
// normally (a proxy in front of versitygw) still gives the object's
// bytes; one answering 503 always fails the read loudly, after a bounded
// number of requests, naming the status.
func TestServerRetries(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	data := randomBytes(300<<10, 11)
	srv.Put(t, bucket, "f.bin", data)
	ctx := context.Background()

	for _, tc := range []struct {
		name string
		hit  func(r *http.Request) bool // the requests that count for "twice"
	}{
		{"any request", func(r *http.Request) bool { return true }},
		{"range reads", func(r *http.Request) bool { return r.Method == http.MethodGet && r.Header.Get("Range") != "" }},
	} {
		t.Run("503 twice then 200, "+tc.name, func(t *testing.T) {
			var seen, failed atomic.Int64
			proxy := objtest.FaultProxy(t, srv.Endpoint, func(r *http.Request) int {
				if tc.hit(r) && seen.Add(1) <= 2 {
					failed.Add(1)
					return http.StatusServiceUnavailable
				}
				return 0
			})
			st, key := open(t, "s3://"+bucket+"/f.bin", s3Options(srv, proxy))
			f, err := st.OpenFile(ctx, key)
			if err != nil {
				t.Fatalf("OpenFile through 503s: %v", err)
			}
			defer f.Close()
			p := make([]byte, len(data))
			if n, err := f.ReadAt(p, 0); (err != nil && err != io.EOF) || n != len(data) || !bytes.Equal(p, data) {
				t.Fatalf("ReadAt through 503s: %d bytes, %v; want the object", n, err)
			}
			if failed.Load() != 2 {
				t.Errorf("the proxy failed %d requests, want 2 (the fault was not met)", failed.Load())
			}
		})
	}

	// Range reads failing for good after the object opened: the read
	// fails, in one line naming the object and the status, also when a
	// large read went out as parallel requests that all failed.
	big := randomBytes(6<<20, 13)
	srv.Put(t, bucket, "big.bin", big)
	t.Run("503 always on range reads", func(t *testing.T) {
		var requests atomic.Int64
		proxy := objtest.FaultProxy(t, srv.Endpoint, func(r *http.Request) int {
			if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
				requests.Add(1)
				return http.StatusServiceUnavailable
			}
			return 0
		})
		o := s3Options(srv, proxy)
		o.Retries = 1
		o.Concurrency = 4
		st, key := open(t, "s3://"+bucket+"/big.bin", o)
		f, err := st.OpenFile(ctx, key)
		if err == nil {
			var n int
			n, err = f.ReadAt(make([]byte, len(big)), 0)
			f.Close()
			if err == nil {
				t.Fatalf("ReadAt gave %d bytes through a server failing every range read", n)
			}
		}
		checkError(t, "range reads from a server that always answers 503", err, nil, []string{"s3://" + bucket + "/big.bin", "503"}, []string{srv.SecretKey})
		if requests.Load() == 0 {
			t.Error("no range read reached the proxy")
		}
	})

	t.Run("503 always", func(t *testing.T) {
		var requests atomic.Int64
		proxy := objtest.FaultProxy(t, srv.Endpoint, func(r *http.Request) int {
			requests.Add(1)
			return http.StatusServiceUnavailable
		})
		o := s3Options(srv, proxy)
		o.Retries = 2
		st, key := open(t, "s3://"+bucket+"/f.bin", o)
		f, err := st.OpenFile(ctx, key)
		if err == nil {
			_, err = f.ReadAt(make([]byte, 10), 0)
			f.Close()
		}
		checkError(t, "read from a server that always answers 503", err, nil, []string{"s3://" + bucket + "/f.bin", "503"}, []string{srv.SecretKey})
		// Tried again (at least Retries+1 attempts of the first request),
		// but bounded: no more than that for each of a few requests, not
		// a loop.
		if n, min, max := requests.Load(), int64(o.Retries+1), int64(3*(o.Retries+1)); n < min || n > max {
			t.Errorf("%d requests reached the failing server, want %d..%d (retries tried, and bounded)", n, min, max)
		}
	})
}

// TestServerWriter: an object written through Writer is there, whole,
// after Commit, and multipart-sized writes leave no pending upload; an
// aborted one leaves nothing at the key and no pending upload.
func TestServerWriter(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	st, _ := open(t, "s3://"+bucket+"/", s3Options(srv, srv.Endpoint))
	data := randomBytes(12<<20+7, 5) // beyond one 5 MiB part: multipart
	write := func(key string) *objstore.Writer {
		w, err := st.Create(ctx, key)
		if err != nil {
			t.Fatalf("Create(%s): %v", key, err)
		}
		for off := 0; off < len(data); off += 1 << 20 {
			if _, err := w.Write(data[off:min(off+1<<20, len(data))]); err != nil {
				t.Fatalf("Write(%s): %v", key, err)
			}
		}
		return w
	}
	w := write("out/whole.bin")
	if keys := srv.Keys(t, bucket, "out/"); len(keys) != 0 {
		t.Errorf("before Commit the bucket lists %q", keys)
	}
	if err := w.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if got := srv.Get(t, bucket, "out/whole.bin"); !bytes.Equal(got, data) {
		t.Errorf("after Commit the object has %d bytes, not the %d written", len(got), len(data))
	}
	w = write("out/aborted.bin")
	if err := w.Abort(); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if keys := srv.Keys(t, bucket, "out/"); !slices.Equal(keys, []string{"out/whole.bin"}) {
		t.Errorf("after Abort the bucket lists %q, want only out/whole.bin", keys)
	}
	if n := srv.Uploads(t, bucket); n != 0 {
		t.Errorf("%d multipart uploads pending after Commit and Abort", n)
	}
}

// otherCloud writes, lists and reads back through objstore on a non-S3
// server: put is the server's own upload (a fixture), get its own
// download (the check).
func otherCloud(t *testing.T, base string, o *objstore.Options, put func(key string, data []byte), get func(key string) []byte) {
	t.Helper()
	ctx := context.Background()
	st, _ := open(t, base, o)
	data := randomBytes(5<<20+333, 9)
	w, err := st.Create(ctx, "dir/written.bin")
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	for off := 0; off < len(data); off += 1 << 20 {
		if _, err := w.Write(data[off:min(off+1<<20, len(data))]); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if got := get("dir/written.bin"); !bytes.Equal(got, data) {
		t.Fatalf("the server holds %d bytes at dir/written.bin, not the %d written", len(got), len(data))
	}
	put("dir/a.tsfile", []byte("small"))
	put("dir/sub/b.tsfile", []byte("nested"))
	put("elsewhere", []byte("not listed"))
	objs, err := st.List(ctx, "dir/")
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, fmt.Sprintf("%s:%d", o.Key, o.Size))
	}
	if want := []string{"dir/a.tsfile:5", "dir/sub/b.tsfile:6", fmt.Sprintf("dir/written.bin:%d", len(data))}; !slices.Equal(got, want) {
		t.Errorf("List(dir/) = %q, want %q", got, want)
	}
	f, err := st.OpenFile(ctx, "dir/written.bin")
	if err != nil {
		t.Fatalf("OpenFile: %v", err)
	}
	defer f.Close()
	for _, sp := range [][2]int{{0, 1}, {1 << 20, 300000}, {len(data) - 10, 10}, {0, len(data)}} {
		p := make([]byte, sp[1])
		if n, err := f.ReadAt(p, int64(sp[0])); (err != nil && err != io.EOF) || n != sp[1] || !bytes.Equal(p, data[sp[0]:sp[0]+sp[1]]) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; not the object's bytes", sp[1], sp[0], n, err)
		}
	}
	w, err = st.Create(ctx, "dir/aborted.bin")
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	w.Write(data[:1000])
	if err := w.Abort(); err != nil {
		t.Errorf("Abort: %v", err)
	}
	if _, err := st.Stat(ctx, "dir/aborted.bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat after Abort: %v, want fs.ErrNotExist", err)
	}
	_, err = st.OpenFile(ctx, "dir/missing.bin")
	checkError(t, "OpenFile of a missing object", err, fs.ErrNotExist, []string{"dir/missing.bin"}, nil)
}

// TestServerAzurite: az:// through Azurite, credentials from
// AZURE_STORAGE_CONNECTION_STRING: alone, as Azurite's documentation
// gives it, and with the emulator variables of gocloud's azureblob rules
// (objtest's Env).
func TestServerAzurite(t *testing.T) {
	az := objtest.Azurite(t)
	for _, tc := range []struct {
		name string
		env  func(t *testing.T)
	}{
		{"connection string alone", func(t *testing.T) {
			az.Setenv(t)
			for _, kv := range az.Env() {
				if k, _, _ := strings.Cut(kv, "="); k != "AZURE_STORAGE_CONNECTION_STRING" {
					t.Setenv(k, "")
				}
			}
		}},
		{"objtest.Env", func(t *testing.T) { az.Setenv(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.env(t)
			c := az.Container(t)
			otherCloud(t, "az://"+c+"/", nil,
				func(key string, data []byte) { az.Put(t, c, key, data) },
				func(key string) []byte { return az.Get(t, c, key) })
		})
	}
}

// TestServerGCS: gs:// through fake-gcs-server, found by
// STORAGE_EMULATOR_HOST.
func TestServerGCS(t *testing.T) {
	gcs := objtest.GCS(t)
	gcs.Setenv(t)
	b := gcs.Bucket(t)
	otherCloud(t, "gs://"+b+"/", nil,
		func(key string, data []byte) { gcs.Put(t, b, key, data) },
		func(key string) []byte { return gcs.Get(t, b, key) })
}
