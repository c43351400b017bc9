// Command ts2arrow inspects Apache TsFile files and converts them to
// Parquet, Apache Arrow IPC, CSV and JSON Lines, and Arrow and Parquet back
// to TsFile.
//
// Usage:
//
//	ts2arrow inspect FILE... [--json] [--pages] [--lenient] [--raw] [--no-count]
//	ts2arrow schema  FILE [--table T] [--arrow | --json] [--raw]
//	ts2arrow head    FILE [-n 20] [--table T] [--raw]
//	ts2arrow convert INPUT... -o OUT [--format parquet|arrow|arrows|csv|jsonl|tsfile] [query flags] [--raw]
//	ts2arrow sql     INPUT... [-c SQL | -f FILE] [-o OUT] [--format table|markdown|csv|jsonl|parquet|arrow|arrows]
//	ts2arrow sync    INPUT... --table T --catalog URI --warehouse LOCATION --to NAMESPACE.TABLE
//	ts2arrow recover BROKEN -o FIXED [--schema-from FILE]
//	ts2arrow serve   --root DIR [--addr 127.0.0.1:8815] [--token-file F] [--tls-cert F --tls-key F]
//	ts2arrow version
//	ts2arrow completion bash|zsh|fish|powershell
//
// Exit status is 0 on success, 1 on a data or format error, 2 on a usage
// error, 3 when recover had to drop damaged data, and 130 (143) when
// SIGINT (SIGTERM) stopped a command; "ts2arrow --help" says more.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

const usage = `ts2arrow: TsFile to Parquet, Apache Arrow, CSV and JSON Lines, and back

Usage:
  ts2arrow inspect FILE... [--json] [--pages] [--lenient] [--raw] [--no-count]
  ts2arrow schema  FILE [--table T] [--arrow | --json] [--columns a,b] [--raw]
  ts2arrow head    FILE [-n 20] [--table T] [--columns a,b] [--width 40] [--raw]
  ts2arrow convert INPUT... -o OUT [--format parquet|arrow|arrows|csv|jsonl|tsfile]
                   [--table T] [--columns a,b] [--device D] [--where tag=value]
                   [--start T] [--end T] [--partition-by table|device|day|...] [--force]
                   [--raw]
  ts2arrow sql     INPUT... [-c SQL | -f FILE] [-o OUT] [--format table|csv|...]
  ts2arrow sync    INPUT... --table T --catalog URI --warehouse LOCATION
                   --to NAMESPACE.TABLE
  ts2arrow recover BROKEN -o FIXED [--schema-from FILE]
  ts2arrow serve   --root DIR [--addr 127.0.0.1:8815] [--token-file F]
                   [--tls-cert F --tls-key F [--tls-client-ca F]] [--allow-put] [--raw]
  ts2arrow version
  ts2arrow completion bash|zsh|fish|powershell
  ts2arrow help [COMMAND]

FILE and INPUT may be http(s) URLs or object URLs (s3://bucket/key, gs://,
az://, file://), read with range requests; INPUT may also be a directory
or a glob, of paths or of keys (s3://bucket/prefix/). An IoTDB data directory (or a folder of
one, or TsFiles with .mods/.mods2 files beside them) is read as the IoTDB
server answers it: deletions applied, overwritten points once; --raw
reads every file as it is. Run "ts2arrow COMMAND --help" for the options
and examples of a command. Flags are GNU-style: --name VALUE or
--name=VALUE, anywhere among the arguments; "--" ends them, so that an
INPUT may start with a dash.

` + exitHelp

// exitHelp documents every exit status in the top-level help; each
// command's help says which of them it ends with.
const exitHelp = `Exit status:
  0    success (also a query that matched no row; standard error says so)
  1    a data or format error: a damaged, missing or unreadable input, or
       an output that cannot be written; nothing was written
  2    a usage error: an unknown flag, a missing argument, a bad value
  3    recover wrote FIXED but had to drop damaged chunk groups
  130  interrupted by Ctrl-C (SIGINT); 143 by SIGTERM. convert and recover
       first remove their temporary output, so nothing is left behind (a
       second Ctrl-C stops at once); inspect, schema and head write only to
       standard output and stop at once. serve shuts down gracefully on
       either signal and exits 0.
`

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

