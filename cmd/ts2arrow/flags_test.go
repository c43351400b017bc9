package main

// The command line's conventions: GNU-style flags (pflag) among the
// arguments, "--", one usage line and exit 2 for a flag error, help on
// standard output, single-dash long flags refused with a hint, and every
// exit status documented.

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// commandFlags returns the flag names of command name, from its own flag
// block (parseArgs hands the flag set out).
func commandFlags(t *testing.T, name string) map[string]string {
	t.Helper()
	for _, c := range commandList() {
		if c.name != name {
			continue
		}
		var fe *flagSetError
		require.True(t, errors.As(c.run([]string{flagSetOnly}, io.Discard, io.Discard), &fe), name)
		out := map[string]string{}
		fe.fs.VisitAll(func(f *pflag.Flag) { out[f.Name] = f.Shorthand })
		return out
	}
	t.Fatalf("no command %s", name)
	return nil
}

func TestFlagsGNUStyleHelp(t *testing.T) {
	singleDash := regexp.MustCompile(`(?m)^\s+-[a-z][a-z-]+\b`)
	for _, c := range commandList() {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
				code, out, stderr := runCLI(args...)
				require.Equal(t, 0, code, "%v: %s", args, stderr)
				require.Empty(t, stderr, args)
				_, list, ok := strings.Cut(out, "\nOptions:\n")
				require.True(t, ok, "%v: no Options section:\n%s", args, out)
				require.NotRegexp(t, singleDash, list, "a flag listed with one dash")
				for name, short := range commandFlags(t, c.name) {
					want := "      --" + name
					if short != "" {
						want = "  -" + short + ", --" + name
					}
					require.Regexp(t, `(?m)^`+regexp.QuoteMeta(want)+`( |$)`, list, "--%s in %v", name, args)
				}
				require.Contains(t, list, "  -h, --help ")
				require.Contains(t, out, "Exit status", "%v documents its exit statuses", args)
			}
		})
	}
	// The two shorthands.
	require.Equal(t, "o", commandFlags(t, "convert")["output"])
	require.Equal(t, "o", commandFlags(t, "recover")["output"])
	require.Equal(t, "n", commandFlags(t, "head")["lines"])
	// A bool is listed without pflag's [=true|false].
	_, out, _ := runCLI("inspect", "--help")
	require.Regexp(t, `(?m)^      --json +print JSON`, out)
}

func TestTopLevelHelpListsExitStatuses(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"-h"}} {
		code, out, stderr := runCLI(args...)
		require.Equal(t, 0, code, stderr)
		_, exits, ok := strings.Cut(out, "Exit status:\n")
		require.True(t, ok, out)
		for _, code := range []string{"0", "1", "2", "3", "130", "143"} {
			require.Regexp(t, `(?m)(^  |; )`+code+`\b`, exits, "exit status %s", code)
		}
		require.Contains(t, exits, "serve shuts down gracefully")
		require.Contains(t, out, "ts2arrow completion bash|zsh|fish")
	}
}

func TestFlagsInterleavedAndDashDash(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "want.csv")
	code, _, stderr := runCLI("convert", "-o", want, "--format", "csv", sample)
	require.Equal(t, 0, code, stderr)
	for i, args := range [][]string{
		{"convert", sample, "-o", "OUT", "--format", "csv"},
		{"convert", "--format=csv", sample, "--output=OUT"},
		{"convert", "-oOUT", "--format", "csv", "--", sample},
		{"convert", "--output", "OUT", "--format", "csv", sample, "--quiet=true"},
	} {
		out := filepath.Join(dir, strings.Repeat("x", i+1)+".csv")
		for k := range args {
			args[k] = strings.ReplaceAll(args[k], "OUT", out)
		}
		code, _, stderr := runCLI(args...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		require.Equal(t, readFile(t, want), readFile(t, out), args)
	}

	// head: -n, -nN, --lines N and --lines=N agree; three rows each.
	var first string
	for _, args := range [][]string{
		{"head", sample, "-n", "3"}, {"head", "-n3", sample}, {"head", sample, "--lines", "3"}, {"head", "--lines=3", sample},
	} {
		code, out, stderr := runCLI(args...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		if first == "" {
			first = out
			require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 5, out) // header, rule and 3 rows
		}
		require.Equal(t, first, out, args)
	}

	// After "--" a dash word is an argument, not a flag: a missing file
	// (exit 1), not an unknown flag (exit 2).
	code, _, stderr = runCLI("head", "--", "--json")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "--json")
}

func TestFlagErrorsOneUsageLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the whole of standard error
	}{
		{[]string{"head", sample, "--bogus"}, "ts2arrow: unknown flag: --bogus\n"},
		{[]string{"head", sample, "-n"}, "ts2arrow: flag needs an argument: 'n' in -n\n"},
		{[]string{"head", sample, "--lines", "x"}, `ts2arrow: invalid argument "x" for "-n, --lines" flag: must be an integer` + "\n"},
		{[]string{"convert", sample, "--format"}, "ts2arrow: flag needs an argument: --format\n"},
		{[]string{"inspect", sample, "-json"}, "ts2arrow: unknown flag -json: long flags take two dashes (did you mean --json?)\n"},
		{[]string{"convert", sample, "-output", "x.csv"}, "ts2arrow: unknown flag -output: long flags take two dashes (did you mean --output?)\n"},
		{[]string{"schema", sample, "-help"}, "ts2arrow: unknown flag -help: long flags take two dashes (did you mean --help?)\n"},
		{[]string{"nope"}, "ts2arrow: unknown command \"nope\" (commands: inspect, schema, head, convert, sql, sync, recover, serve, version, completion, help; see ts2arrow --help)\n"},
		{[]string{"help", "nope"}, "ts2arrow: unknown command \"nope\" (commands: inspect, schema, head, convert, sql, sync, recover, serve, version, completion, help; see ts2arrow --help)\n"},
		{[]string{"head", sample, "-json"}, "ts2arrow: unknown flag -json: long flags take two dashes, and head has no --json (see ts2arrow head --help)\n"},
		{[]string{"head", sample, "-time-format=raw"}, "ts2arrow: unknown flag -time-format=raw: long flags take two dashes (did you mean --time-format=raw?)\n"},
	} {
		code, out, stderr := runCLI(tc.args...)
		require.Equal(t, 2, code, "%v: %s", tc.args, stderr)
		require.Empty(t, out, tc.args)
		require.Equal(t, tc.want, stderr, tc.args)
	}
	// A value that looks like a single-dash flag is still a value.
	code, _, stderr := runCLI("head", sample, "--columns", "-json")
	require.NotContains(t, stderr, "two dashes")
	require.NotEqual(t, 0, code)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
