package dataset

import (
	"io/fs"
	"strconv"
)

// modsIndex is what a Dataset keeps of one mods file: its entries merged,
// as they stream, into one interval set per deletion target. A target is
// everything of an entry but its time range: a tree deletion's pattern, a
// table deletion's table, predicate and columns, and a v1 deletion's
// offset (under the 1.x rule, ModsV1Offset). Entries of one target delete
// the union of their ranges from the same series and chunks, so the union
// replaces them exactly: the memory kept is the number of distinct
// targets times their merged intervals, not the file's size. A 1 GiB
// mods2 of repeated deletions on a thousand series is a thousand entries.
//
// IoTDB 2.0.11 bounds the same memory differently: its query engine
// (QueryModificationLoader in apache/iotdb iotdb-core/datanode/.../
// queryengine/execution/fragment/) streams the file (TsFileResource.
// ModIterator) into a pattern tree under a per-query quota and, past the
// quota, scans the file again keeping only the entries of the queried
// series, then sorts and merges them (ModificationUtils.sortAndMerge).
// Merging per target here keeps every entry's effect for every device
// without a second pass.
//
// What merging does not keep: each entry's own text (inspect lists the
// entries one by one with ScanModsFS instead), and a v1 entry's open
// bounds and Legacy form, which become the closed range they delete.
// v1 entries of different offsets under the 1.x rule stay in different
// sets: they apply to different chunks.
type modsIndex struct {
	version ModsVersion
	// entries is the number of entries read.
	entries int
	groups  []*modsGroup
	byKey   map[string]*modsGroup
	key     []byte
}

// modsGroup is the deletions of one target.
type modsGroup struct {
	// d is the first entry of the target; its time range is not the
	// group's (spans is).
	d Deletion
	// spans are the closed ranges deleted, sorted and merged once
	// finish ran; before, merged every time they double.
	spans  []span
	merged int
}

func newModsIndex(v ModsVersion) *modsIndex {
	return &modsIndex{version: v, byKey: map[string]*modsGroup{}}
}

// add merges one entry. key is what identifies its target besides the
// fields of d a v2 entry's bytes hold (its bytes less the times; nil for
// v1, whose pattern and offset are the target).
func (x *modsIndex) add(d *Deletion, kind byte, body []byte) {
	x.entries++
	k := x.key[:0]
	if d.Version == ModsV1 {
		// The 1.x rule applies the entry below its offset; otherwise
		// (ModsV2 after the 2.x conversion) the offset is gone.
		k = append(k, 'o')
		k = strconv.AppendInt(k, d.FileOffset, 10)
		k = append(k, ',')
		k = append(k, d.Pattern.String()...)
	} else if body != nil {
		k = append(k, 'b', kind)
		k = append(k, body...)
	} else {
		k = append(k, 'w')
		k = append(k, d.Pattern.String()...)
	}
	x.key = k
	g := x.byKey[string(k)]
	if g == nil {
		g = &modsGroup{d: *d}
		x.byKey[string(k)] = g
		x.groups = append(x.groups, g)
	}
	lo, ok1 := d.lo()
	hi, ok2 := d.hi()
	if !ok1 || !ok2 || lo > hi {
		return // deletes no time
	}
	g.spans = append(g.spans, span{lo, hi})
	if len(g.spans) >= 2*g.merged+16 {
		g.spans = mergeSpans(g.spans)
		g.merged = len(g.spans)
	}
}

// finish merges what add left and drops the lookup map.
func (x *modsIndex) finish() {
	for _, g := range x.groups {
		g.spans = mergeSpans(g.spans)
		g.spans = g.spans[:len(g.spans):len(g.spans)]
		g.merged = len(g.spans)
	}
	x.byKey, x.key = nil, nil
}

// spans returns how many intervals the index holds, for tests and stats.
func (x *modsIndex) spanCount() int {
	n := 0
	for _, g := range x.groups {
		n += len(g.spans)
	}
	return n
}

// deletion returns the group's target with the closed range s, to name in
// messages.
func (g *modsGroup) deletion(s span) *Deletion {
	d := g.d
	d.Start, d.End = s.lo, s.hi
	d.OpenStart, d.OpenEnd = false, false
	return &d
}

// readModsIndex reads the mods file name into a modsIndex as it streams
// (ModsScanner), returning the scan's warnings; with info set, it stores
// there the stat of the file it opened. With v1Whole, v1 entries apply to
// the whole data file, as IoTDB 2.x converts them: the path and the time
// range kept, read back closed from the .mods2 it writes (ModEntry stores
// only both bounds), the offset dropped.
func readModsIndex(fsys fileSystem, name string, opts *ModsOptions, info *fs.FileInfo, v1Whole bool) (*modsIndex, []string, error) {
	var x *modsIndex
	var warnings []string
	err := scanMods(fsys, name, opts, info, func(s *ModsScanner) error {
		x = newModsIndex(s.Version())
		for s.Next() {
			d := s.Deletion()
			if v1Whole && d.Version == ModsV1 {
				d.Version, d.FileOffset, d.Legacy = ModsV2, 0, false
				d.OpenStart, d.OpenEnd = false, false
			}
			x.add(d, s.kind, s.body)
		}
		if err := s.Err(); err != nil {
			return err
		}
		x.finish()
		warnings = s.Warnings()
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return x, warnings, nil
}
