//go:build cgo && duckdb_arrow

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/objtest"
)

// TestSQLObjectDataDir: ts2arrow sql over IoTDB data in a bucket answers
// as over the local copy: the database as a schema, the rows resolved.
func TestSQLObjectDataDir(t *testing.T) {
	srv := objtest.S3(t)
	srv.Setenv(t)
	bucket := srv.Bucket(t)
	srv.PutDir(t, bucket, "backup/iotdb", sampleDataDir)
	base := "s3://" + bucket + "/backup/iotdb/"
	for _, q := range []string{
		`SELECT * FROM weather.weather ORDER BY ALL`,
		`SELECT count(*), sum(s1) FROM "root.sg"`,
	} {
		code, want, errOut := runCLI("sql", sampleDataDir, "--format", "csv", "-c", q)
		require.Equal(t, 0, code, errOut)
		code, got, errOut := runCLI("sql", base, "--format", "csv", "-c", q)
		require.Equal(t, 0, code, errOut)
		require.NotEmpty(t, want)
		require.Equal(t, want, got, q)
	}
}
