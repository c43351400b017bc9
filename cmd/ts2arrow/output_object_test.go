package main

// Outputs to an object store, against a real S3 server (versitygw,
// internal/objtest): the objects equal the local files byte for byte,
// --force keeps the local rules, and a failed upload leaves nothing.

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// s3Tree lists the keys under prefix relative to it, sorted: what treeOf
// gives for a local directory, plus the objects only a bucket has.
func s3Tree(t *testing.T, s *objtest.Server, bucket, prefix string) []string {
	t.Helper()
	var keys []string
	for _, k := range s.Keys(t, bucket, prefix) {
		keys = append(keys, strings.TrimPrefix(k, prefix))
	}
	slices.Sort(keys)
	return keys
}

// withSuccess is the keys of a dataset of files, with _SUCCESS, sorted.
func withSuccess(files []string) []string {
	keys := append(slices.Clone(files), successName)
	slices.Sort(keys)
	return keys
}

// requireSameTree checks that the objects under prefix are the files
// under the local directory dir, name for name and byte for byte, and
// _SUCCESS (empty).
func requireSameTree(t *testing.T, s *objtest.Server, bucket, prefix, dir string) {
	t.Helper()
	local := treeOf(t, dir)
	require.NotEmpty(t, local)
	require.Equal(t, withSuccess(local), s3Tree(t, s, bucket, prefix))
	for _, f := range local {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		require.NoError(t, err)
		require.Equal(t, b, s.Get(t, bucket, prefix+f), f)
	}
	require.Empty(t, s.Get(t, bucket, prefix+successName))
}

// TestObjectOutputFile: one object in each format (by its extension or
// --format), from convert, the reverse path, recover and sql -o, holds
// the bytes the same command writes to a local file; an existing object
// is refused without --force and replaced with it; a prefix or a bucket
// is no object's place.
func TestObjectOutputFile(t *testing.T) {
	s := objtest.S3(t)
	s.Setenv(t)
	b := s.Bucket(t)
	dir := t.TempDir()
	pq := filepath.Join(dir, "in.parquet")
	code, _, errOut := runCLI("convert", sample, "-o", pq)
	require.Equal(t, 0, code, errOut)
	broken, _, _ := cutSample(t)
	type tc struct {
		name string
		args []string // OUT is appended
		ext  string
	}
	cases := []tc{
		{"parquet", []string{"convert", sample}, ".parquet"},
		{"arrow", []string{"convert", sample, "--compression", "zstd"}, ".arrow"},
		{"arrows", []string{"convert", sample}, ".arrows"},
		{"csv", []string{"convert", sample, "--where", "region=north"}, ".csv"},
		{"jsonl", []string{"convert", sample}, ".jsonl"},
		{"format", []string{"convert", sample, "--format", "csv"}, ""},
		{"reverse", []string{"convert", pq, "--tags", "region,station"}, ".tsfile"},
		{"recover", []string{"recover", broken}, ".tsfile"},
	}
	if sqlEngineBuilt {
		cases = append(cases, tc{"sql", []string{"sql", sample, "-c", "SELECT station, count(*) AS n, max(temperature) AS t FROM weather GROUP BY ALL ORDER BY 1"}, ".csv"})
	}
	var keys []string
	for _, c := range cases {
		local := filepath.Join(dir, c.name+c.ext)
		code, _, errOut := runCLI(append(slices.Clone(c.args), "-o", local)...)
		require.Equal(t, 0, code, "%s: %s", c.name, errOut)
		key := "out/" + c.name + c.ext
		code, _, errOut = runCLI(append(slices.Clone(c.args), "-o", "s3://"+b+"/"+key)...)
		require.Equal(t, 0, code, "%s: %s", c.name, errOut)
		want, err := os.ReadFile(local)
		require.NoError(t, err)
		require.Equal(t, want, s.Get(t, b, key), c.name)
		keys = append(keys, key)
	}
	slices.Sort(keys)
	require.Equal(t, keys, s.Keys(t, b, ""))

	// Existing: refused without --force (the object stays), replaced
	// with it.
	url := "s3://" + b + "/out/csv.csv"
	before := s.Get(t, b, "out/csv.csv")
	code, _, errOut = runCLI("convert", sample, "-o", url)
	require.Equal(t, 2, code, errOut)
	require.Equal(t, "ts2arrow: "+url+" exists; pass --force to overwrite it\n", errOut)
	require.Equal(t, before, s.Get(t, b, "out/csv.csv"))
	code, _, errOut = runCLI("convert", sample, "-o", url, "--force")
	require.Equal(t, 0, code, errOut)
	whole := filepath.Join(dir, "whole.csv")
	code, _, errOut = runCLI("convert", sample, "-o", whole)
	require.Equal(t, 0, code, errOut)
	want, err := os.ReadFile(whole)
	require.NoError(t, err)
	require.Equal(t, want, s.Get(t, b, "out/csv.csv"))
	require.NotEqual(t, before, want)

	// Not an object's place: a prefix holding objects (even with
	// --force), a name ending in "/", a bucket.
	for _, c := range []struct {
		out, msg string
	}{
		{"s3://" + b + "/out", "is a prefix holding objects (s3://" + b + "/out/"},
		{"s3://" + b + "/out/", "names a prefix; name the output object"},
		{"s3://" + b, "names a bucket; name the output object"},
		{"s3://" + b + "/", "names a prefix; name the output object"},
	} {
		code, _, errOut = runCLI("convert", sample, "-o", c.out, "--format", "csv", "--force")
		require.Equal(t, 2, code, "%s: %s", c.out, errOut)
		require.Contains(t, errOut, c.msg, c.out)
		require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	}
	require.Equal(t, keys, s.Keys(t, b, ""))

	// A conversion that fails after the upload began (a page that
	// contradicts its statistics): no object, for csv and parquet.
	for _, ext := range []string{".csv", ".parquet"} {
		code, _, errOut = runCLI("convert", damagedPageFile(t), "-o", "s3://"+b+"/bad"+ext)
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "in its statistics")
	}
	require.Equal(t, keys, s.Keys(t, b, ""))
	require.Zero(t, s.Uploads(t, b))
}

