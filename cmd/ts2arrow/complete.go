package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Shell completion uses cobra's completion protocol: the script that
// "ts2arrow completion SHELL" prints (cobra's, kept up to date for bash,
// zsh, fish and PowerShell by its maintainers) runs "ts2arrow __complete
// ARGS... WORD" and offers the lines printed. The commands still run
// through run and their own flag sets; cobra's command tree below is built
// only to answer completions, from those very flag sets (parseArgs hands
// them out), so that a flag added to a command completes without more
// code here.

const completionHelp = `Usage: ts2arrow completion [--no-descriptions] bash|zsh|fish|powershell

Prints a script that makes SHELL complete ts2arrow's commands, flags, the
values of flags that take one of a few (--format, --time-unit,
--compression, --partition-by, --mods-v1 ...), file names for inputs,
--table with the tables of the TsFiles already on the command line and
--columns with the columns of the table (read from their metadata only;
nothing is offered for files that do not open within a second).

  bash:  source <(ts2arrow completion bash)      (needs bash-completion)
         or ts2arrow completion bash > /etc/bash_completion.d/ts2arrow
  zsh:   ts2arrow completion zsh > "${fpath[1]}/_ts2arrow"
  fish:  ts2arrow completion fish > ~/.config/fish/completions/ts2arrow.fish

Exit status: 0 when the script was printed, 2 on a usage error.

Options:
`

// completionCommand is a command as completion offers it.
type completionCommand struct {
	name, short string
	run         func(args []string, stdout, stderr io.Writer) error
}

// commandList is every command, in the order "ts2arrow --help" lists them,
// with the line completion shows beside its name. (A function, since
// runCompletion is one of them.)
func commandList() []completionCommand {
	return []completionCommand{
		{"inspect", "print the structure of TsFiles", runInspect},
		{"schema", "print the Arrow schema of a table", runSchema},
		{"head", "print the first rows of a table", runHead},
		{"convert", "convert TsFiles to Parquet, Arrow, CSV, JSON Lines, or back", runConvert},
		{"sql", "run SQL over TsFiles and IoTDB data with DuckDB", runSQL},
		{"sync", "keep an Apache Iceberg table in step with TsFiles and IoTDB data", runSync},
		{"recover", "salvage a TsFile whose writer never finished it", runRecover},
		{"serve", "serve TsFiles over Arrow Flight", runServe},
		{"version", "print the version", runVersion},
		{"completion", "print a shell completion script", runCompletion},
	}
}

// flagValues lists the values of flags that take one of a few, per flag
// name; valuesFor refines --compression by the output format.
var flagValues = map[string][]string{
	"format":                 {"parquet", "arrow", "arrows", "csv", "jsonl", "tsfile"},
	"time-unit":              {"s", "ms", "us", "ns"},
	"partition-by":           {"table", "device", "day", "month", "hour"},
	"mods-v1":                {"offset", "whole", "auto"},
	"time-format":            {"iso", "epoch"},
	"cast-decimal":           {"double"},
	"log-format":             {"text", "json"},
	"encrypt-header-version": {"3", "2", "1"},
	"encrypt-profile":        {aead.ProfileAESGCM256, aead.ProfileAESGCM128},
}

// commandFlagValues are the values of a flag of one command that differ
// from those of the flag of the same name in flagValues.
var commandFlagValues = map[string]map[string][]string{
	"sql": {"format": {"table", "markdown", "csv", "jsonl", "parquet", "arrow", "arrows"}},
}

// valuesOf returns the values flag name of command cmd completes to, or
// nil when it takes no one of a few.
func valuesOf(cmd, name string) []string {
	if v, ok := commandFlagValues[cmd][name]; ok {
		return v
	}
	return flagValues[name]
}

// tsfileCompressions are the page compressions convert writes TsFiles with.
var tsfileCompressions = []string{"uncompressed", "snappy", "gzip", "lz4", "zstd", "lzma2"}

// fileFlags are the string flags whose value is a path; the other string
// flags complete nothing rather than file names.
var fileFlags = map[string]bool{
	"output": true, "schema-from": true, "kek-file": true, "legacy-master-key-file": true,
	"token-file": true, "tls-cert": true, "tls-key": true, "tls-client-ca": true, "ticket-key-file": true,
	"schema": true, "file": true,
}

