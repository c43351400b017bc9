package tsfile_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exampleRewrites undo the scaffolding of the Example functions that the
// README leaves out: the examples run in their package directory and
// write into a temporary directory, the README's snippets run at the root
// of a checkout and write into the current directory.
var exampleRewrites = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`"\.\./testdata`), `"testdata`},
	{regexp.MustCompile(`filepath\.Join\(dir, ("[^"]*")\)`), `$1`},
}

// TestREADMEGoSnippets keeps every Go snippet of README.md the code of an
// Example function, which go test compiles and runs, so that a snippet
// cannot stop compiling or drift from what the package does. Each ```go
// block, less its import block, must appear line for line (indentation and
// blank lines aside) in one package's example_test.go after
// exampleRewrites, and that file must import what the block imports.
func TestREADMEGoSnippets(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob("../*/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	examples := map[string][]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, rw := range exampleRewrites {
			text = rw.re.ReplaceAllString(text, rw.repl)
		}
		examples[p] = codeLines(strings.Split(text, "\n"))
	}
	blocks := goBlocks(string(readme))
	if len(blocks) < 6 {
		// The README has six Go snippets; fewer means the extraction
		// below broke, which would make this test pass vacuously.
		t.Fatalf("found %d ```go blocks in README.md, want at least 6", len(blocks))
	}
	for _, blk := range blocks {
		imports, code := splitImports(blk.lines)
		if len(code) == 0 {
			t.Errorf("README.md:%d: a ```go block with no code", blk.line)
			continue
		}
		found := ""
		for p, lines := range examples {
			if containsRun(lines, code) && containsAll(lines, imports) {
				found = p
				break
			}
		}
		if found == "" {
			t.Errorf("README.md:%d: the ```go block starting %q is not the body of an Example in %v "+
				"(edit the README's snippet and the example together)", blk.line, code[0], paths)
		}
	}
}

type goBlock struct {
	line  int // of the opening fence, 1-based
	lines []string
}

// goBlocks returns the fenced ```go blocks of a Markdown text; fences may
// be indented, as in list items.
func goBlocks(md string) []goBlock {
	var blocks []goBlock
	var cur *goBlock
	for i, l := range strings.Split(md, "\n") {
		fence := strings.TrimSpace(l)
		switch {
		case cur == nil && fence == "```go":
			cur = &goBlock{line: i + 1}
		case cur != nil && fence == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return blocks
}

// codeLines trims each line and drops the empty ones, so that indentation
// (a snippet is a function body one level out) and spacing do not count.
func codeLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// splitImports separates a snippet's import block, whose specs are
// checked one by one since an example file imports more than a snippet.
func splitImports(lines []string) (imports, code []string) {
	lines = codeLines(lines)
	if len(lines) > 0 && lines[0] == "import (" {
		for i, l := range lines[1:] {
			if l == ")" {
				return lines[1 : i+1], lines[i+2:]
			}
		}
	}
	if len(lines) > 0 && strings.HasPrefix(lines[0], "import ") {
		return []string{strings.TrimPrefix(lines[0], "import ")}, lines[1:]
	}
	return nil, lines
}

// containsRun reports whether run occurs in lines as consecutive lines.
func containsRun(lines, run []string) bool {
	for i := 0; i+len(run) <= len(lines); i++ {
		match := true
		for j := range run {
			if lines[i+j] != run[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

func containsAll(lines, want []string) bool {
	have := map[string]bool{}
	for _, l := range lines {
		have[l] = true
	}
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}
