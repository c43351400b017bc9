package objtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
)

// GCSServer is a running fake-gcs-server, Google Cloud Storage's JSON API
// on plain HTTP without authentication, as the GCS client libraries reach
// it through STORAGE_EMULATOR_HOST.
type GCSServer struct {
	Endpoint string // http://127.0.0.1:PORT
	Host     string // 127.0.0.1:PORT, STORAGE_EMULATOR_HOST's value
}

// fakeGCSFallback is where this project's machines build fake-gcs-server
// when $TSARROW_FAKE_GCS is unset and it is not on PATH.
const fakeGCSFallback = "/work/tools/bin/fake-gcs-server"

var gcsServer once[*GCSServer]

// GCS returns the shared fake-gcs-server of this test binary, starting it
// on first use (see the package comment): 127.0.0.1 on a free port, its
// data in memory. The program is $TSARROW_FAKE_GCS, else fake-gcs-server
// on PATH, else /work/tools/bin/fake-gcs-server; when none exists GCS
// skips t, or fails it under CI=true.
func GCS(t testing.TB) *GCSServer {
	t.Helper()
	return gcsServer.get(t, startGCS)
}

func startGCS() (*GCSServer, string, error) {
	bin, tried, err := findProgram("TSARROW_FAKE_GCS", "fake-gcs-server", fakeGCSFallback)
	if err != nil || bin == "" {
		return nil, "fake-gcs-server not found (" + tried + "); build it with GOBIN=DIR go install github.com/fsouza/fake-gcs-server@v1.56.1", err
	}
	dir, err := dataDir("gcs")
	if err != nil {
		return nil, "", err
	}
	host := func(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
	args := func(port int) []string {
		return []string{
			"-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(port),
			"-backend", "memory", "-log-level", "error",
			// Upload and media links point back at this server, not
			// at storage.googleapis.com.
			"-public-host", host(port), "-external-url", "http://" + host(port),
		}
	}
	_, port, err := startServer("fake-gcs-server", dir, bin, nil, args, func(port int) string { return "http://" + host(port) + "/storage/v1/b" })
	if err != nil {
		return nil, "", err
	}
	return &GCSServer{Endpoint: "http://" + host(port), Host: host(port)}, "", nil
}

// Env returns the environment a child process (ts2arrow) needs to reach
// the server: STORAGE_EMULATOR_HOST, which the GCS client libraries (and
// gocloud.dev/blob/gcsblob, which then sends no credentials) obey.
func (s *GCSServer) Env() []string {
	return []string{"STORAGE_EMULATOR_HOST=" + s.Host}
}

// Setenv sets Env's variables for the rest of t (t.Setenv: not with
// t.Parallel).
func (s *GCSServer) Setenv(t testing.TB) {
	t.Helper()
	setenv(t, s.Env())
}

// do sends a request of the JSON API and decodes a JSON answer into out
// (nil: the body is returned raw).
func (s *GCSServer) do(method, path string, query url.Values, body []byte, out any) ([]byte, error) {
	u := s.Endpoint + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		return nil, json.Unmarshal(data, out)
	}
	return data, nil
}

// Bucket creates a new empty bucket named after t, unique in this test
// binary.
func (s *GCSServer) Bucket(t testing.TB) string {
	t.Helper()
	name := uniqueName(t)
	body, _ := json.Marshal(map[string]string{"name": name})
	if _, err := s.do("POST", "/storage/v1/b", url.Values{"project": {"objtest"}}, body, nil); err != nil {
		t.Fatalf("objtest: create bucket gs://%s: %v", name, err)
	}
	return name
}

// Put stores data as object key in bucket.
func (s *GCSServer) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	q := url.Values{"uploadType": {"media"}, "name": {key}}
	if _, err := s.do("POST", "/upload/storage/v1/b/"+url.PathEscape(bucket)+"/o", q, data, nil); err != nil {
		t.Fatalf("objtest: put gs://%s/%s: %v", bucket, key, err)
	}
}

// Get returns object key of bucket.
func (s *GCSServer) Get(t testing.TB, bucket, key string) []byte {
	t.Helper()
	data, err := s.do("GET", "/storage/v1/b/"+url.PathEscape(bucket)+"/o/"+url.PathEscape(key), url.Values{"alt": {"media"}}, nil, nil)
	if err != nil {
		t.Fatalf("objtest: get gs://%s/%s: %v", bucket, key, err)
	}
	return data
}

// Keys lists the objects under prefix in bucket, every page, in the
// order the server lists them (by name).
func (s *GCSServer) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	keys := []string{}
	q := url.Values{"prefix": {prefix}}
	for {
		var page struct {
			Items         []struct{ Name string }
			NextPageToken string
		}
		if _, err := s.do("GET", "/storage/v1/b/"+url.PathEscape(bucket)+"/o", q, nil, &page); err != nil {
			t.Fatalf("objtest: list gs://%s/%s: %v", bucket, prefix, err)
		}
		for _, it := range page.Items {
			keys = append(keys, it.Name)
		}
		if page.NextPageToken == "" {
			return keys
		}
		q.Set("pageToken", page.NextPageToken)
	}
}
