//go:build cgo && duckdb_arrow

package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// elapsed is the time in a table's footer, which differs run to run.
var elapsed = regexp.MustCompile(`, [0-9]+\.[0-9]{3} s\n`)

// runSQLCLI runs ts2arrow sql with args, standard input reading stdin,
// and returns the exit status and the outputs, the footer's time blanked.
func runSQLCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	old := sqlStdin
	sqlStdin = strings.NewReader(stdin)
	defer func() { sqlStdin = old }()
	if len(args) == 0 || !strings.HasSuffix(args[0], ".tsfile") && !strings.Contains(args[0], "/") {
		// The statements of most tests read no table, but the command
		// needs an INPUT.
		args = append([]string{sample}, args...)
	}
	code, out, errOut := runCLI(append([]string{"sql"}, args...)...)
	return code, elapsed.ReplaceAllString(out, ", T s\n"), errOut
}

// TestSQLTable: a result prints as DuckDB's CLI prints it: a box of
// names and types, numbers right-aligned, NULL, ISO times, a footer.
func TestSQLTable(t *testing.T) {
	code, out, errOut := runSQLCLI(t, "", "-c", `SELECT * FROM (VALUES
		(1, 'a', NULL, TIMESTAMP '2024-01-02 03:04:05.250', 1.5::DOUBLE),
		(-22, 'bé|c', 'x', NULL, NULL)) t(i, s, n, ts, d)`)
	require.Equal(t, 0, code, errOut)
	want := `┌─────────┬─────────┬─────────┬─────────────────────────────┬────────┐
│ i       │ s       │ n       │ ts                          │ d      │
│ integer │ varchar │ varchar │ timestamp                   │ double │
├─────────┼─────────┼─────────┼─────────────────────────────┼────────┤
│       1 │ a       │ NULL    │ 2024-01-02T03:04:05.250000Z │    1.5 │
│     -22 │ bé|c    │ x       │ NULL                        │   NULL │
└─────────┴─────────┴─────────┴─────────────────────────────┴────────┘
2 rows, 5 columns, T s
`
	require.Equal(t, want, out)
}

// TestSQLMaxRows: of a long result, the first and last halves of
// --max-rows show around a row of dots; the footer counts every row.
func TestSQLMaxRows(t *testing.T) {
	for _, tc := range []struct {
		rows, max int
	}{{100, 40}, {41, 40}, {40, 40}, {7, 3}, {3000, 0}, {5, 1}} {
		t.Run(fmt.Sprintf("%d/%d", tc.rows, tc.max), func(t *testing.T) {
			code, out, errOut := runSQLCLI(t, "", "-c", fmt.Sprintf("SELECT i FROM range(%d) t(i) ORDER BY i", tc.rows), "--max-rows", fmt.Sprint(tc.max))
			require.Equal(t, 0, code, errOut)
			// The reference: the rows a person expects to see.
			var want []string
			shown := tc.rows
			if tc.max > 0 && tc.rows > tc.max {
				head, tail := (tc.max+1)/2, tc.max/2
				for i := range head {
					want = append(want, fmt.Sprint(i))
				}
				want = append(want, "·", "·", "·")
				for i := tc.rows - tail; i < tc.rows; i++ {
					want = append(want, fmt.Sprint(i))
				}
				shown = tc.max
			} else {
				for i := range tc.rows {
					want = append(want, fmt.Sprint(i))
				}
			}
			var got []string
			lines := strings.Split(out, "\n")
			for _, l := range lines[4:] {
				if !strings.HasPrefix(l, "│") {
					break
				}
				got = append(got, strings.TrimSpace(strings.Trim(l, "│")))
			}
			require.Equal(t, want, got, "the rows shown")
			foot := fmt.Sprintf("%d rows", tc.rows)
			if shown < tc.rows {
				foot += fmt.Sprintf(" (%d shown)", shown)
			}
			require.True(t, strings.HasSuffix(out, "┘\n"+foot+", 1 column, T s\n"), "footer %q", out[max(0, len(out)-100):])
		})
	}
}

