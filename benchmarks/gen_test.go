package benchmarks

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestGenerate checks that the generator is deterministic and that both
// variants read back as the same rows (every codec of the default mix is
// lossless on these values), with nulls where the generator puts them. The
// chunk groups are cut small so that devices have several, with pages
// across them, as in the full-size files.
func TestGenerate(t *testing.T) {
	const rows = Devices*(2*PagePoints/10) + 37 // uneven per device
	gen := func(v string) []byte {
		var buf bytes.Buffer
		if err := generate(&buf, v, rows, PagePoints/10+5); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	def := gen(VariantDefault)
	if again := gen(VariantDefault); !bytes.Equal(def, again) {
		t.Fatal("two generations of the default variant differ")
	}
	plain := gen(VariantPlain)
	if len(plain) <= len(def) {
		t.Errorf("plain file (%d bytes) is not larger than the default mix (%d bytes)", len(plain), len(def))
	}
	a, b := readAll(t, def), readAll(t, plain)
	defer release(a)
	defer release(b)
	if len(a) != len(b) {
		t.Fatalf("%d batches against %d", len(a), len(b))
	}
	var n int64
	nulls := map[string]int{}
	for i := range a {
		if !array.RecordEqual(a[i], b[i]) {
			t.Fatalf("batch %d differs between the variants", i)
		}
		n += a[i].NumRows()
		for j, c := range a[i].Columns() {
			nulls[a[i].ColumnName(j)] += c.NullN()
		}
	}
	if n != int64(rows) {
		t.Fatalf("read %d rows, want %d", n, rows)
	}
	for _, c := range []string{"humidity", "level", "state"} {
		if nulls[c] == 0 || nulls[c] > rows/4 {
			t.Errorf("column %s has %d nulls in %d rows", c, nulls[c], rows)
		}
	}
	if nulls["temperature"] != 0 || nulls["time"] != 0 {
		t.Errorf("unexpected nulls: %v", nulls)
	}
}

func readAll(t *testing.T, data []byte) []arrow.RecordBatch {
	t.Helper()
	f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := arrowconv.NewTableReader(f, Table, &arrowconv.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var out []arrow.RecordBatch
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// TestGenerateUnchanged pins the bytes of the plain variants: the cached
// files are named by variant, rows and genVersion, so a generator change
// that alters them must bump genVersion (and then these hashes).
func TestGenerateUnchanged(t *testing.T) {
	for _, c := range []struct{ variant, sha string }{
		{VariantDefault, "5f976d35250a2e049ca746cbbd3eb87f0319ed87dc9298945645e85d55b5f02a"},
		{VariantPlain, "31d7a428bcd1d9c769180f740326f3efe604571327f54f817a8a887ab1d82d10"},
	} {
		var buf bytes.Buffer
		if err := Generate(&buf, c.variant, 12345); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(buf.Bytes())); got != c.sha {
			t.Errorf("%s at 12,345 rows: sha256 %s, want %s (bump genVersion if the change is meant)", c.variant, got, c.sha)
		}
	}
}

// TestManyDevices checks the many-devices twin: ManyDevices devices, the
// rows spread evenly, each device's rows in chunk groups of
// ManyDevicesGroupRows, and one device found by the Devices pushdown.
func TestManyDevices(t *testing.T) {
	const rows = ManyDevices*2*ManyDevicesGroupRows/10 + 7
	variant := VariantDefault + ManyDevicesSuffix
	if DevicesOf(variant) != ManyDevices || DevicesOf(variant+AEAD) != ManyDevices || DevicesOf(VariantPlain) != Devices {
		t.Fatal("DevicesOf")
	}
	if _, err := Schema("nosuch" + ManyDevicesSuffix); err == nil {
		t.Fatal("an unknown base variant was accepted")
	}
	var buf bytes.Buffer
	if err := generate(&buf, variant, rows, ManyDevicesGroupRows/10); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	devs, err := f.Devices(Table)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != ManyDevices {
		t.Fatalf("%d devices, want %d", len(devs), ManyDevices)
	}
	one := DeviceIDOf(ManyDevices, 500)
	rdr, err := arrowconv.NewTableReader(f, Table, &arrowconv.Options{Devices: []tsfile.DeviceID{one}})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var n int64
	for rdr.Next() {
		n += rdr.RecordBatch().NumRows()
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	if want := DeviceRowsOf(variant, 500, rows); n != int64(want) {
		t.Fatalf("device 500 has %d rows, want %d", n, want)
	}
	// The 100-device table's ids are unchanged by the generalisation.
	if DeviceID(99).String() != DeviceIDOf(Devices, 99).String() {
		t.Fatal("DeviceID and DeviceIDOf disagree")
	}
}

// TestEnsurePeer writes the peer files of a small table and reads back
// their rows.
func TestEnsurePeer(t *testing.T) {
	t.Setenv("TSARROW_BENCH_DIR", t.TempDir())
	const rows = 5000
	for _, format := range PeerFormats {
		p, err := EnsurePeer(format, rows)
		if err != nil {
			t.Fatal(err)
		}
		scan := scanParquet
		if format == PeerIPC {
			scan = scanIPC
		}
		for _, w := range []int{1, 2} {
			n, out, err := scan(p, w)
			if err != nil {
				t.Fatalf("%s, %d workers: %v", format, w, err)
			}
			if n != rows || out <= 0 {
				t.Fatalf("%s, %d workers: %d rows, %d bytes", format, w, n, out)
			}
		}
	}
	if _, err := EnsurePeer("csv", rows); err == nil {
		t.Fatal("an unknown peer format was accepted")
	}
}
