package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/internal/testkit"
)

// readAllWith reads every table of the dataset under roots as text: each
// row cell by cell under a "# table" line, the read's counts (rows out,
// deleted, cells deleted, overwritten) after it, then the warnings, the
// file versions and the layout (each file's place and companions) with
// their paths relative to base.
func readAllWith(t *testing.T, roots []string, o *Options, base string) string {
	t.Helper()
	ds, err := Open(roots, o)
	require.NoError(t, err)
	defer ds.Close()
	tables, err := ds.Tables()
	require.NoError(t, err)
	var b strings.Builder
	for _, tb := range tables {
		st := writeTableRows(t, &b, ds, tb.Ref)
		fmt.Fprintf(&b, "# rows %d, deleted %d, cells deleted %d, overwritten %d, files read %d\n", st.RowsOut, st.RowsDeleted, st.CellsDeleted, st.RowsOverwritten, st.FilesRead)
	}
	rel := func(p string) string {
		p = filepath.ToSlash(p)
		if base != "" {
			p = strings.ReplaceAll(p, base+"/", "")
		}
		return p
	}
	for _, w := range ds.Warnings() {
		fmt.Fprintf(&b, "warning: %s\n", rel(w))
	}
	for _, v := range ds.Versions() {
		fmt.Fprintf(&b, "version: %s %d\n", rel(v.Path), v.Size)
	}
	for _, f := range ds.Layout().Files {
		fmt.Fprintf(&b, "file: %s %s %q %q %q resource=%t mods=%t mods2=%t\n", rel(f.Path), f.Space, f.Database, f.Region, f.Partition, f.Resource != "", f.ModsV1 != "", f.ModsV2 != "")
	}
	for _, sk := range ds.Layout().Skipped {
		fmt.Fprintf(&b, "skipped: %s: %s\n", rel(sk.Path), sk.Reason)
	}
	return b.String()
}

// TestFSReadsAsLocal: the sample data directory read through an io/fs
// file system (os.DirFS, and a MapFS that shares nothing with the disk)
// gives the rows the local read gives, cell for cell, with the same
// deletions and overwrites counted, the same warnings and skipped files,
// and the same file versions; whichever folder of it is the root.
func TestFSReadsAsLocal(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(sampleDir, "..", "golden", "iotdb-sample.txt"))
	require.NoError(t, err)
	local := readAllWith(t, []string{sampleDir}, nil, sampleDir)
	// The local read itself is the golden one (deletions applied,
	// unsequence corrections winning), so the comparisons below compare
	// against rows checked by hand.
	for _, line := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		if !strings.HasPrefix(line, "# rows") {
			require.Contains(t, local, line+"\n")
		}
	}
	require.Contains(t, local, "overwritten 6")
	require.Contains(t, local, "cells deleted 48")

	mapped := testkit.MapFS(t, sampleDir)
	nested := fstest.MapFS{}
	for k, v := range mapped {
		nested["data/iotdb/"+k] = v
	}
	cases := []struct {
		name  string
		fsys  fs.FS
		roots []string
		local []string // the same roots on disk
		base  string   // what the local paths have before the FS's names
	}{
		{"dirfs root", os.DirFS(sampleDir), []string{"."}, []string{sampleDir}, sampleDir},
		{"dirfs above", os.DirFS(filepath.Dir(sampleDir)), []string{"iotdb"}, []string{sampleDir}, filepath.ToSlash(filepath.Dir(sampleDir))},
		{"dirfs trailing slash", os.DirFS(filepath.Dir(sampleDir)), []string{"iotdb/"}, []string{sampleDir}, filepath.ToSlash(filepath.Dir(sampleDir))},
		{"mapfs root", mapped, []string{"."}, []string{sampleDir}, sampleDir},
		{"mapfs nested", nested, []string{"data/iotdb"}, []string{sampleDir}, filepath.ToSlash(filepath.Dir(filepath.Dir(sampleDir)))},
		{"mapfs space folder", mapped, []string{"sequence"}, []string{filepath.Join(sampleDir, "sequence")}, sampleDir},
		{"mapfs region folder", mapped, []string{"sequence/weather/1", "unsequence/weather/1"},
			[]string{filepath.Join(sampleDir, "sequence/weather/1"), filepath.Join(sampleDir, "unsequence/weather/1")}, sampleDir},
		{"mapfs one file", mapped, []string{"sequence/weather/1/0/1767268800000-2-0-0.tsfile"},
			[]string{filepath.Join(sampleDir, "sequence/weather/1/0/1767268800000-2-0-0.tsfile")}, sampleDir},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := readAllWith(t, c.local, nil, c.base)
			if c.name == "mapfs nested" {
				// The local paths are ../testdata/iotdb/..., the FS's
				// data/iotdb/...
				want = strings.ReplaceAll(want, "testdata/iotdb/", "data/iotdb/")
			}
			got := readAllWith(t, c.roots, &Options{FS: c.fsys}, "")
			require.Equal(t, want, got)
			require.Contains(t, got, "# weather\n")
		})
	}
}

// TestFSChangedFile: a data file that changes in the FS after the open
// (its size or modification time) fails the read with ErrChanged, as on
// disk; one that vanishes does too.
func TestFSChangedFile(t *testing.T) {
	const unseq = "unsequence/weather/1/0/1767236400000-3-0-0.tsfile"
	for _, change := range []string{"modtime", "size", "gone"} {
		t.Run(change, func(t *testing.T) {
			m := testkit.MapFS(t, sampleDir)
			ds, err := Open([]string{"."}, &Options{FS: m})
			require.NoError(t, err)
			defer ds.Close()
			f := *m[unseq]
			switch change {
			case "modtime":
				f.ModTime = f.ModTime.Add(time.Second)
				m[unseq] = &f
			case "size":
				f.Data = append(append([]byte(nil), f.Data...), 0)
				m[unseq] = &f
			case "gone":
				delete(m, unseq)
			}
			rd, err := ds.NewReader("weather", nil)
			if err == nil {
				for rd.Next() {
				}
				err = rd.Err()
				rd.Release()
			}
			require.ErrorIs(t, err, ErrChanged)
		})
	}
}

// noReaderAt is an FS whose files can only be read from the start.
type noReaderAt struct{ fs.FS }

func (n noReaderAt) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(n.FS, name) }

type streamOnly struct{ f fs.File }

func (s streamOnly) Stat() (fs.FileInfo, error) { return s.f.Stat() }
func (s streamOnly) Read(p []byte) (int, error) { return s.f.Read(p) }
func (s streamOnly) Close() error               { return s.f.Close() }

func (n noReaderAt) Open(name string) (fs.File, error) {
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return streamOnly{f}, nil
}

// TestFSRefused: roots an FS cannot name, and files it cannot read at
// offsets, fail with an error saying so.
func TestFSRefused(t *testing.T) {
	m := testkit.MapFS(t, sampleDir)
	for _, root := range []string{"/sequence", "../iotdb", ""} {
		_, err := Open([]string{root}, &Options{FS: m})
		require.ErrorIs(t, err, fs.ErrInvalid, "root %q", root)
	}
	_, err := Open([]string{"nothing"}, &Options{FS: m})
	require.ErrorIs(t, err, fs.ErrNotExist)

	_, err = Open([]string{"."}, &Options{FS: noReaderAt{m}})
	require.ErrorIs(t, err, ErrNoReaderAt)
	require.False(t, errors.Is(err, io.EOF))
}
