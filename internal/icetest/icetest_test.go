package icetest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

// fixtureLoc is where the table of testdata/weather was written (see
// testdata/README.md).
const fixtureLoc = "file:///tmp/tsarrow-iceberg-fixture/lake/iot.db/weather"

const fixtureMeta = "metadata/00003-3714fac0-1e62-4c3f-b165-b8a29308c925.metadata.json"

// copyFixture copies testdata/weather into a temporary directory, for a
// test that breaks it, and returns the directory.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	testkit.CopyDir(t, "testdata/weather", dst)
	return dst
}

func rebase(dir string) Options {
	return Options{Rebase: [][2]string{{fixtureLoc, "file://" + dir}}}
}

// TestReadBackFixture: the live files of the fixture's current snapshot
// are the 6 its overwrite added, not the 4 it deleted; their records add
// up to the rows the writer was given.
func TestReadBackFixture(t *testing.T) {
	dir, err := filepath.Abs("testdata/weather")
	if err != nil {
		t.Fatal(err)
	}
	tbl := ReadBack(t, filepath.Join(dir, fixtureMeta), rebase(dir))
	var want []map[string]any
	b, err := os.ReadFile("testdata/weather.expected.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if tbl.FormatVersion != 2 || tbl.Snapshot == nil || tbl.Snapshot.Summary["operation"] != "overwrite" {
		t.Fatalf("format %d, snapshot %+v: want v2 with an overwrite snapshot", tbl.FormatVersion, tbl.Snapshot)
	}
	if len(tbl.DataFiles) != 6 || tbl.RecordCount != int64(len(want)) {
		t.Errorf("%d live data files, %d records; want 6 files, %d records", len(tbl.DataFiles), tbl.RecordCount, len(want))
	}
	var entries, live int
	for _, m := range tbl.Manifests {
		entries += m.Entries
		live += m.Live
	}
	if len(tbl.Manifests) != 2 || entries != 10 || live != 6 {
		t.Errorf("%d manifests, %d entries, %d live; want 2, 10 (4 deleted), 6", len(tbl.Manifests), entries, live)
	}
	for _, f := range tbl.DataFiles {
		// The partition value is the day of the file's directory
		// (Hive-style path time_day=YYYY-MM-DD).
		var part map[string]string
		if err := json.Unmarshal(f.Partition, &part); err != nil || !strings.Contains(f.Path, "/time_day="+part["time_day"]+"/") {
			t.Errorf("%s: partition %s (%v)", f.Path, f.Partition, err)
		}
		if !strings.HasPrefix(f.LocalPath, dir+"/data/") || f.Format != "PARQUET" || f.Status != 1 {
			t.Errorf("%+v: want an ADDED Parquet file under %s/data", f, dir)
		}
	}
}

// TestReadBackSQLite: the metadata location comes from an Iceberg SQL
// catalog's iceberg_tables (made here with Python's sqlite3, not a driver
// of ours), giving the same files as the path.
func TestReadBackSQLite(t *testing.T) {
	py := python(t)
	dir, err := filepath.Abs("testdata/weather")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "cat.db")
	mk := `import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE iceberg_tables (catalog_name TEXT, table_namespace TEXT, table_name TEXT, metadata_location TEXT, previous_metadata_location TEXT)")
c.execute("INSERT INTO iceberg_tables VALUES ('local', 'iot', 'weather', ?, NULL)", (sys.argv[2],))
c.execute("INSERT INTO iceberg_tables VALUES ('local', 'iot', 'other', 'file:///nowhere.json', NULL)")
c.commit()`
	if out, err := exec.Command(py, "-c", mk, db, fixtureLoc+"/"+fixtureMeta).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := ReadBack(t, "", Options{SQLite: db, Table: "iot.weather", Rebase: rebase(dir).Rebase})
	want := ReadBack(t, filepath.Join(dir, fixtureMeta), rebase(dir))
	if len(got.DataFiles) != len(want.DataFiles) || got.RecordCount != want.RecordCount || got.Snapshot.ID != want.Snapshot.ID {
		t.Errorf("through the catalog: %d files, %d records, snapshot %d; by path: %d, %d, %d",
			len(got.DataFiles), got.RecordCount, got.Snapshot.ID, len(want.DataFiles), want.RecordCount, want.Snapshot.ID)
	}
	if _, err := Read(t, "", Options{SQLite: db, Table: "iot.missing"}); !errors.Is(err, ErrInconsistent) {
		t.Errorf("a table the catalog lacks: %v, want ErrInconsistent", err)
	}
}

// TestReadBackRefuses: a table that contradicts its files or itself is
// refused with a message naming what, never read as if whole.
func TestReadBackRefuses(t *testing.T) {
	firstData := "data/time_day=2023-11-14/00000-0-735167c7-53c8-4b5b-8cdd-56aab56f4aa0-00001.parquet"
	editMeta := func(edit func(md map[string]any)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, fixtureMeta)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var md map[string]any
			if err := json.Unmarshal(b, &md); err != nil {
				t.Fatal(err)
			}
			edit(md)
			if b, err = json.Marshal(md); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	summary := func(md map[string]any) map[string]any {
		for _, s := range md["snapshots"].([]any) {
			s := s.(map[string]any)
			if s["snapshot-id"] == md["current-snapshot-id"] {
				return s["summary"].(map[string]any)
			}
		}
		t.Fatal("no current snapshot in the fixture")
		return nil
	}
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   string
	}{
		{"data file missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, firstData)) }, "00000-0-735167c7"},
		{"data file of another size", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, firstData), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte{0})
			f.Close()
		}, "1208 bytes, the table records 1207"},
		{"manifest truncated", func(t *testing.T, dir string) {
			os.Truncate(filepath.Join(dir, "metadata/79b421a3-51fb-4751-af66-faad7d659692-m2.avro"), 100)
		}, "m2.avro: 100 bytes"},
		{"total-records off", editMeta(func(md map[string]any) { summary(md)["total-records"] = "7" }), "total-records = 7, the manifests hold 6"},
		{"delete files", editMeta(func(md map[string]any) { summary(md)["total-delete-files"] = "1" }), "total-delete-files = 1"},
		{"unknown current snapshot", editMeta(func(md map[string]any) { md["current-snapshot-id"] = 42 }), "current-snapshot-id 42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t)
			tc.break_(t, dir)
			_, err := Read(t, filepath.Join(dir, fixtureMeta), rebase(dir))
			if !errors.Is(err, ErrInconsistent) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInconsistent naming %q", err, tc.want)
			}
		})
	}
}
