package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionHelp = `Usage: ts2arrow version

Prints the version of ts2arrow, the Go release that built it and the
commit it was built from ("modified" when the checkout had uncommitted
changes). Quote it in bug reports.

The version is the module version go install records, or, for a build in
a git checkout, a pseudo-version naming the commit; "(devel)" means a
build from a source tree the go command could not stamp, such as one built
with -buildvcs=false or outside git, and "(unknown commit)" that the build
recorded no commit.

Examples:
  ts2arrow version
  ts2arrow --version

Exit status: 0, or 2 on a usage error.

Options:
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
	_, err = io.WriteString(stdout, versionText(buildInfo()))
	return err
}

// buildInfo is the binary's build information, nil if it has none.
func buildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// versionText renders what the binary knows about its build. It takes
// the build info as an argument so that tests can give it any.
//
// Every line is always there, with a stated unknown rather than a
// made-up value: a bare "devel" read as a release name in bug reports.
func versionText(bi *debug.BuildInfo) string {
	version, goVersion := "(unknown version)", runtime.Version()
	var rev, when string
	modified := false
	if bi != nil {
		// go install pkg@v records the module version; a build in a git
		// checkout records a pseudo-version naming the commit; a build
		// the go command could not stamp reports "(devel)", kept as is.
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		rev, when, modified = vcsSettings(bi)
	}
	switch {
	case rev == "":
		rev = "(unknown commit)"
	case modified:
		rev += " (modified)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ts2arrow %s\n", version)
	fmt.Fprintf(&b, "go:         %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "revision:   %s\n", rev)
	if when != "" {
		fmt.Fprintf(&b, "committed:  %s\n", when)
	}
	return b.String()
}

// vcsSettings are the commit a build came from, its time and whether the
// checkout had changes, as the go command stamped them ("" and false when
// it did not).
func vcsSettings(bi *debug.BuildInfo) (rev, when string, modified bool) {
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
	return rev, when, modified
}
