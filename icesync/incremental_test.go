package icesync

import (
	"maps"
	"slices"
	"testing"

	"github.com/tsarrow/tsarrow/arrowconv"
)

func src(name string, size int64, mods int64, start, end int64) Source {
	s := Source{Name: name, Size: size, Start: &start, End: &end}
	if mods > 0 {
		s.Mods = &ModsVersion{Name: name + ".mods2", Size: mods, ModTime: 1}
	}
	return s
}

func TestPlanDays(t *testing.T) {
	const day = 86400000
	a := src("a", 10, 0, 0, day-1)            // day 0
	b := src("b", 20, 5, day, 3*day-1)        // days 1, 2
	c := src("c", 30, 0, -day, -1)            // day -1
	bMods := src("b", 20, 9, day, 3*day-1)    // b with a longer mods file
	bMoved := src("b", 21, 5, 2*day, 4*day-1) // b rewritten: days 2, 3
	noRange := Source{Name: "n", Size: 1}
	for _, tc := range []struct {
		name      string
		prev, cur []Source
		full      bool
		days      []int64
	}{
		{"unchanged", []Source{a, b}, []Source{a, b}, false, nil},
		{"added", []Source{a}, []Source{a, b}, false, []int64{1, 2}},
		{"removed", []Source{a, b}, []Source{a}, false, []int64{1, 2}},
		{"mods grew", []Source{a, b}, []Source{a, bMods}, false, []int64{1, 2}},
		{"rewritten: old and new range", []Source{a, b}, []Source{a, bMoved}, false, []int64{1, 2, 3}},
		{"before 1970", []Source{a}, []Source{a, c}, false, []int64{-1}},
		{"no range", []Source{a}, []Source{a, noRange}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planDays(tc.prev, tc.cur, day)
			got := slices.Sorted(maps.Keys(p.days))
			if p.full != tc.full || (!tc.full && !slices.Equal(got, tc.days)) {
				t.Fatalf("full %v days %v, want full %v days %v", p.full, got, tc.full, tc.days)
			}
		})
	}
}

func TestPlanRanges(t *testing.T) {
	const day = 10
	p := dayPlan{days: map[int64]bool{-1: true, 0: true, 2: true, 5: true, 6: true}}
	got := p.ranges(day, true)
	want := []arrowconv.TimeRange{{Start: -10, End: 9}, {Start: 20, End: 29}, {Start: 50, End: 69}}
	if !slices.Equal(got, want) {
		t.Fatalf("merged ranges %v, want %v", got, want)
	}
	got = p.ranges(day, false)
	want = []arrowconv.TimeRange{{Start: -10, End: -1}, {Start: 0, End: 9}, {Start: 20, End: 29}, {Start: 50, End: 59}, {Start: 60, End: 69}}
	if !slices.Equal(got, want) {
		t.Fatalf("daily ranges %v, want %v", got, want)
	}
	for _, tc := range []struct{ a, b, q int64 }{{-1, 10, -1}, {-10, 10, -1}, {-11, 10, -2}, {0, 10, 0}, {19, 10, 1}} {
		if q := floorDiv(tc.a, tc.b); q != tc.q {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", tc.a, tc.b, q, tc.q)
		}
	}
}
