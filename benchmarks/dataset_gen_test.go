package benchmarks

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// testDatasetRows is small enough for the test to materialise every point
// and large enough for every device to have spans, points and rows in
// every deletion window (2,000 rows a device).
const testDatasetRows = DatasetDevices * 2000

// TestGenerateDataset checks the generated directories without the
// dataset reader: their layout as dataset.Discover, the resource parser
// and the mods parser see it; the mix the manifest states; and the
// manifest's digest of the resolved rows against a naive reference that
// reads every file as it is and applies IoTDB's rules literally (each
// file's mods to its own rows, then the highest-priority non-null copy of
// each cell). The plain directory must read back as exactly those rows,
// and a second generation must write the same bytes.
func TestGenerateDataset(t *testing.T) {
	dir := t.TempDir()
	in, err := GenerateDataset(dir, testDatasetRows)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(in.Summary())

	res := discover(t, in.Resolved)
	var seq, unseq, withMods int
	for _, f := range res.Files {
		switch f.Space {
		case dataset.Sequence:
			seq++
		case dataset.Unsequence:
			unseq++
		}
		if f.ModsV2 != "" {
			withMods++
		}
	}
	if seq != DatasetSeqFiles || unseq != DatasetUnseqFiles {
		t.Fatalf("resolved: %d sequence and %d unsequence files, want %d and %d", seq, unseq, DatasetSeqFiles, DatasetUnseqFiles)
	}
	// Every deletion window lies in some sequence file and in the
	// unsequence files' device ranges, but not in every file.
	if withMods < DatasetUnseqFiles+3 || withMods == len(res.Files) {
		t.Errorf("%d of %d files have mods2 files", withMods, len(res.Files))
	}
	plain := discover(t, in.Plain)
	if len(plain.Files) != DatasetPlainFiles {
		t.Fatalf("plain: %d files, want %d", len(plain.Files), DatasetPlainFiles)
	}
	for _, f := range plain.Files {
		if f.Space != dataset.Sequence || f.ModsV1 != "" || f.ModsV2 != "" {
			t.Fatalf("plain: %s is %s with mods %q %q", f.Path, f.Space, f.ModsV1, f.ModsV2)
		}
	}

	// The mix the manifest states.
	if want := int64(testDatasetRows / 10); in.Rewritten != want || in.SpanRows+in.Points != want {
		t.Errorf("rewritten %d rows (%d in spans, %d points), want %d", in.Rewritten, in.SpanRows, in.Points, want)
	}
	if in.Points*100 < in.Rewritten*5 || in.Points*100 > in.Rewritten*15 || in.PointsTwice == 0 {
		t.Errorf("%d points (%d twice) of %d rewritten rows, want about 10%%", in.Points, in.PointsTwice, in.Rewritten)
	}
	if got := in.UnseqRows[0] + in.UnseqRows[1]; got != in.Rewritten+in.PointsTwice || in.UnseqRows[0] == 0 || in.UnseqRows[1] == 0 {
		t.Errorf("unsequence files hold %v rows, want %d in total", in.UnseqRows, in.Rewritten+in.PointsTwice)
	}
	if in.DeletedRows*1000 < int64(in.Rows)*9 || in.DeletedRows*1000 > int64(in.Rows)*11 || in.CellsDeleted == 0 {
		t.Errorf("deleted %d rows and %d cells of %d rows, want about 1%% of the rows", in.DeletedRows, in.CellsDeleted, in.Rows)
	}
	if in.ExpectedRows != int64(in.Rows)-in.DeletedRows {
		t.Errorf("expected rows %d, want %d - %d", in.ExpectedRows, in.Rows, in.DeletedRows)
	}

	// The resolved directory through the naive reference.
	raw, ref := referenceDigest(t, res)
	if raw != int64(in.Rows)+in.UnseqRows[0]+in.UnseqRows[1] {
		t.Errorf("the resolved files hold %d rows, want %d + %v", raw, in.Rows, in.UnseqRows)
	}
	if ref.Rows != in.ExpectedRows || ref.Sum != in.Digest {
		t.Errorf("reference: %d rows, digest %x; manifest: %d rows, digest %x", ref.Rows, ref.Sum, in.ExpectedRows, in.Digest)
	}
	// The plain directory, file by file.
	var pd DatasetDigest
	prevEnd := map[string]int64{}
	for _, f := range plain.Files {
		r := readResource(t, f)
		for _, dt := range r.Devices {
			k := dt.Device.String()
			if end, ok := prevEnd[k]; ok && dt.Start <= end {
				t.Errorf("plain: %s: device %s starts at %d, before the previous file's end %d", f.Path, k, dt.Start, end)
			}
			prevEnd[k] = dt.End
		}
		eachBatch(t, f.Path, func(rec arrow.RecordBatch) {
			if err := pd.Add(rec); err != nil {
				t.Fatal(err)
			}
		})
	}
	if pd.Rows != in.ExpectedRows || pd.Sum != in.Digest {
		t.Errorf("plain: %d rows, digest %x; manifest: %d rows, digest %x", pd.Rows, pd.Sum, in.ExpectedRows, in.Digest)
	}

	// Determinism.
	dir2 := t.TempDir()
	in2, err := GenerateDataset(dir2, testDatasetRows)
	if err != nil {
		t.Fatal(err)
	}
	if in2.Digest != in.Digest || in2.ResolvedBytes != in.ResolvedBytes || in2.PlainBytes != in.PlainBytes {
		t.Fatalf("a second generation differs: %+v against %+v", in2, in)
	}
	err = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(dir2, rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two generations (%v)", rel, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func discover(t *testing.T, root string) *dataset.Layout {
	t.Helper()
	l, err := dataset.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skipped) > 0 {
		t.Fatalf("Discover skipped %v", l.Skipped)
	}
	for _, f := range l.Files {
		if f.Resource == "" || !f.Named || f.Database != DatasetDatabase || f.Region != "1" || f.Partition != "0" {
			t.Fatalf("%s: %+v", f.Path, f)
		}
	}
	return l
}

