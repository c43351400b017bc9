package dataset

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tsarrow/tsarrow/tsfile"
)

// goldenArrayResource is a .resource of IoTDB 2.x written by hand from
// TsFileResource.serializeTo and ArrayDeviceTimeIndex.serialize
// (iotdb-core/datanode/.../dataregion/tsfile/), devices serialized by
// StringArrayDeviceID.serialize (apache/tsfile). Devices in slot order,
// as AppendBinary writes them.
var goldenArrayResource = []byte{
	0x01,                   // TsFileResource.VERSION_NUMBER
	0x03,                   // ARRAY_DEVICE_TIME_INDEX_TYPE
	0x00, 0x00, 0x00, 0x02, // deviceNum
	// slot 0: start 100, end 200
	0, 0, 0, 0, 0, 0, 0, 0x64, 0, 0, 0, 0, 0, 0, 0, 0xC8,
	// slot 1: start -5, end 7
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFB, 0, 0, 0, 0, 0, 0, 0, 0x07,
	// device ("root.sg", "d1"): uvarint 2 segments, zigzag varint lengths
	0x02, 0x0E, 'r', 'o', 'o', 't', '.', 's', 'g', 0x04, 'd', '1',
	0x00, 0x00, 0x00, 0x00, // its slot
	// device ("t1", null, "a"): a null segment has length -1, zigzag 0x01
	0x03, 0x04, 't', '1', 0x01, 0x02, 'a',
	0x00, 0x00, 0x00, 0x01, // its slot
	0, 0, 0, 0, 0, 0, 0, 0x09, // maxPlanIndex
	0, 0, 0, 0, 0, 0, 0, 0x03, // minPlanIndex
	0xFF, 0xFF, 0xFF, 0xFF, // no mods file: the null string, length -1
	0x00, // TsFileResourceBlockType.EMPTY_BLOCK
}

// goldenPlainResource is a .resource of IoTDB 1.x (DeviceTimeIndex of
// 1.x, which 2.x reads as PlainDeviceTimeIndex): device paths as i32-length
// strings, written in hash order (slot 1 first), and the base name of the
// file's .mods.
var goldenPlainResource = []byte{
	0x01, 0x01, // version, PLAIN_DEVICE_TIME_INDEX_TYPE
	0x00, 0x00, 0x00, 0x02,
	0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x02, // slot 0: 1..2
	0x80, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // slot 1: MinInt64..MaxInt64
	0x00, 0x00, 0x00, 0x0C, 'r', 'o', 'o', 't', '.', 's', 'g', '.', 'd', '.', 'e', '2',
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x0A, 'r', 'o', 'o', 't', '.', 's', 'g', '.', 'd', '1',
	0x00, 0x00, 0x00, 0x00,
	0x80, 0, 0, 0, 0, 0, 0, 0, // maxPlanIndex: Long.MIN_VALUE, never set
	0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // minPlanIndex: Long.MAX_VALUE
	0x00, 0x00, 0x00, 0x13, '1', '-', '1', '-', '0', '-', '0', '.', 't', 's', 'f', 'i', 'l', 'e', '.', 'm', 'o', 'd', 's',
	0x00,
}

