package dataset

import (
	"slices"
	"testing"
)

func TestPriorityOrder(t *testing.T) {
	seq := func(time, version int64) *File {
		return &File{Space: Sequence, Name: Name{Time: time, Version: version}, Named: true}
	}
	unseq := func(time, version int64) *File {
		return &File{Space: Unsequence, Name: Name{Time: time, Version: version}, Named: true}
	}
	cases := []struct {
		name     string
		a        *File
		aOff     int64
		b        *File
		bOff     int64
		want     int // ComparePriority(a, b)
		whyAWins string
	}{
		{"unseq beats seq of higher version", unseq(1, 1), 10, seq(9, 9), 99, 1, "space first"},
		{"unseq beats seq of higher time", unseq(1, 5), 10, seq(9, 5), 10, 1, "space first"},
		{"seq loses to unseq", seq(9, 9), 99, unseq(1, 1), 10, -1, "space first"},
		{"higher version wins over higher time", seq(1, 3), 10, seq(9, 2), 10, 1, "version before time"},
		{"higher version wins over larger offset", unseq(5, 3), 10, unseq(5, 2), 999, 1, "version before offset"},
		{"same version: higher time wins", seq(6, 2), 10, seq(5, 2), 999, 1, "time before offset"},
		{"same file: larger offset wins", seq(5, 2), 200, seq(5, 2), 100, 1, "offset last"},
		{"same copy", seq(5, 2), 100, seq(5, 2), 100, 0, ""},
		// Compaction counts never take part.
		{"compaction counts ignored", &File{Space: Sequence, Name: Name{5, 2, 9, 9}, Named: true}, 100, seq(5, 2), 100, 0, ""},
		{"unknown space ranks as sequence", &File{Space: Unknown, Name: Name{Time: 1, Version: 7}, Named: true}, 0, seq(1, 6), 0, 1, "version"},
		{"unnamed below named", &File{Space: Sequence}, 500, seq(0, 0), 0, -1, "unnamed is -1"},
	}
	for _, c := range cases {
		if got := ComparePriority(c.a, c.aOff, c.b, c.bOff); got != c.want {
			t.Errorf("%s: ComparePriority = %d, want %d (%s)", c.name, got, c.want, c.whyAWins)
		}
		if got := ComparePriority(c.b, c.bOff, c.a, c.aOff); got != -c.want {
			t.Errorf("%s: reversed ComparePriority = %d, want %d", c.name, got, -c.want)
		}
	}
}

// TestPriorityQueueOrder replays upstream's MergeReaderPriorityTest: the
// five priorities sorted lowest first.
func TestPriorityQueueOrder(t *testing.T) {
	ps := []Priority{
		{Time: 1000, Version: 2, Offset: 10},
		{Time: 1000, Version: 2, Offset: 5},
		{Time: 1000, Version: 1, Offset: 10},
		{Time: 1000, Version: 3, Offset: 15, Unsequence: true},
		{Time: 1000, Version: 2, Offset: 15, Unsequence: true},
	}
	got := slices.Clone(ps)
	slices.SortFunc(got, Priority.Compare)
	want := []Priority{ps[2], ps[1], ps[0], ps[4], ps[3]}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %+v\nwant %+v", got, want)
	}
}
