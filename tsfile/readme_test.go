package tsfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

// exampleRewrites undo the scaffolding of the Example functions that the
// pages leave out: the examples run in their package directory and write
// into a temporary directory, the snippets of README.md and docs/*.md run
// at the root of a checkout and write into the current directory.
var exampleRewrites = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`"\.\./testdata`), `"testdata`},
	{regexp.MustCompile(`filepath\.Join\(dir, ("[^"]*")\)`), `$1`},
}

// TestDocsGoSnippets keeps every Go snippet of README.md and of the
// docs/*.md pages the code of an Example function, which go test compiles
// and runs, so that a snippet cannot stop compiling or drift from what the
// package does. Each ```go block, less its import block, must appear line
// for line (indentation and blank lines aside) in one package's
// example_test.go after exampleRewrites, and that file must import what
// the block imports.
func TestDocsGoSnippets(t *testing.T) {
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
	pages, err := testkit.DocPages("..")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, page := range pages {
		md, err := testkit.ReadDocPage("..", page)
		if err != nil {
			t.Fatal(err)
		}
		blocks := testkit.FencedBlocks(md, "go")
		total += len(blocks)
		for _, blk := range blocks {
			imports, code := splitImports(blk.Lines)
			if len(code) == 0 {
				t.Errorf("%s:%d: a ```go block with no code", page, blk.Line)
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
				t.Errorf("%s:%d: the ```go block starting %q is not the body of an Example in %v "+
					"(edit the page's snippet and the example together)", page, blk.Line, code[0], paths)
			}
		}
	}
	if total < 6 {
		// The library guide has five Go snippets and the Flight page one;
		// fewer means the extraction broke, which would make this test
		// pass vacuously.
		t.Fatalf("found %d ```go blocks in %v, want at least 6", total, pages)
	}
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

// TestDocsOutputsIgnored keeps the files that the shell commands of
// README.md and docs/*.md write into a checkout out of git status: the
// binary go build -o makes, every -o or > output of a command that reads
// testdata (or an output made from it earlier on the pages, read in
// DocPages order), and any file written with > (such as a key file), must
// be listed in .gitignore as "/NAME".
func TestDocsOutputsIgnored(t *testing.T) {
	gitignore, err := os.ReadFile("../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(string(gitignore), "\n") {
		ignored[strings.TrimSpace(l)] = true
	}
	pages, err := testkit.DocPages("..")
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]bool{"testdata/sample.tsfile": true, "testdata/iotdb": true}
	var outputs []string
	where := map[string]string{}
	for _, page := range pages {
		md, err := testkit.ReadDocPage("..", page)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range testkit.ShellCommands(md) {
			for _, cmd := range splitList(sc.Text) {
				words := testkit.ShellWords(cmd)
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
					if strings.HasPrefix(out, "/") || strings.HasPrefix(out, "$") || strings.HasPrefix(out, "~") {
						continue // an absolute path, or one of the environment's: not in the checkout
					}
					made[out] = true
					outputs = append(outputs, out)
					where[out] = fmt.Sprintf("%s:%d", page, sc.Line)
				}
			}
		}
	}
	if !made["sample.parquet"] {
		// The quick start's output; without it the parsing below broke.
		t.Fatalf("found no command writing sample.parquet in the sh blocks of %v (outputs %q)", pages, outputs)
	}
	for _, out := range outputs {
		if !ignored["/"+out] {
			t.Errorf("%s: a command writes %s into the checkout; add /%s to .gitignore", where[out], out, out)
		}
	}
}

// splitList splits a command line into its simple commands: at &&, ||
// and ; and at pipes.
func splitList(line string) []string {
	for _, sep := range []string{"&&", "||", ";", "|"} {
		line = strings.ReplaceAll(line, sep, "\n")
	}
	return strings.Split(line, "\n")
}

// TestDocsLinks checks the relative links of README.md and docs/*.md: the
// file each names exists in the repository, and a #fragment names a
// heading of the page it points to (GitHub's anchors: lower case, spaces
// to hyphens, punctuation dropped). Links out of the repository (the spec
// in ../shared) and URLs are not checked.
func TestDocsLinks(t *testing.T) {
	pages, err := testkit.DocPages("..")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	n := 0
	for _, page := range pages {
		md, err := testkit.ReadDocPage("..", page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(md, -1) {
			target, frag, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(page), target))
			}
			if strings.HasPrefix(file, "../") {
				continue
			}
			n++
			text, err := os.ReadFile(filepath.Join("..", file))
			if err != nil {
				t.Errorf("%s: the link %s: %v", page, m[1], err)
				continue
			}
			if frag != "" && !headingAnchors(string(text))[frag] {
				t.Errorf("%s: the link %s: %s has no heading with anchor #%s", page, m[1], file, frag)
			}
		}
	}
	if n < 20 {
		t.Fatalf("checked %d relative links in %v; is the extraction broken?", n, pages)
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text (outside code blocks).
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#"))) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}
