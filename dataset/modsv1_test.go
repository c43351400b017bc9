package dataset

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestModsV1Lines(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Deletion // zero Kind+Pattern: the line is refused
	}{
		{"DELETION,root.ln.wf01.wt01.temperature,111,100,300", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.ln.wf01.wt01.temperature"), FileOffset: 111, Start: 100, End: 300}},
		// A path holding commas: the numbers are taken from the right.
		{"DELETION,root.sg.`a,b`.s,1,2,3", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.sg.`a,b`.s"), FileOffset: 1, Start: 2, End: 3}},
		{"DELETION,root.a,b,c,7,-8,9", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.a,b,c"), FileOffset: 7, Start: -8, End: 9}},
		// The old point form: (MinInt64, end] with a version.
		{"DELETION,root.ln.wf01.wt01.temperature,111,300", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.ln.wf01.wt01.temperature"), FileOffset: 111, Legacy: true,
			Start: math.MinInt64, End: 300, OpenStart: true}},
		{"DELETION,root.x,y,5,6", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.x,y"), FileOffset: 5, Legacy: true,
			Start: math.MinInt64, End: 6, OpenStart: true}},
		// Extreme bounds are open, as v1/Deletion makes them.
		{"DELETION,root.**,9,-9223372036854775808,9223372036854775807", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.**"), FileOffset: 9, Start: math.MinInt64, End: math.MaxInt64,
			OpenStart: true, OpenEnd: true}},
		// Trailing commas are dropped by Java's split.
		{"DELETION,root.a.s,1,2,3,,,", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.a.s"), FileOffset: 1, Start: 2, End: 3}},
		{"DELETION,root.a.s,+1,2,3", Deletion{Kind: TreeDeletion, Version: ModsV1,
			Pattern: mustPattern(t, "root.a.s"), FileOffset: 1, Start: 2, End: 3}},
		{"", Deletion{}},
		{"UPDATE,root.a.s,1,2,3", Deletion{}},
		{"deletion,root.a.s,1,2,3", Deletion{}},
		{"DELETION,root.a.s,1", Deletion{}},
		{"DELETION,root.a.s,1,2,x", Deletion{}},
		{"DELETION,root.a.s,1,2, 3", Deletion{}},
		{"DELETION,root.a.s,1,2,99999999999999999999", Deletion{}},
		{"DELETION,root.a.s,x,y", Deletion{}},
		{"DELETION,root..s,1,2,3", Deletion{}},
		{"DELETION,root.`a.s,1,2,3", Deletion{}},
		{",,,", Deletion{}},
	} {
		m, err := ParseModsV1([]byte(tc.line+"\n"), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if tc.want.Pattern.IsZero() {
			if len(m.Deletions) != 0 || len(m.Warnings) != 1 {
				t.Errorf("%q: got %+v %q, want it refused", tc.line, m.Deletions, m.Warnings)
			}
			continue
		}
		if len(m.Warnings) != 0 || !reflect.DeepEqual(m.Deletions, []Deletion{tc.want}) {
			t.Errorf("%q:\ngot  %+v %q\nwant %+v", tc.line, m.Deletions, m.Warnings, tc.want)
			continue
		}
		// Written back, the line reads the same.
		b, err := AppendModsV1(nil, m.Deletions...)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := ParseModsV1(b, nil)
		if err != nil || !reflect.DeepEqual(m2.Deletions, m.Deletions) {
			t.Errorf("%q: round trip %q gave %+v %v", tc.line, b, m2.Deletions, err)
		}
	}
}

func TestAppendModsV1Golden(t *testing.T) {
	ds := []Deletion{
		{Kind: TreeDeletion, Pattern: mustPattern(t, "root.sg.d1.*"), FileOffset: 1024, Start: -1, End: 5},
		{Kind: TreeDeletion, Pattern: mustPattern(t, "root.sg.d1.s1"), FileOffset: 7, End: 300, Legacy: true},
	}
	b, err := AppendModsV1(nil, ds...)
	if err != nil {
		t.Fatal(err)
	}
	want := "DELETION,root.sg.d1.*,1024,-1,5\nDELETION,root.sg.d1.s1,7,300\n"
	if string(b) != want {
		t.Fatalf("got %q\nwant %q", b, want)
	}
	if _, err := AppendModsV1(nil, Deletion{Kind: TableDeletion, Table: "t"}); err == nil {
		t.Fatal("AppendModsV1 wrote a table deletion")
	}
}

// TestModsV1StopsAtBadLine: IoTDB closes the reader at the first line it
// cannot decode, so the good lines after it are not applied either.
func TestModsV1StopsAtBadLine(t *testing.T) {
	text := "DELETION,root.a.s1,10,1,2\r\n" + // CRLF ends a line
		"DELETION,root.a.s2,10,3,4\r" + // so does a lone CR
		"UPDATE,root.a.s2,10,3,4\n" + // another type: IoTDB stops here
		"DELETION,root.a.s3,10,5,6\n" +
		"DELETION,root.a.s4,10,7,8\n"
	m, err := ParseModsV1([]byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Deletions) != 2 || m.Deletions[1].Pattern.String() != "root.a.s2" {
		t.Fatalf("got %+v", m.Deletions)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "line 3") || !strings.Contains(m.Warnings[0], "2 lines after") {
		t.Fatalf("warnings %q", m.Warnings)
	}
}

func TestModsV1UnterminatedLastLine(t *testing.T) {
	m, err := ParseModsV1([]byte("DELETION,root.a.s1,10,1,2\nDELETION,root.a.s2,10,3,4"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Deletions) != 2 || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "line 2 has no line end") {
		t.Fatalf("got %+v %q", m.Deletions, m.Warnings)
	}
}

func FuzzModsV1(f *testing.F) {
	f.Add([]byte("DELETION,root.ln.wf01.wt01.temperature,111,100,300\n"))
	f.Add([]byte("DELETION,root.sg.`a,b`.s,1,2,3\r\nDELETION,root.x,y,5,6\n"))
	f.Add([]byte("DELETION,root.**,9,-9223372036854775808,9223372036854775807"))
	f.Add([]byte("DELETION,5,,7,8\n\nDELETION,root.a,1,2,3\n"))
	f.Add([]byte(",,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A streamed read gives what the whole parse gives.
		checkScanMatchesParse(t, data, ModsV1)
		m, err := ParseModsV1(data, &ModsOptions{MaxSize: 1 << 20})
		if err != nil {
			return
		}
		b, err := AppendModsV1(nil, m.Deletions...)
		if err != nil {
			t.Fatalf("AppendModsV1 of parsed deletions: %v", err)
		}
		m2, err := ParseModsV1(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(m2.Warnings) != 0 {
			t.Fatalf("reparse of %q warns %q", b, m2.Warnings)
		}
		if !reflect.DeepEqual(m.Deletions, m2.Deletions) {
			t.Fatalf("round trip of %q\n%+v\n%+v", b, m.Deletions, m2.Deletions)
		}
	})
}