func main() {
	if os.Getenv("GOGC") == "" {
		// A conversion streams: what it holds live is a few batches and
		// one Parquet row group, and nearly everything else it allocates
		// is garbage within a batch. Half the default GC headroom costs
		// little CPU and keeps the peak RSS of converting a 1 GB file
		// under 300 MB (benchmarks/cmd/rss -mode cli).
		debug.SetGCPercent(50)
	}
	if caller := os.Getenv(icebergBuildEnv); icebergBuilt && caller != "" {
		// Read its own build info only when a ts2arrow ran it, not at
		// every start.
		if w := buildSkew(caller, buildStamp(buildInfo())); w != "" {
			fmt.Fprintf(os.Stderr, "ts2arrow: warning: %s\n", w)
		}
	}
	if needsIceberg(os.Args[1:]) {
		// sync and iceberg: inputs run in ts2arrow-iceberg (see
		// icebergprog.go): this process becomes it, or, where it cannot,
		// waits for it.
		err := execIceberg(os.Args[1:])
		if !errors.Is(err, errors.ErrUnsupported) {
			os.Exit(report(err, os.Stderr))
		}
		os.Exit(runIceberg(os.Args[1:], os.Stdout, os.Stderr))
	}
	if len(os.Args) < 2 || !handlesSignals[os.Args[1]] {
		exitOnSignal()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// handlesSignals are the commands that catch SIGINT and SIGTERM
// themselves: convert and recover remove their temporary output before
// they exit 130 (143), serve shuts down gracefully and exits 0, sql
// interrupts DuckDB (at its prompt, only the statement running), sync
// removes the data files it wrote and commits nothing.
var handlesSignals = map[string]bool{"convert": true, "recover": true, "serve": true, "sql": true, "sync": true}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if needsIceberg(args) {
		return runIceberg(args, stdout, stderr)
	}
	// Help that was asked for goes to stdout, so "ts2arrow convert --help |
	// less" works; flag errors still go to stderr through report.
	verbOut := stderr
	if asksHelp(args[1:]) {
		verbOut = stdout
	}
	var err error
	switch args[0] {
	case "inspect":
		err = runInspect(args[1:], stdout, verbOut)
	case "convert":
		err = runConvert(args[1:], stdout, verbOut)
	case "recover":
		err = runRecover(args[1:], stdout, verbOut)
	case "schema":
		err = runSchema(args[1:], stdout, verbOut)
	case "head":
		err = runHead(args[1:], stdout, verbOut)
	case "sync":
		err = runSync(args[1:], stdout, verbOut)
	case "serve":
		err = runServe(args[1:], stdout, verbOut)
	case "sql":
		err = runSQL(args[1:], stdout, verbOut)
	case "version", "--version":
		err = runVersion(args[1:], stdout, verbOut)
	case "completion":
		err = runCompletion(args[1:], stdout, verbOut)
	case cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return runComplete(args, stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 {
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		// One line, as for a flag error; the full usage would scroll it
		// away.
		var names []string
		for _, c := range commandList() {
			names = append(names, c.name)
		}
		fmt.Fprintf(stderr, "ts2arrow: unknown command %q (commands: %s, help; see ts2arrow --help)\n", oneLine(args[0]), strings.Join(names, ", "))
		return 2
	}
	return report(optionHint(args[0], err), stderr)
}

// asksHelp reports whether a command's arguments ask for its help (a
// -h, -help or --help before any "--").
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// optionFlags names, per command, what a ts2arrow user does about an
// arrowconv.OptionError: the flag that sets the option, or another way
// round the limit where the command has no flag for it.
var optionFlags = map[string]map[string]string{
	"convert": {"BatchSize": "pass a smaller --batch-size", "PlainTags": "select fewer devices with --where or --device", "MaxObjectSize": "pass a larger --max-object-size"},
	"head":    {"BatchSize": "pass a smaller -n", "PlainTags": "pass a smaller -n", "MaxObjectSize": "pass a larger --max-object-size"},
}

// optionHint tells an arrowconv.OptionError in the terms of command cmd's
// flags instead of the Go option nobody on the command line can set,
// keeping the file it concerns.
func optionHint(cmd string, err error) error {
	var oe *arrowconv.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	hint, ok := optionFlags[cmd][oe.Option]
	if !ok {
		hint = "ts2arrow has no flag for this"
	}
	err2 := error(&hintError{oe, "arrowconv: " + oe.Problem + "; " + hint})
	var fe *fileError
	if errors.As(err, &fe) {
		err2 = &fileError{fe.file, err2}
	}
	return err2
}

// fileError ties an error to the input file it concerns.
type fileError struct {
	file string
	err  error
}

func (e *fileError) Error() string { return e.file + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// report prints err as one line and returns the exit status.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if errors.Is(err, errInterrupted) {
		fmt.Fprintf(stderr, "ts2arrow: %s\n", oneLine(err.Error()))
		var ie *interruptError
		if errors.As(err, &ie) {
			return ie.exitCode()
		}
		return exitInterrupt
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "ts2arrow: %s\n", oneLine(ue.msg))
		return 2
	}
	var qe *sqlQueryError
	if errors.As(err, &qe) {
		// DuckDB's message: its lines (the query's line and a caret
		// under the error) are kept.
		fmt.Fprintf(stderr, "ts2arrow: %s\n", keepLines(qe.Error()))
		return 1
	}
	var pe *partialError
	if errors.As(err, &pe) {
		fmt.Fprintf(stderr, "ts2arrow: %s\n", oneLine(pe.msg))
		return exitPartial
	}
	var fe *fileError
	file := ""
	if errors.As(err, &fe) {
		file = fe.file + ": "
		err = fe.err
	}
	var te *tsfile.FormatError
	if errors.As(err, &te) {
		what := te.Structure + ": " + te.Msg
		if te.Err != nil {
			what += ": " + te.Err.Error()
		}
		fmt.Fprintf(stderr, "ts2arrow: %s\n", oneLine(fmt.Sprintf("%s%s at offset %d%s", file, what, te.Offset, recoverHint(err, fe))))
		return 1
	}
	fmt.Fprintf(stderr, "ts2arrow: %s\n", oneLine(file+err.Error()))
	return 1
}

// oneLine escapes the control characters of a message (a newline, a form
// feed, an escape) as Go does in quoted strings, so that an error or
// warning that carries a name read from a damaged file is still one line
// and cannot drive the user's terminal. Printable text, UTF-8 included,
// is kept as it is.
func oneLine(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// recoverHint points at "ts2arrow recover" when err says the file ends
// before its footer (a writer that crashed, a copy cut short): its complete
// chunk groups are still there, and the plain error does not say so. The
// library has no CLI, so the hint belongs here.
func recoverHint(err error, fe *fileError) string {
	if !errors.Is(err, tsfile.ErrIncomplete) {
		return ""
	}
	name := "FILE"
	if fe != nil {
		name = shellWord(fe.file)
	}
	if fe != nil && isURL(fe.file) {
		return "; download it, then \"ts2arrow recover FILE -o FIXED\" can salvage its complete chunk groups"
	}
	return fmt.Sprintf("; \"ts2arrow recover %s -o FIXED\" can salvage its complete chunk groups", name)
}

// shellWord quotes s for a POSIX shell when it holds anything but the
// characters paths are usually made of, so that a suggested command can be
// pasted as it is.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/+,:@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseArgs parses GNU-style flags (--json, --format=csv, -o OUT, -n5)
// that may appear before or after positional arguments, as users type
// them ("convert in.tsfile -o out.csv"); "--" ends the flags. A flag error
// becomes one usage error line, which report prints (exit status 2); only
// -h/--help prints the help, to the writer the command was given.
//
// Given flagSetOnly as its only argument it parses nothing and returns the
// flag set as a *flagSetError, so that shell completion learns each
// command's flags from the block that defines them.
func parseArgs(fs *pflag.FlagSet, args []string) ([]string, error) {
	if len(args) == 1 && args[0] == flagSetOnly {
		return nil, &flagSetError{fs}
	}
	if err := singleDashLong(fs, args); err != nil {
		return nil, err
	}
	out := fs.Output()
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	defer fs.SetOutput(out)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			out.Write(buf.Bytes())
			return nil, err
		}
		return nil, usagef("%v", err)
	}
	return fs.Args(), nil
}

