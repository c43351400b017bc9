package icesync

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestOpenRESTCatalog: a rest+http:// URI opens iceberg-go's REST catalog
// at the http:// URL, with the query parameters as its properties: the
// warehouse goes to GET /v1/config, the token as a bearer token (from
// the URI, or from ICEBERG_REST_TOKEN). A server that fails gets an
// error without the token.
func TestOpenRESTCatalog(t *testing.T) {
	const token = "tok-9f3a7c"
	var mu sync.Mutex
	var paths, warehouses, auths []string
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		warehouses = append(warehouses, r.URL.Query().Get("warehouse"))
		auths = append(auths, r.Header.Get("Authorization"))
		f := fail
		mu.Unlock()
		if f {
			http.Error(w, `{"error":{"message":"down","type":"ServiceFailureException","code":500}}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"defaults":{},"overrides":{}}`))
	}))
	defer srv.Close()
	base := "rest+" + srv.URL + "/cat"
	ctx := context.Background()

	for _, tc := range []struct {
		name, uri, env, wh, wantWH string
	}{
		{"query", base + "?warehouse=lake1&token=" + token, "", "", "lake1"},
		{"environment", base, token, "s3://bucket/lake2", "s3://bucket/lake2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ICEBERG_REST_TOKEN", tc.env)
			mu.Lock()
			paths, warehouses, auths = nil, nil, nil
			mu.Unlock()
			cat, err := OpenCatalog(ctx, tc.uri, tc.wh)
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			mu.Lock()
			defer mu.Unlock()
			if len(paths) == 0 || paths[0] != "/cat/v1/config" || warehouses[0] != tc.wantWH || auths[0] != "Bearer "+token {
				t.Fatalf("requests %q, warehouse %q, authorization %q; want /cat/v1/config, %q, Bearer %s", paths, warehouses, auths, tc.wantWH, token)
			}
		})
	}

	mu.Lock()
	fail = true
	mu.Unlock()
	_, err := OpenCatalog(ctx, base+"?token="+token, "")
	if err == nil {
		t.Fatal("opened a catalog whose server fails")
	}
	if msg := err.Error(); strings.Contains(msg, token) || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line without the token", msg)
	}
}
