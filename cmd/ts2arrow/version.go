package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionHelp = `Usage: ts2arrow version

Prints the version of ts2arrow, the Go release that built it and, for a
build from a source checkout, the commit it was built from ("modified"
when the checkout had uncommitted changes). Quote it in bug reports.

Examples:
  ts2arrow version
  ts2arrow --version
`

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", versionHelp, stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("version takes no arguments (got %d)", len(pos))
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	_, err = io.WriteString(stdout, versionText(bi))
	return err
}

// versionText renders what the binary knows about its build. It takes
// the build info as an argument so that tests can give it any.
func versionText(bi *debug.BuildInfo) string {
	version, goVersion := "devel", runtime.Version()
	var rev, when string
	modified := false
	if bi != nil {
		// "(devel)" is what a build from a checkout without VCS
		// stamping reports; a module version comes from go install.
		if v := strings.Trim(bi.Main.Version, "()"); v != "" {
			version = v
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ts2arrow %s\n", version)
	fmt.Fprintf(&b, "go:         %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	if rev != "" {
		if modified {
			rev += " (modified)"
		}
		fmt.Fprintf(&b, "revision:   %s\n", rev)
		if when != "" {
			fmt.Fprintf(&b, "committed:  %s\n", when)
		}
	}
	return b.String()
}
