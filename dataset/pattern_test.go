package dataset

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tsarrow/tsarrow/tsfile"
)

func TestParsePattern(t *testing.T) {
	for _, tc := range []struct {
		in    string
		nodes []string // nil: refused
	}{
		{"root.sg.d1.s1", []string{"root", "sg", "d1", "s1"}},
		{"root.**", []string{"root", "**"}},
		{"root.sg.`a.b`.s", []string{"root", "sg", "`a.b`", "s"}},
		{"root.sg.`d1`.s", []string{"root", "sg", "d1", "s"}}, // redundant quotes dropped
		{"root.sg.`a``b`.s", []string{"root", "sg", "`a``b`", "s"}},
		{"root", []string{"root"}},
		{"root.a.b.c.d.e", []string{"root", "a", "b", "c", "d", "e"}},
		{"", nil},
		{"root..s", nil},
		{"root.s.", nil},
		{"root.`a.s", nil},
	} {
		p, err := ParsePattern(tc.in)
		if tc.nodes == nil {
			if err == nil {
				t.Errorf("ParsePattern(%q) = %q, want an error", tc.in, p.Nodes())
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(p.Nodes(), tc.nodes) || p.String() != tc.in {
			t.Errorf("ParsePattern(%q) = %q, %v; want %q", tc.in, p.Nodes(), err, tc.nodes)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, series string // series: device path and measurement, dot-joined
		want            bool
	}{
		{"root.sg.d1.s1", "root.sg.d1.s1", true},
		{"root.sg.d1.s1", "root.sg.d1.s2", false},
		{"root.sg.d1.s1", "root.sg.d1", false},
		{"root.sg.*.s1", "root.sg.d1.s1", true},
		{"root.sg.*.s1", "root.sg.d1.x.s1", false}, // * is one level
		{"root.sg.d1.*", "root.sg.d1.s9", true},
		{"root.**", "root.sg.d1.s1", true},
		{"root.**", "root.a", true},
		{"root.**", "root", false}, // ** matches one or more nodes, never none
		{"root.sg.**.s1", "root.sg.d1.s1", true},
		{"root.sg.**.s1", "root.sg.a.b.c.s1", true},
		{"root.sg.**.s1", "root.sg.s1", false},
		{"root.**.d1.**", "root.sg.d1.s1", true},
		{"root.**.d1.**", "root.sg.d1", false},
		{"root.**.**", "root.a", false},
		{"root.**.**", "root.a.b", true},
		{"root.sg.d*.s1", "root.sg.d12.s1", true},
		{"root.sg.d*.s1", "root.sg.x1.s1", false},
		{"root.sg.*1*.s", "root.sg.a1b.s", true},
		{"root.sg.d1.s*", "root.sg.d1.s", true},
		{"root.sg.`d.1`.s", "root.sg.`d.1`.s", true},
		{"root.sg.`d*`.s", "root.sg.dx.s", false}, // a quoted star is a name
		{"root.sg.`d*`.s", "root.sg.`d*`.s", true},
		{"root.sg.`d*`.s", "root.sg.`d-x`.s", false},
		{"root.sg.`d1`.s", "root.sg.d1.s", true},
	} {
		p := mustPattern(t, tc.pattern)
		nodes := mustPattern(t, tc.series).Nodes()
		dev, m := nodes[:len(nodes)-1], nodes[len(nodes)-1]
		if got := p.Match(dev, m); got != tc.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tc.pattern, tc.series, got, tc.want)
		}
	}
}

func TestPatternDevice(t *testing.T) {
	for _, tc := range []struct {
		pattern, device string
		match, covers   bool
	}{
		{"root.sg.d1.s1", "root.sg.d1", true, false},
		{"root.sg.d1.*", "root.sg.d1", true, true},
		{"root.sg.d1.**", "root.sg.d1", true, true},
		{"root.sg.d1.s*", "root.sg.d1", true, false},
		{"root.sg.**", "root.sg.d1", true, true},
		{"root.sg.**", "root.sg.a.b.c", true, true},
		{"root.sg.d1", "root.sg.d1", false, false}, // names series d1 of device root.sg
		{"root.sg.d1", "root.sg", true, false},
		{"root.**.s1", "root.sg.d1", true, false},
		{"root.*.s1", "root.sg.d1", false, false},
		{"root.other.**", "root.sg.d1", false, false},
	} {
		p := mustPattern(t, tc.pattern)
		dev := DeviceNodes(tsfile.ParseTreePath(tc.device))
		if got := p.MatchDevice(dev); got != tc.match {
			t.Errorf("%q.MatchDevice(%q) = %v, want %v", tc.pattern, tc.device, got, tc.match)
		}
		if got := p.CoversDevice(dev); got != tc.covers {
			t.Errorf("%q.CoversDevice(%q) = %v, want %v", tc.pattern, tc.device, got, tc.covers)
		}
	}
	if !mustPattern(t, "root.sg.d1.s*").MatchMeasurement("s12") || mustPattern(t, "root.sg.d1.s*").MatchMeasurement("x") {
		t.Error("MatchMeasurement")
	}
	var zero Pattern
	if zero.Match(nil, "") || zero.MatchDevice(nil) || zero.MatchMeasurement("") {
		t.Error("the zero Pattern matched")
	}
}

func TestDeviceNodes(t *testing.T) {
	for path, want := range map[string][]string{
		"root.sg.d1":           {"root", "sg", "d1"},
		"root.sg.d1.d2.d3":     {"root", "sg", "d1", "d2", "d3"},
		"root.`a.b`.d1.d2":     {"root", "`a.b`", "d1", "d2"},
		"root.sg.`x.y`":        {"root", "sg", "`x.y`"},
		"root.sg.`weird``q.z`": {"root", "sg", "`weird``q.z`"},
	} {
		if got := DeviceNodes(tsfile.ParseTreePath(path)); !reflect.DeepEqual(got, want) {
			t.Errorf("DeviceNodes(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestPatternManyWildcards: a pattern of many "**" against a long path
// ends at once (a naive backtracking matcher takes exponential time).
func TestPatternManyWildcards(t *testing.T) {
	p := mustPattern(t, "root."+strings.Repeat("**.", 40)+"nomatch")
	dev := strings.Split("root."+strings.Repeat("a.", 60)+"b", ".")
	if p.Match(dev, "s") {
		t.Fatal("matched")
	}
	if !glob(strings.Repeat("*a", 30)+"*b", strings.Repeat("a", 60)+"b") || glob(strings.Repeat("*a", 30)+"*b", strings.Repeat("a", 200)) {
		t.Fatal("glob")
	}
}
