package benchmarks

import (
	"bytes"
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
