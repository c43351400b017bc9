package main

// ts2arrow and ts2arrow-iceberg. The Iceberg work (sync, iceberg: inputs)
// goes through iceberg-go, whose table package sets up Substrait's
// function catalogue when the program starts: some 32 MB allocated and
// 100 ms before main, whatever the command. So that inspect, convert,
// serve and the rest do not pay that, ts2arrow is built without it and
// runs ts2arrow-iceberg, the same program built with -tags iceberg, for
// the commands that need it:
//
//	go build -o bin/ ./cmd/ts2arrow
//	go build -tags iceberg -o bin/ts2arrow-iceberg ./cmd/ts2arrow
//
// (with -tags duckdb_arrow,iceberg for sql over an Iceberg table). On
// Unix, ts2arrow replaces itself with ts2arrow-iceberg (execve): the same
// process, so signals, exit status and a kill -9 reach the sync as if
// ts2arrow ran it. A ts2arrow built with -tags iceberg does it all itself.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/tsarrow/tsarrow/iceref"
)

// icebergProgram is the name of the program built with -tags iceberg.
const icebergProgram = "ts2arrow-iceberg"

// icebergProgramEnv names the ts2arrow-iceberg to run, when it is neither
// beside ts2arrow nor on PATH.
const icebergProgramEnv = "TS2ARROW_ICEBERG"

// needsIceberg reports whether a command line needs the Iceberg build:
// sync, or an iceberg: input of convert, head, schema or sql. Asking for
// help does not: every ts2arrow has the help text.
func needsIceberg(args []string) bool {
	if icebergBuilt || len(args) == 0 || asksHelp(args[1:]) {
		return false
	}
	switch args[0] {
	case "sync":
		return true
	case "convert", "head", "schema", "sql":
		return slices.ContainsFunc(args[1:], iceref.IsInput)
	}
	return false
}

// noIcebergProgram is the error when ts2arrow-iceberg is nowhere to be
// found; dir is ts2arrow's own directory, where it belongs.
type noIcebergProgram struct{ dir string }

func (e *noIcebergProgram) Error() string {
	where, out := "", icebergProgram
	if e.dir != "" {
		where = " (" + e.dir + ")"
		out = filepath.Join(e.dir, icebergProgram)
	}
	return fmt.Sprintf("it is neither beside ts2arrow%s nor on PATH: "+
		"build it with go build -tags duckdb_arrow,iceberg -o %s ./cmd/ts2arrow in tsarrow's source, or set %s to its path",
		where, out, icebergProgramEnv)
}

// findIcebergProgram finds ts2arrow-iceberg: $TS2ARROW_ICEBERG, beside
// this program, or on PATH.
func findIcebergProgram() (string, error) {
	if p := os.Getenv(icebergProgramEnv); p != "" {
		if !isExecutable(p) {
			return "", fmt.Errorf("%s=%s is not an executable file", icebergProgramEnv, p)
		}
		return p, nil
	}
	name := icebergProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var dir string
	if self, err := os.Executable(); err == nil {
		dir = filepath.Dir(self)
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", &noIcebergProgram{dir}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0)
}

// icebergMissing is the one-line error when ts2arrow-iceberg cannot be
// run.
func icebergMissing(cmd string, err error) error {
	what := "an Iceberg input"
	if cmd == "sync" {
		what = "sync"
	}
	return fmt.Errorf("%s runs in %s, ts2arrow built with -tags iceberg: %w", what, icebergProgram, err)
}

// execIceberg replaces this process with ts2arrow-iceberg running the
// same command line, where the system can (Unix); it returns only when it
// could not.
func execIceberg(args []string) error {
	p, err := findIcebergProgram()
	if err != nil {
		return icebergMissing(args[0], err)
	}
	return replaceProcess(p, append([]string{os.Args[0]}, args...), icebergEnv())
}

// runIceberg runs ts2arrow-iceberg as a child with the command line args
// and this process's standard input, stdout and stderr as its own,
// forwarding SIGINT and SIGTERM to it, and returns its exit status: what
// main does where it cannot replace itself, and what run does when called
// in-process (by tests).
func runIceberg(args []string, stdout, stderr io.Writer) int {
	p, err := findIcebergProgram()
	if err != nil {
		return report(icebergMissing(args[0], err), stderr)
	}
	cmd := exec.Command(p, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = icebergEnv()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return report(fmt.Errorf("%s: %w", icebergProgram, err), stderr)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				// A Ctrl-C at a terminal reaches the child too (it is in
				// the foreground process group); a signal sent to this
				// process alone is passed on, so the child cleans up.
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return report(fmt.Errorf("%s: %w", icebergProgram, err), stderr)
}

// icebergHelp documents the Iceberg input in the help of convert, head,
// schema and sql.
const icebergHelp = `An Iceberg table (one "ts2arrow sync" keeps) is an INPUT too, spelled
iceberg:CATALOG#NAMESPACE.TABLE with the catalog as sync's --catalog takes
it: iceberg:sqlite:cat.db#iot.weather. It is read alone, through
iceberg-go's scan: --start/--end and --where TAG=VALUE go into the scan,
so day partitions and data files whose statistics exclude them are never
read. Rows come file by file (a day a file for a table sync wrote), in the
order of the files' first times. The table holds instants (microseconds):
--time-unit is the unit they are given in, and of --start/--end integers
(ms by default, as from TsFile; a value with finer digits fails rather
than being cut: pass --time-unit us).
`

// icebergInput reports whether any argument names an Iceberg table.
func icebergInput(args []string) bool { return slices.ContainsFunc(args, iceref.IsInput) }

// icebergBuildEnv carries ts2arrow's build stamp to ts2arrow-iceberg, which
// warns when it was built from other sources: after an update of one of
// the two programs, a sync would otherwise run last month's code without
// a word.
const icebergBuildEnv = "TS2ARROW_CALLER_BUILD"

// buildStamp names the sources a build came from: the module version and
// the commit (with "+modified" for a checkout with changes), "" when the
// build has neither.
func buildStamp(bi *debug.BuildInfo) string {
	if bi == nil {
		return ""
	}
	rev, _, modified := vcsSettings(bi)
	version := bi.Main.Version
	if version == "(devel)" {
		version = ""
	}
	if rev == "" && version == "" {
		return ""
	}
	stamp := version + " " + rev
	if modified {
		stamp += "+modified"
	}
	return stamp
}

// icebergEnv is the environment ts2arrow-iceberg runs with: this one, and
// ts2arrow's build stamp.
func icebergEnv() []string {
	return append(os.Environ(), icebergBuildEnv+"="+buildStamp(buildInfo()))
}

// buildSkew is the warning ts2arrow-iceberg prints when ts2arrow, which ran
// it, was built from other sources ("" when they agree, or when either
// build cannot tell).
func buildSkew(caller, own string) string {
	if caller == "" || own == "" || caller == own {
		return ""
	}
	return fmt.Sprintf("%s was built from %s, but the ts2arrow that ran it from %s: build both from the same sources (README, Install)",
		icebergProgram, strings.TrimSpace(own), strings.TrimSpace(caller))
}
