package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// convertSample writes testdata/sample.tsfile to dir/name with convert.
func convertSample(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	code, _, errOut := runCLI(append([]string{"convert", sample, "-o", p, "--quiet"}, args...)...)
	require.Equal(t, 0, code, errOut)
	return p
}

// TestForeignSchemaHeadInspect: schema and head answer about a Parquet,
// Arrow or CSV file (told by its bytes, whatever its name) as they do
// about the TsFile it came from, and inspect says in one line what it is.
func TestForeignSchemaHeadInspect(t *testing.T) {
	dir := t.TempDir()
	_, wantHead, _ := runCLI("head", sample, "-n", "4")
	_, wantSchema, _ := runCLI("schema", sample, "--json")
	var ws schemaJSON
	require.NoError(t, json.Unmarshal([]byte(wantSchema), &ws))
	pq := convertSample(t, dir, "s.parquet")
	// The same Parquet bytes under a name that says nothing.
	b, err := os.ReadFile(pq)
	require.NoError(t, err)
	noExt := filepath.Join(dir, "parquet-without-extension")
	require.NoError(t, os.WriteFile(noExt, b, 0o644))
	for _, tc := range []struct {
		path, format string
		sameHead     bool // head prints what it prints for the TsFile
	}{
		{pq, "Parquet file", true},
		{noExt, "Parquet file", true},
		{convertSample(t, dir, "s.arrow"), "Arrow IPC file", true},
		{convertSample(t, dir, "s.arrows"), "Arrow IPC stream", true},
		// CSV has no types: its times are the integers it holds.
		{convertSample(t, dir, "s.csv"), "CSV file", false},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			code, out, errOut := runCLI("schema", tc.path, "--json")
			require.Equal(t, 0, code, errOut)
			var got schemaJSON
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			require.Len(t, got.Fields, len(ws.Fields))
			for i, f := range got.Fields {
				require.Equal(t, ws.Fields[i].Name, f.Name)
				if tc.sameHead {
					require.Equal(t, ws.Fields[i].Type, f.Type, f.Name)
				}
			}

			code, out, errOut = runCLI("head", tc.path, "-n", "4")
			require.Equal(t, 0, code, errOut)
			if tc.sameHead {
				require.Equal(t, wantHead, out)
			} else {
				require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 6)
				require.Contains(t, out, "  north   s01  ")
			}

			code, out, errOut = runCLI("inspect", tc.path)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, fmt.Sprintf("%s: %s, not a TsFile: \"ts2arrow schema\" and \"ts2arrow head\" read it, and \"ts2arrow convert %s -o OUT.tsfile\" writes it as a TsFile\n",
				tc.path, foreignKind(tc.format).article(), shellWord(tc.path)), out)
			code, out, errOut = runCLI("inspect", tc.path, "--json")
			require.Equal(t, 0, code, errOut)
			var js inspectForeign
			require.NoError(t, json.Unmarshal([]byte(out), &js))
			require.Equal(t, tc.format, js.Format)

			code, _, errOut = runCLI("head", tc.path, "--table", "weather")
			require.Equal(t, 2, code)
			require.Contains(t, errOut, "--table applies to TsFile inputs")
		})
	}
}

// readBack reads a TsFile (its one table, or its tree-model devices) with
// the library reader and writes its rows as CSV by the test's own rules,
// so that what is compared does not move with convert's output options:
// times as the integers stored (in unit), floats in their shortest form,
// a null as an empty cell, an empty string as "", a string that needs
// them in quotes, binary as 0x and hex.
func readBack(t *testing.T, path string, unit arrow.TimeUnit) string {
	t.Helper()
	f, err := tsfile.OpenFile(path, nil)
	require.NoError(t, err)
	defer f.Close()
	opts := &arrowconv.Options{TimeUnit: arrowconv.TimeUnitOf(unit)}
	var r array.RecordReader
	tables := f.Tables()
	if _, isTable := f.SchemaOf(tables[0]); isTable {
		require.Len(t, tables, 1)
		r, err = arrowconv.NewTableReader(f, tables[0], opts)
	} else {
		r, err = arrowconv.NewTreeReader(f, "", opts)
	}
	require.NoError(t, err)
	defer r.Release()
	var b strings.Builder
	for i, fl := range r.Schema().Fields() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(fl.Name)
	}
	b.WriteByte('\n')
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			for c := range int(rec.NumCols()) {
				if c > 0 {
					b.WriteByte(',')
				}
				b.WriteString(testCell(rec.Column(c), i))
			}
			b.WriteByte('\n')
		}
	}
	require.NoError(t, r.Err())
	return b.String()
}

func testCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.Dictionary:
		return testCell(a.Dictionary(), a.GetValueIndex(i))
	case *array.Timestamp:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Binary:
		return "0x" + hex.EncodeToString(a.Value(i))
	case *array.String:
		v := a.Value(i)
		if v == "" || strings.ContainsAny(v, ",\"\n") {
			return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
		}
		return v
	}
	return a.ValueStr(i)
}

// TestReverseCSV: a CSV file converts to a TsFile whose rows read back as
// the CSV held them, with inferred or given types.
func TestReverseCSV(t *testing.T) {
	dir := t.TempDir()
	// convert's own CSV of the sample comes back as the sample's rows.
	sampleCSV := convertSample(t, dir, "weather.csv")
	want := readBack(t, sample, arrow.Millisecond)

	for _, tc := range []struct {
		name  string
		csv   string // the input, or "" for the sample's CSV
		args  []string
		want  string // read back as CSV
		table string // --table of the read back
	}{
		{name: "sample", args: []string{"--tags", "region,station"}, want: want},
		{
			// ISO times with and without a zone or T, in another column;
			// strings that need quotes; "" is empty, an empty cell null.
			name: "iso times and quoting",
			csv: "ts,station,temp,note\n" +
				"2024-05-01T12:00:00Z,s1,1.5,\"a, b\"\n" +
				"2024-05-01 12:00:01,s1,,\"\"\n" +
				"2024-05-01T14:00:02+02:00,s1,-3,\"say \"\"hi\"\"\nbye\"\n" +
				"2024-05-01T12:00:03.250Z,s2,NaN,\n",
			args: []string{"--time-column", "ts", "--tags", "station"},
			want: "time,station,temp,note\n" +
				"1714564800000,s1,1.5,\"a, b\"\n" +
				"1714564801000,s1,,\"\"\n" +
				"1714564802000,s1,-3,\"say \"\"hi\"\"\nbye\"\n" +
				"1714564803250,s2,NaN,\n",
		},
		{
			// Integers in the --time-unit; a code with leading zeros
			// stays text; --schema makes a column FLOAT and one TEXT.
			name: "epoch seconds and --schema",
			csv:  "time,code,v,w\n1700000000,007,1,x\n1700000001,010,2,y\n",
			args: []string{"--time-unit", "s", "--schema", "v:FLOAT,w:text"},
			want: "time,code,v,w\n1700000000,007,1,x\n1700000001,010,2,y\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := sampleCSV
			if tc.csv != "" {
				in = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".csv")
				require.NoError(t, os.WriteFile(in, []byte(tc.csv), 0o644))
			}
			out := in + ".tsfile"
			code, _, errOut := runCLI(append([]string{"convert", in, "-o", out, "--quiet"}, tc.args...)...)
			require.Equal(t, 0, code, errOut)
			unit := arrow.Millisecond
			for i, a := range tc.args {
				if a == "--time-unit" {
					unit, _ = parseUnitName(tc.args[i+1])
				}
			}
			require.Equal(t, tc.want, readBack(t, out, unit))
		})
	}

	// The types --schema gave are the file's.
	in := filepath.Join(dir, "epoch_seconds_and_--schema.csv")
	code, out, errOut := runCLI("schema", in+".tsfile", "--time-unit", "s")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `(?m)^code +utf8 .* STRING$`, out)
	require.Regexp(t, `(?m)^v +float32 .* FLOAT$`, out)
	require.Regexp(t, `(?m)^w +utf8 .* TEXT$`, out)
}

// TestReverseSchemaJSON: "schema --json" of a TsFile, given to --schema,
// restores the types, TAGs and table name of a CSV export of it.
func TestReverseSchemaJSON(t *testing.T) {
	dir := t.TempDir()
	csvPath := convertSample(t, dir, "x.csv")
	code, js, errOut := runCLI("schema", sample, "--json")
	require.Equal(t, 0, code, errOut)
	sj := filepath.Join(dir, "weather.json")
	require.NoError(t, os.WriteFile(sj, []byte(js), 0o644))
	back := filepath.Join(dir, "back.tsfile")
	code, _, errOut = runCLI("convert", csvPath, "-o", back, "--schema", sj, "--quiet")
	require.Equal(t, 0, code, errOut)
	_, want := tableRows(t, sample, "weather")
	wantSchema, _ := tableRows(t, sample, "weather")
	gotSchema, got := tableRows(t, back, "weather")
	require.Equal(t, want, got)
	// Names, types and categories come from --schema; a FIELD's encoding
	// and compression are the writer's defaults, not the sample's.
	require.Equal(t, columnShapes(wantSchema), columnShapes(gotSchema))
}

// columnShapes lists a table schema's columns as "name type category".
func columnShapes(ts *tsfile.TableSchema) []string {
	var out []string
	for _, c := range ts.Columns {
		out = append(out, fmt.Sprintf("%s %v %v", c.Name, c.DataType, c.Category))
	}
	return out
}

