package testkit

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DocPages returns the Markdown pages whose commands and Go snippets the
// tests check, relative to the repository root: README.md first, then
// every docs/*.md in name order. root is the path of the repository root
// from the test's package directory ("..", "../..").
func DocPages(root string) ([]string, error) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(pages)
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil, err
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// ReadDocPage reads page (as DocPages names it) under root.
func ReadDocPage(root, page string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
	return string(b), err
}

// FencedBlock is one fenced code block of a Markdown page.
type FencedBlock struct {
	Line  int // of the opening fence, 1-based
	Lines []string
}

// FencedBlocks returns the blocks of a Markdown text fenced as ```lang;
// fences may be indented, as in list items.
func FencedBlocks(md, lang string) []FencedBlock {
	var blocks []FencedBlock
	var cur *FencedBlock
	open := false // inside a block of another language, whose lines are not fences
	for i, l := range strings.Split(md, "\n") {
		fence := strings.TrimSpace(l)
		switch {
		case cur == nil && !open && fence == "```"+lang:
			cur = &FencedBlock{Line: i + 1}
		case cur == nil && !open && strings.HasPrefix(fence, "```"):
			open = true
		case cur == nil && open && fence == "```":
			open = false
		case cur != nil && fence == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.Lines = append(cur.Lines, l)
		}
	}
	return blocks
}

// ShellCommand is one command line of a ```sh block: continued lines
// joined, the comment at its end dropped.
type ShellCommand struct {
	Line int // of its first line, 1-based
	Text string
}

// ShellCommands returns the command lines of the ```sh blocks of a
// Markdown text. Comment lines are dropped, and so is a comment after a
// command (" #" outside quotes).
func ShellCommands(md string) []ShellCommand {
	var cmds []ShellCommand
	for _, blk := range FencedBlocks(md, "sh") {
		cont, first := "", 0
		for i, l := range blk.Lines {
			l = stripComment(l)
			trimmed := strings.TrimSpace(l)
			if trimmed == "" && cont == "" {
				continue
			}
			if cont == "" {
				first = blk.Line + 1 + i
			}
			if strings.HasSuffix(trimmed, `\`) {
				cont += strings.TrimSuffix(trimmed, `\`) + " "
				continue
			}
			cmds = append(cmds, ShellCommand{Line: first, Text: strings.TrimSpace(cont + trimmed)})
			cont = ""
		}
	}
	return cmds
}

// stripComment drops a shell comment: a line starting with #, or " #"
// outside single and double quotes.
func stripComment(l string) string {
	if strings.HasPrefix(strings.TrimSpace(l), "#") {
		return ""
	}
	var quote byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && i > 0 && (l[i-1] == ' ' || l[i-1] == '\t'):
			return l[:i]
		}
	}
	return l
}

// ShellWords splits a command line into words as a shell would for
// quoting: single and double quotes group and are removed, and the
// operators |, &&, ||, ; and > are words of their own when spaced. It
// does not expand anything; $(...) stays in its word.
func ShellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
