//go:build cgo && duckdb_arrow

package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRenamesSQLRefused: sql over a data directory whose partition records
// renames refuses it as convert does; --raw reads the files as they are.
func TestRenamesSQLRefused(t *testing.T) {
	root, _, log := renamesDataDir(t, []byte{0, 1, 't', 1, 'u'})
	code, out, stderr := runCLI("sql", root, "--format", "csv", "-c", "SELECT count(*) AS n FROM t")
	requireRenamesRefusal(t, code, stderr, log)
	require.Empty(t, out)
	code, out, stderr = runCLI("sql", root, "--raw", "--format", "csv", "-c", "SELECT count(*) AS n FROM t")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "n\n5\n", out)
}
