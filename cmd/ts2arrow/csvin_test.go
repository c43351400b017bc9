package main

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
)

// scanAll splits text into records with csvScanner.
func scanAll(text string) ([][]csvCell, error) {
	sc := &csvScanner{r: bufio.NewReaderSize(strings.NewReader(text), 16)}
	var out [][]csvCell
	for {
		cells, err := sc.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, append([]csvCell(nil), cells...))
	}
}

// writeCells writes records back as CSV: a quoted cell quoted, its quotes
// doubled; a bare cell as it is.
func writeCells(recs [][]csvCell) string {
	var b strings.Builder
	for _, r := range recs {
		for i, c := range r {
			if i > 0 {
				b.WriteByte(',')
			}
			if c.quoted {
				b.WriteString(`"` + strings.ReplaceAll(c.s, `"`, `""`) + `"`)
			} else {
				b.WriteString(c.s)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestCSVScanner(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]csvCell
		err  string
	}{
		{in: "a,b\n1,2\n", want: [][]csvCell{{{s: "a"}, {s: "b"}}, {{s: "1"}, {s: "2"}}}},
		{in: "\xef\xbb\xbfa\r\n\r\n1\r\n", want: [][]csvCell{{{s: "a"}}, {{s: "1"}}}},
		{in: `x,"",,"a""b"` + "\n", want: [][]csvCell{{{s: "x"}, {s: "", quoted: true}, {s: ""}, {s: `a"b`, quoted: true}}}},
		{in: "\"two\nlines\",z", want: [][]csvCell{{{s: "two\nlines", quoted: true}, {s: "z"}}}},
		{in: "a,\n", want: [][]csvCell{{{s: "a"}, {s: ""}}}},
		{in: "a\n\"open", err: "line 2: a quoted cell is not closed"},
		{in: `"a"b`, err: "line 1: text after the closing quote of cell 1"},
		{in: `a,b"c`, err: "line 1: a quote inside unquoted cell 2"},
	} {
		got, err := scanAll(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%q", tc.in)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		require.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestParseSchemaFlag(t *testing.T) {
	sc, err := parseSchemaFlag("time:timestamp[us, tz=UTC],a:INT32,b:double,c:Text,d:timestamp,e:dictionary<values=utf8, indices=int32, ordered=false>,f:timestamp[s, tz=+05:30]", arrow.Millisecond)
	require.NoError(t, err)
	var got []string
	for _, f := range sc.Fields() {
		got = append(got, f.Name+" "+f.Type.String()+" "+f.Metadata.String())
	}
	require.Equal(t, []string{
		"time timestamp[us, tz=UTC] []",
		"a int32 []",
		"b float64 []",
		"c utf8 [\"tsfile.type\": \"TEXT\"]",
		"d timestamp[ms, tz=UTC] []",
		"e utf8 []",
		"f timestamp[s, tz=+05:30] []",
	}, got)
}

// FuzzCSVInput: any bytes read as a CSV input fail with an error or give
// batches, never a panic; and whatever the scanner splits, written back
// with the same quoting, splits the same.
func FuzzCSVInput(f *testing.F) {
	for _, s := range []string{
		"time,v\n1,2\n",
		"time,s\n2024-01-01T00:00:00Z,\"a,\"\"b\"\"\nc\"\n2024-01-01 00:00:01,\n",
		"time,v,w\n1,1.5,true\n2,NaN,false\n3,,\n",
		"ts,d\n2024-01-01,2024-01-02\n",
		"\"unclosed\n",
		"a,a\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if recs, err := scanAll(text); err == nil && !strings.Contains(text, "\r") {
			again, err := scanAll(writeCells(recs))
			require.NoError(t, err)
			require.Equal(t, recs, again)
		}
		r, err := newCSVReader(strings.NewReader(text), csvOptions{timeColumn: "time"})
		if err != nil {
			return
		}
		defer r.Release()
		for r.Next() {
			require.Equal(t, len(r.Schema().Fields()), int(r.RecordBatch().NumCols()))
		}
	})
}
