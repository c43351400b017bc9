package dataset

import (
	"math"
	"testing"

	"github.com/tsarrow/tsarrow/tsfile"
)

func TestDeletionTime(t *testing.T) {
	closed := Deletion{Start: 10, End: 20}
	v1All := Deletion{Version: ModsV1, Start: math.MinInt64, End: math.MaxInt64, OpenStart: true, OpenEnd: true}
	legacy := Deletion{Version: ModsV1, Legacy: true, Start: math.MinInt64, End: 5, OpenStart: true}
	for _, tc := range []struct {
		name string
		d    Deletion
		t    int64
		want bool
	}{
		{"closed start", closed, 10, true},
		{"closed end", closed, 20, true},
		{"before", closed, 9, false},
		{"after", closed, 21, false},
		{"v1 open min", v1All, math.MinInt64, false},
		{"v1 open max", v1All, math.MaxInt64, false},
		{"v1 inside", v1All, 0, true},
		{"legacy end", legacy, 5, true},
		{"legacy min", legacy, math.MinInt64, false},
		{"legacy above", legacy, 6, false},
	} {
		if got := tc.d.ContainsTime(tc.t); got != tc.want {
			t.Errorf("%s: ContainsTime(%d) = %v, want %v", tc.name, tc.t, got, tc.want)
		}
	}

	for _, tc := range []struct {
		name             string
		d                Deletion
		min, max         int64
		covers, overlaps bool
	}{
		{"inside", closed, 12, 18, true, true},
		{"exact", closed, 10, 20, true, true},
		{"partial low", closed, 5, 10, false, true},
		{"partial high", closed, 20, 25, false, true},
		{"around", closed, 0, 30, false, true},
		{"disjoint", closed, 21, 30, false, false},
		{"v1 all but the extremes", v1All, math.MinInt64 + 1, math.MaxInt64 - 1, true, true},
		{"v1 extreme", v1All, math.MinInt64, 0, false, true},
		{"only the open bound", Deletion{Start: 7, End: 7, OpenEnd: true}, 7, 7, false, false},
		{"empty open range", Deletion{Start: math.MaxInt64, End: math.MaxInt64, OpenStart: true}, math.MaxInt64, math.MaxInt64, false, false},
	} {
		if got := tc.d.CoversRange(tc.min, tc.max); got != tc.covers {
			t.Errorf("%s: CoversRange = %v, want %v", tc.name, got, tc.covers)
		}
		if got := tc.d.OverlapsRange(tc.min, tc.max); got != tc.overlaps {
			t.Errorf("%s: OverlapsRange = %v, want %v", tc.name, got, tc.overlaps)
		}
	}
}

func TestAppliesToChunk(t *testing.T) {
	v1 := Deletion{Version: ModsV1, FileOffset: 100}
	if !v1.AppliesToChunk(99) || v1.AppliesToChunk(100) || v1.AppliesToChunk(101) {
		t.Error("v1: a deletion applies to chunks whose header is below its offset only")
	}
	v2 := Deletion{Version: ModsV2}
	if !v2.AppliesToChunk(1 << 40) {
		t.Error("v2 applies to every chunk")
	}
}

func TestDeletionAffects(t *testing.T) {
	tree := Deletion{Kind: TreeDeletion, Pattern: mustPattern(t, "root.sg.*.s1")}
	treeAll := Deletion{Kind: TreeDeletion, Pattern: mustPattern(t, "root.sg.d1.**")}
	d1 := tsfile.ParseTreePath("root.sg.d1")
	d2 := tsfile.ParseTreePath("root.other.d1")
	if !tree.AffectsDevice(d1) || tree.AffectsDevice(d2) {
		t.Error("tree AffectsDevice")
	}
	if !tree.AffectsMeasurement(d1, "s1") || tree.AffectsMeasurement(d1, "s2") || tree.AffectsAll(d1) {
		t.Error("tree AffectsMeasurement/AffectsAll")
	}
	if !treeAll.AffectsAll(d1) || !treeAll.AffectsMeasurement(d1, "any") || treeAll.AffectsAll(d2) {
		t.Error("tree ** AffectsAll")
	}

	pred := TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, Value: "x"}
	table := Deletion{Kind: TableDeletion, Table: "t1", Predicate: pred}
	cols := Deletion{Kind: TableDeletion, Table: "t1", Predicate: pred, Measurements: []string{"s1"}}
	dx := tsfile.NewDeviceID("t1", "x")
	dy := tsfile.NewDeviceID("t1", "y")
	other := tsfile.NewDeviceID("t2", "x")
	if !table.AffectsDevice(dx) || table.AffectsDevice(dy) || table.AffectsDevice(other) {
		t.Error("table AffectsDevice")
	}
	if !table.AffectsAll(dx) || !table.AffectsMeasurement(dx, "s9") || table.AffectsMeasurement(other, "s9") {
		t.Error("table with all columns")
	}
	if cols.AffectsAll(dx) || !cols.AffectsMeasurement(dx, "s1") || cols.AffectsMeasurement(dx, "s2") || cols.AffectsMeasurement(dy, "s1") {
		t.Error("table with a measurement list")
	}
}
