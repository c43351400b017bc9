// Package icetest reads an Apache Iceberg table back for tests without
// iceberg-go, the library that writes it (issue 41): the metadata JSON,
// manifest list and manifests through interop/iceberg/readback.py (Apache
// Avro for Python, Debian's python3-avro), and the rows of the live data
// files through DuckDB's read_parquet (Rows, in builds with cgo and the
// duckdb_arrow tag). A sync test compares what it gets here with convert's
// rows for the same inputs, so that the table is not checked by the code
// that wrote it.
//
// A missing Python with Avro skips the test, or fails it under CI=true
// (internal/testkit/need): .ci/run installs python3-avro.
package icetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tsarrow/tsarrow/internal/testkit/need"
)

// Table is what readback.py reports of a table's current snapshot.
type Table struct {
	Metadata      string            `json:"metadata"` // the metadata JSON read
	FormatVersion int               `json:"format_version"`
	TableUUID     string            `json:"table_uuid"`
	Location      string            `json:"location"`
	Properties    map[string]string `json:"properties"`
	Schema        json.RawMessage   `json:"schema"`
	PartitionSpec json.RawMessage   `json:"partition_spec"`
	Snapshot      *Snapshot         `json:"snapshot"` // nil for a table with no snapshot
	Snapshots     int               `json:"snapshots"`
	Manifests     []Manifest        `json:"manifests"`
	DataFiles     []DataFile        `json:"data_files"` // the live ones, by path
	RecordCount   int64             `json:"record_count"`
}

// Snapshot is the table's current snapshot.
type Snapshot struct {
	ID             int64             `json:"snapshot-id"`
	ParentID       *int64            `json:"parent-snapshot-id"`
	SequenceNumber int64             `json:"sequence-number"`
	TimestampMs    int64             `json:"timestamp-ms"`
	Summary        map[string]string `json:"summary"`
	ManifestList   string            `json:"manifest-list"`
}

// Manifest is one manifest of the current snapshot's manifest list.
type Manifest struct {
	Path            string `json:"path"`
	Content         int    `json:"content"` // 0 data, 1 deletes
	AddedSnapshotID int64  `json:"added_snapshot_id"`
	PartitionSpecID int    `json:"partition_spec_id"`
	Entries         int    `json:"entries"`
	Live            int    `json:"live"` // entries not DELETED
}

// DataFile is one live data file.
type DataFile struct {
	Path        string          `json:"path"`       // as the manifest records it
	LocalPath   string          `json:"local_path"` // where it was read
	Format      string          `json:"format"`
	RecordCount int64           `json:"record_count"`
	Size        int64           `json:"file_size_in_bytes"`
	Partition   json.RawMessage `json:"partition"`
	Status      int             `json:"status"` // 0 EXISTING, 1 ADDED
	SnapshotID  *int64          `json:"snapshot_id"`
}

// ErrInconsistent marks a table that readback.py found contradicting
// itself or its files (exit status 1); its message is the script's.
var ErrInconsistent = errors.New("inconsistent Iceberg table")

// Options are readback.py's: where the table is and how to find its files.
type Options struct {
	// Rebase maps a location prefix to another (a table copied or moved):
	// readback.py --rebase FROM=TO, in order.
	Rebase [][2]string
	// SQLite and Table look the metadata location up in an Iceberg SQL
	// catalog on SQLite (its iceberg_tables) instead of taking a path.
	SQLite, Table string
}

// ReadBack runs readback.py on the table whose metadata JSON is metadata
// (or, with opts.SQLite, the table opts.Table of that catalog) and returns
// what it reports, failing t when the script cannot run or the table is
// inconsistent.
func ReadBack(t testing.TB, metadata string, opts Options) *Table {
	t.Helper()
	tbl, err := Read(t, metadata, opts)
	if err != nil {
		t.Fatalf("icetest: %v", err)
	}
	return tbl
}

// Read is ReadBack returning the error: ErrInconsistent wrapped with the
// script's message for a table the script refuses, for tests that break a
// table on purpose.
func Read(t testing.TB, metadata string, opts Options) (*Table, error) {
	t.Helper()
	py := python(t)
	args := []string{script(t)}
	if metadata != "" {
		args = append(args, metadata)
	}
	if opts.SQLite != "" {
		args = append(args, "--sqlite", opts.SQLite, "--table", opts.Table)
	}
	for _, r := range opts.Rebase {
		args = append(args, "--rebase", r[0]+"="+r[1])
	}
	cmd := exec.Command(py, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return nil, fmt.Errorf("%w: %s", ErrInconsistent, bytes.TrimSpace(stderr.Bytes()))
	case err != nil:
		return nil, fmt.Errorf("%s %v: %v: %s", py, args, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var tbl Table
	if err := json.Unmarshal(stdout.Bytes(), &tbl); err != nil {
		return nil, fmt.Errorf("readback.py output: %v", err)
	}
	return &tbl, nil
}

var (
	pyOnce sync.Once
	pyPath string
	pyWhy  string
)

// python returns a Python 3 that imports avro: $TSARROW_PYTHON, else
// /usr/bin/python3 (Debian's, which python3-avro installs for), else
// python3 on PATH. It skips t when none does.
func python(t testing.TB) string {
	t.Helper()
	pyOnce.Do(func() {
		cands := []string{"/usr/bin/python3", "python3"}
		if p := os.Getenv("TSARROW_PYTHON"); p != "" {
			cands = []string{p}
		}
		for _, c := range cands {
			p, err := exec.LookPath(c)
			if err != nil {
				continue
			}
			if exec.Command(p, "-c", "import avro.datafile").Run() == nil {
				pyPath = p
				return
			}
		}
		pyWhy = fmt.Sprintf("no Python 3 with Apache Avro among %v; apt-get install python3-avro", cands)
	})
	if pyPath == "" {
		need.Skipf(t, "icetest: %s", pyWhy)
	}
	return pyPath
}

// script returns the path of interop/iceberg/readback.py, found from the
// test's directory up to the module root.
func script(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "interop", "iceberg", "readback.py")
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("icetest: %v", err)
			}
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatalf("icetest: no go.mod above %s", dir)
		}
		dir = up
	}
}
