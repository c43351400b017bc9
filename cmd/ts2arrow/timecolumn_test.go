package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// timeColumnFile is a table-model file whose table plant records its time
// column as a TIME column "id" between its two TAGs, beside a FIELD named
// "time" (tsfile's writeTimeColumnSample documents it).
const timeColumnFile = "../../testdata/timecolumn.tsfile"

// TestCLITimeColumn: schema, inspect, head and convert (--start/--end,
// --columns, --where on the TAG after the TIME column, --partition-by
// day) name the time column "id" as the table schema records it, and read
// the FIELD named "time" as a column of its own values.
func TestCLITimeColumn(t *testing.T) {
	code, out, stderr := runCLI("schema", timeColumnFile, "--table", "plant")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(out, "\n")
	require.Regexp(t, `^id +timestamp\[ms, tz=UTC\] +no +TIME +TIMESTAMP$`, lines[1])
	require.Regexp(t, `^station +dictionary.* +yes +TAG +STRING$`, lines[3])
	require.Regexp(t, `^time +int64 +yes +FIELD +INT64$`, lines[5])

	code, out, stderr = runCLI("schema", timeColumnFile, "--table", "plant", "--json", "--columns", "time,id")
	require.Equal(t, 0, code, stderr)
	var sj schemaJSON
	require.NoError(t, json.Unmarshal([]byte(out), &sj))
	var names []string
	for _, f := range sj.Fields {
		names = append(names, f.Name)
	}
	require.Equal(t, []string{"id", "time"}, names)

	code, out, stderr = runCLI("inspect", timeColumnFile)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "table plant (table model, 3 devices, time column \"id\")\n")
	require.Regexp(t, `\n  id +TIME +TIMESTAMP `, out)
	code, out, stderr = runCLI("inspect", timeColumnFile, "--json")
	require.Equal(t, 0, code, stderr)
	var ij struct {
		Tables []struct {
			Name       string `json:"name"`
			TimeColumn string `json:"time_column"`
			Devices    []struct {
				Segments []*string `json:"segments"`
			} `json:"devices"`
		} `json:"tables"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ij))
	require.Equal(t, "plant", ij.Tables[0].Name)
	require.Equal(t, "id", ij.Tables[0].TimeColumn)
	require.Equal(t, "time", ij.Tables[1].TimeColumn, "the Python writer's TIME column")
	last := ij.Tables[0].Devices[1].Segments
	require.Equal(t, "s2", *last[2], "station is the second TAG segment")

	code, out, stderr = runCLI("head", timeColumnFile, "--table", "plant", "-n", "2", "--columns", "time")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `^id +time\n-+ +-+\n2023-11-14T22:13:20.000Z +0\n2023-11-14T22:13:21.000Z +1\n$`, out)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"start and end", []string{"--start", "2023-11-14T22:13:23Z", "--end", "1700000003000"},
			"id,region,station,temp,time\n" +
				"2023-11-14T22:13:23.000Z,north,s1,3,3\n" +
				"2023-11-14T22:13:23.000Z,north,s2,13,103\n" +
				"2023-11-14T22:13:23.000Z,south,s1,23,203\n"},
		{"the FIELD time, the second TAG", []string{"--columns", "time,temp", "--where", "station=s2", "--start", "1700000003000"},
			"id,time,temp\n" +
				"2023-11-14T22:13:23.000Z,103,13\n" +
				"2023-11-14T22:13:24.000Z,104,14\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out.csv")
			code, _, stderr := runCLI(append([]string{"convert", timeColumnFile, "--table", "plant", "-o", dst}, c.args...)...)
			require.Equal(t, 0, code, stderr)
			b, err := os.ReadFile(dst)
			require.NoError(t, err)
			require.Equal(t, c.want, string(b))
		})
	}

	// --partition-by day reads the time column alone first.
	dir := filepath.Join(t.TempDir(), "parts")
	code, _, stderr = runCLI("convert", timeColumnFile, "--table", "plant", "--partition-by", "day", "--format", "csv", "--columns", "station", "--end", "1700000000000", "-o", dir)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join(dir, "table=plant", "date=2023-11-14", "part-0.csv"))
	require.NoError(t, err)
	require.Equal(t, "id,station\n2023-11-14T22:13:20.000Z,s1\n2023-11-14T22:13:20.000Z,s2\n2023-11-14T22:13:20.000Z,s1\n", string(b))
}
