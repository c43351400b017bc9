package inputs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// touch makes the files (and their folders) under root.
func touch(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(n))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
}

// TestExpand: the files each kind of argument names, in order, each once,
// and which errors are the arguments' (ErrUsage) rather than the file
// system's.
func TestExpand(t *testing.T) {
	root := t.TempDir()
	touch(t, root, "a.tsfile", "d/b.tsfile", "d/x/c.TSFILE", "d/notes.txt", "e/readme", "[odd].tsfile")
	j := func(n string) string { return filepath.Join(root, filepath.FromSlash(n)) }
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{j("d")}, []string{j("d/b.tsfile"), j("d/x/c.TSFILE")}},
		{[]string{j("**/*.tsfile")}, []string{j("[odd].tsfile"), j("a.tsfile"), j("d/b.tsfile")}}, // case-sensitive, as the shell
		{[]string{j("d/*")}, []string{j("d/b.tsfile"), j("d/notes.txt"), j("d/x/c.TSFILE")}},
		{[]string{j("a.tsfile"), j("*.tsfile")}, []string{j("a.tsfile"), j("[odd].tsfile")}},
		{[]string{j("[odd].tsfile")}, []string{j("[odd].tsfile")}},
		{[]string{"https://h/x.tsfile", j("a.tsfile")}, []string{"https://h/x.tsfile", j("a.tsfile")}},
	} {
		got, err := Expand(tc.args)
		require.NoError(t, err, tc.args)
		require.Equal(t, tc.want, got, tc.args)
	}
	for _, tc := range []struct {
		arg   string
		usage bool
	}{
		{j("e"), true},
		{j("*.parquet"), true},
		{j("[a-"), true},
		{j("missing.tsfile"), false},
	} {
		_, err := Expand([]string{tc.arg})
		require.Error(t, err, tc.arg)
		require.Equal(t, tc.usage, errors.Is(err, ErrUsage), "%s: %v", tc.arg, err)
	}
}

// TestLayout: a file in a time partition folder of a data directory, or
// with a mods file beside it, is IoTDB data; one merely below a folder
// named sequence is not.
func TestLayout(t *testing.T) {
	root := t.TempDir()
	touch(t, root,
		"data/sequence/db/1/2820/1-1-0-0.tsfile",
		"plain/sequence/x.tsfile",
		"m/a.tsfile", "m/a.tsfile.mods2",
	)
	j := func(n string) string { return filepath.Join(root, filepath.FromSlash(n)) }
	for _, tc := range []struct {
		files             []string
		inLayout, withMod bool
	}{
		{[]string{j("data/sequence/db/1/2820/1-1-0-0.tsfile")}, true, false},
		{[]string{j("plain/sequence/x.tsfile")}, false, false},
		{[]string{j("m/a.tsfile")}, false, true},
		{[]string{"https://h/data/sequence/db/1/2820/1-1-0-0.tsfile"}, false, false},
	} {
		l, m := Layout(tc.files)
		require.Equal(t, tc.inLayout, l, tc.files)
		require.Equal(t, tc.withMod, m, tc.files)
	}
	require.True(t, IsDataDir(j("data")))
	require.False(t, IsDataDir(j("m")))
}
