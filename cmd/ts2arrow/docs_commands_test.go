package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

// pathLike are the extensions of the files the pages' commands read; a
// word ending in one (or holding a /) is a path that must exist for the
// command to run.
var pathLike = []string{".tsfile", ".parquet", ".pq", ".arrow", ".arrows", ".feather", ".csv", ".jsonl", ".txt", ".pem", ".bin", ".json"}

// TestDocsCommandsRun runs the shell commands of README.md and docs/*.md
// top to bottom, as a newcomer would paste them into a fresh checkout: in
// one working directory holding testdata/ and ./ts2arrow (the built
// binary, also on PATH as ts2arrow), README.md first and then the docs
// pages in name order, each command after the ones above it. Every command
// that can run here must exit 0. A command is left out, and logged, only
// when it cannot run on this machine: it reads a path that is not there
// (such as /data/iotdb or data/, which stand for the reader's own), a URL,
// it is serve (which runs until stopped), a go command (the binary is
// built already), or a program of its pipeline is not installed. This is
// what catches a page whose second command fails because its first wrote
// the same output.
func TestDocsCommandsRun(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the pages' commands")
	}
	bin := binary(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(work, "ts2arrow")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))

	pages, err := testkit.DocPages(root)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, page := range pages {
		md, err := testkit.ReadDocPage(root, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range testkit.ShellCommands(md) {
			for _, part := range strings.Split(sc.Text, "&&") {
				part = strings.TrimSpace(part)
				if why := cannotRun(part, work); why != "" {
					t.Logf("%s:%d: not run (%s): %s", page, sc.Line, why, part)
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, bash, "-o", "pipefail", "-c", part)
				cmd.Dir, cmd.Env = work, env
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				cancel()
				if err != nil {
					t.Errorf("%s:%d: %s: %v\n%s", page, sc.Line, part, err, out.String())
					continue
				}
				ran[page]++
			}
		}
	}
	t.Logf("commands run per page: %v", ran)
	// The README's quick start and tasks, the CLI reference and the IoTDB
	// page all run here; none of them running means the extraction broke.
	for _, page := range []string{"README.md", "docs/cli.md", "docs/iotdb.md", "docs/encryption.md", "docs/verification.md"} {
		if ran[page] < 2 {
			t.Errorf("%s: %d of its commands ran, want at least 2 (is the ```sh extraction broken?)", page, ran[page])
		}
	}
}

// cannotRun says why a command of the pages cannot run in work, or "" when
// it can.
func cannotRun(cmd, work string) string {
	words := testkit.ShellWords(cmd)
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return "empty"
	}
	switch {
	case words[0] == "go" || words[0] == "export":
		return "sets up the toolchain; the test built the binary"
	case isTs2arrow(words[0]) && len(words) > 1 && words[1] == "serve":
		return "serve runs until stopped; the Flight tests run it"
	}
	for i, w := range words {
		if isTs2arrow(w) && i+1 < len(words) && words[i+1] == "sql" && !sqlEngineBuilt {
			return "this build has no SQL engine (test with -tags duckdb_arrow)"
		}
		if isTs2arrow(w) && i+1 < len(words) && needsIceberg(words[i+1:]) && !icebergBuilt {
			return "the tests are built without ts2arrow-iceberg (test with -tags iceberg)"
		}
	}
	first := true
	for i, w := range words {
		if strings.Contains(w, "://") {
			return "reads a URL"
		}
		if first {
			first = false
			if !isTs2arrow(w) {
				if _, err := exec.LookPath(w); err != nil {
					return w + " is not installed"
				}
			}
		}
		if w == "|" {
			first = true
			continue
		}
		if strings.Contains(w, "$(") {
			for _, prog := range []string{"openssl", "cut"} {
				if strings.Contains(w, "$("+prog) {
					if _, err := exec.LookPath(prog); err != nil {
						return prog + " is not installed"
					}
				}
			}
			continue
		}
		if i > 0 && (words[i-1] == "-o" || words[i-1] == ">") || strings.HasPrefix(w, "-") || isTs2arrow(w) {
			continue
		}
		if !looksLikePath(w) {
			continue
		}
		if strings.HasPrefix(w, "/") {
			return "reads " + w + ", a path of the reader's machine"
		}
		if strings.ContainsAny(w, "*?[{") {
			if m, _ := filepath.Glob(filepath.Join(work, w)); len(m) == 0 {
				return "nothing here matches " + w
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(work, w)); err != nil {
			return "reads " + w + ", which stands for the reader's own"
		}
	}
	return ""
}

func isTs2arrow(w string) bool { return w == "ts2arrow" || w == "./ts2arrow" }

// isAssignment reports whether w is a NAME=value prefix of a command.
func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for _, c := range w[:i] {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func looksLikePath(w string) bool {
	if strings.Contains(w, "/") && !strings.Contains(w, "=") {
		return true
	}
	for _, ext := range pathLike {
		if strings.HasSuffix(w, ext) && !strings.Contains(w, "=") {
			return true
		}
	}
	return false
}

// TestDocsCLIReferenceFlags keeps docs/cli.md complete: every flag that a
// command's --help lists is named, as `--name` (or `-o`, `-n`), in that
// command's section of the page, so a flag added to the CLI without a line
// in the reference fails here. The flags are read from the Options list
// that --help ends with, in Go's flag style (-name) or GNU style
// (-o, --output).
func TestDocsCLIReferenceFlags(t *testing.T) {
	md, err := testkit.ReadDocPage("../..", "docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	flagLine := regexp.MustCompile(`^\s+(?:-[A-Za-z], )?--?([a-z][a-z0-9-]*)`)
	for _, cmd := range []string{"inspect", "schema", "head", "convert", "sql", "recover", "serve", "sync"} {
		code, stdout, stderr := runCLI(cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", cmd, code, stderr)
		}
		help := stdout + stderr
		i := strings.LastIndex(help, "\nOptions:\n")
		if j := strings.LastIndex(help, "\nFlags:\n"); j > i {
			i = j
		}
		if i < 0 {
			t.Fatalf("%s --help has no Options list:\n%s", cmd, help)
		}
		section := docSection(md, "## "+cmd)
		if section == "" {
			t.Errorf("docs/cli.md has no section \"## %s\"", cmd)
			continue
		}
		n := 0
		for _, l := range strings.Split(help[i:], "\n") {
			m := flagLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			n++
			name := "--" + m[1]
			if len(m[1]) == 1 {
				name = "-" + m[1]
			}
			if !strings.Contains(section, "`"+name+"`") && !strings.Contains(section, "`"+name+" ") {
				t.Errorf("docs/cli.md, section %s: the flag %s of %s --help is not listed", cmd, name, cmd)
			}
		}
		if n < 3 {
			t.Errorf("%s --help: read %d flags from its Options list; is the parsing broken?", cmd, n)
		}
	}
}

// docSection returns the text of a Markdown page from the heading line
// that is exactly heading to the next heading of the same or a higher
// level (outside code blocks, where # starts a comment), or "" when there
// is no such heading.
func docSection(md, heading string) string {
	lines := strings.Split(md, "\n")
	level := strings.Count(strings.Fields(heading)[0], "#")
	for i, l := range lines {
		if l != heading {
			continue
		}
		j, fenced := i+1, false
		for ; j < len(lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				fenced = !fenced
			}
			if h := strings.Fields(lines[j]); !fenced && len(h) > 0 && strings.Trim(h[0], "#") == "" && len(h[0]) <= level {
				break
			}
		}
		return strings.Join(lines[i:j], "\n")
	}
	return ""
}
