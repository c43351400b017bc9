package icesync

import (
	"maps"
	"slices"

	"github.com/apache/iceberg-go"

	"github.com/tsarrow/tsarrow/arrowconv"
)

// maxDays bounds the days one sync rewrites one by one; a change spanning
// more rewrites the whole table (one day per partition file would be that
// many files anyway).
const maxDays = 1 << 16

// dayPlan is what a sync rewrites: the whole table, or the day partitions
// a change of the sources touched (days counted from 1970-01-01 UTC, as
// Iceberg's day transform counts them).
type dayPlan struct {
	full bool
	days map[int64]bool
}

// planDays compares the sources of the table's current snapshot with the
// inputs': every day within the time range of a source added, removed or
// changed (its size or its mods file) is rewritten, since an unsequence
// file, a deletion or a compaction changes rows within its own range only.
// A source of unknown range (no resource) makes the plan the whole table.
// unitsPerDay is the number of stored time units in a day.
func planDays(prev, cur []Source, unitsPerDay int64) dayPlan {
	p := dayPlan{days: map[int64]bool{}}
	old := map[string]Source{}
	for _, s := range prev {
		old[s.Name] = s
	}
	add := func(s Source) {
		if s.Start == nil || s.End == nil || *s.Start > *s.End {
			p.full = true
			return
		}
		lo, hi := floorDiv(*s.Start, unitsPerDay), floorDiv(*s.End, unitsPerDay)
		if hi-lo >= maxDays || len(p.days) > maxDays {
			p.full = true
			return
		}
		for d := lo; d <= hi; d++ {
			p.days[d] = true
		}
	}
	for _, s := range cur {
		o, ok := old[s.Name]
		delete(old, s.Name)
		switch {
		case !ok:
			add(s)
		case !sameSource(o, s):
			add(o)
			add(s)
		}
	}
	for _, s := range old {
		add(s)
	}
	return p
}

// sameSource reports whether two versions of a source hold the same rows.
func sameSource(a, b Source) bool {
	if a.Size != b.Size || (a.Mods == nil) != (b.Mods == nil) {
		return false
	}
	return a.Mods == nil || *a.Mods == *b.Mods
}

// ranges returns the plan's days as time ranges of the stored unit, in
// order: one for each day, or with merge one for each run of consecutive
// days.
func (p dayPlan) ranges(unitsPerDay int64, merge bool) []arrowconv.TimeRange {
	days := slices.Sorted(maps.Keys(p.days))
	var out []arrowconv.TimeRange
	for i := 0; i < len(days); {
		j := i
		for merge && j+1 < len(days) && days[j+1] == days[j]+1 {
			j++
		}
		out = append(out, arrowconv.TimeRange{Start: days[i] * unitsPerDay, End: (days[j]+1)*unitsPerDay - 1})
		i = j + 1
	}
	return out
}

// replaces reports whether the plan rewrites the data file df, whose
// partition field fieldID is day(time).
func (p dayPlan) replaces(df iceberg.DataFile, fieldID int) bool {
	if p.full {
		return true
	}
	d, ok := partitionDay(df, fieldID)
	return ok && p.days[d]
}

// partitionDay returns a data file's day partition value.
func partitionDay(df iceberg.DataFile, fieldID int) (int64, bool) {
	switch v := df.Partition()[fieldID].(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	case iceberg.Date:
		return int64(v), true
	}
	return 0, false
}

// floorDiv divides rounding toward negative infinity, as days before 1970
// are counted.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
