package dataset

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/internal/objtest"
	"github.com/tsarrow/tsarrow/objstore"
)

// requestLog counts the requests an S3 client sends through a FaultProxy,
// by kind: LIST, and HEAD or GET by the suffix of the key (.tsfile,
// .resource, .mods, .mods2).
type requestLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *requestLog) fail(r *http.Request) int {
	kind := r.Method
	switch {
	case r.Method == http.MethodGet && (r.URL.Query().Has("list-type") || r.URL.Query().Has("prefix") || r.URL.Query().Has("delimiter")):
		kind = "LIST"
	default:
		key := r.URL.Path
		for _, suf := range []string{ModsV2Suffix, ModsV1Suffix, ResourceSuffix, TsFileSuffix} {
			if strings.HasSuffix(key, suf) {
				kind += " " + suf
				break
			}
		}
	}
	l.mu.Lock()
	l.n[kind]++
	l.mu.Unlock()
	return 0
}

func (l *requestLog) take() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.n
	l.n = map[string]int{}
	return n
}

func (l *requestLog) String() string {
	n := l.take()
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	total := 0
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, n[k]))
		total += n[k]
	}
	return fmt.Sprintf("%d requests (%s)", total, strings.Join(parts, ", "))
}

// s3Sample uploads the sample data directory to a new bucket of the test
// server under data/iotdb/ and opens the bucket through a proxy that
// counts requests.
func s3Sample(t *testing.T) (*objstore.Store, *requestLog, *objtest.Server, string) {
	t.Helper()
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "data/iotdb", sampleDir)
	log := &requestLog{n: map[string]int{}}
	proxy := objtest.FaultProxy(t, srv.Endpoint, log.fail)
	store, _, err := objstore.Open(context.Background(), "s3://"+bucket+"/", &objstore.Options{S3Endpoint: proxy})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	return store, log, srv, bucket
}

// TestS3ReadsAsLocal: the sample data directory uploaded to an S3 server
// (versitygw) and read through objstore's FS gives the local read's
// rows, cell for cell, with its deletions and overwrites, warnings,
// layout and file sizes, whichever prefix is the FS's root and whichever
// folder the root named.
func TestS3ReadsAsLocal(t *testing.T) {
	store, log, _, _ := s3Sample(t)
	ctx := context.Background()
	cases := []struct {
		name   string
		prefix string
		roots  []string
		local  []string
	}{
		{"prefix is the data directory", "data/iotdb", []string{"."}, []string{sampleDir}},
		{"bucket root", "", []string{"data/iotdb"}, []string{sampleDir}},
		{"trailing slash", "", []string{"data/iotdb/"}, []string{sampleDir}},
		{"unsequence folder", "data/iotdb", []string{"unsequence"}, []string{filepath.Join(sampleDir, "unsequence")}},
		{"two regions", "data", []string{"iotdb/sequence/weather/1", "iotdb/unsequence/weather/1"},
			[]string{filepath.Join(sampleDir, "sequence/weather/1"), filepath.Join(sampleDir, "unsequence/weather/1")}},
		{"one file", "data/iotdb", []string{"sequence/weather/1/1/1767312000000-4-0-0.tsfile"},
			[]string{filepath.Join(sampleDir, "sequence/weather/1/1/1767312000000-4-0-0.tsfile")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := readAllWith(t, c.local, nil, sampleDir)
			got := readAllWith(t, c.roots, &Options{FS: store.FS(ctx, c.prefix)}, "")
			if c.prefix != "" && c.prefix != "data/iotdb" {
				got = strings.ReplaceAll(got, "iotdb/", "")
			} else if c.prefix == "" {
				got = strings.ReplaceAll(got, "data/iotdb/", "")
			}
			require.Equal(t, want, got)
			if len(c.roots) > 1 || c.roots[0] == "." || strings.HasSuffix(c.roots[0], "iotdb") || strings.HasSuffix(c.roots[0], "iotdb/") {
				require.Contains(t, got, "overwritten 6")
			}
		})
	}
	t.Logf("the cases above: %s", log)
}

// TestS3MetadataRequests measures the requests opening the sample data
// directory costs in a bucket (the listing, every .resource and mods
// object, and the footer of each data file, read to check its resource),
// and those of a first read of a table; logged for the report, and bounded
// so that a change that adds requests per file is noticed.
func TestS3MetadataRequests(t *testing.T) {
	store, log, _, _ := s3Sample(t)
	ctx := context.Background()
	log.take()
	fsys := store.FS(ctx, "data/iotdb")
	for _, trust := range []bool{false, true} {
		ds, err := Open([]string{"."}, &Options{FS: fsys, TrustResources: trust})
		require.NoError(t, err)
		n := log.take()
		files := len(ds.Layout().Files)
		total := 0
		for _, v := range n {
			total += v
		}
		t.Logf("open, TrustResources %t: %d data files, %d requests: %v", trust, files, total, n)
		// Per data file: its resource and mods (HEAD and GET each), and
		// without TrustResources its footer; plus one listing a folder.
		limit := 6*files + 12
		if !trust {
			limit += 4 * files
		}
		require.LessOrEqual(t, total, limit, "%v", n)
		rd, err := ds.NewReader("weather", nil)
		require.NoError(t, err)
		for rd.Next() {
		}
		require.NoError(t, rd.Err())
		rd.Release()
		n = log.take()
		t.Logf("then reading table weather: %v", n)
		ds.Close()
	}
}

// TestS3ChangedObject: an object overwritten after the open fails the
// read with ErrChanged, as a file changed on disk does.
func TestS3ChangedObject(t *testing.T) {
	store, _, srv, bucket := s3Sample(t)
	ctx := context.Background()
	ds, err := Open([]string{"."}, &Options{FS: store.FS(ctx, "data/iotdb")})
	require.NoError(t, err)
	defer ds.Close()
	const unseq = "unsequence/weather/1/0/1767236400000-3-0-0.tsfile"
	b, err := os.ReadFile(filepath.Join(sampleDir, unseq))
	require.NoError(t, err)
	srv.Put(t, bucket, "data/iotdb/"+unseq, append(b, 0))
	rd, err := ds.NewReader("weather", nil)
	if err == nil {
		for rd.Next() {
		}
		err = rd.Err()
		rd.Release()
	}
	require.ErrorIs(t, err, ErrChanged)
}