// TestSQLWidth: --max-width cuts text cells and leaves out the columns
// that still do not fit, never cutting a number.
func TestSQLWidth(t *testing.T) {
	code, out, errOut := runSQLCLI(t, "", "--max-width", "40", "-c",
		`SELECT 123456789012 AS n, repeat('x', 50) AS s, 'tail' AS t3, 'more' AS t4`)
	require.Equal(t, 0, code, errOut)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		require.LessOrEqual(t, textWidth(l), 40, "%q", l)
	}
	require.Contains(t, out, "123456789012")
	require.Contains(t, out, "xxxxxx…")
	require.Contains(t, out, "4 columns (3 shown)")
}

// TestSQLStatements: several statements run in order, each printing its
// result; DuckDB's parser tells where each ends, also with a ; inside a
// string, a quoted name or a comment.
func TestSQLStatements(t *testing.T) {
	q := "SELECT 1 AS a; SELECT 'x;y' AS \"b;c\" -- a comment; SELECT 9\n;\n/* ; */ SELECT 3 AS d;"
	code, out, errOut := runSQLCLI(t, "", "--format", "csv", "-c", q)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "a\n1\nb;c\nx;y\nd\n3\n", out)
	// From standard input and from a file, the same.
	code, out2, errOut := runSQLCLI(t, q, "--format", "csv")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, out, out2)
	f := filepath.Join(t.TempDir(), "q.sql")
	require.NoError(t, os.WriteFile(f, []byte(q), 0o644))
	code, out2, errOut = runSQLCLI(t, "", "--format", "csv", "-f", f)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, out, out2)
}

// TestSQLErrors: DuckDB's errors pass through with their place in the
// query (exit 1); mistakes of the command line exit 2.
func TestSQLErrors(t *testing.T) {
	code, _, errOut := runSQLCLI(t, "", "-c", "SELEC 1")
	require.Equal(t, 1, code)
	require.Equal(t, "ts2arrow: Parser Error: syntax error at or near \"SELEC\"\n\nLINE 1: SELEC 1\n        ^^^^^\n", errOut)

	// The second statement's error names its line of the whole query.
	code, _, errOut = runSQLCLI(t, "", "-c", "SELECT 1;\nSELECT 2; SELECT 'x;';\n  SELECT * FROM nope")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "ts2arrow: statement 4 of 4: Catalog Error: Table with name nope does not exist!")
	require.Contains(t, errOut, "LINE 3: SELECT * FROM nope\n                      ^^^^\n")

	code, _, errOut = runSQLCLI(t, "", "-c", "SELECT * FROM no_such_table")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "Catalog Error: Table with name no_such_table does not exist!")
	require.Contains(t, errOut, "LINE 1: SELECT * FROM no_such_table\n                      ^")

	out := filepath.Join(t.TempDir(), "x.csv")
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"-c", "SELECT 1; SELECT 2", "-o", out}, "", "-o writes the result of one statement; the query has 2"},
		{[]string{"-c", "SELECT 1", "-f", "q.sql"}, "", "-c and -f both give the query"},
		{[]string{"-c", " "}, "", "no query in -c"},
		{[]string{}, "  \n", "no query in standard input"},
		{[]string{"-c", "-- only a comment"}, "", "the query holds no statement"},
		{[]string{"-c", "SELECT 1", "--format", "parquet"}, "", "--format parquet writes binary: pass -o OUT"},
		{[]string{"-c", "SELECT 1", "--format", "tsfile", "-o", "x.tsfile"}, "", "ts2arrow sql writes parquet"},
		{[]string{"-c", "SELECT 1", "-o", "x.txt"}, "", "cannot tell the format of"},
		{[]string{"-c", "SELECT 1", "--format", "csv", "--max-rows", "3"}, "", "--max-rows and --max-width apply to table output only"},
		{[]string{"-c", "SELECT 1", "--compression", "zstd"}, "", "--compression does not apply to table output"},
		{[]string{"-c", "SELECT 1", "--format", "csv", "--compression", "zstd"}, "", "--compression does not apply to csv output"},
		{[]string{"-c", "SELECT 1", "--database", "root.sg"}, "", "unknown flag: --database"},
		{[]string{"-c", "SELECT 1", "--force"}, "", "--force applies with -o OUT only"},
		{[]string{"-c", "SELECT 1", "-o", "-"}, "", "-o - needs --format"},
		{[]string{"-c", "SELECT 1", "--max-rows", "-1"}, "", "--max-rows must be"},
	} {
		code, _, errOut := runSQLCLI(t, tc.stdin, tc.args...)
		require.Equal(t, 2, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", tc.args, errOut)
	}
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err), "a refused command wrote %s", out)
	code, _, errOut = runCLI("sql", "-c", "SELECT 1")
	require.Equal(t, 2, code)
	require.Equal(t, "ts2arrow: sql needs at least one INPUT: a TsFile, a directory or glob of them, a URL or IoTDB data\n", errOut)
}

