package benchmarks

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
)

// TestDatasetSyncChanges: a dataset spread over 30 days spans them; the
// files AppendDatasetFiles adds hold the rows asked for, all after every
// existing row, and the resolved read returns them beside the others;
// AppendDatasetDeletion's DELETE of one hour of one day removes exactly
// the rows of that hour (counted here from the read before it) and
// touches only files whose range covers it.
func TestDatasetSyncChanges(t *testing.T) {
	const days = 30
	dir := t.TempDir()
	step := DatasetStep(testDatasetRows, days)
	in, err := generateDataset(dir, testDatasetRows, step)
	if err != nil {
		t.Fatal(err)
	}
	times := func() []int64 {
		t.Helper()
		ds, err := dataset.Open([]string{in.Resolved}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		rd, err := ds.NewReader(DatasetTable, &arrowconv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		var out []int64
		for rd.Next() {
			for _, v := range rd.RecordBatch().Column(0).(*array.Timestamp).TimestampValues() {
				out = append(out, int64(v))
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := times()
	if int64(len(before)) != in.ExpectedRows {
		t.Fatalf("%d rows read, want %d", len(before), in.ExpectedRows)
	}
	lo, hi := before[0], before[0]
	for _, v := range before {
		lo, hi = min(lo, v), max(hi, v)
	}
	if span := float64(hi-lo) / 86_400_000; span < days-0.5 || span > days {
		t.Fatalf("the rows span %.2f days, want about %d", span, days)
	}

	const add = DatasetDevices * 20
	paths, err := AppendDatasetFiles(in.Resolved, testDatasetRows, step, 2, add)
	if err != nil || len(paths) != 2 {
		t.Fatalf("AppendDatasetFiles: %v, %v", paths, err)
	}
	after := times()
	if len(after) != len(before)+add {
		t.Fatalf("%d rows after the append, want %d", len(after), len(before)+add)
	}
	end := DatasetEnd(testDatasetRows, step)
	newRows := 0
	for _, v := range after {
		if v >= end {
			newRows++
		} else if v > hi {
			t.Fatalf("row at %d between the last old row %d and the new rows' start %d", v, hi, end)
		}
	}
	if newRows != add {
		t.Fatalf("%d rows at or after %d, want %d", newRows, end, add)
	}

	del := DatasetDayDeletion(days / 2)
	inHour := 0
	for _, v := range after {
		if v >= del.Start && v <= del.End {
			inHour++
		}
	}
	if inHour == 0 {
		t.Fatal("no row in the deleted hour")
	}
	touched, err := AppendDatasetDeletion(in.Resolved, del)
	if err != nil {
		t.Fatal(err)
	}
	// The hour lies in one or two sequence files, and in the range of
	// each unsequence file (they hold rows of the whole span).
	if len(touched) < 1+DatasetUnseqFiles || len(touched) > 2+DatasetUnseqFiles {
		t.Errorf("the deletion touched %d files, want %d or %d: %v", len(touched), 1+DatasetUnseqFiles, 2+DatasetUnseqFiles, touched)
	}
	if got := len(times()); got != len(after)-inHour {
		t.Fatalf("%d rows after the deletion, want %d (%d deleted)", got, len(after)-inHour, inHour)
	}
}
