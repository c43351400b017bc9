package icesync

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// readBackPy reads an Iceberg table's current snapshot the way another
// engine does, with Apache Avro for Python alone: the metadata JSON, the
// manifest list, the manifests. It prints, as JSON, the data files
// (path, record count, day partition) and the snapshot summary.
const readBackPy = `
import json, sys
import avro.datafile, avro.io

def records(path):
    with open(path, 'rb') as f:
        r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        out = list(r)
        r.close()
        return out

def local(p):
    return p[len('file://'):] if p.startswith('file://') else p

meta = json.load(open(sys.argv[1]))
assert meta['format-version'] == 2, meta['format-version']
cur = meta['current-snapshot-id']
snap = [s for s in meta['snapshots'] if s['snapshot-id'] == cur][0]
files = []
for m in records(local(snap['manifest-list'])):
    if m['content'] != 0:
        continue
    for e in records(local(m['manifest_path'])):
        if e['status'] == 2:  # deleted
            continue
        df = e['data_file']
        day = df['partition']['time_day']  # a date through Avro's logical type
        files.append({'path': df['file_path'], 'rows': df['record_count'],
                      'day': day.isoformat(), 'format': df['file_format']})
print(json.dumps({'files': files, 'summary': snap['summary'],
                  'spec': meta['partition-specs'][0]['fields']}))
`

// TestAvroReadBack reads the synced table's metadata with Apache Avro for
// Python (Debian's python3-avro) and checks it against iceberg-go's scan
// plan: the same data files, the same row counts, the day partitions, the
// summary. It skips without /usr/bin/python3 and its avro module.
func TestAvroReadBack(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import avro.datafile").Run(); err != nil {
		t.Skipf("no Apache Avro for Python (apt-get install python3-avro): %v", err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	opts := weatherOptions(dir)
	res, err := Sync(ctx, []string{"../testdata/iotdb"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	cmd := exec.Command(py, "-W", "ignore", "-c", readBackPy, strings.TrimPrefix(tbl.MetadataLocation(), "file://"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var got struct {
		Files []struct {
			Path   string
			Rows   int64
			Day    string
			Format string
		}
		Summary map[string]string
		Spec    []struct {
			Name      string
			Transform string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var rows int64
	var paths, days []string
	for _, f := range got.Files {
		rows += f.Rows
		paths = append(paths, f.Path)
		days = append(days, f.Day)
		if f.Format != "PARQUET" {
			t.Errorf("%s: format %s", f.Path, f.Format)
		}
	}
	slices.Sort(paths)
	slices.Sort(days)
	want := slices.Sorted(func(yield func(string) bool) {
		for p := range dataFiles(t, tbl) {
			if !yield(p) {
				return
			}
		}
	})
	if rows != res.Rows || !slices.Equal(paths, want) || !slices.Equal(days, []string{"2026-01-01", "2026-01-02"}) {
		t.Errorf("avro read-back: %d rows in %q, days %v; want %d rows in %q, days 2026-01-01, 2026-01-02", rows, paths, days, res.Rows, want)
	}
	if len(got.Spec) != 1 || got.Spec[0].Transform != "day" || got.Spec[0].Name != "time_day" {
		t.Errorf("partition spec %+v", got.Spec)
	}
	if got.Summary["operation"] != "append" || got.Summary[SummaryDelta] == "" || got.Summary["added-records"] != "92" {
		t.Errorf("summary %v", got.Summary)
	}
}
