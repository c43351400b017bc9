//go:build iceberg

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/icesync"
)

// TestSyncPartitionFlag: --partition shapes the table a sync creates,
// --database '*' adds the database column, a spec that does not parse is
// a usage error (exit 2, one line), and another spec for the existing
// table an error naming both.
func TestSyncPartitionFlag(t *testing.T) {
	work := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(work, "iotdb"), os.DirFS("../../testdata/iotdb")))
	t.Chdir(work)
	args := []string{"sync", "iotdb", "--table", "weather", "--database", "*", "--catalog", "sqlite:cat.db", "--warehouse", "lake", "--to", "iot.weather"}

	code, _, stderr := runCLI(append(args, "--partition", "week(time)")...)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `unknown transform "week"`)
	require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)

	code, out, stderr := runCLI(append(args, "--partition", "month(time), database")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "iot.weather: created")

	cat, err := icesync.OpenCatalog(context.Background(), "sqlite:cat.db", "lake")
	require.NoError(t, err)
	defer cat.Close()
	tbl, err := cat.LoadTable(context.Background(), catalog.ToIdentifier("iot", "weather"))
	require.NoError(t, err)
	require.Equal(t, "database", tbl.Schema().Field(1).Name)
	require.Equal(t, "month(time),database", tbl.Properties()[icesync.PropPartition])
	require.Equal(t, "*.weather", tbl.Properties()[icesync.PropSourceTable])
	require.Equal(t, "weather", tbl.Properties()[icesync.PropDatabases])

	code, _, stderr = runCLI(append(args, "--partition", "day(time)")...)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "is partitioned by month(time),database, not day(time)")

	// Without --partition the existing table's spec is kept.
	code, out, stderr = runCLI(args...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "nothing to sync")
}
