package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionText(t *testing.T) {
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		// A binary without build information (built outside module mode).
		{"no build info", nil, "ts2arrow (unknown version)\ngo:         " + runtime.Version() + platform +
			"revision:   (unknown commit)\n"},
		{"empty main version", &debug.BuildInfo{GoVersion: "go1.26.0"},
			"ts2arrow (unknown version)\ngo:         go1.26.0" + platform + "revision:   (unknown commit)\n"},
		// go build with -buildvcs=false, or in a tree that is not a git
		// checkout: the go command says (devel) and records no commit.
		{"unstamped checkout", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"ts2arrow (devel)\ngo:         go1.26.0" + platform + "revision:   (unknown commit)\n"},
		{"go install", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"}},
			"ts2arrow v1.4.0\ngo:         go1.26.0" + platform + "revision:   (unknown commit)\n"},
		{"vcs stamped", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20250301120000-0123456789ab"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2025-03-01T12:00:00Z"},
			{Key: "vcs.modified", Value: "false"},
		}}, "ts2arrow v0.0.0-20250301120000-0123456789ab\ngo:         go1.26.0" + platform +
			"revision:   0123456789abcdef0123456789abcdef01234567\ncommitted:  2025-03-01T12:00:00Z\n"},
		{"modified checkout", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20250301120000-abc123+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.modified", Value: "true"},
		}}, "ts2arrow v0.0.0-20250301120000-abc123+dirty\ngo:         go1.26.0" + platform + "revision:   abc123 (modified)\n"},
		// vcs.modified without a revision says nothing about a commit.
		{"modified without revision", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.modified", Value: "true"},
		}}, "ts2arrow (devel)\ngo:         go1.26.0" + platform + "revision:   (unknown commit)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, versionText(tc.bi))
		})
	}
}

func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, stderr := runCLI(args...)
		require.Equal(t, 0, code, stderr)
		require.Empty(t, stderr)
		require.True(t, strings.HasPrefix(out, "ts2arrow "), out)
		require.Contains(t, out, "\ngo:         go")
		require.Contains(t, out, "\nrevision:   ")
		require.NotContains(t, out, "ts2arrow devel\n")
	}
	code, out, stderr := runCLI("version", "extra")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Equal(t, "ts2arrow: version takes no arguments (got 1)\n", stderr)

	code, out, stderr = runCLI("version", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out+stderr, "Usage: ts2arrow version")
	require.Contains(t, out+stderr, "Examples:")

	// The top-level usage lists every verb.
	code, out, _ = runCLI("help")
	require.Equal(t, 0, code)
	for _, verb := range []string{"inspect FILE...", "schema  FILE", "head    FILE", "convert INPUT...", "recover BROKEN", "version"} {
		require.Contains(t, out, "ts2arrow "+verb)
	}
}
