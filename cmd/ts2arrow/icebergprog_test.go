package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNeedsIceberg(t *testing.T) {
	if icebergBuilt {
		require.False(t, needsIceberg([]string{"sync", "x"}), "the Iceberg build runs sync itself")
		return
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"sync", "in", "--table", "t"}, true},
		{[]string{"sync"}, true}, // its usage error comes from ts2arrow-iceberg
		{[]string{"sync", "--help"}, false},
		{[]string{"sync", "-h"}, false},
		{[]string{"sync", "--", "--help"}, true}, // an INPUT named --help
		{[]string{"convert", "iceberg:sqlite:c.db#a.b", "-o", "x.csv"}, true},
		{[]string{"convert", "iceberg:sqlite:c.db#a.b", "--help"}, false},
		{[]string{"head", "iceberg:sqlite:c.db#a.b"}, true},
		{[]string{"schema", "iceberg:sqlite:c.db#a.b"}, true},
		{[]string{"sql", "iceberg:sqlite:c.db#a.b", "-c", "SELECT 1"}, true},
		{[]string{"convert", "data.tsfile", "-o", "x.csv"}, false},
		{[]string{"convert", "Iceberg:x"}, false}, // the prefix is lower case, as icescan's
		{[]string{"inspect", "iceberg:x"}, false}, // inspect reads TsFiles; it says so itself
		{[]string{"serve", "iceberg:x"}, false},
		{[]string{"sql", "-c", "SELECT 'iceberg:x'"}, false},
		{nil, false},
	} {
		require.Equal(t, tc.want, needsIceberg(tc.args), "%q", tc.args)
	}
}

// fakeIceberg writes a shell script to stand for ts2arrow-iceberg: it
// prints its arguments and what it reads on standard input, writes to
// standard error and exits with status $FAKE_EXIT (or kills itself with
// $FAKE_SIGNAL).
func fakeIceberg(t *testing.T) string {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	p := filepath.Join(t.TempDir(), icebergProgram)
	require.NoError(t, os.WriteFile(p, []byte(`#!/bin/sh
echo "args: $*"
echo "stdin: $(cat)"
echo "build stamp passed: ${TS2ARROW_CALLER_BUILD+yes}"
echo "to stderr" >&2
[ -n "$FAKE_SIGNAL" ] && kill -"$FAKE_SIGNAL" $$
exit "${FAKE_EXIT:-0}"
`), 0o755))
	return p
}

// TestRunIcebergChild: in-process (and where execve is missing) ts2arrow
// runs ts2arrow-iceberg as a child: the same arguments, its standard
// streams, and its exit status, 128+N when a signal N ended it.
func TestRunIcebergChild(t *testing.T) {
	t.Setenv(icebergProgramEnv, fakeIceberg(t))
	stdin, err := os.CreateTemp(t.TempDir(), "stdin")
	require.NoError(t, err)
	_, err = stdin.WriteString("SELECT 1;\n")
	require.NoError(t, err)
	_, err = stdin.Seek(0, 0)
	require.NoError(t, err)
	old := os.Stdin
	os.Stdin = stdin
	defer func() { os.Stdin = old }()

	for _, tc := range []struct {
		env  []string
		code int
	}{{nil, 0}, {[]string{"FAKE_EXIT=2"}, 2}, {[]string{"FAKE_SIGNAL=TERM"}, 143}} {
		for _, kv := range []string{"FAKE_EXIT", "FAKE_SIGNAL"} {
			t.Setenv(kv, "")
		}
		for _, kv := range tc.env {
			k, v, _ := strings.Cut(kv, "=")
			t.Setenv(k, v)
		}
		_, err = stdin.Seek(0, 0)
		require.NoError(t, err)
		var o, e bytes.Buffer
		code := runIceberg([]string{"sql", "iceberg:sqlite:c.db#a.b", "--some flag"}, &o, &e)
		require.Equal(t, tc.code, code, "%v: %s", tc.env, e.String())
		require.Equal(t, "args: sql iceberg:sqlite:c.db#a.b --some flag\nstdin: SELECT 1;\nbuild stamp passed: yes\n", o.String())
		require.Equal(t, "to stderr\n", e.String())
	}

	t.Setenv(icebergProgramEnv, filepath.Join(t.TempDir(), "missing"))
	var o, e bytes.Buffer
	require.Equal(t, 1, runIceberg([]string{"sync", "x"}, &o, &e))
	require.Regexp(t, `^ts2arrow: sync runs in ts2arrow-iceberg, ts2arrow built with -tags iceberg: TS2ARROW_ICEBERG=\S+ is not an executable file\n$`, e.String())
}