// sqlRows is the query of the output tests and its rows as convert's CSV
// spells them (time as epoch microseconds), computed here.
const sqlRows = `SELECT i, i * 0.5 AS x, 'n' || i AS s, CASE WHEN i % 3 = 0 THEN NULL ELSE i % 7 = 0 END AS b,
	make_timestamp(1700000000000000 + i * 1000) AS ts FROM range(5000) t(i) ORDER BY i`

func sqlRowsCSV() string {
	var b strings.Builder
	b.WriteString("i,x,s,b,ts\n")
	for i := range 5000 {
		bs := ""
		if i%3 != 0 {
			bs = fmt.Sprint(i%7 == 0)
		}
		// i * 0.5 is a DECIMAL(21,1): written exactly, with its one digit.
		fmt.Fprintf(&b, "%d,%d.%d,n%d,%s,%d\n", i, i/2, i%2*5, i, bs, 1700000000000000+int64(i)*1000)
	}
	return b.String()
}

// TestSQLOutput: -o writes every format through the existing writers; each
// reads back (arrow-go's Parquet and IPC readers) to the rows the query
// gives, computed by the test. An existing OUT is refused without --force.
func TestSQLOutput(t *testing.T) {
	want := sqlRowsCSV()
	dir := t.TempDir()
	for _, format := range []string{"parquet", "arrow", "arrows", "csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(dir, "r."+format)
			code, stdout, errOut := runSQLCLI(t, "", "-c", sqlRows, "-o", out)
			require.Equal(t, 0, code, errOut)
			require.Empty(t, stdout)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			var got string
			switch format {
			case "parquet":
				got, _, _ = parquetAsCSV(t, data)
			case "arrow", "arrows":
				got = ipcAsCSV(t, data, format == "arrows")
			case "csv":
				// ISO times, as convert writes them.
				require.Contains(t, string(data), "\n2,1.0,n2,false,2023-11-14T22:13:20.002000\n")
				code, got, errOut = runSQLCLI(t, "", "-c", sqlRows, "--format", "csv", "--time-format", "epoch")
				require.Equal(t, 0, code, errOut)
			case "jsonl":
				require.Contains(t, string(data), `{"i":2,"x":1.0,"s":"n2","b":false,"ts":"2023-11-14T22:13:20.002000"}`)
				require.Equal(t, 5000, strings.Count(string(data), "\n"))
				return
			}
			require.Equal(t, want, got)

			// Again without --force: refused, OUT kept.
			code, _, errOut = runSQLCLI(t, "", "-c", "SELECT 1", "-o", out)
			require.Equal(t, 2, code, errOut)
			require.Contains(t, errOut, "--force")
			again, err := os.ReadFile(out)
			require.NoError(t, err)
			require.Equal(t, data, again)
			code, _, errOut = runSQLCLI(t, "", "-c", "SELECT 1 AS one", "-o", out, "--force")
			require.Equal(t, 0, code, errOut)
		})
	}
	// A query that fails while its result is written leaves nothing.
	out := filepath.Join(dir, "fail.parquet")
	code, _, errOut := runSQLCLI(t, "", "-c", "SELECT CASE WHEN i < 300000 THEN i ELSE error('boom') END AS i FROM range(400000) t(i)", "-o", out)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "boom")
	left, err := filepath.Glob(filepath.Join(dir, "*fail.parquet*"))
	require.NoError(t, err)
	require.Empty(t, left)
}