func runCompletion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", completionHelp, stderr)
	noDesc := fs.Bool("no-descriptions", false, "offer the words without a description of each")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("completion takes one SHELL: bash, zsh, fish or powershell (got %d arguments)", len(pos))
	}
	root := completionRoot()
	switch pos[0] {
	case "bash":
		return root.GenBashCompletionV2(stdout, !*noDesc)
	case "zsh":
		if *noDesc {
			return root.GenZshCompletionNoDesc(stdout)
		}
		return root.GenZshCompletion(stdout)
	case "fish":
		return root.GenFishCompletion(stdout, !*noDesc)
	case "powershell":
		if *noDesc {
			return root.GenPowerShellCompletion(stdout)
		}
		return root.GenPowerShellCompletionWithDesc(stdout)
	}
	return usagef("unknown shell %q (want bash, zsh, fish or powershell)", pos[0])
}

// runComplete answers the completion script's request (args start with
// cobra.ShellCompRequestCmd) on stdout. It always exits 0: a completion
// that fails offers nothing.
func runComplete(args []string, stdout, stderr io.Writer) int {
	root := completionRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(io.Discard)
	_ = root.Execute()
	return 0
}

// completionRoot builds the cobra command tree that answers completions.
func completionRoot() *cobra.Command {
	root := &cobra.Command{
		Use:               "ts2arrow",
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	noop := func(*cobra.Command, []string) error { return nil }
	for _, c := range commandList() {
		sub := &cobra.Command{Use: c.name, Short: c.short, RunE: noop}
		var fe *flagSetError
		if err := c.run([]string{flagSetOnly}, io.Discard, io.Discard); errors.As(err, &fe) {
			sub.Flags().AddFlagSet(fe.fs)
		}
		switch c.name {
		case "serve", "version":
			sub.ValidArgsFunction = cobra.NoFileCompletions
		case "completion":
			sub.ValidArgs = []string{"bash", "zsh", "fish", "powershell"}
		default:
			// Inputs: files and directories.
			sub.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return nil, cobra.ShellCompDirectiveDefault
			}
		}
		sub.Flags().BoolP("help", "h", false, "print this help")
		sub.Flags().VisitAll(func(f *pflag.Flag) {
			_, f.Usage = pflag.UnquoteUsage(f) // no `NAME` quotes in descriptions
			registerFlagCompletion(sub, f)
		})
		root.AddCommand(sub)
	}
	root.InitDefaultHelpCmd()
	if h, _, err := root.Find([]string{"help"}); err == nil {
		h.Short = "print the help of a command"
	}
	return root
}

// registerFlagCompletion sets what the value of flag f of cmd completes to.
func registerFlagCompletion(cmd *cobra.Command, f *pflag.Flag) {
	if f.NoOptDefVal != "" { // a bool flag takes no value
		return
	}
	var fn cobra.CompletionFunc
	switch name := f.Name; {
	case name == "table":
		fn = completeTables
	case name == "columns":
		fn = completeColumns
	case name == "compression":
		fn = completeCompression
	case name == "root":
		fn = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	case valuesOf(cmd.Name(), name) != nil:
		values := valuesOf(cmd.Name(), name)
		fn = func(_ *cobra.Command, _ []string, word string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return withPrefix(values, word), cobra.ShellCompDirectiveNoFileComp
		}
	case fileFlags[name]:
		return // cobra's default: file names
	default:
		fn = cobra.NoFileCompletions
	}
	_ = cmd.RegisterFlagCompletionFunc(f.Name, fn)
}