// TestBinaryIcebergMissing: the ts2arrow binary, alone in a directory and
// with no ts2arrow-iceberg on PATH, says in one line what to build for
// sync and for an iceberg: input; its help needs nothing.
func TestBinaryIcebergMissing(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, filepath.Base(binary(t)))
	b, err := os.ReadFile(binary(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(alone, b, 0o755))
	env := []string{"PATH=" + t.TempDir(), icebergProgramEnv + "="}
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(alone, args...)
		cmd.Env = append(os.Environ(), env...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, o.String(), e.String()
	}
	for _, args := range [][]string{
		{"sync", "testdata/iotdb", "--table", "weather", "--catalog", "sqlite:c.db", "--warehouse", "lake", "--to", "a.b"},
		{"convert", "iceberg:sqlite:c.db#a.b", "-o", filepath.Join(dir, "x.csv")},
	} {
		code, out, errOut := run(args...)
		require.Equal(t, 1, code, errOut)
		require.Empty(t, out)
		require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
		require.Contains(t, errOut, "runs in ts2arrow-iceberg, ts2arrow built with -tags iceberg: it is neither beside ts2arrow ("+dir+") nor on PATH: build it with go build -tags duckdb_arrow,iceberg -o "+filepath.Join(dir, "ts2arrow-iceberg")+" ./cmd/ts2arrow")
		require.NoFileExists(t, filepath.Join(dir, "x.csv"))
	}
	code, out, errOut := run("sync", "--help")
	require.Equal(t, 0, code, errOut)
	require.True(t, strings.HasPrefix(out, "Usage: ts2arrow sync INPUT..."), out)
}

func TestBuildSkew(t *testing.T) {
	bi := func(version string, kv ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{Main: debug.Module{Version: version}}
		for i := 0; i+1 < len(kv); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return b
	}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, ""},
		{bi("(devel)"), ""},
		{bi("(devel)", "vcs.revision", "abc", "vcs.modified", "false"), " abc"},
		{bi("(devel)", "vcs.revision", "abc", "vcs.modified", "true"), " abc+modified"},
		{bi("v1.2.3"), "v1.2.3 "},
		{bi("v0.0.0-2026-abc", "vcs.revision", "abc"), "v0.0.0-2026-abc abc"},
	} {
		require.Equal(t, tc.want, buildStamp(tc.bi))
	}
	require.Empty(t, buildSkew("", " abc"))
	require.Empty(t, buildSkew(" abc", ""))
	require.Empty(t, buildSkew(" abc", " abc"))
	require.Equal(t, "ts2arrow-iceberg was built from abc+modified, but the ts2arrow that ran it from abc: build both from the same sources (README, Install)",
		buildSkew(" abc", " abc+modified"))
}

// TestBinaryBuildSkew: ts2arrow-iceberg, started by a ts2arrow of another
// build (as the environment variable says), warns on standard error and
// goes on; started by its own ts2arrow it says nothing.
func TestBinaryBuildSkew(t *testing.T) {
	if !icebergBuilt {
		t.Skip("the tests are built without ts2arrow-iceberg (test with -tags iceberg)")
	}
	helper := filepath.Join(binDir(t), icebergProgram)
	out, err := exec.Command(helper, "version").Output()
	require.NoError(t, err)
	if strings.Contains(string(out), "(unknown commit)") {
		t.Skip("built without a VCS stamp: no build to compare")
	}
	cmd := exec.Command(helper, "version")
	cmd.Env = append(os.Environ(), icebergBuildEnv+"=v9.9.9 0000000000000000000000000000000000000000")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Run())
	require.Regexp(t, `^ts2arrow: warning: ts2arrow-iceberg was built from \S.*, but the ts2arrow that ran it from v9\.9\.9 0{40}: build both from the same sources \(README, Install\)\n$`, e.String())
	require.Equal(t, string(out), o.String())

	r := runBin(t, "convert", "iceberg:sqlite:"+filepath.Join(t.TempDir(), "none.db")+"#a.b", "-o", filepath.Join(t.TempDir(), "x.csv"))
	require.NotContains(t, r.stderr, "warning", "ts2arrow and its own ts2arrow-iceberg")
}