// TestObjectOutputDataset is the "done when": convert
// s3://bucket/data/ --table weather -o s3://bucket/lake/ --partition-by
// device gives the objects (names and bytes) that the same convert of the
// same files gives in a local directory, and _SUCCESS; so does a local
// input; for device, time and table partitions.
func TestObjectOutputDataset(t *testing.T) {
	s := objtest.S3(t)
	s.Setenv(t)
	b := s.Bucket(t)
	data := filepath.Join(t.TempDir(), "data")
	copyFile(t, sample, filepath.Join(data, "a.tsfile"))
	copyFile(t, sample, filepath.Join(data, "sub", "b.tsfile"))
	s.PutDir(t, b, "data", data)
	for _, part := range []string{"device", "device,day", "hour", "table"} {
		name := strings.ReplaceAll(part, ",", "-")
		t.Run(name, func(t *testing.T) {
			local := filepath.Join(t.TempDir(), "lake")
			code, _, errOut := runCLI("convert", data, "--table", "weather", "-o", local, "--partition-by", part)
			require.Equal(t, 0, code, errOut)
			for _, in := range []string{"s3://" + b + "/data/", data} {
				prefix := "lake-" + name + "-" + map[bool]string{true: "s3", false: "local"}[in != data] + "/"
				code, _, errOut = runCLI("convert", in, "--table", "weather", "-o", "s3://"+b+"/"+prefix, "--partition-by", part)
				require.Equal(t, 0, code, errOut)
				requireSameTree(t, s, b, prefix, local)
			}
		})
	}
	// Two inputs give part-0 and part-1 of each device.
	require.Contains(t, s3Tree(t, s, b, "lake-device-s3/"), "table=weather/device=weather.north.s01/part-1.parquet")
	require.Zero(t, s.Uploads(t, b))
}

