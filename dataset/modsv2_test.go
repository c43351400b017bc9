package dataset

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tsarrow/tsarrow/tsfile"
)

// goldenTree is one tree ModEntry, assembled by hand from the format.
var goldenTree = []byte{
	0x01,                                           // ModType TREE_DELETION
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // start 1, big-endian
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // end 100
	0x1a, // path length 13, zigzag varint (13<<1)
	'r', 'o', 'o', 't', '.', 's', 'g', '.', '*', '.', 's', '1', '*',
}

// goldenTable is one table ModEntry with an AND predicate and a
// measurement list.
var goldenTable = []byte{
	0x00,                                           // ModType TABLE_DELETION
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb, // start -5
	0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // end MaxInt64
	0x04, 't', '1', // table name "t1": length 2 zigzag
	0x03,      // TagPredicate AND
	0x04,      // 2 operands, zigzag
	0x02,      //   SEGMENT_EXACT_MATCH
	0x02, 'a', //     pattern "a"
	0x02, //     segment index 1, zigzag
	0x05, //   SEGMENT_NOT_NULL
	0x04, //     segment index 2
	0x04, // 2 measurements
	0x04, 's', '1',
	0x04, 's', '2',
}

// goldenDevices is a table ModEntry whose predicate is DEVICE_IN of a
// device with a null segment and the device of one empty segment, then
// one with FULL_EXACT_MATCH and a null SEGMENT_EXACT_MATCH inside AND.
var goldenDevices = []byte{
	0x00,
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // start MinInt64
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // end 0
	0x02, 't', // table "t"
	0x04,      // DEVICE_IN
	0x04,      // 2 devices, zigzag
	0x03,      //   3 segments, unsigned varint
	0x02, 't', //     "t"
	0x01,      //     null (zigzag -1)
	0x02, 'y', //     "y"
	0x01, 0x00, //   1 segment: ""
	0x00, // no measurements: all of them

	0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, // start 10
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, // end 20
	0x02, 't',
	0x03,      // AND
	0x04,      // 2 operands
	0x01,      //   FULL_EXACT_MATCH
	0x02,      //     2 segments
	0x02, 't', //     "t"
	0x02, 'x', //     "x"
	0x02, //   SEGMENT_EXACT_MATCH
	0x01, //     null pattern: IS NULL
	0x06, //     segment index 3
	0x00, // all measurements
}

var goldenNOP = []byte{
	0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, // table "" (length 0)
	0x00, // NOP
	0x01, // measurement count -1: IoTDB reads it as none
}

func mustPattern(t testing.TB, s string) Pattern {
	t.Helper()
	p, err := ParsePattern(s)
	if err != nil {
		t.Fatalf("ParsePattern(%q): %v", s, err)
	}
	return p
}

