package arrowconv

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// upstreamCorpusDir holds the files written by upstream Apache TsFile
// writers, each folder with a manifest.json (testdata/upstream/java/README.md).
const upstreamCorpusDir = "../testdata/upstream"

// corpusFile is the part of a corpus manifest entry the test uses.
type corpusFile struct {
	Path        string `json:"path"`
	Model       string `json:"model"`
	Version     int    `json:"version"`
	ExpectedCSV string `json:"expected_csv"` // tree files
	Tables      []struct {
		Name        string `json:"name"`
		ExpectedCSV string `json:"expected_csv"`
	} `json:"tables"`
	TotalRows int `json:"total_rows"`
	// UpstreamMisreads marks a file whose rows, as upstream's reader
	// returns them, differ from the values its writer was given
	// (WrittenCSV). MisreadKind "writer": the page bodies decode to other
	// values (an upstream writer bug) while the statistics hold the given
	// ones, so an exact reader refuses the file; "reader": the bodies are
	// right and only upstream's decoder gets them wrong, so an exact
	// reader returns the written values.
	UpstreamMisreads bool              `json:"upstream_misreads"`
	MisreadKind      string            `json:"misread_kind"`
	MisreadDetails   map[string]string `json:"misread_details"`
	WrittenCSV       string            `json:"written_csv"`
}

// corpusManifests returns every manifest.json under dir.
func corpusManifests(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "manifest.json" {
			out = append(out, p)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out, "no manifest.json under %s", dir)
	return out
}

// readCorpusTable reads one table (tree: table "") of f with default
// options, verification on. It returns the rows read and their schema, or
// the error that stopped the read.
func readCorpusTable(f *tsfile.File, model, name string) (*table, *arrow.Schema, error) {
	var r *Reader
	var err error
	if model == "table" {
		r, err = NewTableReader(f, name, nil)
	} else {
		r, err = NewTreeReader(f, "", nil)
	}
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	out := &table{header: fieldNames(r.Schema())}
	for r.Next() {
		out.rows = appendRows(out.rows, r.RecordBatch())
	}
	return out, r.Schema(), r.Err()
}

// TestUpstreamCorpus reads every file of the upstream-written corpus with
// default options and requires, cell for cell (floats bit-exact, rows as a
// set keyed by device and time), the rows the upstream Java reader returns
// for it. A file upstream's writer damaged (upstream_misreads) must be
// refused as corrupt instead. A valid file refused is a false alarm; the
// test logs how many.
func TestUpstreamCorpus(t *testing.T) {
	var files, refused int
	var alarms []string
	for _, mpath := range corpusManifests(t, upstreamCorpusDir) {
		dir := filepath.Dir(mpath)
		b, err := os.ReadFile(mpath)
		require.NoError(t, err)
		var m struct {
			Files []corpusFile `json:"files"`
		}
		require.NoError(t, json.Unmarshal(b, &m))
		require.NotEmpty(t, m.Files, mpath)
		for _, cf := range m.Files {
			files++
			name := filepath.Join(filepath.Base(dir), cf.Path)
			t.Run(name, func(t *testing.T) {
				refuse := cf.UpstreamMisreads && cf.MisreadKind == "writer"
				if cf.UpstreamMisreads {
					require.Contains(t, []string{"reader", "writer"}, cf.MisreadKind)
				}
				readErr := readCorpusFile(t, dir, cf, nil)
				if refuse {
					require.Error(t, readErr, "a file upstream's writer damaged (%v) was read without an error", cf.MisreadDetails)
					require.ErrorIs(t, readErr, tsfile.ErrCorrupt)
					return
				}
				if readErr != nil {
					refused++
					alarm := name + ": " + firstLine(readErr)
					// Tell a false alarm of the check from a decoding error.
					if readCorpusFile(t, dir, cf, &tsfile.ReadOptions{NoVerify: true}) == nil {
						alarm += " [reads exactly right with NoVerify]"
					}
					alarms = append(alarms, alarm)
				}
				require.NoError(t, readErr, "refused by default, read by upstream")
			})
		}
	}
	t.Logf("upstream corpus: %d files, %d valid files refused by default (false alarms)", files, refused)
	for _, a := range alarms {
		t.Log("false alarm: " + a)
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// readCorpusFile reads every table of corpus file cf in dir with opts and
// requires the rows it should hold: upstream's (expected_csv), or for a
// file only upstream's reader misreads the written ones (written_csv). It
// returns the error that stopped a read; a file upstream's writer damaged
// is only read, its rows not compared.
func readCorpusFile(t *testing.T, dir string, cf corpusFile, opts *tsfile.ReadOptions) error {
	t.Helper()
	f, err := tsfile.OpenFile(filepath.Join(dir, cf.Path), opts)
	if err != nil {
		return err
	}
	defer f.Close()
	type want struct{ table, csv string }
	var wants []want
	switch {
	case cf.UpstreamMisreads && cf.MisreadKind == "reader":
		require.Equal(t, "tree", cf.Model)
		wants = append(wants, want{"", cf.WrittenCSV})
	case cf.Model == "table":
		require.NotEmpty(t, cf.Tables)
		for _, tb := range cf.Tables {
			wants = append(wants, want{tb.Name, tb.ExpectedCSV})
		}
	default:
		require.Equal(t, "tree", cf.Model)
		wants = append(wants, want{"", cf.ExpectedCSV})
	}
	var readErr error
	rows := 0
	for _, w := range wants {
		got, schema, err := readCorpusTable(f, cf.Model, w.table)
		if err != nil {
			readErr = errors.Join(readErr, err)
			continue
		}
		rows += len(got.rows)
		if cf.UpstreamMisreads && cf.MisreadKind == "writer" {
			continue
		}
		exp := readGzipCSVByName(t, filepath.Join(dir, w.csv), schema)
		key := []int{1, 0} // device, time
		if cf.Model == "table" {
			key = tagsAndTime(schema)
		}
		requireSameSet(t, exp, got, key)
	}
	if readErr == nil && !cf.UpstreamMisreads {
		require.Equal(t, cf.TotalRows, rows)
	}
	return readErr
}

// tagsAndTime returns the indexes of a table schema's TAG columns and of
// its time column: what identifies a row.
func tagsAndTime(s *arrow.Schema) []int {
	var key []int
	for i, f := range s.Fields() {
		if cat, _ := f.Metadata.GetValue(MetaCategory); cat == "TAG" {
			key = append(key, i)
		}
	}
	return append(key, 0)
}
