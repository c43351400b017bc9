package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// convertedSchema converts path to an Arrow IPC file with convert and
// returns the schema that file holds.
func convertedSchema(t *testing.T, path string, args ...string) *arrow.Schema {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.arrow")
	code, _, stderr := runCLI(append([]string{"convert", path, "-o", out}, args...)...)
	require.Equal(t, 0, code, stderr)
	fh, err := os.Open(out)
	require.NoError(t, err)
	defer fh.Close()
	r, err := ipc.NewFileReader(fh)
	require.NoError(t, err)
	defer r.Close()
	return r.Schema()
}

func TestSchemaMatchesConvert(t *testing.T) {
	files := []string{sample}
	if _, err := os.Stat(interop + "manifest.json"); err == nil {
		files = append(files, interop+"j01_table_all_types_plain.tsfile", interop+"j02_table_multipage_default_encodings.tsfile", interop+"j10_tree_nonaligned.tsfile")
	}
	for _, path := range files {
		for _, extra := range [][]string{nil, {"--time-unit", "us"}, {"--time-unit", "s"}} {
			t.Run(filepath.Base(path)+strings.Join(extra, ""), func(t *testing.T) {
				want := convertedSchema(t, path, extra...)

				code, out, stderr := runCLI(append([]string{"schema", path, "--json"}, extra...)...)
				require.Equal(t, 0, code, stderr)
				require.Empty(t, stderr)
				var got schemaJSON
				require.NoError(t, json.Unmarshal([]byte(out), &got))
				require.Equal(t, schemaToJSON(want), got)

				code, out, stderr = runCLI(append([]string{"schema", path, "--arrow"}, extra...)...)
				require.Equal(t, 0, code, stderr)
				require.Equal(t, want.String()+"\n", out)

				code, out, stderr = runCLI(append([]string{"schema", path}, extra...)...)
				require.Equal(t, 0, code, stderr)
				lines := strings.Split(out, "\n")
				require.Regexp(t, `^COLUMN +ARROW TYPE +NULLABLE +CATEGORY +TSFILE TYPE$`, lines[0])
				for i, f := range want.Fields() {
					cells := strings.Fields(lines[1+i])
					require.Equal(t, f.Name, cells[0])
					require.Contains(t, lines[1+i], "  "+f.Type.String()+"  ")
					cat, _ := f.Metadata.GetValue("tsfile.category")
					typ, _ := f.Metadata.GetValue("tsfile.type")
					nullable := map[bool]string{true: "yes", false: "no"}[f.Nullable]
					require.Equal(t, []string{nullable, cat, typ}, cells[len(cells)-3:], lines[1+i])
				}
				require.Contains(t, out, "\nschema metadata:\n")
				unit, _ := want.Metadata().GetValue("tsfile.time_unit")
				require.Contains(t, out, "  tsfile.time_unit = "+unit+"\n")
			})
		}
	}
}

func TestSchemaSample(t *testing.T) {
	code, out, stderr := runCLI("schema", sample)
	require.Equal(t, 0, code, stderr)
	want := `COLUMN       ARROW TYPE                                             NULLABLE  CATEGORY  TSFILE TYPE
time         timestamp[ms, tz=UTC]                                  no        TIME      TIMESTAMP
region       dictionary<values=utf8, indices=int32, ordered=false>  yes       TAG       STRING
station      dictionary<values=utf8, indices=int32, ordered=false>  yes       TAG       STRING
temperature  float64                                                yes       FIELD     DOUBLE
humidity     float32                                                yes       FIELD     FLOAT
pressure     int32                                                  yes       FIELD     INT32
count        int64                                                  yes       FIELD     INT64
ok           bool                                                   yes       FIELD     BOOLEAN
note         utf8                                                   yes       FIELD     TEXT
label        utf8                                                   yes       FIELD     STRING
raw          binary                                                 yes       FIELD     BLOB
day          date32                                                 yes       FIELD     DATE
seen         timestamp[ms, tz=UTC]                                  yes       FIELD     TIMESTAMP

schema metadata:
  tsfile.table = weather
  tsfile.time_unit = ms
`
	require.Equal(t, want, out)

	// --columns projects as convert does; time always stays.
	code, out, stderr = runCLI("schema", sample, "--columns", "ok, note", "--json")
	require.Equal(t, 0, code, stderr)
	var got schemaJSON
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	var names []string
	for _, f := range got.Fields {
		names = append(names, f.Name)
	}
	require.Equal(t, []string{"time", "ok", "note"}, names)
	require.Equal(t, map[string]string{"tsfile.table": "weather", "tsfile.time_unit": "ms"}, got.Metadata)
	require.Equal(t, schemaFieldJSON{Name: "ok", Type: "bool", Nullable: true, Metadata: map[string]string{"tsfile.category": "FIELD", "tsfile.type": "BOOLEAN"}}, got.Fields[1])
}

