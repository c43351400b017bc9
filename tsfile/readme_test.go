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

// TestREADMEOutputsIgnored keeps the files that README.md's shell commands
// write into a checkout out of git status: the binary go build -o makes,
// every -o or > output of a command that reads testdata/sample.tsfile (or
// an output made from it earlier in the README), and any file written with
// > (such as a key file), must be listed in .gitignore as "/NAME".
func TestREADMEOutputsIgnored(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	gitignore, err := os.ReadFile("../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(string(gitignore), "\n") {
		ignored[strings.TrimSpace(l)] = true
	}
	made := map[string]bool{"testdata/sample.tsfile": true, "testdata/iotdb": true}
	var outputs []string
	for _, cmd := range shellCommands(string(readme)) {
		words := strings.Fields(cmd)
		if len(words) == 0 {
			continue
		}
		reads := len(words) > 1 && words[0] == "go" && words[1] == "build"
		for _, w := range words[1:] { // not words[0]: ./ts2arrow is an output too
			reads = reads || made[w]
		}
		for i := 0; i+1 < len(words); i++ {
			out := words[i+1]
			if !(words[i] == ">" || words[i] == "-o" && reads) || out == "-" || made[out] {
				continue
			}
			made[out] = true
			outputs = append(outputs, out)
		}
	}
	if !made["sample.parquet"] {
		// The quick start's output; without it the parsing below broke.
		t.Fatalf("found no command writing sample.parquet in README.md's sh blocks (outputs %q)", outputs)
	}
	for _, out := range outputs {
		if !ignored["/"+out] {
			t.Errorf("README.md has a command writing %s into the checkout; add /%s to .gitignore", out, out)
		}
	}
}

// shellCommands returns the commands of README.md's ```sh blocks: comments
// dropped, continued lines joined, and lists split at &&, || and ; and at
// pipes.
func shellCommands(md string) []string {
	var cmds []string
	in, cont := false, ""
	for _, l := range strings.Split(md, "\n") {
		fence := strings.TrimSpace(l)
		switch {
		case !in && fence == "```sh":
			in = true
			continue
		case in && fence == "```":
			in = false
			continue
		case !in:
			continue
		}
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if strings.HasSuffix(strings.TrimSpace(l), `\`) {
			cont += strings.TrimSuffix(strings.TrimSpace(l), `\`) + " "
			continue
		}
		line := cont + l
		cont = ""
		for _, sep := range []string{"&&", "||", ";", "|"} {
			line = strings.ReplaceAll(line, sep, "\n")
		}
		cmds = append(cmds, strings.Split(line, "\n")...)
	}
	return cmds
}
