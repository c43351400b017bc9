package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/iceref"
)

// helpExamples returns the command lines of the Examples block of a
// command's --help, with continuation lines joined.
func helpExamples(t *testing.T, cmd string) []string {
	t.Helper()
	code, help, errOut := runCLI(cmd, "--help")
	require.Equal(t, 0, code, errOut)
	_, block, ok := strings.Cut(help, "\nExamples:\n")
	require.True(t, ok, "%s --help has no Examples block", cmd)
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(l, "  ") {
			break // the block ends at the first line not indented
		}
		l = strings.TrimSpace(l)
		if n := len(out); n > 0 && strings.HasSuffix(out[n-1], "\\") {
			out[n-1] = strings.TrimSuffix(out[n-1], "\\") + " " + l
			continue
		}
		out = append(out, l)
	}
	return out
}

// shellWords splits an example as a POSIX shell would for the quoting
// help examples use (single and double quotes), dropping a "# comment"
// and anything after a pipe.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case (r == '#' || r == '|') && !in:
			return words
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestHelpExamplesReturnRows runs every example of every command's --help
// against testdata/sample.tsfile (and the other test data) and requires
// each to succeed with rows, so that an example cannot rot: issue 35
// found convert's --where/--start example returning 0 rows on the sample,
// which is from 2023. The names an example uses stand for test files;
// URLs are served from a local range server; only serve, which does not
// return, is skipped.
func TestHelpExamplesReturnRows(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		require.NoError(t, err)
		return a
	}
	sample := abs("../../testdata/sample.tsfile")
	iotdb := abs("../../testdata/iotdb")
	sgFile := abs("../../testdata/iotdb/sequence/root.sg/1/0/1767225600000-1-0-0.tsfile")
	sampleURL, _ := rangeServer(t, sample)
	sgURL, _ := rangeServer(t, sgFile)
	tmp := t.TempDir()
	b, err := os.ReadFile(sample)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, "data"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "data", "2024-01-01.tsfile"), b, 0o644))
	// A file cut in its second chunk group, for the recover examples.
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "broken.tsfile"), b[:20000], 0o644))
	// A CSV file with its time in column ts, for the reverse path's example.
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "readings.csv"), []byte("ts,station,value\n2024-05-01T12:00:00Z,s1,1.5\n2024-05-01 12:00:01,s2,2\n"), 0o644))
	files := map[string]string{
		"testdata/sample.tsfile":                   sample,
		"data.tsfile":                              sample,
		"intact.tsfile":                            sample,
		"yesterday.tsfile":                         sample,
		"https://example.com/data/day.tsfile":      sampleURL,
		"https://example.com/iotdb/1-1-0-0.tsfile": sgURL,
		"/iotdb/data/datanode/data":                iotdb,
		"iotdb/data/datanode/data":                 iotdb,
		"testdata/iotdb":                           iotdb,
		// convert's Iceberg example: testdata/iotdb synced into a catalog.
		"iceberg:sqlite:cat.db#iot.weather": "iceberg:sqlite:" + filepath.Join(tmp, "cat.db") + "#iot.weather",
	}
	if icebergBuilt {
		code, _, errOut := runCLI("sync", iotdb, "--table", "weather", "--catalog", "sqlite:"+filepath.Join(tmp, "cat.db"), "--warehouse", filepath.Join(tmp, "lake"), "--to", "iot.weather")
		require.Equal(t, 0, code, errOut)
	}
	mapArg := func(prev, a string) string {
		if f, ok := files[a]; ok {
			return f
		}
		if strings.HasPrefix(a, "-") || (strings.HasPrefix(prev, "-") && prev != "-o" && prev != "-f") {
			return a // a flag or a flag's value (names, tags, times)
		}
		return filepath.Join(tmp, a) // outputs, and inputs an earlier example wrote
	}
	wrote := regexp.MustCompile(`wrote (\d+) rows`)
	ran := 0
	// A query file for sql's example.
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "report.sql"), []byte("SELECT region, count(*) FROM weather GROUP BY ALL;\nSELECT min(time), max(time) FROM weather;\n"), 0o644))
	commands := []string{"convert", "head", "schema", "inspect", "recover", "serve"}
	if sqlEngineBuilt {
		commands = append(commands, "sql")
	}
	for _, cmd := range commands {
		for _, ex := range helpExamples(t, cmd) {
			words := shellWords(ex)
			require.Equal(t, "ts2arrow", words[0], "%s --help example %q", cmd, ex)
			if words[1] == "serve" {
				continue // a server: it does not return
			}
			if !icebergBuilt && slices.ContainsFunc(words, iceref.IsInput) {
				continue // run by the tests built with -tags iceberg
			}
			args := []string{words[1]}
			for i := 2; i < len(words); i++ {
				args = append(args, mapArg(words[i-1], words[i]))
			}
			switch args[0] {
			case "convert":
				args = append(args, "--verbose", "--force")
			case "recover":
				args = append(args, "--force")
			case "sql":
				if slices.Contains(args, "-o") {
					args = append(args, "--force")
				}
			}
			t.Run(ex, func(t *testing.T) {
				code, out, errOut := runCLI(args...)
				require.Equal(t, 0, code, "%q\nstderr:\n%s", args, errOut)
				switch args[0] {
				case "convert":
					m := wrote.FindAllStringSubmatch(errOut, -1)
					require.NotEmpty(t, m, "%q: no row count on stderr:\n%s", args, errOut)
					n := 0
					for _, x := range m {
						k, _ := strconv.Atoi(x[1])
						n += k
					}
					require.Positive(t, n, "%q returned no rows:\n%s", args, errOut)
				case "head":
					// A header, a rule, then rows.
					require.Greater(t, len(strings.Split(strings.TrimSpace(out), "\n")), 2, "%q returned no rows:\n%s", args, out)
				case "recover":
					require.Regexp(t, `recovered \d+ complete chunk groups \([1-9]\d* rows\)`, errOut)
				case "sql":
					if i := slices.Index(args, "-o"); i >= 0 {
						st, err := os.Stat(args[i+1])
						require.NoError(t, err)
						require.Positive(t, st.Size())
						break
					}
					// A table's footer, or a CSV header and rows.
					if !slices.Contains(args, "csv") {
						require.Regexp(t, `(?m)^[1-9]\d* rows?, `, out)
					} else {
						require.Greater(t, strings.Count(out, "\n"), 1, out)
					}
				default:
					require.NotEmpty(t, strings.TrimSpace(out))
				}
			})
			ran++
		}
	}
	require.GreaterOrEqual(t, ran, 25, "examples run")
}
