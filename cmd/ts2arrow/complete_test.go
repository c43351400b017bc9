package main

// Shell completion: what "ts2arrow __complete ARGS... WORD" (the request
// the scripts of "ts2arrow completion SHELL" make) answers, and the
// scripts themselves in real shells, where installed.

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/tsfile"
)

// complete asks for the completions of the last of args, as the shell
// scripts do, and returns the words offered (without descriptions) and
// cobra's directive.
func complete(t *testing.T, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	var out, stderr bytes.Buffer
	code := run(append([]string{cobra.ShellCompRequestCmd}, args...), &out, &stderr)
	require.Equal(t, 0, code, stderr.String())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	require.True(t, strings.HasPrefix(last, ":"), "no directive in %q", out.String())
	d, err := strconv.Atoi(last[1:])
	require.NoError(t, err)
	var words []string
	for _, l := range lines[:len(lines)-1] {
		w, _, _ := strings.Cut(l, "\t")
		words = append(words, w)
	}
	return words, cobra.ShellCompDirective(d)
}

// twoTables writes a TsFile holding tables alpha and beta.
func twoTables(t *testing.T, path string) {
	t.Helper()
	writeFile(t, path, func(w *tsfile.Writer) {
		for _, name := range []string{"beta", "alpha"} {
			require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: name, Columns: []tsfile.Column{
				{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
				{Name: "v", DataType: tsfile.Double, Category: tsfile.Field},
			}}))
			require.NoError(t, w.WriteAligned(tsfile.NewDeviceID(name, "x"), []int64{1}, []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Double}, Values: tsfile.Values{Type: tsfile.Double, Float64s: []float64{1}}},
			}))
		}
	})
}

func TestCompleteCommandsAndFlags(t *testing.T) {
	noFiles := cobra.ShellCompDirectiveNoFileComp
	var names []string
	for _, c := range commandList() {
		names = append(names, c.name)
	}
	names = append(names, "help")
	got, d := complete(t, "")
	require.ElementsMatch(t, names, got)
	require.Equal(t, noFiles, d)

	got, _ = complete(t, "co")
	require.ElementsMatch(t, []string{"convert", "completion"}, got)

	// Every flag of a command, from its flag block, GNU-style.
	got, _ = complete(t, "convert", "in.tsfile", "--")
	for name := range commandFlags(t, "convert") {
		require.Contains(t, got, "--"+name)
	}
	got, _ = complete(t, "convert", "--form")
	require.Equal(t, []string{"--format"}, got)
	got, _ = complete(t, "head", "-")
	require.Contains(t, got, "-n")
	require.Contains(t, got, "--lines")

	for _, tc := range []struct {
		args []string
		want []string
		d    cobra.ShellCompDirective
	}{
		{[]string{"convert", "x", "--format", ""}, []string{"parquet", "arrow", "arrows", "csv", "jsonl", "tsfile"}, noFiles},
		{[]string{"convert", "x", "--format=", ""}, nil, cobra.ShellCompDirectiveDefault}, // "--format=" then a new word: an INPUT
		{[]string{"convert", "x", "--format=c"}, []string{"csv"}, noFiles},
		{[]string{"head", "x", "--time-unit", ""}, []string{"s", "ms", "us", "ns"}, noFiles},
		{[]string{"convert", "x", "--partition-by", ""}, []string{"table", "device", "day", "month", "hour"}, noFiles},
		{[]string{"inspect", "x", "--mods-v1", ""}, []string{"offset", "whole", "auto"}, noFiles},
		{[]string{"serve", "--log-format", ""}, []string{"text", "json"}, noFiles},
		{[]string{"serve", "--compression", ""}, export.IPCCompressions(), noFiles},
		// --compression follows the format: --format, else -o's extension.
		{[]string{"convert", "x", "-o", "y.parquet", "--compression", ""}, export.ParquetCompressions(), noFiles},
		{[]string{"convert", "x", "--format", "arrows", "-o", "-", "--compression", ""}, export.IPCCompressions(), noFiles},
		{[]string{"convert", "x.parquet", "-o", "y.tsfile", "--compression", "l"}, []string{"lz4", "lzma2"}, noFiles},
		{[]string{"convert", "x", "-o", "y.csv", "--compression", ""}, nil, noFiles},
		// Inputs and paths: the shell's file names.
		{[]string{"convert", ""}, nil, cobra.ShellCompDirectiveDefault},
		{[]string{"convert", "x", "-o", ""}, nil, cobra.ShellCompDirectiveDefault},
		{[]string{"recover", "x", "--schema-from", ""}, nil, cobra.ShellCompDirectiveDefault},
		{[]string{"serve", "--root", ""}, nil, cobra.ShellCompDirectiveFilterDirs},
		{[]string{"serve", ""}, nil, noFiles},
		// Values nothing can guess complete to nothing, not to file names.
		{[]string{"convert", "x", "--start", ""}, nil, noFiles},
		{[]string{"head", "x", "-n", ""}, nil, noFiles},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "powershell"}, noFiles},
		{[]string{"help", "he"}, []string{"head", "help"}, noFiles},
	} {
		got, d := complete(t, tc.args...)
		require.Equal(t, tc.want, got, tc.args)
		require.Equal(t, tc.d, d, tc.args)
	}
}

