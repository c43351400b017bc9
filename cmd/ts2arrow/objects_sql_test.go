//go:build cgo && duckdb_arrow

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// TestSQLObjectInputs: ts2arrow sql over a prefix of an S3 bucket, a `**`
// pattern of its keys and one object answers as over the same files on
// disk; tsfile('s3://...') in the query reads through the same options;
// a missing key is one line naming it.
func TestSQLObjectInputs(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "dir")
	for _, rel := range []string{"a.tsfile", "b/c.tsfile"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	srv.PutDir(t, bucket, "dir", dir)
	base := "s3://" + bucket + "/dir"
	query := `SELECT region, station, count(*) AS n, sum("count") AS c, min(temperature) AS lo, max(temperature) AS hi, min(time) AS first FROM weather GROUP BY ALL ORDER BY ALL`
	for _, rel := range []string{"/", "/**/*.tsfile", "/b/c.tsfile"} {
		code, want, errOut := runSQLCLI(t, "", dir+rel, "--format", "csv", "-c", query)
		require.Equal(t, 0, code, errOut)
		code, got, errOut := runSQLCLI(t, "", base+rel, "--format", "csv", "-c", query)
		require.Equal(t, 0, code, "%s: %s", base+rel, errOut)
		require.Equal(t, want, got, "%s", base+rel)
		require.Greater(t, strings.Count(got, "\n"), 2)
	}
	// Two copies of the sample: twice its rows.
	code, out, errOut := runSQLCLI(t, "", base+"/", "--format", "csv", "-c", "SELECT count(*) FROM weather")
	require.Equal(t, 0, code, errOut)
	code, one, errOut := runSQLCLI(t, "", sample, "--format", "csv", "-c", "SELECT count(*) * 2 FROM weather")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, strings.Split(one, "\n")[1], strings.Split(out, "\n")[1])

	// A table function naming an object reads it too.
	code, got, errOut := runSQLCLI(t, "", sample, "--format", "csv", "-c", "SELECT count(*) FROM tsfile('"+base+"/a.tsfile', \"table\" := 'weather')")
	require.Equal(t, 0, code, errOut)
	code, want, errOut := runSQLCLI(t, "", sample, "--format", "csv", "-c", "SELECT count(*) FROM weather")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, got)

	// The flag instead of the environment.
	t.Setenv("AWS_ENDPOINT_URL", "")
	code, got, errOut = runSQLCLI(t, "", base+"/a.tsfile", "--s3-endpoint", srv.Endpoint, "--format", "csv", "-c", "SELECT count(*) FROM weather")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, got)
	t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)

	missing := "s3://" + bucket + "/missing.tsfile"
	code, _, errOut = runSQLCLI(t, "", missing, "-c", "SELECT 1")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, missing)
	require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
}
