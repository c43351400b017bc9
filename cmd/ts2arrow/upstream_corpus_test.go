package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConvertUpstreamCorpus converts every file of the upstream-written
// corpus (testdata/upstream/java, see its README) to CSV with default
// flags: exit 0 and one line per row upstream's reader returns, except for
// a file whose pages upstream's writer damaged, which must fail (exit 1)
// with a one-line error naming the page. arrowconv's TestUpstreamCorpus
// compares the cells.
func TestConvertUpstreamCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "upstream", "java")
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var m struct {
		Files []struct {
			Path             string `json:"path"`
			Model            string `json:"model"`
			TotalRows        int    `json:"total_rows"`
			UpstreamMisreads bool   `json:"upstream_misreads"`
			MisreadKind      string `json:"misread_kind"`
			Tables           []struct {
				Name string `json:"name"`
			} `json:"tables"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	require.NotEmpty(t, m.Files)
	out := t.TempDir()
	refused := 0
	for _, f := range m.Files {
		t.Run(f.Path, func(t *testing.T) {
			// A file of several tables is converted one --table at a time.
			var args [][]string
			if len(f.Tables) > 1 {
				for _, tb := range f.Tables {
					args = append(args, []string{"--table", tb.Name})
				}
			} else {
				args = append(args, nil)
			}
			rows := 0
			for i, a := range args {
				csv := filepath.Join(out, fmt.Sprintf("%s.%d.csv", strings.TrimSuffix(f.Path, ".tsfile"), i))
				code, _, stderr := runCLI(append([]string{"convert", filepath.Join(dir, f.Path), "-o", csv}, a...)...)
				if f.UpstreamMisreads && f.MisreadKind == "writer" {
					require.Equal(t, 1, code, "a file upstream's writer damaged converted: %s", stderr)
					require.Contains(t, stderr, "page")
					return
				}
				if code != 0 {
					refused++
				}
				require.Equal(t, 0, code, "stderr: %s", stderr)
				data, err := os.ReadFile(csv)
				require.NoError(t, err)
				rows += strings.Count(string(data), "\n") - 1 // less the header
			}
			if !f.UpstreamMisreads { // else rows as written: arrowconv checks those
				require.Equal(t, f.TotalRows, rows)
			}
		})
	}
	t.Logf("upstream corpus: %d files, convert refused %d valid ones", len(m.Files), refused)
}
