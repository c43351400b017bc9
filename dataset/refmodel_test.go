package dataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
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
// Every rule is written here again, without calling the code under test
// (Priority, the mods parsers, Pattern, TagPredicate, Deletion's methods),
// so that a bug there shows as a difference, not twice:
//
//  0. Which files: a data file without its .resource is read when it is
//     complete (it ends with the TsFile magic) and left out otherwise
//     (docs/iotdb-rules.md 7a, AbstractTsFileRecoverPerformer).
//  1. Per file, its own mods delete its points (rule 3a): v2 (.mods2,
//     preferred when both exist, 3c) on every chunk; v1 (.mods) only on
//     chunks whose header offset is below the deletion's offset (3b), or on
//     every chunk, its open bounds closed, where IoTDB 2.x converts the
//     file (refV1Whole). An aligned cell goes when its column is deleted;
//     the whole row goes when the time column (measurement "") is (3d). A
//     tree aligned row whose cells are all null is dropped; a table row is
//     kept (2c).
//  2. Across files of one database (table model; a tree device's path
//     names its database), for each (device, time) the copies are ordered
//     by priority (1a): unsequence over sequence, then the higher version
//     in the file name, then the higher time in the file name, then the
//     larger chunk offset. Aligned rows combine cell by cell, each null
//     cell taking the value of the highest-priority copy that has one
//     (2a); non-aligned series keep the highest-priority point (1b).
//  3. A table-model device of a table that two databases hold is keyed
//     "database:device": IoTDB never merges databases.
//
// IoTDB: MergeReaderPriority, PriorityMergeReader, AlignedPriorityMergeReader,
// ModificationUtils, AlignedPageReader/TablePageReader, TsFileResource
// .upgradeModFile (docs/iotdb-rules.md).

// refPrio is the priority of a copy of a point (rule 1a).
type refPrio struct {
	unseq                  bool
	version, ftime, offset int64
}

// higher reports whether copy a wins over copy b.
func (a refPrio) higher(b refPrio) bool {
	if a.unseq != b.unseq {
		return a.unseq
	}
	if a.version != b.version {
		return a.version > b.version
	}
	if a.ftime != b.ftime {
		return a.ftime > b.ftime
	}
	return a.offset > b.offset
}

// refCopy is one copy of a row (aligned) or of a point (non-aligned) after
// its file's deletions.
type refCopy struct {
	prio  refPrio
	cells map[string]*int64 // column -> value, nil = null cell
}

// refRows is the reference's answer: per device (DeviceID.String(), with
// "database:" before a table-model device whose table two databases hold),
// the rows sorted by time, each formatted by formatRow.
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

// refDel is a deletion as the reference reads it from a mods file.
type refDel struct {
	tree bool
	// pattern is a tree deletion's path pattern, split into nodes.
	pattern []string
	// table, pred and cols are a table deletion's (cols empty: all).
	table string
	pred  refPred
	cols  []string

	start, end         int64
	openStart, openEnd bool
	// v1 deletions apply only to chunks below offset.
	v1     bool
	offset int64
}

// refPred is a table deletion's device predicate: kind 0 NOP (all), 2
// SEGMENT_EXACT_MATCH(value, seg), 3 AND(and...), 5 SEGMENT_NOT_NULL(seg),
// numbered as IoTDB's TagPredicate.TagPredicateType.
type refPred struct {
	kind  byte
	value string
	null  bool
	seg   int
	and   []refPred
}

// refReadMods reads the mods file of a built file as IoTDB does: .mods2
// when it exists (even empty), else .mods. It parses only what the builder
// writes: v1 lines "DELETION,<path>,<offset>,<start>,<end>" and v2 tree and
// table entries with the predicates above.
func refReadMods(t *testing.T, path string) []refDel {
	t.Helper()
	if b, err := os.ReadFile(path + ".mods2"); err == nil {
		return refParseV2(t, b)
	}
	b, err := os.ReadFile(path + ".mods")
	if err != nil {
		return nil
	}
	var out []refDel
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.Split(line, ",")
		require.Len(t, f, 5, "v1 line %q", line)
		require.Equal(t, "DELETION", f[0])
		num := func(s string) int64 {
			n, err := strconv.ParseInt(s, 10, 64)
			require.NoError(t, err, line)
			return n
		}
		d := refDel{tree: true, v1: true, pattern: strings.Split(f[1], "."), offset: num(f[2]), start: num(f[3]), end: num(f[4])}
		// IoTDB 1.x's Deletion opens a bound at the extreme values.
		d.openStart, d.openEnd = d.start == math.MinInt64, d.end == math.MaxInt64
		out = append(out, d)
	}
	return out
}