// flagSetOnly is the argument that asks a command for its flag set (see
// parseArgs). No command line can hold it: the strings of argv end at
// their first NUL byte.
const flagSetOnly = "\x00flag-set"

// flagSetError carries a command's flag set out of its run function.
type flagSetError struct{ fs *pflag.FlagSet }

func (e *flagSetError) Error() string { return "flag set of " + e.fs.Name() }

// singleDashLong refuses a long flag written with one dash (-json, the
// spelling Go's flag package took), which pflag would read as shorthand
// flags (-o utput for -output) or refuse with a confusing "unknown
// shorthand flag: 'j' in -json". It skips the values of flags that take
// one, and stops at "--".
func singleDashLong(fs *pflag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++ // the flag's value, whatever it looks like
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && (fs.Lookup(name) != nil || name == "help") {
			return usagef("unknown flag %s: long flags take two dashes (did you mean -%s?)", a, a)
		}
		if len(name) > 1 && name[0] != 'h' && fs.ShorthandLookup(name[:1]) == nil {
			// pflag would say: unknown shorthand flag: 'j' in -json.
			return usagef("unknown flag %s: long flags take two dashes, and %s has no --%s (see ts2arrow %s --help)", a, fs.Name(), name, fs.Name())
		}
		if len(a) == 2 {
			if f := fs.ShorthandLookup(a[1:]); f != nil && f.NoOptDefVal == "" {
				i++
			}
		}
	}
	return nil
}