func TestParseResourceGolden(t *testing.T) {
	r, err := ParseResource(goldenArrayResource)
	if err != nil {
		t.Fatal(err)
	}
	want := &Resource{
		IndexType: IndexArray,
		Devices: []DeviceTimes{
			{Device: tsfile.NewDeviceID("root.sg", "d1"), Start: 100, End: 200},
			{Device: tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t1"}, {Null: true}, {Value: "a"}}), Start: -5, End: 7},
		},
		MaxPlanIndex: 9, MinPlanIndex: 3,
		Tail: []byte{0},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
	got, err := want.AppendBinary(nil)
	if err != nil || !bytes.Equal(got, goldenArrayResource) {
		t.Errorf("AppendBinary = %x, %v\nwant          %x", got, err, goldenArrayResource)
	}

	r, err = ParseResource(goldenPlainResource)
	if err != nil {
		t.Fatal(err)
	}
	want = &Resource{
		IndexType: IndexPlain,
		Devices: []DeviceTimes{
			{Device: tsfile.ParseTreePath("root.sg.d1"), Start: 1, End: 2},
			{Device: tsfile.ParseTreePath("root.sg.d.e2"), Start: math.MinInt64, End: math.MaxInt64},
		},
		MaxPlanIndex: math.MinInt64, MinPlanIndex: math.MaxInt64,
		ModFile: "1-1-0-0.tsfile.mods",
		Tail:    []byte{0},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
	if d := r.Devices[1].Device; d.Len() != 2 || d.Table() != "root.sg.d" {
		t.Errorf("1.x path root.sg.d.e2 became %v, want (root.sg.d, e2)", d.Segments())
	}
}

func TestResourceSharedMods(t *testing.T) {
	// IoTDB 2.x: an absolute path of a shared mods file, then its offset;
	// then a progress index block kept raw.
	r := &Resource{
		IndexType:     IndexArray,
		Devices:       []DeviceTimes{{Device: tsfile.NewDeviceID("t", "x"), Start: 3, End: 4}},
		ModFile:       "/data/iotdb/mods/1.mods2",
		ModFileOffset: 4096,
		Tail:          []byte{1, 0xAB, 0xCD},
	}
	b, err := r.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The offset sits right after the path.
	i := bytes.Index(b, []byte(r.ModFile)) + len(r.ModFile)
	if !bytes.Equal(b[i:i+8], []byte{0, 0, 0, 0, 0, 0, 0x10, 0}) {
		t.Errorf("offset bytes %x", b[i:i+8])
	}
	got, err := ParseResource(b)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("round trip: %+v, %v\nwant %+v", got, err, r)
	}
	// A resource of IoTDB 0.13 ends after the plan indexes.
	short := b[:2+4+16+5+4+16] // header, count, times, device, slot, plan indexes
	got, err = ParseResource(short)
	if err != nil || got.ModFile != "" || got.Tail != nil || len(got.Devices) != 1 {
		t.Errorf("resource ending after the plan indexes: %+v, %v", got, err)
	}
}

func TestParseResourceErrors(t *testing.T) {
	mod := func(at int, v ...byte) []byte {
		b := bytes.Clone(goldenArrayResource)
		copy(b[at:], v)
		return b
	}
	const devices = 2 + 4 + 32 // offset of the first device ID
	cases := []struct {
		name string
		b    []byte
		kind error
	}{
		{"empty", nil, tsfile.ErrCorrupt},
		{"version 2", mod(0, 2), tsfile.ErrUnsupported},
		{"file time index", mod(1, 2), tsfile.ErrUnsupported},
		{"v0.12 index", mod(1, 0), tsfile.ErrUnsupported},
		{"negative device count", mod(2, 0xFF, 0xFF, 0xFF, 0xFF), tsfile.ErrCorrupt},
		{"huge device count", mod(2, 0x7F, 0xFF, 0xFF, 0xFF), tsfile.ErrCorrupt},
		{"slot out of range", mod(devices+12, 0, 0, 0, 2), tsfile.ErrCorrupt},
		{"slot taken twice", mod(devices+12, 0, 0, 0, 1), tsfile.ErrCorrupt},
		{"negative slot", mod(devices+12, 0xFF, 0xFF, 0xFF, 0xFF), tsfile.ErrCorrupt},
		{"segment count past the end", mod(devices, 0x7F), tsfile.ErrCorrupt},
		{"segment length past the end", mod(devices+1, 0x7E), tsfile.ErrCorrupt},
		{"segment length below -1", mod(devices+1, 0x03), tsfile.ErrCorrupt},
		{"segment not UTF-8", mod(devices+2, 0xFF), tsfile.ErrCorrupt},
		{"only null segments", mod(devices, 0x01, 0x01), tsfile.ErrCorrupt},
		{"mods name past the end", mod(len(goldenArrayResource)-5, 0, 0, 0, 9), tsfile.ErrCorrupt},
		{"mods name negative length", mod(len(goldenArrayResource)-5, 0xFF, 0xFF, 0xFF, 0xFE), tsfile.ErrCorrupt},
	}
	for _, c := range cases {
		_, err := ParseResource(c.b)
		var fe *tsfile.FormatError
		if !errors.Is(err, c.kind) || !errors.As(err, &fe) {
			t.Errorf("%s: err = %v, want a FormatError of kind %v", c.name, err, c.kind)
		}
	}
	// Every cut before the end of the plan indexes is refused.
	planEnd := len(goldenArrayResource) - 5
	for n := 0; n < planEnd; n++ {
		if _, err := ParseResource(goldenArrayResource[:n]); !errors.Is(err, tsfile.ErrCorrupt) {
			t.Errorf("cut at %d: err = %v", n, err)
		}
	}
}

func TestReadResourceFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "1-1-0-0.tsfile.resource")
	if err := os.WriteFile(p, goldenPlainResource, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadResourceFile(p)
	if err != nil || len(r.Devices) != 2 {
		t.Fatalf("ReadResourceFile = %+v, %v", r, err)
	}
	big := filepath.Join(dir, "big.resource")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxResourceSize+1); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResourceFile(big); !errors.Is(err, tsfile.ErrUnsupported) {
		t.Errorf("oversized resource: %v", err)
	}
	bad := filepath.Join(dir, "bad.resource")
	if err := os.WriteFile(bad, goldenPlainResource[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResourceFile(bad); !errors.Is(err, tsfile.ErrCorrupt) {
		t.Errorf("truncated resource: %v", err)
	}
}

func FuzzResource(f *testing.F) {
	f.Add(goldenArrayResource)
	f.Add(goldenPlainResource)
	f.Add([]byte{1, 3, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseResource(b)
		if err != nil {
			if !errors.Is(err, tsfile.ErrCorrupt) && !errors.Is(err, tsfile.ErrUnsupported) {
				t.Fatalf("error of no kind: %v", err)
			}
			return
		}
		if len(r.Devices)*21 > len(b) {
			t.Fatalf("%d devices from %d bytes", len(r.Devices), len(b))
		}
		// What parses re-encodes to something that parses the same (the
		// device order and the spelling of 1.x paths may change).
		if r.IndexType != IndexArray {
			return
		}
		enc, err := r.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := ParseResource(enc)
		if err != nil {
			t.Fatalf("re-encoded resource fails: %v", err)
		}
		if r.Tail == nil {
			r.Tail = r2.Tail // AppendBinary ends a tail-less resource with an empty block
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip\n%+v\n%+v", r, r2)
		}
	})
}
