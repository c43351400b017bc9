package dataset

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// This file is a naive reference of what IoTDB's SELECT * returns from a
// data directory the builder (layout_builder_test.go) wrote: every point is
// materialised and the rules of docs/iotdb-rules.md are applied literally,
// one point at a time, with no pruning. The merge reader is checked
// against it: build a directory with buildLayout (or randomLayout), take
// want := reference(t, dir), and print what the reader returns per device
// with formatRow (columns in name order) to compare.
//
//   1. Per file, its own mods delete its points (rule 3a): v2 (.mods2, preferred
//      when both exist, 3c) on every chunk, v1 only on chunks whose header
//      offset is below the deletion's FileOffset (3b). An aligned cell goes
//      when its column is deleted; the whole row goes when the time column
//      (measurement "") is (3d). A tree aligned row whose cells are all null
//      is dropped; a table row is kept (2c).
//   2. Across files, for each (device, time) the copies are ordered by
//      priority (1a): aligned rows combine cell by cell, each null cell
//      taking the value of the highest-priority copy that has one (2a);
//      non-aligned series keep the highest-priority point (1b).
//
// IoTDB: MergeReaderPriority, PriorityMergeReader, AlignedPriorityMergeReader,
// ModificationUtils, AlignedPageReader/TablePageReader (docs/iotdb-rules.md).

// refCopy is one copy of a row (aligned) or of a point (non-aligned) after
// its file's deletions.
type refCopy struct {
	prio  Priority
	cells map[string]*int64 // column -> value, nil = null cell
}

// refRows is the reference's answer: per device (DeviceID.String()), the
// rows sorted by time, each formatted by formatRow.
type refRows map[string][]string

// formatRow prints a row as "t=5 a=1 b=-": columns in name order, "-" for
// a null cell (or a series with no point at that time).
func formatRow(tm int64, cols []string, cells map[string]*int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "t=%d", tm)
	for _, c := range cols {
		if x := cells[c]; x != nil {
			fmt.Fprintf(&b, " %s=%d", c, *x)
		} else {
			fmt.Fprintf(&b, " %s=-", c)
		}
	}
	return b.String()
}

// fileDeletions reads the mods of one built file back from disk, as a
// reader would: .mods2 when it exists, else .mods.
func fileDeletions(t *testing.T, bf *builtFile) []Deletion {
	t.Helper()
	for _, suf := range []string{ModsV2Suffix, ModsV1Suffix} {
		if _, err := os.Stat(bf.Path + suf); err != nil {
			continue // no such mods file
		}
		m, err := ReadModsFile(bf.Path+suf, nil)
		require.NoError(t, err)
		require.Empty(t, m.Warnings, bf.Path+suf)
		return m.Deletions
	}
	return nil
}

// deletedBy reports whether one of dels deletes the cell of p's column
// (column "" asks for the aligned time column, i.e. the whole row) read
// from the chunk at offset chunk.
func deletedBy(dels []Deletion, p *refPoint, column string, chunk int64) bool {
	for i := range dels {
		d := &dels[i]
		if d.AffectsMeasurement(p.Device, column) && d.ContainsTime(p.Time) && d.AppliesToChunk(chunk) {
			return true
		}
	}
	return false
}

// reference computes the rows of the directory.
func reference(t *testing.T, dir *builtDir) refRows {
	t.Helper()
	type devTime struct {
		dev string
		tm  int64
	}
	type seriesKey struct {
		dev, col string
		tm       int64
	}
	aligned := map[devTime][]refCopy{}  // aligned rows
	series := map[seriesKey][]refCopy{} // non-aligned points
	cols := map[string]map[string]bool{}
	for fi := range dir.Files {
		bf := &dir.Files[fi]
		f := File{Space: bf.Spec.Space, Name: Name{Time: bf.Spec.Time, Version: bf.Spec.Version}, Named: true}
		dels := fileDeletions(t, bf)
		// Rows of aligned groups of this file, per group and time.
		type rowKey struct {
			group int
			tm    int64
		}
		rows := map[rowKey]*refCopy{}
		var order []rowKey
		kinds := map[rowKey]groupKind{}
		devs := map[rowKey]string{}
		for i := range bf.Points {
			p := &bf.Points[i]
			dev := p.Device.String()
			if cols[dev] == nil {
				cols[dev] = map[string]bool{}
			}
			cols[dev][p.Column] = true
			if p.Kind == treeNonAlign {
				if deletedBy(dels, p, p.Column, p.Chunk) {
					continue
				}
				k := seriesKey{dev, p.Column, p.Time}
				series[k] = append(series[k], refCopy{prio: f.Priority(p.Chunk), cells: map[string]*int64{p.Column: v(p.Value)}})
				continue
			}
			rk := rowKey{p.Group, p.Time}
			r := rows[rk]
			if r == nil {
				if deletedBy(dels, p, "", p.TimeChunk) {
					continue // the time column is deleted: no row
				}
				r = &refCopy{prio: f.Priority(p.TimeChunk), cells: map[string]*int64{}}
				rows[rk] = r
				order = append(order, rk)
				kinds[rk] = p.Kind
				devs[rk] = dev
			}
			if !p.Null && !deletedBy(dels, p, p.Column, p.Chunk) {
				r.cells[p.Column] = v(p.Value)
			}
		}
		for _, rk := range order {
			r := rows[rk]
			if kinds[rk] == treeAligned && len(r.cells) == 0 {
				continue // tree model: an all-null row is no row
			}
			k := devTime{devs[rk], rk.tm}
			aligned[k] = append(aligned[k], *r)
		}
	}

	byDev := map[string]map[int64]map[string]*int64{}
	put := func(dev string, tm int64) map[string]*int64 {
		if byDev[dev] == nil {
			byDev[dev] = map[int64]map[string]*int64{}
		}
		if byDev[dev][tm] == nil {
			byDev[dev][tm] = map[string]*int64{}
		}
		return byDev[dev][tm]
	}
	byPrio := func(cs []refCopy) {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].prio.Compare(cs[j].prio) > 0 })
	}
	for k, cs := range aligned {
		byPrio(cs)
		out := put(k.dev, k.tm)
		for _, c := range cs { // highest priority first: fill only null cells
			for col, x := range c.cells {
				if out[col] == nil {
					out[col] = x
				}
			}
		}
	}
	for k, cs := range series {
		byPrio(cs)
		put(k.dev, k.tm)[k.col] = cs[0].cells[k.col]
	}

	res := refRows{}
	for dev, rowsAt := range byDev {
		var names []string
		for c := range cols[dev] {
			names = append(names, c)
		}
		sort.Strings(names)
		var tms []int64
		for tm := range rowsAt {
			tms = append(tms, tm)
		}
		sort.Slice(tms, func(i, j int) bool { return tms[i] < tms[j] })
		for _, tm := range tms {
			res[dev] = append(res[dev], formatRow(tm, names, rowsAt[tm]))
		}
	}
	return res
}