func readResource(t *testing.T, f dataset.File) *dataset.Resource {
	t.Helper()
	r, err := dataset.ReadResourceFile(f.Resource)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Devices) == 0 {
		t.Fatalf("%s: no devices", f.Resource)
	}
	return r
}

func eachBatch(t *testing.T, path string, fn func(arrow.RecordBatch)) {
	t.Helper()
	tf, err := tsfile.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	rdr, err := arrowconv.NewTableReader(tf, DatasetTable, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	for rdr.Next() {
		fn(rdr.RecordBatch())
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// referenceDigest reads every file of a layout as it is, applies each
// file's mods2 deletions to its own rows, keeps for every (device, time)
// and column the non-null cell of the highest-priority copy, checks each
// resource against the rows of its file, and returns the rows read and
// the digest of the result.
func referenceDigest(t *testing.T, l *dataset.Layout) (raw int64, d DatasetDigest) {
	t.Helper()
	// The devices by the digest values of their tags.
	type devKey struct{ region, dev uint64 }
	devices := map[devKey]tsfile.DeviceID{}
	for i := range DatasetDevices {
		id := DatasetDeviceID(i)
		r, _ := id.Segment(1)
		n, _ := id.Segment(2)
		devices[devKey{strHash([]byte(r)), strHash([]byte(n))}] = id
	}
	files := slices.Clone(l.Files)
	slices.SortFunc(files, func(a, b dataset.File) int { return dataset.ComparePriority(&a, 0, &b, 0) })
	type key struct {
		dev devKey
		t   int64
	}
	const ncol = 9 // dsDigestColumns
	points := map[key]*[ncol]uint64{}
	var order []key
	for _, f := range files {
		var dels []dataset.Deletion
		if f.ModsV2 != "" {
			m, err := dataset.ReadModsFile(f.ModsV2, nil)
			if err != nil {
				t.Fatal(err)
			}
			dels = m.Deletions
		}
		ranges := map[string][2]int64{}
		eachBatch(t, f.Path, func(rec arrow.RecordBatch) {
			n := int(rec.NumRows())
			raw += int64(n)
			cols := make([][]uint64, ncol)
			for c, name := range dsDigestColumns {
				cols[c] = make([]uint64, n)
				if err := cellValues(rec.Column(rec.Schema().FieldIndices(name)[0]), cols[c]); err != nil {
					t.Fatal(err)
				}
			}
			for i := range n {
				k := key{devKey{cols[1][i], cols[2][i]}, int64(cols[0][i])}
				id, ok := devices[k.dev]
				if !ok {
					t.Fatalf("%s: a row of an unknown device", f.Path)
				}
				r := ranges[id.String()]
				if _, seen := ranges[id.String()]; !seen || k.t < r[0] {
					r[0] = k.t
				}
				r[1] = max(r[1], k.t)
				ranges[id.String()] = r
				if slices.ContainsFunc(dels, func(d dataset.Deletion) bool { return d.AffectsAll(id) && d.ContainsTime(k.t) }) {
					continue
				}
				var cells [ncol]uint64
				for c := range cells {
					cells[c] = cols[c][i]
					if c >= 3 && slices.ContainsFunc(dels, func(d dataset.Deletion) bool {
						return d.AffectsMeasurement(id, dsDigestColumns[c]) && d.ContainsTime(k.t)
					}) {
						cells[c] = nullCell
					}
				}
				p := points[k]
				if p == nil {
					points[k] = &cells
					order = append(order, k)
					continue
				}
				// f has a higher priority than every copy before it.
				for c := 3; c < ncol; c++ {
					if cells[c] != nullCell {
						p[c] = cells[c]
					}
				}
			}
		})
		r := readResource(t, f)
		if len(r.Devices) != len(ranges) {
			t.Errorf("%s: resource has %d devices, the file %d", f.Resource, len(r.Devices), len(ranges))
		}
		for _, dt := range r.Devices {
			if got := ranges[dt.Device.String()]; got != [2]int64{dt.Start, dt.End} {
				t.Errorf("%s: device %s: resource says [%d, %d], the file holds [%d, %d]", f.Resource, dt.Device, dt.Start, dt.End, got[0], got[1])
			}
		}
	}
	for _, k := range order {
		var h uint64
		for c, v := range points[k] {
			h = chain(h, v, c)
		}
		d.Sum += h
		d.Rows++
	}
	return raw, d
}
