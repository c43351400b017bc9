package tsfile

import (
	"errors"
	"testing"
)

// The C++ writer writes a chunk of data_size 0 for a series with no point
// since the last flush (testdata/upstream/cpp/c05_tree_two_chunk_groups:
// root.cg.d2's first boolean_plain chunk). It reads as no points, and the
// series reads on; the same empty chunk under an index entry that counts
// points is damage.
func TestEmptyChunkOfTheCppWriter(t *testing.T) {
	f, err := OpenFile("../testdata/upstream/cpp/c05_tree_two_chunk_groups.tsfile", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	series, err := f.Series(ParseTreePath("root.cg.d2"))
	if err != nil {
		t.Fatal(err)
	}
	var ts *TimeseriesMetadata
	for i := range series {
		if series[i].Measurement == "boolean_plain" {
			ts = &series[i]
		}
	}
	if ts == nil || len(ts.Chunks) != 2 || ts.Chunks[0].Statistics.Count != 0 {
		t.Fatalf("the file no longer has the empty chunk this test is about: %+v", ts)
	}
	c, err := f.ReadChunk(ts.Chunks[0].Offset)
	if err != nil {
		t.Fatalf("empty chunk: %v", err)
	}
	if len(c.Pages) != 0 || c.Header.DataSize != 0 {
		t.Fatalf("chunk has %d pages, data_size %d", len(c.Pages), c.Header.DataSize)
	}
	times, vals, err := f.ReadNonAligned(ts)
	if err != nil {
		t.Fatal(err)
	}
	if want := ts.Chunks[1].Statistics.Count; int64(len(times)) != want || int64(vals.Len()) != want {
		t.Fatalf("read %d times, %d values; the index counts %d", len(times), vals.Len(), want)
	}

	// The same chunk under an entry that counts points has lost them.
	damaged := ts.Chunks[0]
	damaged.Statistics.Count = 3
	if err := CheckEmptyChunk(c, &damaged); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("empty chunk under an entry of 3 points: %v, want ErrCorrupt", err)
	}
	if err := CheckEmptyChunk(c, &ts.Chunks[0]); err != nil {
		t.Fatalf("empty chunk under an entry of 0 points: %v", err)
	}
}