// TestSQLMarkdown: --format markdown prints every row, numbers
// right-aligned, | escaped.
func TestSQLMarkdown(t *testing.T) {
	code, out, errOut := runSQLCLI(t, "", "--format", "markdown", "-c", "SELECT 1 AS n, 'a|b' AS s UNION ALL SELECT 22, NULL ORDER BY n")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "| n | s |\n|---:|---|\n| 1 | a\\|b |\n| 22 | NULL |\n", out)
}

// TestSQLPrompt: with no query and a terminal, statements are read at a
// prompt; an error does not end the session.
func TestSQLPrompt(t *testing.T) {
	old := sqlStdin
	defer func() { sqlStdin = old }()
	sqlStdin = strings.NewReader("SELECT 'a;\nb' AS s\n;\nSELEC 1;\n.schema range\n.bogus\nSELECT 2 AS two; SELECT 3 AS three;\n.quit\nSELECT 4;\n")
	var o, e strings.Builder
	j := &sqlJob{inputs: []string{sample}, format: "table", stdout: &o, stderr: &e, ropts: &tsfile.ReadOptions{}, dsOpts: &dataset.Options{}}
	require.NoError(t, runSQLPrompt(j))
	out := elapsed.ReplaceAllString(o.String(), ", T s\n")
	require.Contains(t, out, "│ a;\\nb   │")
	require.Contains(t, out, "│ two     │")
	require.Contains(t, out, "│ three   │")
	require.NotContains(t, out, "│ 4")
	require.Contains(t, e.String(), "Parser Error: syntax error at or near \"SELEC\"")
	require.Contains(t, e.String(), "the commands are .tables")
}

// TestSQLNoEngineBuild: a build without cgo has ts2arrow sql say that it
// needs one, and exit 2; its help still prints.
func TestSQLNoEngineBuild(t *testing.T) {
	gocmd, err := goTool()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "ts2arrow-nocgo")
	cmd := exec.Command(gocmd, "build", "-tags", "duckdb_arrow", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	run := func(args ...string) (int, string) {
		var o strings.Builder
		c := exec.Command(bin, args...)
		c.Stdout, c.Stderr = &o, &o
		err := c.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), o.String()
		}
		require.NoError(t, err)
		return 0, o.String()
	}
	code, out := run("sql", "testdata/sample.tsfile", "-c", "SELECT 1")
	require.Equal(t, 2, code, out)
	require.Equal(t, "ts2arrow: "+errNoSQLEngine.msg+"\n", out)
	code, out = run("sql", "--help")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "Usage: ts2arrow sql")
}

// TestSQLInputs: the tables of TsFiles and of IoTDB data directories
// answer as convert reads them: row counts per TAG against convert's CSV,
// counted here; an unknown table and a statement that writes fail with
// DuckDB's (and query's) words, exit 1.
func TestSQLInputs(t *testing.T) {
	code, out, errOut := runSQLCLI(t, "", sample, "--format", "csv", "-c",
		"SELECT region, count(*) AS n, count(temperature) AS t FROM weather GROUP BY ALL ORDER BY region")
	require.Equal(t, 0, code, errOut)
	// The reference: convert's rows, counted.
	code, conv, errOut := runCLI("convert", sample, "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	rows, err := csv.NewReader(strings.NewReader(conv)).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	n, temps := map[string]int{}, map[string]int{}
	for _, r := range rows[1:] {
		n[r[col["region"]]]++
		if r[col["temperature"]] != "" {
			temps[r[col["region"]]]++
		}
	}
	want := "region,n,t\n"
	for _, reg := range []string{"north", "south"} {
		want += fmt.Sprintf("%s,%d,%d\n", reg, n[reg], temps[reg])
	}
	require.Equal(t, want, out)

	// IoTDB data: databases are schemas; the rows are convert's
	// (deletions applied, overwritten points once).
	iotdb := "../../testdata/iotdb"
	for _, table := range []string{"root.sg", "weather"} {
		code, conv, errOut := runCLI("convert", iotdb, "--table", table, "--format", "csv", "--time-format", "epoch", "-o", "-")
		require.Equal(t, 0, code, errOut)
		lines := strings.Split(strings.TrimSpace(conv), "\n")
		q := fmt.Sprintf(`SELECT count(*) AS n FROM %q`, table)
		if table == "weather" {
			q = `SELECT count(*) AS n FROM weather.weather`
		}
		code, out, errOut := runSQLCLI(t, "", iotdb, "--format", "csv", "-c", q)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, fmt.Sprintf("n\n%d\n", len(lines)-1), out, table)
	}

	code, _, errOut = runSQLCLI(t, "", sample, "-c", "SELECT * FROM\n  weathr")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "Catalog Error: Table with name weathr does not exist!")
	require.Contains(t, errOut, "LINE 2:   weathr\n          ^")

	// Never an output into the IoTDB data read.
	iotdbCopy := filepath.Join(t.TempDir(), "iotdb")
	require.NoError(t, os.CopyFS(iotdbCopy, os.DirFS(iotdb)))
	into := filepath.Join(iotdbCopy, "sequence", "x.csv")
	code, _, errOut = runSQLCLI(t, "", iotdbCopy, "-c", "SELECT 1", "-o", into)
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "which the inputs are read from")
	_, err = os.Stat(into)
	require.True(t, os.IsNotExist(err))

	code, _, errOut = runSQLCLI(t, "", sample, "-c", "CREATE TABLE x AS SELECT * FROM weather")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "only read statements are allowed")

	code, _, errOut = runSQLCLI(t, "", "no/such.tsfile", "-c", "SELECT 1")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "no/such.tsfile")
}