func goldenDeletions(t testing.TB) (tree, table Deletion, devs []Deletion) {
	tree = Deletion{Kind: TreeDeletion, Start: 1, End: 100, Pattern: mustPattern(t, "root.sg.*.s1*"), Version: ModsV2}
	table = Deletion{
		Kind: TableDeletion, Start: -5, End: math.MaxInt64, Table: "t1", Version: ModsV2,
		Predicate: TagPredicate{Kind: PredAnd, And: []TagPredicate{
			{Kind: PredSegmentExactMatch, Value: "a", Segment: 1},
			{Kind: PredSegmentNotNull, Segment: 2},
		}},
		Measurements: []string{"s1", "s2"},
	}
	devs = []Deletion{
		{
			Kind: TableDeletion, Start: math.MinInt64, End: 0, Table: "t", Version: ModsV2,
			Predicate: TagPredicate{Kind: PredDeviceIn, Devices: []tsfile.DeviceID{
				tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t"}, {Null: true}, {Value: "y"}}),
				tsfile.NewDeviceID(""),
			}},
		},
		{
			Kind: TableDeletion, Start: 10, End: 20, Table: "t", Version: ModsV2,
			Predicate: TagPredicate{Kind: PredAnd, And: []TagPredicate{
				{Kind: PredFullExactMatch, Device: tsfile.NewDeviceID("t", "x")},
				{Kind: PredSegmentExactMatch, ValueNull: true, Segment: 3},
			}},
		},
	}
	return tree, table, devs
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestModsV2Golden(t *testing.T) {
	tree, table, devs := goldenDeletions(t)
	data := cat(goldenTree, goldenTable, goldenDevices)
	m, err := ParseModsV2(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 0 {
		t.Fatalf("warnings: %q", m.Warnings)
	}
	want := append([]Deletion{tree, table}, devs...)
	if !reflect.DeepEqual(m.Deletions, want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", m.Deletions, want)
	}
	got, err := AppendModsV2(nil, want...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("AppendModsV2\n% x\nwant\n% x", got, data)
	}
}

// TestModsV2ZeroSegments: a DeviceID of zero segments reads as one empty
// segment (StringArrayDeviceID.deserialize), which is written back as
// such, as IoTDB writes it.
func TestModsV2ZeroSegments(t *testing.T) {
	zero := bytes.Replace(goldenDevices, []byte{0x02, 'y', 0x01, 0x00, 0x00}, []byte{0x02, 'y', 0x00, 0x00}, 1)
	if len(zero) != len(goldenDevices)-1 {
		t.Fatal("test data")
	}
	a, err := ParseModsV2(zero, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseModsV2(goldenDevices, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("zero segments\n%+v\nwant\n%+v", a, b)
	}
}

func TestModsV2NegativeCount(t *testing.T) {
	m, err := ParseModsV2(goldenNOP, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Deletion{{Kind: TableDeletion, Version: ModsV2}}
	if !reflect.DeepEqual(m.Deletions, want) || len(m.Warnings) != 0 {
		t.Fatalf("got %+v %q", m.Deletions, m.Warnings)
	}
}

// TestModsV2Truncated cuts two entries at every length: the whole entries
// before the cut are kept, and a cut inside an entry drops it with a
// warning.
func TestModsV2Truncated(t *testing.T) {
	tree, table, _ := goldenDeletions(t)
	data := cat(goldenTree, goldenTable)
	for n := 0; n <= len(data); n++ {
		m, err := ParseModsV2(data[:n], nil)
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		var want []Deletion
		switch {
		case n >= len(data):
			want = []Deletion{tree, table}
		case n >= len(goldenTree):
			want = []Deletion{tree}
		}
		if !reflect.DeepEqual(m.Deletions, want) {
			t.Fatalf("cut at %d: %+v, want %+v", n, m.Deletions, want)
		}
		wantWarn := n != 0 && n != len(goldenTree) && n != len(data)
		if (len(m.Warnings) == 1) != wantWarn || len(m.Warnings) > 1 {
			t.Fatalf("cut at %d: warnings %q, want one: %v", n, m.Warnings, wantWarn)
		}
	}
}

func TestModsV2Corrupt(t *testing.T) {
	head := func(typ byte) []byte { return append([]byte{typ}, make([]byte, 16)...) }
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"unknown entry type", cat(goldenTree, head(2))},
		{"unknown predicate", cat(head(0), []byte{0x02, 't', 0x06, 0x00})},
		{"null table", cat(head(0), []byte{0x01, 0x00, 0x00})},
		{"null tree path", cat(head(1), []byte{0x01})},
		{"null measurement", cat(head(0), []byte{0x02, 't', 0x00, 0x02, 0x01})},
		{"negative segment", cat(head(0), []byte{0x02, 't', 0x05, 0x01, 0x00})},
		{"all-null device", cat(head(0), []byte{0x02, 't', 0x01, 0x01, 0x01, 0x00})},
		{"long varint", cat(head(1), []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00})},
		{"varint past 32 bits", cat(head(1), []byte{0xff, 0xff, 0xff, 0xff, 0x7f})},
		{"deep AND", cat(head(0), []byte{0x02, 't'}, bytes.Repeat([]byte{0x03, 0x02}, maxPredicateDepth+1), []byte{0x00, 0x00})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseModsV2(tc.data, nil)
			if !errors.Is(err, tsfile.ErrCorrupt) {
				t.Fatalf("got %+v, %v; want ErrCorrupt", m, err)
			}
		})
	}
}