// writeDecimalParquet writes a Parquet file with a DECIMAL(20,3) column.
func writeDecimalParquet(t *testing.T, path string, vals ...string) {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 20, Scale: 3}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, v := range vals {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + i))
		n, err := decimal128.FromString(v, 20, 3)
		require.NoError(t, err)
		b.Field(1).(*array.Decimal128Builder).Append(n)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	fh, err := os.Create(path)
	require.NoError(t, err)
	defer fh.Close()
	w, err := pqarrow.NewFileWriter(sc, fh, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
}

// TestReverseDecimal: a DECIMAL column is refused, naming the flag that
// casts it, and --cast-decimal double stores the nearest doubles.
func TestReverseDecimal(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "prices.parquet")
	writeDecimalParquet(t, pq, "0.100", "12345678901234567.891", "-2.500")
	out := filepath.Join(dir, "prices.tsfile")
	code, _, errOut := runCLI("convert", pq, "-o", out, "--quiet")
	require.Equal(t, 1, code)
	require.Equal(t, "ts2arrow: "+pq+": fromarrow: column \"price\" is decimal(20, 3), and TsFile has no decimal type; pass --cast-decimal double to store it as DOUBLE (rounded to the nearest double: exact to 15 significant digits)\n", errOut)
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err), "no output after the refusal")

	code, _, errOut = runCLI("convert", pq, "-o", out, "--quiet", "--cast-decimal", "double")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "time,price\n1700000000000,0.1\n1700000000001,1.2345678901234568e+16\n1700000000002,-2.5\n", readBack(t, out, arrow.Millisecond))
}