func TestSchemaModels(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree.tsfile")
	writeFile(t, tree, func(w *tsfile.Writer) {
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg1", "d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Times: []int64{1, 3}, Values: i64(7, 8)},
		}))
		require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("root.sg2", "d9"), []int64{5}, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s3", DataType: tsfile.Int64}, Values: i64(9)},
		}))
	})
	code, out, stderr := runCLI("schema", tree)
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^device +dictionary<values=utf8, indices=int32, ordered=false> +yes +DEVICE +STRING$`, out)
	require.Regexp(t, `(?m)^s2 +int64 +yes +MEASUREMENT +INT64$`, out)
	require.Regexp(t, `(?m)^s3 +int64 +yes +MEASUREMENT +INT64$`, out)
	require.NotContains(t, out, "tsfile.table")

	code, out, stderr = runCLI("schema", tree, "--table", "root.sg2")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, "s2 ")
	require.Contains(t, out, "s3 ")

	two := filepath.Join(dir, "two.tsfile")
	writeFile(t, two, func(w *tsfile.Writer) {
		for _, name := range []string{"alpha", "beta"} {
			require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: name, Columns: []tsfile.Column{
				{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
				{Name: "v_" + name, DataType: tsfile.Double, Category: tsfile.Field},
			}}))
			require.NoError(t, w.WriteAligned(tsfile.NewDeviceID(name, "x"), []int64{1}, []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "v_" + name, DataType: tsfile.Double}, Values: tsfile.Values{Type: tsfile.Double, Float64s: []float64{1}}},
			}))
		}
	})
	code, _, stderr = runCLI("schema", two)
	require.Equal(t, 2, code)
	require.Equal(t, "ts2arrow: the file has several tables; pick one with --table (tables: alpha, beta)\n", stderr)
	code, out, stderr = runCLI("schema", two, "--table", "beta")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^v_beta +float64 +yes +FIELD +DOUBLE$`, out)
	require.Contains(t, out, "tsfile.table = beta")
}

func TestSchemaRemote(t *testing.T) {
	url, _ := rangeServer(t, sample)
	for _, mode := range []string{"--json", "--arrow", "--time-unit=ns"} {
		_, local, _ := runCLI("schema", sample, mode)
		code, remote, stderr := runCLI("schema", url, mode)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, local, remote)
	}
}

func TestSchemaUsage(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	bad := filepath.Join(dir, "bad.tsfile")
	data[len(data)-1] = 'x'
	require.NoError(t, os.WriteFile(bad, data, 0o644))
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"schema"}, 2, "ts2arrow: schema takes one FILE (got 0 arguments)\n"},
		{[]string{"schema", sample, sample}, 2, "ts2arrow: schema takes one FILE (got 2 arguments)\n"},
		{[]string{"schema", sample, "--arrow", "--json"}, 2, "ts2arrow: --arrow and --json exclude each other\n"},
		{[]string{"schema", sample, "--time-unit", "min"}, 2, "ts2arrow: unknown --time-unit \"min\" (want s, ms, us or ns)\n"},
		{[]string{"schema", sample, "--table", "nope"}, 2, "ts2arrow: no table \"nope\" in the file (tables: weather)\n"},
		{[]string{"schema", sample, "--columns", "temp"}, 2, "ts2arrow: no column \"temp\" (columns: time, region, station, temperature, humidity, pressure, count, ok, note, label, raw, day, seen)\n"},
		{[]string{"schema", sample, "--frobnicate"}, 2, "ts2arrow: unknown flag: --frobnicate\n"},
		{[]string{"schema", filepath.Join(dir, "missing.tsfile")}, 1, "missing.tsfile"},
		{[]string{"schema", bad}, 1, "ts2arrow: " + bad + ": file tail: tail magic is"},
	} {
		code, out, stderr := runCLI(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Empty(t, out, "%v", tc.args)
		require.Contains(t, stderr, tc.stderr, "%v", tc.args)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	code, out, stderr := runCLI("schema", bad)
	require.Equal(t, 1, code, out)
	require.Regexp(t, `at offset \d+; "ts2arrow recover .* -o FIXED" can salvage its complete chunk groups\n$`, stderr)

	for _, args := range [][]string{{"schema", "--help"}, {"help", "schema"}, {"schema", "-h"}} {
		code, out, stderr := runCLI(args...)
		require.Equal(t, 0, code)
		help := out + stderr
		require.Contains(t, help, "Usage: ts2arrow schema FILE")
		require.Contains(t, help, "Examples:")
		require.Contains(t, help, "--time-unit")
	}
}
