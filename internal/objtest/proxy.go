package objtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// FaultProxy starts a reverse proxy on 127.0.0.1 in front of target (a
// server's endpoint URL) for the rest of t, and returns its URL to use as
// the endpoint. For each request it asks fail: 0 forwards the request,
// any other value answers that HTTP status itself, with the error body an
// S3 server would send (503 is S3's SlowDown, the throttling answer
// clients retry). fail is called from the proxy's goroutines, concurrently.
//
// The proxy keeps the request's Host header, so requests signed for the
// proxy's address (AWS Signature V4 signs Host) verify at the target.
func FaultProxy(t testing.TB, target string, fail func(r *http.Request) int) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		t.Fatalf("objtest: FaultProxy target %q: not an absolute URL (%v)", target, err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status := fail(r); status != 0 {
			writeFault(w, r, status)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// faultCodes are the S3 error codes of the statuses tests inject; others
// answer "InjectedFault".
var faultCodes = map[int]string{
	http.StatusInternalServerError: "InternalError",
	http.StatusServiceUnavailable:  "SlowDown",
	http.StatusForbidden:           "AccessDenied",
	http.StatusNotFound:            "NoSuchKey",
	http.StatusTooManyRequests:     "TooManyRequests",
}

// writeFault answers status as an S3 server does: an XML Error document
// (none for HEAD, whose answers have no body).
func writeFault(w http.ResponseWriter, r *http.Request, status int) {
	code, ok := faultCodes[status]
	if !ok {
		code = "InjectedFault"
	}
	body := fmt.Sprintf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>objtest: fault injected (%d %s)</Message><RequestId>objtest</RequestId></Error>", code, status, http.StatusText(status))
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("x-amz-request-id", "objtest")
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}