// completeCompression offers the compressions of the output format that
// --format, or else the extension of -o, names.
func completeCompression(cmd *cobra.Command, _ []string, word string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if cmd.Name() == "serve" {
		return withPrefix(export.IPCCompressions(), word), cobra.ShellCompDirectiveNoFileComp
	}
	format := ""
	if f := cmd.Flags().Lookup("format"); f != nil {
		format = f.Value.String()
	}
	if f := cmd.Flags().Lookup("output"); format == "" && f != nil {
		format = formatFromExt(f.Value.String())
	}
	var out []string
	switch format {
	case "parquet":
		out = export.ParquetCompressions()
	case "arrow", "arrows":
		out = export.IPCCompressions()
	case "tsfile":
		out = tsfileCompressions
	case "csv", "jsonl":
	default:
		for _, l := range [][]string{export.ParquetCompressions(), export.IPCCompressions(), tsfileCompressions} {
			for _, c := range l {
				if !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return withPrefix(out, word), cobra.ShellCompDirectiveNoFileComp
}

// withPrefix returns the words of list that start with prefix. The shells
// filter too; filtering here keeps the answer short and the same in each.
func withPrefix(list []string, prefix string) []string {
	var out []string
	for _, w := range list {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

// completionBudget bounds the time --table and --columns completion spend
// opening the inputs: a completion that keeps the shell waiting is worse than none.
const completionBudget = time.Second

// completeTables offers the tables of the local TsFiles among the inputs
// already on the command line (files, and the *.tsfile files of a
// directory), read from their metadata only. Anything that fails to open,
// or takes longer than completionBudget, offers nothing.
func completeTables(_ *cobra.Command, args []string, word string) ([]cobra.Completion, cobra.ShellCompDirective) {
	tables := withinBudget(func() []string {
		var out []string
		eachInputFile(args, func(f *tsfile.File) {
			out = append(out, f.Tables()...)
		})
		return out
	})
	return withPrefix(tables, word), cobra.ShellCompDirectiveNoFileComp
}

// completeColumns offers, for a comma-separated --columns list, the
// columns of the table-model table --table names (or of the only table)
// in the inputs on the command line, after the words already in the list.
func completeColumns(cmd *cobra.Command, args []string, word string) ([]cobra.Completion, cobra.ShellCompDirective) {
	table := ""
	if f := cmd.Flags().Lookup("table"); f != nil {
		table = f.Value.String()
	}
	done, last := "", word
	if i := strings.LastIndexByte(word, ','); i >= 0 {
		done, last = word[:i+1], word[i+1:]
	}
	columns := withinBudget(func() []string {
		var out []string
		eachInputFile(args, func(f *tsfile.File) {
			t := table
			if tables := f.Tables(); t == "" && len(tables) == 1 {
				t = tables[0]
			}
			if s, ok := f.SchemaOf(t); ok {
				for _, c := range s.Columns {
					out = append(out, c.Name)
				}
			}
		})
		return out
	})
	have := strings.Split(done, ",")
	var out []string
	for _, c := range withPrefix(columns, last) {
		if !slices.Contains(have, c) {
			out = append(out, done+c)
		}
	}
	// No space after a column: a comma and another may follow.
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// withinBudget returns what list returns, sorted and without duplicates,
// or nothing if it takes longer than completionBudget.
func withinBudget(list func() []string) []string {
	found := make(chan []string, 1)
	go func() { found <- list() }()
	select {
	case l := <-found:
		slices.Sort(l)
		return slices.Compact(l)
	case <-time.After(completionBudget):
		return nil
	}
}

// maxCompletionFiles bounds the files a completion opens.
const maxCompletionFiles = 64

// eachInputFile calls fn with each local TsFile among args (a directory
// gives its *.tsfile files), at most maxCompletionFiles, skipping every
// one that does not open. URLs are not fetched.
func eachInputFile(args []string, fn func(*tsfile.File)) {
	var files []string
	for _, a := range args {
		if isURL(a) || len(files) >= maxCompletionFiles {
			continue
		}
		st, err := os.Stat(a)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			files = append(files, a)
		case st.IsDir():
			errEnough := errors.New("enough")
			_ = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".tsfile") {
					files = append(files, p)
					if len(files) >= maxCompletionFiles {
						return errEnough
					}
				}
				return nil
			})
		}
	}
	for _, name := range files {
		f, err := tsfile.OpenFile(name, &tsfile.ReadOptions{Lenient: true})
		if err != nil {
			continue
		}
		fn(f)
		f.Close()
	}
}
