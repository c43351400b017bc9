package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// renamesDataDir is iotdbDir with a schema-evolution log of renames
// (apache/iotdb #17079: varint type 0, TABLE_RENAME, then the old and new
// table names) in the partition of its sequence file, at
// filesets/{endVersion}/{validLength}.sevo as TsFileSet writes it. It
// returns the root, the sequence data file and the log.
func renamesDataDir(t *testing.T, sevo []byte) (root, seq, log string) {
	t.Helper()
	root = iotdbDir(t)
	seq = layoutPath(root, "sequence", 1, 1)
	log = filepath.Join(filepath.Dir(seq), "filesets", "5", "7.sevo")
	require.NoError(t, os.MkdirAll(filepath.Dir(log), 0o755))
	require.NoError(t, os.WriteFile(log, sevo, 0o644))
	return root, seq, log
}

// requireRenamesRefusal checks a one-line refusal naming the log, the
// unsettled upstream feature and --raw.
func requireRenamesRefusal(t *testing.T, code int, stderr, log string) {
	t.Helper()
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	for _, want := range []string{log, "ALTER TABLE ... RENAME", "apache/iotdb pull request #17079", "in no IoTDB release", "--raw"} {
		require.Contains(t, stderr, want)
	}
}

// TestRenamesRefused: every command that reads an IoTDB data directory
// refuses one whose partition records renames, whether given the
// directory or one data file of the partition; --raw reads the files
// under their stored names; inspect says why in its warnings and its
// effect. An empty log records no rename and reads with a warning.
func TestRenamesRefused(t *testing.T) {
	root, seq, log := renamesDataDir(t, []byte{0, 1, 't', 1, 'u'})
	for _, args := range [][]string{
		{"convert", root, "-o", "-", "--format", "csv"},
		{"convert", seq, "-o", "-", "--format", "csv"},
		{"convert", filepath.Join(root, "sequence", "root.db"), "-o", "-", "--format", "csv"},
		{"head", root},
		{"head", seq},
		{"schema", root},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			code, out, stderr := runCLI(args...)
			requireRenamesRefusal(t, code, stderr, log)
			require.Empty(t, out)
		})
	}
	// --raw: every file as it is, the deleted and overwritten rows too.
	_, rows, _ := csvRows(t, root, "--raw")
	require.Equal(t, []string{"1,a,10", "1,b,100", "2,a,20", "2,a,21", "3,a,30"}, rows)

	// inspect summarises the directory, and fails only for the rows it
	// was asked to count and could not.
	code, out, stderr := runCLI("inspect", root)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "the rows could not be counted: dataset: "+log)
	require.Contains(t, out, "warning:     "+log+": records table or column renames, made by "+dataset.RenamesUnsettled)
	require.Contains(t, out, "convert, head, schema, sql and serve refuse this directory (--raw")
	require.Contains(t, out, "effect: not counted: dataset: "+log)
	code, out, stderr = runCLI("inspect", "--json", "--no-count", root)
	require.Equal(t, 0, code, stderr)
	var info struct {
		Warnings []string `json:"warnings"`
		Skipped  []struct {
			Path, Reason string
		} `json:"skipped"`
		Effect struct {
			Error string `json:"error"`
		} `json:"effect"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	require.Contains(t, strings.Join(info.Warnings, "\n"), log+": records table or column renames")
	require.Len(t, info.Skipped, 1)
	require.Equal(t, log, info.Skipped[0].Path)
	require.Contains(t, info.Skipped[0].Reason, "#17079")
	require.Contains(t, info.Effect.Error, "#17079")

	// An empty log: read as without it, and said.
	require.NoError(t, os.WriteFile(log, nil, 0o644))
	_, rows, stderr = csvRows(t, root)
	require.Equal(t, resolvedRows, rows)
	require.Contains(t, stderr, log+": an empty schema-evolution log")
	code, out, stderr = runCLI("inspect", root)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 1, strings.Count(out, "an empty schema-evolution log"), out)
	require.NotContains(t, out, "records table or column renames")
}

// TestRenamesSEVProperties: footer properties in the form of apache/tsfile's
// unreleased TsFileSchemaRewriter (SEV:TableRename:{old} = new,
// SEV:ColumnRename:{len},{len},{table},{old} = new) are plain properties:
// the file converts as the same file without them (table t, column s1),
// and inspect lists them verbatim with a note that they are not applied.
func TestRenamesSEVProperties(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, props []tsfile.Property) string {
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{Properties: props})
		require.NoError(t, err)
		require.NoError(t, w.RegisterTable(dsTable("t")))
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", "a"), []int64{1, 2}, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: []int64{10, 20}, Null: []bool{false, false}}}}))
		require.NoError(t, w.Close())
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		return p
	}
	plain := write("plain.tsfile", nil)
	sev := write("sev.tsfile", []tsfile.Property{
		{Key: "SEV:TableRename:t", Value: []byte("t2")},
		{Key: "SEV:ColumnRename:1,2,t,s1", Value: []byte("s9")},
	})

	wantHeader, wantRows, _ := csvRows(t, plain)
	header, rows, stderr := csvRows(t, sev)
	require.Equal(t, "time,tag,s1", header)
	require.Equal(t, wantHeader, header)
	require.Equal(t, wantRows, rows)
	require.Equal(t, []string{"1,a,10", "2,a,20"}, rows)
	require.NotContains(t, stderr, "SEV")

	code, out, errOut := runCLI("inspect", sev)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "property:    SEV:TableRename:t = t2\n")
	require.Contains(t, out, "property:    SEV:ColumnRename:1,2,t,s1 = s9\n")
	require.Contains(t, out, "note:        2 SEV:* properties record table or column renames")
	require.Contains(t, out, "\ntable t (table model")
	code, out, _ = runCLI("inspect", "--json", sev)
	require.Equal(t, 0, code)
	var info inspectFile
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	require.Equal(t, "t2", info.Properties["SEV:TableRename:t"])
	require.Equal(t, "s9", info.Properties["SEV:ColumnRename:1,2,t,s1"])
	require.Len(t, info.Notes, 1)
	require.Contains(t, info.Notes[0], "not applied")
	require.Equal(t, "t", info.Tables[0].Name)
	require.Equal(t, "s1", info.Tables[0].Columns[1].Name)

	code, out, _ = runCLI("inspect", "--json", plain)
	require.Equal(t, 0, code)
	require.NotContains(t, out, `"notes"`)
}
