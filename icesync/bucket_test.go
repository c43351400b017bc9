package icesync

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// TestSyncBucketWarehouse syncs testdata/iotdb into a table whose
// warehouse is a bucket of versitygw (S3), with the endpoint and
// credentials in the environment as objstore takes them: the table reads
// back through iceberg-go's scan as convert's rows, its files are objects
// under the warehouse prefix, no in-flight marker is left, a second sync
// finds nothing new, and the cleanup of a dead sync's data files works on
// the bucket.
func TestSyncBucketWarehouse(t *testing.T) {
	s := objtest.S3(t)
	s.Setenv(t)
	// What objstore reads first; make sure a developer's setting does
	// not point the test elsewhere.
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	bucket := s.Bucket(t)
	ctx := context.Background()
	roots := []string{"../testdata/iotdb"}
	opts := Options{
		Table: "weather", To: "iot.weather",
		Catalog: "sqlite:" + filepath.Join(t.TempDir(), "cat.db"), Warehouse: "s3://" + bucket + "/lake",
	}
	res, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := wantRows(t, roots, "weather")
	if !res.Created || !res.Committed || res.Rows != int64(len(want)) {
		t.Fatalf("first sync: %+v, want created, committed, %d rows", res, len(want))
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if loc := tbl.Location(); loc != "s3://"+bucket+"/lake/iot.db/weather" {
		t.Errorf("table location %s", loc)
	}
	if got := scanRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("scan gives %d rows, convert %d:\n got %q\nwant %q", len(got), len(want), got, want)
	}

	// The objects: the data files the table lists, its metadata, and no
	// marker of the finished sync.
	keys := s.Keys(t, bucket, "lake/")
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) == 0 {
		t.Fatal("no data files")
	}
	for _, task := range tasks {
		k := strings.TrimPrefix(task.File.FilePath(), "s3://"+bucket+"/")
		if !slices.Contains(keys, k) {
			t.Errorf("data file %s not in the bucket (%q)", k, keys)
		}
	}
	if !slices.Contains(keys, strings.TrimPrefix(tbl.MetadataLocation(), "s3://"+bucket+"/")) {
		t.Errorf("metadata %s not in the bucket", tbl.MetadataLocation())
	}
	for _, k := range keys {
		if strings.Contains(k, inflightDir+"/") {
			t.Errorf("in-flight marker %s left after the sync", k)
		}
	}

	res2, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Committed || res2.SnapshotID != res.SnapshotID {
		t.Fatalf("second sync over the same files: %+v", res2)
	}

	// A sync that died on another host long ago: its marker and its
	// data file are objects; the reaper lists and removes them through
	// the table's FileIO on the bucket.
	host, _ := os.Hostname()
	id := "dead-sync-on-a-bucket"
	b, _ := json.Marshal(marker{Host: host + "-other", PID: 1, Start: time.Now().Add(-staleAfter - time.Hour).UnixMilli()})
	base := "lake/iot.db/weather/"
	mk, data := base+inflightDir+"/"+id+".json", base+"data/time_day=2026-01-01/00000-0-"+id+"-00000.parquet"
	s.Put(t, bucket, mk, b)
	s.Put(t, bucket, data, []byte("x"))
	fsys, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, err := reapDead(ctx, fsys, tbl, res.Writer)
	if err != nil {
		t.Fatal(err)
	}
	keys = s.Keys(t, bucket, "lake/")
	if n != 1 || slices.Contains(keys, mk) || slices.Contains(keys, data) {
		t.Fatalf("reaped %d; marker left %v, data file left %v", n, slices.Contains(keys, mk), slices.Contains(keys, data))
	}
	// The table's own files are untouched.
	if got := scanRows(t, loadTable(t, opts.Catalog, opts.Warehouse, opts.To)); !slices.Equal(got, want) {
		t.Fatalf("after the reap the scan gives %d rows, want %d", len(got), len(want))
	}
}

// TestOpenCatalogErrors: URIs of no supported kind are refused in one line
// naming the accepted forms, and a password or token never shows in an
// error.
func TestOpenCatalogErrors(t *testing.T) {
	ctx := context.Background()
	const secret = "s3cr3t-pw"
	for _, tc := range []struct {
		uri, wh string
		want    string
	}{
		{"mysql://u:" + secret + "@h/db", "lake", "want sqlite:PATH, postgres://"},
		{"sqlite:", "lake", "want sqlite:PATH"},
		{"glue:x", "lake", "glue://CATALOG_ID"},
		{"glue://123456789012?colour=red", "lake", "unknown parameter \"colour\""},
		{"hive+thrift://", "lake", "hive+thrift://HOST:PORT"},
		// Nothing listens on port 1: the metastore's Thrift client fails
		// to connect, and the message names the catalog.
		{"hive+thrift://127.0.0.1:1", "lake", "catalog hive+thrift://127.0.0.1:1"},
		{"http://u:" + secret + "@h/", "lake", "rest+http://"},
		{"rest+http://", "lake", "want sqlite:PATH"},
		// Nothing listens on port 1: the driver's error quotes the
		// connection, the message must not.
		{"postgres://u:" + secret + "@127.0.0.1:1/db?sslmode=disable&connect_timeout=2", "lake", "catalog postgres://u:xxxxx@127.0.0.1:1/db"},
		{"sqlite:" + filepath.Join(t.TempDir(), "c.db"), "ftp://h/x", "unsupported warehouse"},
		{"sqlite:" + filepath.Join(t.TempDir(), "c.db"), "az://c/x", "abfss://CONTAINER@ACCOUNT"},
	} {
		cat, err := OpenCatalog(ctx, tc.uri, tc.wh)
		if err == nil {
			cat.Close()
			t.Errorf("OpenCatalog(%q, %q) opened", tc.uri, tc.wh)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, secret) || strings.Contains(msg, "\n") {
			t.Errorf("OpenCatalog(%q, %q): %q, want one line with %q and no password", tc.uri, tc.wh, msg, tc.want)
		}
	}
}

// TestOpenCatalogSQLitePathChars: a sqlite: path holding the characters a
// SQLite URI filename treats specially names that very file (the "#" once
// cut the path short and opened another database).
func TestOpenCatalogSQLitePathChars(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a#b?c%20d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cat.db")
	cat, err := OpenCatalog(context.Background(), "sqlite:"+path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(context.Background(), []string{"iot"}, nil); err != nil {
		t.Fatal(err)
	}
	cat.Close()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("the catalog is not at %s: %v", path, err)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Errorf("files beside the folder: %v", ents)
	}
}

// TestOpenGlueCatalog: a glue:// URI opens iceberg-go's Glue catalog with
// its parameters as glue.* properties; with nothing at the endpoint a
// request fails, in time, with the endpoint named (no Glue here to talk
// to: what is checked is that the URI reaches the client as written).
func TestOpenGlueCatalog(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cat, err := OpenCatalog(ctx, "glue://123456789012?region=eu-west-1&endpoint=http://127.0.0.1:1&max-retries=1", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	_, err = cat.LoadTable(ctx, []string{"iot", "weather"})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("LoadTable through an endpoint with nothing behind it: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the request took the whole timeout: %v", err)
	}
}