// TestObjectOutputDatasetForce: --force replaces a dataset ts2arrow wrote
// (its old parts that the new one lacks are removed) and refuses a prefix
// holding anything else, naming it and touching nothing.
func TestObjectOutputDatasetForce(t *testing.T) {
	s := objtest.S3(t)
	s.Setenv(t)
	b := s.Bucket(t)
	url := "s3://" + b + "/lake" // no slash: the same prefix
	code, _, errOut := runCLI("convert", sample, "-o", url, "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	devices := withSuccess(deviceDataset)
	require.Equal(t, devices, s3Tree(t, s, b, "lake/"))

	code, _, errOut = runCLI("convert", sample, "-o", url+"/", "--partition-by", "table")
	require.Equal(t, 2, code, errOut)
	require.Equal(t, "ts2arrow: "+url+"/ exists (4 objects under it); pass --force to replace a dataset ts2arrow wrote\n", errOut)
	require.Equal(t, devices, s3Tree(t, s, b, "lake/"))

	local := filepath.Join(t.TempDir(), "t")
	code, _, errOut = runCLI("convert", sample, "-o", local, "--partition-by", "table")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI("convert", sample, "-o", url+"/", "--partition-by", "table", "--force")
	require.Equal(t, 0, code, errOut)
	requireSameTree(t, s, b, "lake/", local)

	// Foreign objects: refused with --force, named, nothing touched.
	for i, foreign := range []string{"notes.txt", "table=weather/keep.me", "table=weather/device=x/part-0.parquet.bak", "table=weather/other=1/part-0.parquet", "_temporary/0/part-0.parquet", "part-0.parquet"} {
		prefix := fmt.Sprintf("f%d/", i)
		code, _, errOut = runCLI("convert", sample, "-o", "s3://"+b+"/"+prefix, "--partition-by", "device")
		require.Equal(t, 0, code, errOut)
		s.Put(t, b, prefix+foreign, []byte("mine"))
		before := s3Tree(t, s, b, prefix)
		code, _, errOut = runCLI("convert", sample, "-o", "s3://"+b+"/"+prefix, "--partition-by", "table", "--force")
		require.Equal(t, 2, code, errOut)
		require.Equal(t, "ts2arrow: -o s3://"+b+"/"+prefix+" holds "+foreign+", which ts2arrow did not write; --force replaces only a dataset ts2arrow wrote (move it away or name a new prefix)\n", errOut)
		require.Equal(t, before, s3Tree(t, s, b, prefix))
		require.Equal(t, []byte("mine"), s.Get(t, b, prefix+foreign))
	}
	// Directory objects of the layout (as consoles make them) are ours,
	// and stay.
	s.Put(t, b, "lake/table=weather/", nil)
	code, _, errOut = runCLI("convert", sample, "-o", url, "--partition-by", "device", "--force")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, withSuccess(append(slices.Clone(deviceDataset), "table=weather/")), s3Tree(t, s, b, "lake/"))

	// An input under the prefix: refused, even with --force.
	s.Put(t, b, "lake/x.tsfile", nil)
	code, _, errOut = runCLI("convert", "s3://"+b+"/lake/x.tsfile", "-o", url, "--partition-by", "device", "--force")
	require.Equal(t, 2, code, errOut)
	require.Equal(t, "ts2arrow: refusing to write -o "+url+": it holds the input s3://"+b+"/lake/x.tsfile; name a new prefix\n", errOut)
	// Nor is an object OUT an input.
	s.Put(t, b, "in.tsfile", nil)
	code, _, errOut = runCLI("convert", "s3://"+b+"/in.tsfile", "-o", "s3://"+b+"/in.tsfile", "--force")
	require.Equal(t, 2, code, errOut)
	require.Equal(t, "ts2arrow: -o s3://"+b+"/in.tsfile is the input s3://"+b+"/in.tsfile; write to another object (not even --force replaces an input)\n", errOut)
	require.Zero(t, s.Uploads(t, b))
}

