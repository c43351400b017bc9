package objstore

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// scanReads returns the reads of a scan as a TsFile reader makes them: a
// small header read, then the body after it, chunk after chunk.
func scanReads(size int64, seed uint64) [][2]int64 {
	r := rand.New(rand.NewPCG(seed, 1))
	var reads [][2]int64
	for pos := int64(12); pos < size-1000; {
		hdr := int64(40 + r.IntN(60))
		body := int64(5000 + r.IntN(300000))
		body = min(body, size-pos-hdr)
		reads = append(reads, [2]int64{pos, min(256, size-pos)}, [2]int64{pos + hdr, body})
		pos += hdr + body
	}
	return reads
}

// TestReadAhead checks that a scan is served in few large requests and
// fetches each byte about once, and that scattered short runs (a 1% time
// window) fetch little more than they read.
func TestReadAhead(t *testing.T) {
	const size = 48 << 20
	data := randomBytes(size, 8)
	forEachBackend(t, func(t *testing.T, b backend) {
		b.put(t, "scan.tsfile", data)
		s, key := b.open(t, "scan.tsfile")
		ctx := context.Background()

		f, err := s.OpenFile(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		reads := scanReads(size, 9)
		for _, r := range reads {
			p := make([]byte, r[1])
			if _, err := f.ReadAt(p, r[0]); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
				t.Fatalf("scan: bytes at %d differ", r[0])
			}
		}
		st := f.Stats()
		f.Close()
		t.Logf("scan of %d bytes in %d reads: %d requests, %d bytes fetched (%.3fx)", size, len(reads), st.Requests, st.Bytes, float64(st.Bytes)/size)
		if st.Requests > size/(512<<10)+8 {
			t.Errorf("scan: %d requests, want about one per MiB", st.Requests)
		}
		if st.Bytes > size+size/10 {
			t.Errorf("scan: fetched %d bytes of a %d-byte object", st.Bytes, size)
		}

		// The same scan with index reads between its chunks (a reader
		// walking the index device by device): the scan's read-ahead
		// survives them.
		f, err = s.OpenFile(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range reads {
			for _, r := range [][2]int64{r, {size - 4<<20 + int64(i)*200, 120}} {
				p := make([]byte, r[1])
				if _, err := f.ReadAt(p, r[0]); err != nil || !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
					t.Fatalf("interleaved scan: read at %d: %v", r[0], err)
				}
			}
		}
		st = f.Stats()
		f.Close()
		t.Logf("scan with index reads between chunks: %d requests, %d bytes fetched (%.3fx)", st.Requests, st.Bytes, float64(st.Bytes)/size)
		if st.Requests > size/(512<<10)+16 {
			t.Errorf("interleaved scan: %d requests", st.Requests)
		}

		// Scattered short runs: 1% of the object in 24 places.
		f, err = s.OpenFile(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		var needed int64
		for i := range 24 {
			pos := int64(i)*(size/24) + 1000
			for range 3 {
				hdr, body := int64(50), int64(6000)
				for _, r := range [][2]int64{{pos, 256}, {pos + hdr, body}} {
					p := make([]byte, r[1])
					if _, err := f.ReadAt(p, r[0]); err != nil || !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
						t.Fatalf("window: read at %d: %v", r[0], err)
					}
				}
				needed += hdr + body
				pos += hdr + body
			}
		}
		st = f.Stats()
		f.Close()
		t.Logf("24 short runs needing %d bytes: %d requests, %d bytes fetched (%.2f%% of the object)", needed, st.Requests, st.Bytes, 100*float64(st.Bytes)/size)
		if st.Bytes > size/20 {
			t.Errorf("short runs fetched %d bytes, more than 5%% of %d", st.Bytes, size)
		}
	})
}

// TestConcurrentReads reads one File from several goroutines at once,
// scans and random reads mixed, against the bytes (run it with -race).
func TestConcurrentReads(t *testing.T) {
	const size = 12 << 20
	data := randomBytes(size, 10)
	forEachBackend(t, func(t *testing.T, b backend) {
		b.put(t, "c.bin", data)
		s, key := b.open(t, "c.bin")
		f, err := s.OpenFile(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var wg sync.WaitGroup
		var bad atomic.Int64
		for g := range 6 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(g), 7))
				reads := scanReads(size, uint64(g))
				if g%2 == 1 {
					for i := range reads {
						reads[i][0] = r.Int64N(size - reads[i][1])
					}
				}
				for _, rd := range reads[:min(len(reads), 60)] {
					p := make([]byte, rd[1])
					if _, err := f.ReadAt(p, rd[0]); err != nil || !bytes.Equal(p, data[rd[0]:rd[0]+rd[1]]) {
						bad.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if n := bad.Load(); n != 0 {
			t.Fatalf("%d concurrent reads failed or differ", n)
		}
		t.Logf("%+v", f.Stats())
	})
}

// TestRetry503 puts a proxy in front of the S3 server that answers the
// first two GETs of the object with 503 SlowDown: the read succeeds after
// retrying, and with fewer retries allowed than failures it fails loudly,
// naming the status.
func TestRetry503(t *testing.T) {
	srv := objtest.S3(t)
	credentials(t, srv)
	bucket := srv.Bucket(t)
	data := randomBytes(100000, 11)
	srv.Put(t, bucket, "r.bin", data)
	var fails atomic.Int64
	proxy := objtest.FaultProxy(t, srv.Endpoint, func(r *http.Request) int {
		if r.Method == http.MethodGet && r.Header.Get("Range") != "" && fails.Add(-1) >= 0 {
			return http.StatusServiceUnavailable
		}
		return 0
	})
	for _, tc := range []struct {
		retries, fails int
		ok             bool
	}{{4, 2, true}, {1, 2, false}} {
		fails.Store(int64(tc.fails))
		var warnings []string
		warn := func(msg string) { warnings = append(warnings, msg) }
		s, key, err := Open(context.Background(), "s3://"+bucket+"/r.bin", &Options{S3Endpoint: proxy, S3Region: srv.Region, Retries: tc.retries, Warn: warn})
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.OpenFile(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 1000)
		_, err = f.ReadAt(p, 5000)
		if tc.ok {
			if err != nil || !bytes.Equal(p, data[5000:6000]) {
				t.Errorf("retries %d, %d failures: %v", tc.retries, tc.fails, err)
			}
			if len(warnings) != tc.fails || !strings.Contains(warnings[0], "503 SlowDown") {
				t.Errorf("warnings %q, want %d retries of 503 SlowDown", warnings, tc.fails)
			}
			t.Logf("warnings: %q", warnings)
		} else {
			if err == nil {
				t.Errorf("retries %d, %d failures: read succeeded", tc.retries, tc.fails)
			} else {
				t.Logf("retries %d, %d failures: %v", tc.retries, tc.fails, err)
				checkOneLine(t, err)
			}
		}
		s.Close()
	}
}