func TestCompleteTables(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.tsfile")
	twoTables(t, two)
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.Link(sample, filepath.Join(sub, "s.tsfile")))

	// What an independent read of the metadata lists.
	f, err := tsfile.OpenFile(sample, nil)
	require.NoError(t, err)
	sampleTables := f.Tables()
	f.Close()
	require.NotEmpty(t, sampleTables)

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"head", two, "--table", ""}, []string{"alpha", "beta"}},
		{[]string{"schema", two, "--table", "b"}, []string{"beta"}},
		{[]string{"convert", two, sample, "-o", "x.csv", "--table", ""}, append([]string{"alpha", "beta"}, sampleTables...)},
		{[]string{"convert", sub, "--table", ""}, sampleTables}, // a directory's *.tsfile files
		{[]string{"convert", filepath.Join(dir, "missing.tsfile"), "--table", ""}, nil},
		{[]string{"convert", "testdata.parquet", "--table", ""}, nil},
		{[]string{"convert", "https://example.invalid/x.tsfile", "--table", ""}, nil}, // never fetched
		{[]string{"head", "--table", ""}, nil},
	} {
		got, d := complete(t, tc.args...)
		require.ElementsMatch(t, tc.want, got, tc.args)
		require.Equal(t, cobra.ShellCompDirectiveNoFileComp, d, tc.args)
	}

	// --columns: a comma-separated list, so each answer keeps the words
	// before the last comma and leaves out those already there.
	noSpace := cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	s, ok := f.SchemaOf(sampleTables[0])
	require.True(t, ok)
	var cols []string
	for _, c := range s.Columns {
		cols = append(cols, c.Name)
	}
	require.Contains(t, cols, "temperature")
	got, d := complete(t, "head", sample, "--columns", "")
	require.ElementsMatch(t, cols, got)
	require.Equal(t, noSpace, d)
	got, _ = complete(t, "convert", sample, "--columns", "region,te")
	require.Equal(t, []string{"region,temperature"}, got)
	got, _ = complete(t, "schema", two, "--table", "beta", "--columns", "v,")
	require.Equal(t, []string{"v,id"}, got)
	got, _ = complete(t, "schema", two, "--columns", "") // two tables, none named
	require.Empty(t, got)

	// A file that is not a TsFile (or is damaged) offers nothing, and no
	// error reaches the shell.
	junk := filepath.Join(dir, "junk.tsfile")
	require.NoError(t, os.WriteFile(junk, []byte("TsFile\x04 and then nothing"), 0o644))
	got, _ = complete(t, "head", junk, two, "--table", "")
	require.ElementsMatch(t, []string{"alpha", "beta"}, got)
}

func TestCompletionScriptUsage(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, stderr := runCLI("completion", shell)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, out, "ts2arrow", shell)
		require.Contains(t, out, cobra.ShellCompRequestCmd, shell)
	}
	code, _, stderr := runCLI("completion", "tcsh")
	require.Equal(t, 2, code)
	require.Equal(t, "ts2arrow: unknown shell \"tcsh\" (want bash, zsh, fish or powershell)\n", stderr)
	code, _, stderr = runCLI("completion")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "completion takes one SHELL")
}