// TestSQLOutputSample: -o writes the sample's rows in every format; each
// reads back to what --format csv prints of the same query.
func TestSQLOutputSample(t *testing.T) {
	q := "SELECT * FROM weather ORDER BY region, station, time"
	code, want, errOut := runSQLCLI(t, "", sample, "--format", "csv", "--time-format", "epoch", "-c", q)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1501, strings.Count(want, "\n"))
	dir := t.TempDir()
	for _, format := range []string{"parquet", "arrow", "arrows", "csv", "jsonl"} {
		out := filepath.Join(dir, "s."+format)
		code, _, errOut := runSQLCLI(t, "", sample, "-c", q, "-o", out, "--time-format", map[bool]string{true: "epoch", false: "iso"}[format == "csv"])
		if format != "csv" && format != "jsonl" {
			require.Equal(t, 2, code, "--time-format with %s: %s", format, errOut)
			code, _, errOut = runSQLCLI(t, "", sample, "-c", q, "-o", out)
		}
		require.Equal(t, 0, code, "%s: %s", format, errOut)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		switch format {
		case "parquet":
			got, _, _ := parquetAsCSV(t, data)
			require.Equal(t, want, got)
		case "arrow", "arrows":
			require.Equal(t, want, ipcAsCSV(t, data, format == "arrows"))
		case "csv":
			require.Equal(t, want, string(data))
		case "jsonl":
			require.Equal(t, 1500, strings.Count(string(data), "\n"))
			require.True(t, strings.HasPrefix(string(data), `{"time":"2023-11-14T22:13:20.000000Z","region":"north","station":"s01","temperature":22.54,`), "%.200s", data)
		}
	}
}

// TestSQLHelpTableFunctions: the ways sql --help gives to read a file that
// is not an INPUT run as written (DuckDB takes a named argument called
// table only quoted: "table" := ...).
func TestSQLHelpTableFunctions(t *testing.T) {
	_, help, _ := runCLI("sql", "--help")
	m := regexp.MustCompile(`SELECT \* FROM 'x\.tsfile' or (tsfile\('dir', .*\))\.`).FindStringSubmatch(help)
	require.NotNil(t, m, "sql --help no longer names the tsfile() table function:\n%s", help)
	for _, from := range []string{"'x.tsfile'", m[1]} {
		from = strings.NewReplacer("'x.tsfile'", "'../../testdata/sample.tsfile'", "'dir'", "'../../testdata/sample.tsfile'").Replace(from)
		code, out, errOut := runCLI("sql", "../../testdata/iotdb", "-c", "SELECT count(*) AS n FROM "+from, "--format", "csv")
		require.Equal(t, 0, code, "%s: %s", from, errOut)
		require.Equal(t, "n\n1500\n", out, from)
	}
}
