package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/tsfile"
)

// tableRows reads table of the TsFile at path with the library reader, as
// CSV, and returns its schema too.
func tableRows(t *testing.T, path, table string) (*tsfile.TableSchema, string) {
	t.Helper()
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	ts, ok := f.SchemaOf(table)
	require.True(t, ok, "%s has no table %q (tables %v)", path, table, f.Tables())
	r, err := arrowconv.NewTableReader(f, table, nil)
	require.NoError(t, err)
	defer r.Release()
	var buf bytes.Buffer
	_, err = export.WriteCSV(&buf, r)
	require.NoError(t, err)
	return ts, buf.String()
}

// TestReverseKeepsTableAndTags: a Parquet or Arrow file tsarrow wrote
// converts back to the table it came from, named and tagged as in the
// original, without --table or --tags; the flags still override.
func TestReverseKeepsTableAndTags(t *testing.T) {
	wantSchema, wantRows := tableRows(t, sample, "weather")
	dir := t.TempDir()
	for _, mid := range []string{"x.parquet", "x.arrow", "x.arrows"} {
		p := filepath.Join(dir, mid)
		code, _, errOut := runCLI("convert", sample, "-o", p)
		require.Equal(t, 0, code, errOut)
		back := filepath.Join(dir, mid+".tsfile")
		code, _, errOut = runCLI("convert", p, "-o", back, "--verbose")
		require.Equal(t, 0, code, errOut)
		require.Contains(t, errOut, "table weather (recorded in the input), TAG columns region,station (marked TAG in the input)")
		gotSchema, gotRows := tableRows(t, back, "weather")
		require.Equal(t, wantSchema.Tags(), gotSchema.Tags(), mid)
		require.Equal(t, wantRows, gotRows, mid)

		over := filepath.Join(dir, mid+".over.tsfile")
		code, _, errOut = runCLI("convert", p, "-o", over, "--table", "w2", "--tags", "station,region")
		require.Equal(t, 0, code, errOut)
		gotSchema, _ = tableRows(t, over, "w2")
		var tags []string
		for _, c := range gotSchema.Tags() {
			tags = append(tags, c.Name)
		}
		require.Equal(t, []string{"station", "region"}, tags, mid)
	}
}

// TestReverseHintsNameFlags: the writer's errors that an option settles
// tell a CLI user the flag, never the Go option.
func TestReverseHintsNameFlags(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.parquet")
	code, _, errOut := runCLI("convert", sample, "-o", x)
	require.Equal(t, 0, code, errOut)
	cases := []struct {
		name, in string
		args     []string
		want     string
	}{
		{"missing tag", x, []string{"--tags", "region"}, "--tags COLUMN,... (TAG columns now: --tags region)"},
	}
	if _, err := os.Stat(interop + "j10_tree_nonaligned.tsfile"); err == nil {
		tree := filepath.Join(dir, "tree.parquet")
		code, _, errOut := runCLI("convert", interop+"j10_tree_nonaligned.tsfile", "-o", tree)
		require.Equal(t, 0, code, errOut)
		cases = append(cases, cases[0])
		cases[1].name, cases[1].in, cases[1].args, cases[1].want = "tree export", tree, nil, "pass --tags device"
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".tsfile")
			code, _, errOut := runCLI(append([]string{"convert", c.in, "-o", out}, c.args...)...)
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, "same time")
			require.Contains(t, errOut, c.want)
			requireNoGoNames(t, errOut)
		})
	}
}

// TestFlagHint maps every option the writer may name.
func TestFlagHint(t *testing.T) {
	for opt, want := range map[string]string{
		"Table":           "--table NAME",
		"TimeColumn":      "rename the other column",
		"MaxBufferedRows": "sort the input by time",
		"KeepLast":        "--tags",
		"Encodings":       "set --encoding r",
		"Compressions":    "set --compression r",
		"Compression":     "set --compression r",
		"TimeCompression": "set --compression for the time column r",
		"TimeUnit":        "--time-unit us or --time-unit ns",
		"Attributes":      "no flag",
	} {
		err := flagHint(&fromarrow.OptionError{Problem: "p", Option: opt, Remedy: "r"}, arrow.NewSchema(nil, nil), nil)
		require.Contains(t, err.Error(), want, opt)
		requireNoGoNames(t, err.Error())
		if strings.HasPrefix(want, "set --") {
			// Only flags set encodings and compressions: a usage error.
			var ue *usageError
			require.ErrorAs(t, err, &ue, opt)
			continue
		}
		var oe *fromarrow.OptionError
		require.ErrorAs(t, err, &oe)
	}
}

func requireNoGoNames(t *testing.T, msg string) {
	t.Helper()
	for _, g := range []string{"KeepLast", "MaxBufferedRows", "TimeColumn", "Options."} {
		require.NotContains(t, msg, g)
	}
}

// TestReverseTimeUnit: writing a TsFile keeps the unit of the input's
// timestamp time column unless --time-unit is given, which converts to it.
func TestReverseTimeUnit(t *testing.T) {
	_, wantRows := tableRows(t, sample, "weather")
	firstTime := func(path string) int64 {
		f, err := tsfile.OpenFile(path, nil)
		require.NoError(t, err)
		defer f.Close()
		r, err := arrowconv.NewTableReader(f, "weather", &arrowconv.Options{Limit: 1})
		require.NoError(t, err)
		defer r.Release()
		require.True(t, r.Next(), "%v", r.Err())
		return int64(r.RecordBatch().Column(0).(*array.Timestamp).Value(0))
	}
	dir := t.TempDir()
	// The stored integers read as microseconds: a timestamp[us] column.
	us := filepath.Join(dir, "us.parquet")
	code, _, errOut := runCLI("convert", sample, "-o", us, "--time-unit", "us")
	require.Equal(t, 0, code, errOut)

	kept := filepath.Join(dir, "kept.tsfile")
	code, _, errOut = runCLI("convert", us, "-o", kept)
	require.Equal(t, 0, code, errOut)
	_, gotRows := tableRows(t, kept, "weather")
	require.Equal(t, wantRows, gotRows, "the stored integers are the input's microseconds")

	ns := filepath.Join(dir, "ns.tsfile")
	code, _, errOut = runCLI("convert", us, "-o", ns, "--time-unit", "ns")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1000*firstTime(sample), firstTime(ns))
}