// TestObjectOutputUploadFails: an upload that fails half way removes
// every key it wrote and aborts its multipart uploads; a dataset it was
// replacing stays whole when no object of it was overwritten yet (its
// _SUCCESS is put back), and is removed, saying so, when it was replaced
// in part.
func TestObjectOutputUploadFails(t *testing.T) {
	s := objtest.S3(t)
	b := s.Bucket(t)
	var failKey atomic.Value // the key whose PUT fails, "" none
	failKey.Store("")
	var mu sync.Mutex
	var puts []string // the keys PUT, in order
	proxy := objtest.FaultProxy(t, s.Endpoint, func(r *http.Request) int {
		if r.Method != http.MethodPut {
			return 0
		}
		mu.Lock()
		puts = append(puts, strings.TrimPrefix(r.URL.Path, "/"+b+"/"))
		mu.Unlock()
		if k := failKey.Load().(string); k != "" && strings.HasSuffix(r.URL.Path, "/"+b+"/"+k) {
			return http.StatusForbidden
		}
		return 0
	})
	s.Setenv(t)
	t.Setenv("AWS_ENDPOINT_URL", proxy)
	url := "s3://" + b + "/lake/"

	// A conversion that fails half way (the second input is cut short)
	// sends nothing to the bucket: the parts of the first were written
	// locally only.
	broken, _, _ := cutSample(t)
	code, _, errOut := runCLI("convert", sample, broken, "-o", url, "--partition-by", "device")
	require.Equal(t, 1, code, errOut)
	require.Empty(t, puts)
	// A whole one writes _SUCCESS last, after every part.
	code, _, errOut = runCLI("convert", sample, "-o", "s3://"+b+"/order/", "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	require.Len(t, puts, len(deviceDataset)+1)
	require.Equal(t, "order/"+successName, puts[len(puts)-1])

	// A new dataset: nothing is left.
	failKey.Store("lake/table=weather/device=weather.north.s02/part-0.parquet")
	code, _, errOut = runCLI("convert", sample, "-o", url, "--partition-by", "device")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "AccessDenied")
	require.Empty(t, s.Keys(t, b, "lake/"))
	require.Zero(t, s.Uploads(t, b))

	// One object: nothing at the key.
	failKey.Store("one.parquet")
	code, _, errOut = runCLI("convert", sample, "-o", "s3://"+b+"/one.parquet")
	require.Equal(t, 1, code, errOut)
	require.Empty(t, s.Keys(t, b, "one"))

	// Replacing a dataset, failing before any of its objects was
	// overwritten: the table layout shares no key with the device one.
	failKey.Store("")
	code, _, errOut = runCLI("convert", sample, "-o", url, "--partition-by", "device")
	require.Equal(t, 0, code, errOut)
	devices := withSuccess(deviceDataset)
	before := map[string][]byte{}
	for _, k := range devices {
		before[k] = s.Get(t, b, "lake/"+k)
	}
	failKey.Store("lake/table=weather/part-0.parquet")
	code, _, errOut = runCLI("convert", sample, "-o", url, "--partition-by", "table", "--force")
	require.Equal(t, 1, code, errOut)
	require.Equal(t, devices, s3Tree(t, s, b, "lake/"))
	for k, v := range before {
		require.Equal(t, v, s.Get(t, b, "lake/"+k), k)
	}

	// Failing at _SUCCESS, after every part replaced the old ones: the
	// old dataset is no longer whole, and nothing is left.
	failKey.Store("lake/_SUCCESS")
	code, _, errOut = runCLI("convert", sample, "-o", url, "--partition-by", "device", "--where", "region=north", "--force")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "ts2arrow: the upload failed after overwriting or removing every object of the dataset under "+url+" that it replaces: nothing is left there\n")
	require.Empty(t, s.Keys(t, b, "lake/"))
	require.Zero(t, s.Uploads(t, b))
}

// TestObjectOutputCannotWrite: wrong credentials and a missing bucket fail
// at once, in one line naming the URL and what the server said, before
// any conversion work (no local temporary is made), and never show the
// secret.
func TestObjectOutputCannotWrite(t *testing.T) {
	s := objtest.S3(t)
	s.Setenv(t)
	b := s.Bucket(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	code, _, errOut := runCLI("convert", sample, "-o", "s3://no-such-bucket-objout/x.parquet")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "cannot write -o s3://no-such-bucket-objout/x.parquet: ")
	require.Contains(t, errOut, "NoSuchBucket")
	require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)

	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-"+s.SecretKey)
	for _, args := range [][]string{
		{"convert", sample, "-o", "s3://" + b + "/x.parquet"},
		{"convert", sample, "-o", "s3://" + b + "/lake/", "--partition-by", "device"},
	} {
		code, _, errOut = runCLI(args...)
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "cannot write -o s3://"+b+"/")
		require.Contains(t, errOut, "403")
		require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
		require.NotContains(t, errOut, s.SecretKey)
	}
	require.Empty(t, namesIn(t, tmp))
	require.Empty(t, s.Keys(t, b, ""))
}
