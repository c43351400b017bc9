package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestConvertWriteTimeColumn: --write-time-column records the input's
// time column in the table schema as a TIME column, with one warning that
// upstream Java and IoTDB cannot read the file; without it the schema has
// none and nothing is said, and --time-column still only picks the column.
func TestConvertWriteTimeColumn(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.csv")
	require.NoError(t, os.WriteFile(in, []byte("id,region,temp\n1000,north,1.5\n2000,south,2.5\n3000,north,\n"), 0o666))
	schemaOf := func(path string) *tsfile.TableSchema {
		f, err := tsfile.OpenFile(path, nil)
		require.NoError(t, err)
		defer f.Close()
		s, ok := f.SchemaOf("r")
		require.True(t, ok)
		return s
	}

	with := filepath.Join(dir, "with.tsfile")
	code, _, errOut := runCLI("convert", in, "-o", with, "--time-column", "id", "--tags", "region", "--write-time-column")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1, strings.Count(errOut, "warning"), errOut)
	require.Contains(t, errOut, "upstream Java TsFile and IoTDB")
	s := schemaOf(with)
	require.Equal(t, "id", s.Columns[0].Name)
	require.Equal(t, tsfile.TimeCol, s.Columns[0].Category)
	require.Equal(t, tsfile.Timestamp, s.Columns[0].DataType)
	require.Len(t, s.Columns, 3)

	without := filepath.Join(dir, "without.tsfile")
	code, _, errOut = runCLI("convert", in, "-o", without, "--time-column", "id", "--tags", "region")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	for _, c := range schemaOf(without).Columns {
		require.NotEqual(t, tsfile.TimeCol, c.Category, c.Name)
	}

	// A TsFile input converts with the flag too.
	again := filepath.Join(dir, "again.tsfile")
	code, _, errOut = runCLI("convert", without, "-o", again, "--write-time-column")
	require.Equal(t, 0, code, errOut)
	f, err := tsfile.OpenFile(again, nil)
	require.NoError(t, err)
	defer f.Close()
	s, ok := f.SchemaOf("r")
	require.True(t, ok)
	require.Equal(t, tsfile.TimeCol, s.Columns[0].Category)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", filepath.Join(dir, "x.parquet"), "--write-time-column"}, "--write-time-column applies to tsfile output"},
		{[]string{"-o", filepath.Join(dir, "y.tsfile"), "--write-time-column", "--tree"}, "--tree writes the tree model"},
	} {
		code, _, errOut := runCLI(append([]string{"convert", in}, tc.args...)...)
		require.Equal(t, 2, code, errOut)
		require.Contains(t, errOut, tc.want)
	}

	hint := flagHint(&fromarrow.OptionError{Problem: "p", Option: "WriteTimeColumn", Remedy: "r"}, arrow.NewSchema(nil, nil), nil)
	require.Contains(t, hint.Error(), "pass --write-time-column")
	requireNoGoNames(t, hint.Error())
}