// TestModsV2DeepANDLimit: the deepest AND the parser takes is written and
// read back; one level more is refused by both.
func TestModsV2DeepANDLimit(t *testing.T) {
	p := TagPredicate{Kind: PredNOP}
	for i := 0; i < maxPredicateDepth; i++ {
		p = TagPredicate{Kind: PredAnd, And: []TagPredicate{p}}
	}
	d := Deletion{Kind: TableDeletion, Table: "t", Predicate: p, Version: ModsV2}
	b, err := AppendModsV2(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseModsV2(b, nil)
	if err != nil || !reflect.DeepEqual(m.Deletions, []Deletion{d}) {
		t.Fatalf("got %v %v", m, err)
	}
	d.Predicate = TagPredicate{Kind: PredAnd, And: []TagPredicate{p}}
	if _, err := AppendModsV2(nil, d); err == nil {
		t.Fatal("AppendModsV2 wrote an AND deeper than the parser reads")
	}
}

// TestModsV2HugeLength: a length far past the data is a stop, with a
// warning, and nothing of its size is allocated.
func TestModsV2HugeLength(t *testing.T) {
	data := cat(goldenTree, []byte{0x01}, make([]byte, 16), []byte{0xfe, 0xff, 0xff, 0xff, 0x07}, []byte("root"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := ParseModsV2(data, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Deletions) != 1 || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "exceeds") {
		t.Fatalf("got %+v %q", m.Deletions, m.Warnings)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("allocated %d bytes for a 2 GiB length", d)
	}
}

func TestModsTooLarge(t *testing.T) {
	opts := &ModsOptions{MaxSize: int64(len(goldenTree))}
	if _, err := ParseModsV2(goldenTree, opts); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	big := cat(goldenTree, goldenTree)
	if _, err := ParseModsV2(big, opts); !errors.Is(err, ErrModsTooLarge) {
		t.Fatalf("v2 over the limit: %v", err)
	}
	if _, err := ParseModsV1([]byte(strings.Repeat("x", len(goldenTree)+1)), opts); !errors.Is(err, ErrModsTooLarge) {
		t.Fatalf("v1 over the limit: %v", err)
	}

	// A file is refused from its size, before it is read: a sparse file of
	// 1 GiB would take that much memory otherwise.
	dir := t.TempDir()
	name := filepath.Join(dir, "1-1-0-0.tsfile.mods2")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = ReadModsFile(name, nil)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrModsTooLarge) {
		t.Fatalf("ReadModsFile of 1 GiB: %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("allocated %d bytes before refusing", d)
	}

	if err := os.WriteFile(name, goldenTree, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadModsFile(name, nil)
	if err != nil || len(m.Deletions) != 1 || m.Version != ModsV2 {
		t.Fatalf("ReadModsFile: %+v %v", m, err)
	}
	if _, err := ReadModsFile(filepath.Join(dir, "x.tsfile"), nil); err == nil {
		t.Fatal("ReadModsFile took a name without a mods suffix")
	}
}

func TestAppendModsV2Refuses(t *testing.T) {
	for _, d := range []Deletion{
		{Kind: 7},
		{Kind: TreeDeletion},
		{Kind: TableDeletion, Predicate: TagPredicate{Kind: 9}},
		{Kind: TableDeletion, Predicate: TagPredicate{Kind: PredSegmentNotNull, Segment: -1}},
	} {
		if _, err := AppendModsV2(nil, d); err == nil {
			t.Errorf("AppendModsV2(%+v) succeeded", d)
		}
	}
}

func FuzzModsV2(f *testing.F) {
	f.Add(cat(goldenTree, goldenTable, goldenDevices))
	f.Add(goldenNOP)
	f.Add(goldenTree[:20])
	f.Add(cat(goldenTree, []byte{0x01}, make([]byte, 16), []byte{0xfe, 0xff, 0xff, 0xff, 0x07}))
	f.Add([]byte{0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x06, '`', 'a', '.'})
	f.Fuzz(func(t *testing.T, data []byte) {
		// A streamed read gives what the whole parse gives.
		checkScanMatchesParse(t, data, ModsV2)
		m, err := ParseModsV2(data, &ModsOptions{MaxSize: 1 << 20})
		if err != nil {
			return
		}
		b, err := AppendModsV2(nil, m.Deletions...)
		if err != nil {
			t.Fatalf("AppendModsV2 of parsed deletions: %v", err)
		}
		m2, err := ParseModsV2(b, nil)
		if err != nil {
			t.Fatalf("reparse: %v", err)
		}
		if len(m2.Warnings) != 0 {
			t.Fatalf("reparse warnings: %q", m2.Warnings)
		}
		if !reflect.DeepEqual(m.Deletions, m2.Deletions) && !(len(m.Deletions) == 0 && len(m2.Deletions) == 0) {
			t.Fatalf("round trip\n%+v\n%+v", m.Deletions, m2.Deletions)
		}
		for i := range m.Deletions {
			d := &m.Deletions[i]
			dev := tsfile.NewDeviceID(d.Table, "a")
			d.AffectsDevice(dev)
			d.AffectsMeasurement(dev, "s1")
			d.AffectsAll(dev)
			_ = d.String()
		}
	})
}