// refParseV2 parses mods2 entries: kind byte (0 table, 1 tree), start and
// end (big-endian int64), then for a tree entry its pattern, for a table
// entry the table, the predicate and the columns. Strings and counts are
// zigzag varints.
func refParseV2(t *testing.T, b []byte) []refDel {
	t.Helper()
	varint := func() int {
		u, n := binary.Uvarint(b)
		require.Positive(t, n)
		b = b[n:]
		return int(int32(uint32(u>>1) ^ -uint32(u&1)))
	}
	str := func() (string, bool) {
		n := varint()
		if n < 0 {
			return "", true
		}
		s := string(b[:n])
		b = b[n:]
		return s, false
	}
	var pred func() refPred
	pred = func() refPred {
		p := refPred{kind: b[0]}
		b = b[1:]
		switch p.kind {
		case 0:
		case 2:
			p.value, p.null = str()
			p.seg = varint()
		case 3:
			for n := varint(); n > 0; n-- {
				p.and = append(p.and, pred())
			}
		case 5:
			p.seg = varint()
		default:
			t.Fatalf("reference: predicate kind %d not modelled", p.kind)
		}
		return p
	}
	var out []refDel
	for len(b) > 0 {
		d := refDel{tree: b[0] == 1}
		d.start = int64(binary.BigEndian.Uint64(b[1:]))
		d.end = int64(binary.BigEndian.Uint64(b[9:]))
		b = b[17:]
		if d.tree {
			p, _ := str()
			d.pattern = strings.Split(p, ".")
		} else {
			d.table, _ = str()
			d.pred = pred()
			for n := varint(); n > 0; n-- {
				c, _ := str()
				d.cols = append(d.cols, c)
			}
		}
		out = append(out, d)
	}
	return out
}

// refMatchPath matches path nodes against pattern nodes: "*" takes one
// node, "**" one or more (docs/iotdb-rules.md 5).
func refMatchPath(pat, path []string) bool {
	if len(pat) == 0 {
		return len(path) == 0
	}
	switch pat[0] {
	case "**":
		for k := 1; k <= len(path); k++ {
			if refMatchPath(pat[1:], path[k:]) {
				return true
			}
		}
		return false
	case "*":
		return len(path) > 0 && refMatchPath(pat[1:], path[1:])
	}
	return len(path) > 0 && pat[0] == path[0] && refMatchPath(pat[1:], path[1:])
}

// matches reports whether the predicate selects a device of the segments
// (segment 0 is the table); a segment past the end is null.
func (p *refPred) matches(segs []string, nulls []bool) bool {
	at := func(i int) (string, bool) {
		if i >= len(segs) {
			return "", true
		}
		return segs[i], nulls[i]
	}
	switch p.kind {
	case 0:
		return true
	case 2:
		v, null := at(p.seg)
		return null == p.null && (null || v == p.value)
	case 5:
		_, null := at(p.seg)
		return !null
	case 3:
		for i := range p.and {
			if !p.and[i].matches(segs, nulls) {
				return false
			}
		}
		return true
	}
	return false
}

// deletes reports whether d deletes the cell of column (column "" is the
// aligned time column, i.e. the whole row) of p, read from the chunk at
// offset chunk, under the v1 rule whole.
func (d *refDel) deletes(p *refPoint, column string, chunk int64, whole bool) bool {
	tm := p.Time
	if tm < d.start || tm > d.end {
		return false
	}
	if d.v1 && !whole {
		if d.openStart && tm == d.start || d.openEnd && tm == d.end {
			return false
		}
		if d.offset <= chunk {
			return false // the chunk was written after the deletion
		}
	}
	if d.tree {
		if p.Kind == tableGroup {
			return false
		}
		path := append(strings.Split(p.Device.String(), "."), column)
		return refMatchPath(d.pattern, path)
	}
	if p.Kind != tableGroup {
		return false
	}
	var segs []string
	var nulls []bool
	for _, s := range p.Device.Segments() {
		segs = append(segs, s.Value)
		nulls = append(nulls, s.Null)
	}
	if segs[0] != d.table || !d.pred.matches(segs, nulls) {
		return false
	}
	if len(d.cols) == 0 {
		return true
	}
	for _, c := range d.cols {
		if c == column {
			return true
		}
	}
	return false
}