// shellComplete runs script (which may use $BIN, $DIR and $SCRIPT, the
// completion script of shell) in shell, with a directory holding the
// built binary as ts2arrow first on PATH, and returns its output.
func shellComplete(t *testing.T, shell string, script string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed", shell)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	require.NoError(t, os.Symlink(binary(t), filepath.Join(bin, "ts2arrow")))
	r := runBin(t, "completion", shell)
	require.Equal(t, 0, r.code, r.stderr)
	scriptFile := filepath.Join(dir, "completion."+shell)
	require.NoError(t, os.WriteFile(scriptFile, []byte(r.stdout), 0o644))
	twoTables(t, filepath.Join(dir, "two.tsfile"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.csv"), nil, 0o644))
	args := []string{"-c", script}
	if shell == "fish" {
		args = []string{"--no-config", "-c", script}
	}
	if shell == "zsh" {
		args = []string{"-f", "-c", script}
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "SCRIPT="+scriptFile, "HOME="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

func TestCompletionBash(t *testing.T) {
	// bash's completion of a word: the function "complete -p" names,
	// called with COMP_WORDS and COMP_CWORD as readline sets them.
	script := `
for f in /usr/share/bash-completion/bash_completion /etc/bash_completion; do
	[ -r "$f" ] && { . "$f"; break; }
done
type _get_comp_words_by_ref >/dev/null 2>&1 || echo "no bash-completion"
. "$SCRIPT"
spec=$(complete -p ts2arrow)
echo "spec=$spec"
fn=$(echo "$spec" | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
echo "function=$fn"
try() {
	COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
	# (compopt says it is not called from readline: harmless here.)
	"$fn" ts2arrow "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
	echo "$* => $(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')"
}
try ts2arrow con
try ts2arrow convert two.tsfile --form
try ts2arrow convert two.tsfile --format ''
try ts2arrow head two.tsfile --table ''
try ts2arrow head two.tsfile --t
`
	out := shellComplete(t, "bash", script)
	t.Logf("%s", out)
	if strings.Contains(out, "no bash-completion\n") {
		t.Skip("bash-completion is not installed (the script needs its _get_comp_words_by_ref)")
	}
	require.Contains(t, out, "function=__start_ts2arrow\n")
	require.Contains(t, out, "ts2arrow con => convert \n")
	require.Contains(t, out, "ts2arrow convert two.tsfile --form => --format \n")
	require.Contains(t, out, "ts2arrow convert two.tsfile --format  => arrow arrows csv jsonl parquet tsfile \n")
	require.Contains(t, out, "ts2arrow head two.tsfile --table  => alpha beta \n")
	require.Contains(t, out, "ts2arrow head two.tsfile --t => --table --time-format --time-unit --trust-resources \n")
	// Inputs complete to file names through readline's own default,
	// which a completion function returning nothing falls back to.
	require.Regexp(t, `spec=complete .*-o default.* ts2arrow\n`, out)
}

func TestCompletionZsh(t *testing.T) {
	// zsh's completion widgets run only under the line editor; the
	// function the script binds to ts2arrow is called with words and
	// CURRENT as the editor sets them, and _describe (which would add the
	// matches) prints what it is given.
	out := shellComplete(t, "zsh", `
autoload -U compinit && compinit -u -d "$HOME/.zcompdump"
source "$SCRIPT"
print -r -- "bound=${_comps[ts2arrow]}"
_describe() { local arr=$2; print -r -- "${(j: :)${(@P)arr}}" }
try() { words=("$@"); CURRENT=${#words}; print -rn -- "$* => "; _ts2arrow }
try ts2arrow con
try ts2arrow convert two.tsfile --format ''
try ts2arrow head two.tsfile --table ''
`)
	t.Logf("%s", out)
	require.Contains(t, out, "bound=_ts2arrow\n")
	require.Contains(t, out, "ts2arrow con => convert:convert TsFiles to Parquet, Arrow, CSV, JSON Lines, or back\n")
	require.Contains(t, out, "ts2arrow convert two.tsfile --format  => parquet arrow arrows csv jsonl tsfile\n")
	require.Contains(t, out, "ts2arrow head two.tsfile --table  => alpha beta\n")
}

func TestCompletionFish(t *testing.T) {
	// fish completes a command line without a terminal: complete -C.
	out := shellComplete(t, "fish", `
source $SCRIPT
for line in 'ts2arrow con' 'ts2arrow convert two.tsfile --format ' 'ts2arrow head two.tsfile --table ' 'ts2arrow convert two.tsfile --par'
	echo "$line => "(complete -C"$line" | string replace -r '\t.*' '' | sort | string join ' ')
end
`)
	t.Logf("%s", out)
	require.Contains(t, out, "ts2arrow con => convert\n")
	require.Contains(t, out, "ts2arrow convert two.tsfile --format  => arrow arrows csv jsonl parquet tsfile\n")
	require.Contains(t, out, "ts2arrow head two.tsfile --table  => alpha beta\n")
	require.Contains(t, out, "ts2arrow convert two.tsfile --par => --partition-by\n")
}

// TestCompletionValuesMatchUsage: the values completion offers for a flag
// are those its usage lists ("s, ms, us or ns"), so that a flag whose
// values change (a new --time-format) and whose list in flagValues was
// forgotten fails here.
func TestCompletionValuesMatchUsage(t *testing.T) {
	choices := regexp.MustCompile(`[a-z0-9_-]+(, [a-z0-9_-]+)*,? or [a-z0-9_-]+`)
	seen := map[string]bool{}
	for _, c := range commandList() {
		var fe *flagSetError
		require.True(t, errors.As(c.run([]string{flagSetOnly}, io.Discard, io.Discard), &fe))
		fe.fs.VisitAll(func(f *pflag.Flag) {
			values := valuesOf(c.name, f.Name)
			if values == nil || f.Name == "encrypt-profile" { // its usage names the default only
				return
			}
			seen[f.Name] = true
			words := strings.FieldsFunc(f.Usage, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
			})
			for _, v := range values {
				require.Contains(t, words, v, "%s --%s: completion offers %q, its usage does not list it: %q", c.name, f.Name, v, f.Usage)
			}
			// And the other way: every value of an "a, b or c" in the
			// usage is offered.
			for _, list := range choices.FindAllString(f.Usage, -1) {
				for _, v := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
					if v != "or" {
						require.Contains(t, values, v, "%s --%s: its usage lists %q, completion does not offer it (flagValues in complete.go)", c.name, f.Name, v)
					}
				}
			}
		})
	}
	for name := range flagValues {
		require.True(t, seen[name] || name == "encrypt-profile", "flagValues has --%s, which no command has", name)
	}
}