// TestReverseErrors: what the reverse path refuses, each in one line
// naming the flag or the line of the input, with the exit code.
func TestReverseErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	// A column that is an integer for the first 10000 rows only.
	var late strings.Builder
	late.WriteString("time,v\n")
	for i := range csvSampleRows {
		fmt.Fprintf(&late, "%d,%d\n", i, i)
	}
	late.WriteString("99999,1.5\n")
	lateCSV := write("late.csv", late.String())
	good := write("good.csv", "time,device,v\n1,root.sg.d1,1\n")
	pq := convertSample(t, dir, "s.parquet")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // the whole of stderr, after "ts2arrow: "
	}{
		{"late cell", []string{lateCSV}, 1, lateCSV + `: line 10002 column "v": cannot read "1.5" as int64: not a number of that type (the type the first 10000 rows gave; --schema v:TYPE gives another)`},
		{"bad time", []string{write("badtime.csv", "time,v\n2024-01-01T00:00:00Z,1\nnoon,2\n")}, 1, dir + `/badtime.csv: line 3: "noon" in the time column "time" is neither an integer (in the --time-unit) nor an ISO 8601 time; --time-column names another column`},
		{"no time column", []string{write("notime.csv", "ts,v\n1,2\n")}, 2, dir + `/notime.csv has no column "time" (columns: ts, v); --time-column NAME names the time column`},
		{"missing --time-column", []string{good, "--time-column", "when"}, 2, `--time-column when: ` + good + ` has no such column (columns: time, device, v)`},
		{"ragged", []string{write("ragged.csv", "time,v\n1,2\n3\n")}, 1, dir + `/ragged.csv: line 3 has 1 cells, the header row 2`},
		{"open quote", []string{write("quote.csv", "time,v\n1,\"abc\n")}, 1, dir + `/quote.csv: line 2: a quoted cell is not closed before the end of the file`},
		{"unknown --schema type", []string{good, "--schema", "v:money"}, 2, `--schema: column "v": unknown type "money" (want BOOLEAN, INT32, INT64, FLOAT, DOUBLE, STRING, TEXT, BLOB, DATE, TIMESTAMP, or an Arrow type such as int16, float64, utf8 or timestamp[us])`},
		{"--schema column not in CSV", []string{good, "--schema", "w:double"}, 1, good + `: --schema names column "w", which the header row does not (columns: time, device, v)`},
		{"--schema on Parquet", []string{pq, "--schema", "time:int64"}, 2, `--schema gives the column types of a CSV input; ` + pq + ` is a Parquet file, whose types are its own`},
		{"--cast-decimal float", []string{good, "--cast-decimal", "float"}, 2, `--cast-decimal "float": the one cast is --cast-decimal double`},
		{"--aligned without --tree", []string{good, "--aligned"}, 2, `--device-column and --aligned apply with --tree only`},
		{"--tree with --tags", []string{good, "--tree", "--tags", "device"}, 2, `--tree writes devices named by --device-column; --tags and --table describe a table-model table`},
		{"--tree without device column", []string{good, "--tree", "--device-column", "dev"}, 1, good + `: fromarrow: no device column "dev" in the input; --device-column NAME names the column of device paths (root.sg.d1)`},
		{"device column without --tree", []string{write("dup.csv", "time,device,v\n1,root.sg.d1,1\n1,root.sg.d2,2\n")}, 1, dir + `/dup.csv: fromarrow: rows 0 and 1 of device dup have the same time 1; a TsFile holds one row per device and time, and column "device" tells the devices apart: pass --tags device, or --tree to write the tree model`},
		{"--tree path without root", []string{write("noroot.csv", "time,device,v\n1,sg.d1,1\n"), "--tree"}, 1, dir + `/noroot.csv: fromarrow: row 0 device column "device": device path "sg.d1" does not start with "root." followed by a node, as IoTDB's tree-model paths do (root.sg.d1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".tsfile")
			args := append([]string{"convert", tc.args[0], "-o", out, "--quiet"}, tc.args[1:]...)
			code, _, errOut := runCLI(args...)
			require.Equal(t, tc.code, code, errOut)
			require.Equal(t, "ts2arrow: "+tc.want+"\n", errOut)
			_, err := os.Stat(out)
			require.True(t, os.IsNotExist(err), "no output after an error")
		})
	}
}

// TestReverseTree: --tree writes each row's device from the device column,
// the other columns its measurements, and the rows read back as written,
// aligned or not; a tree-model export converts back to the same rows.
func TestReverseTree(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "tree.csv")
	require.NoError(t, os.WriteFile(in, []byte("time,dev,s1,s2\n"+
		"1,root.sg.d1,1.5,a\n"+
		"1,root.sg.d2,,b\n"+
		"2,root.sg.d1,2.5,\n"+
		"3,root.sg.d2,,\n"+ // no value: a non-aligned device stores no row
		"4,root.ln.wf01.wt01,7,c\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"non-aligned", nil, "time,device,s1,s2\n" +
			"4,root.ln.wf01.wt01,7,c\n" +
			"1,root.sg.d1,1.5,a\n" +
			"2,root.sg.d1,2.5,\n" +
			"1,root.sg.d2,,b\n"},
		{"aligned", []string{"--aligned"}, "time,device,s1,s2\n" +
			"4,root.ln.wf01.wt01,7,c\n" +
			"1,root.sg.d1,1.5,a\n" +
			"2,root.sg.d1,2.5,\n" +
			"1,root.sg.d2,,b\n" +
			"3,root.sg.d2,,\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".tsfile")
			code, _, errOut := runCLI(append([]string{"convert", in, "-o", out, "--tree", "--device-column", "dev", "--verbose"}, tc.args...)...)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, errOut, "tree model, devices from column dev")
			require.Equal(t, tc.want, readBack(t, out, arrow.Millisecond))
		})
	}

	// A tree-model TsFile, exported to Parquet and back with --tree,
	// holds the same rows. (A copy: in its IoTDB data directory the file
	// is read with its mods.)
	tree := "../../testdata/iotdb/sequence/root.sg/1/0/1767225600000-1-0-0.tsfile"
	orig := filepath.Join(dir, "orig.tsfile")
	copyFile(t, tree, orig)
	want := readBack(t, orig, arrow.Millisecond)
	pq := filepath.Join(dir, "sg.parquet")
	code, _, errOut := runCLI("convert", orig, "-o", pq, "--quiet")
	require.Equal(t, 0, code, errOut)
	back := filepath.Join(dir, "sg.tsfile")
	code, _, errOut = runCLI("convert", pq, "-o", back, "--tree", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, readBack(t, back, arrow.Millisecond))
}

// TestReverseTimeColumnArrow: --time-column names the time column of an
// Arrow input too, its integers in the --time-unit.
func TestReverseTimeColumnArrow(t *testing.T) {
	dir := t.TempDir()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "epoch", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range 3 {
		b.Field(0).(*array.Float64Builder).Append(float64(i) + 0.5)
		b.Field(1).(*array.Int64Builder).Append(int64(1_700_000_000 + i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	// A name without an extension: the file is told by its bytes.
	in := filepath.Join(dir, "readings")
	fh, err := os.Create(in)
	require.NoError(t, err)
	w, err := ipc.NewFileWriter(fh, ipc.WithSchema(sc))
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, fh.Close())

	out := filepath.Join(dir, "r.tsfile")
	code, _, errOut := runCLI("convert", in, "-o", out, "--quiet")
	require.Equal(t, 2, code)
	require.Equal(t, "ts2arrow: "+in+" has no column \"time\" (columns: v, epoch); --time-column NAME names the time column\n", errOut)
	code, _, errOut = runCLI("convert", in, "-o", out, "--quiet", "--time-column", "epoch", "--time-unit", "s")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "time,v\n1700000000,0.5\n1700000001,1.5\n1700000002,2.5\n", readBack(t, out, arrow.Second))
}