func deletedBy(dels []refDel, p *refPoint, column string, chunk int64, whole bool) bool {
	for i := range dels {
		if dels[i].deletes(p, column, chunk, whole) {
			return true
		}
	}
	return false
}

// refFileRead reports whether the reference reads a built file: it has a
// .resource, or ends with the TsFile magic.
func refFileRead(t *testing.T, bf *builtFile) bool {
	if _, err := os.Stat(bf.Path + ".resource"); err == nil {
		return true
	}
	b, err := os.ReadFile(bf.Path)
	require.NoError(t, err)
	return bytes.HasSuffix(b, []byte("TsFile"))
}

// refV1Whole tells, under rule, whether the .mods deletions of the files
// under root apply to the whole file: with ModsV1Auto, when a data file
// under root is a TsFile v4 (its 7th byte) or has a .mods2 beside it.
func refV1Whole(t *testing.T, dir *builtDir, rule ModsV1Rule) bool {
	switch rule {
	case ModsV1Offset:
		return false
	case ModsV1Whole:
		return true
	}
	for _, bf := range dir.Files {
		if _, err := os.Stat(bf.Path + ".mods2"); err == nil {
			return true
		}
		b, err := os.ReadFile(bf.Path)
		require.NoError(t, err)
		if len(b) > 6 && b[6] == 4 {
			return true
		}
	}
	return false
}

// reference computes the rows of the directory with v1 deletions applied
// as ModsV1Auto applies them.
func reference(t *testing.T, dir *builtDir) refRows {
	t.Helper()
	return referenceRule(t, dir, ModsV1Auto)
}

// referenceRule is reference with the v1 rule given.
func referenceRule(t *testing.T, dir *builtDir, rule ModsV1Rule) refRows {
	t.Helper()
	type devTime struct {
		dev string
		tm  int64
	}
	type seriesKey struct {
		dev, col string
		tm       int64
	}
	whole := refV1Whole(t, dir, rule)
	// Databases holding each table-model table, among the files read.
	tableDBs := map[string]map[string]bool{}
	read := make([]bool, len(dir.Files))
	for fi := range dir.Files {
		bf := &dir.Files[fi]
		if read[fi] = refFileRead(t, bf); !read[fi] {
			continue
		}
		db := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(bf.Path))))
		for _, p := range bf.Points {
			if p.Kind == tableGroup {
				tb := p.Device.Segments()[0].Value
				if tableDBs[tb] == nil {
					tableDBs[tb] = map[string]bool{}
				}
				tableDBs[tb][db] = true
			}
		}
	}
	aligned := map[devTime][]refCopy{}  // aligned rows
	series := map[seriesKey][]refCopy{} // non-aligned points
	cols := map[string]map[string]bool{}
	for fi := range dir.Files {
		bf := &dir.Files[fi]
		if !read[fi] {
			continue
		}
		db := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(bf.Path))))
		prio := func(offset int64) refPrio {
			return refPrio{unseq: bf.Spec.Space == Unsequence, version: bf.Spec.Version, ftime: bf.Spec.Time, offset: offset}
		}
		dels := refReadMods(t, bf.Path)
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
			if p.Kind == tableGroup && len(tableDBs[p.Device.Segments()[0].Value]) > 1 {
				dev = db + ":" + dev
			}
			if p.Kind == treeNonAlign {
				if deletedBy(dels, p, p.Column, p.Chunk, whole) {
					continue
				}
				k := seriesKey{dev, p.Column, p.Time}
				series[k] = append(series[k], refCopy{prio: prio(p.Chunk), cells: map[string]*int64{p.Column: v(p.Value)}})
				continue
			}
			rk := rowKey{p.Group, p.Time}
			r := rows[rk]
			if r == nil {
				if deletedBy(dels, p, "", p.TimeChunk, whole) {
					continue // the time column is deleted: no row
				}
				r = &refCopy{prio: prio(p.TimeChunk), cells: map[string]*int64{}}
				rows[rk] = r
				order = append(order, rk)
				kinds[rk] = p.Kind
				devs[rk] = dev
			}
			if !p.Null && !deletedBy(dels, p, p.Column, p.Chunk, whole) {
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
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].prio.higher(cs[j].prio) })
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
		_, plain, _ := strings.Cut(dev, ":")
		if plain == "" {
			plain = dev
		}
		for c := range cols[plain] {
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