// newFlagSet makes the flag set of a command whose help text is help; the
// flags are listed after it, GNU-style (-o, --output string).
func newFlagSet(name, help string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		// Drop pflag's own copy of an error; report prints it.
		if b, ok := fs.Output().(*bytes.Buffer); ok {
			b.Reset()
		}
		fmt.Fprint(fs.Output(), help)
		fmt.Fprint(fs.Output(), flagUsages(fs))
	}
	return fs
}

// flagUsages lists the flags of fs GNU-style, one or more lines each:
//
//	-o, --output string   output path ...
//	    --json            print JSON ...
//
// as pflag's PrintDefaults does, but a bool flag is shown as --json rather
// than --json[=true|false], and a usage is wrapped to 80 columns.
func flagUsages(fs *pflag.FlagSet) string {
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, usage := pflag.UnquoteUsage(f)
		if name != "" {
			left += " " + name
		}
		switch def := f.DefValue; {
		case def == "" || def == "0" || def == "false" || def == "0s" || def == "[]":
		case f.Value.Type() == "string":
			usage += fmt.Sprintf(" (default %q)", def)
		default:
			usage += " (default " + def + ")"
		}
		rows = append(rows, row{left, usage})
	})
	if fs.Lookup("help") == nil {
		rows = append(rows, row{"  -h, --help", "print this help"})
	}
	for _, r := range rows {
		width = max(width, len(r.left))
	}
	const cols = 80
	var b strings.Builder
	for _, r := range rows {
		indent := width + 3
		b.WriteString(r.left)
		if cols-indent < 30 {
			// Too narrow beside the flag: the usage goes below it.
			indent = 10
			b.WriteString("\n" + strings.Repeat(" ", indent))
		} else {
			b.WriteString(strings.Repeat(" ", indent-len(r.left)))
		}
		n := indent
		for i, w := range strings.Fields(r.usage) {
			if i > 0 && n+1+len(w) > cols {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				n = indent
			} else if i > 0 {
				b.WriteByte(' ')
				n++
			}
			b.WriteString(w)
			n += len(w)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// timeUnitFlag reads a --time-unit value.
func timeUnitFlag(s string) (arrow.TimeUnit, error) {
	tu, ok := map[string]arrow.TimeUnit{"s": arrow.Second, "ms": arrow.Millisecond, "us": arrow.Microsecond, "ns": arrow.Nanosecond}[s]
	if !ok {
		return 0, usagef("unknown --time-unit %q (want s, ms, us or ns)", s)
	}
	return tu, nil
}

// columnsFlag reads a comma-separated list flag such as --columns; empty
// gives nil.
func columnsFlag(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
