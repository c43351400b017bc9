package dataset

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	valid := []struct {
		base string
		want Name
	}{
		{"1700000000000-1-0-0.tsfile", Name{1700000000000, 1, 0, 0}},
		{"1-2-3-4.tsfile", Name{1, 2, 3, 4}},
		{"0-0-0-0.tsfile", Name{}},
		// Long.parseLong takes leading zeros; so do we.
		{"007-08-09-010.tsfile", Name{7, 8, 9, 10}},
		{"9223372036854775807-9223372036854775807-2147483647-2147483647.tsfile",
			Name{math.MaxInt64, math.MaxInt64, math.MaxInt32, math.MaxInt32}},
	}
	for _, c := range valid {
		got, err := ParseName(c.base)
		if err != nil || got != c.want {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v", c.base, got, err, c.want)
		}
		if c.base[0] != '0' && got.String() != c.base {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), c.base)
		}
	}
	invalid := []struct{ base, why string }{
		{"1-2-3-4.resource", "does not end in .tsfile"},
		{"1-2-3-4.tsfile.mods", "does not end in .tsfile"},
		{"1-2-3-4.inner", "does not end in .tsfile"},
		{"1-2-3.tsfile", "3 of the 4 fields"},
		{"1.tsfile", "1 of the 4 fields"},
		{".tsfile", "1 of the 4 fields"},
		// IoTDB's own pattern would read this as 2-3-4-5: refused.
		{"1-2-3-4-5.tsfile", "field 4"},
		// And this as time 5.
		{"-5-1-0-0.tsfile", "field 1 (time): empty"},
		{"1--3-4.tsfile", "field 2 (version): empty"},
		{"+1-2-3-4.tsfile", "field 1"},
		{" 1-2-3-4.tsfile", "field 1"},
		{"1-2-3-4 .tsfile", "field 4"},
		{"1-a-3-4.tsfile", "field 2"},
		{"1-2-3-٤.tsfile", "field 4"}, // an Arabic-Indic digit
		{"9223372036854775808-1-0-0.tsfile", "64-bit"},
		{"1-9223372036854775808-0-0.tsfile", "64-bit"},
		// The compaction counts are Java ints.
		{"1-2-2147483648-0.tsfile", "32-bit"},
		{"1-2-0-2147483648.tsfile", "32-bit"},
		{"1-2-3-4xtsfile", "does not end in .tsfile"},
	}
	for _, c := range invalid {
		_, err := ParseName(c.base)
		if !errors.Is(err, ErrName) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseName(%q) = %v; want ErrName saying %q", c.base, err, c.why)
		}
	}
}

func FuzzParseName(f *testing.F) {
	for _, s := range []string{"1-2-3-4.tsfile", "1-2-3-4-5.tsfile", "-1-0-0-0.tsfile", "1-2-3.tsfile", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseName(s)
		if err != nil {
			if !errors.Is(err, ErrName) {
				t.Fatalf("error %v does not wrap ErrName", err)
			}
			return
		}
		// A name that parses is one IoTDB could have written: its fields
		// are non-negative and reparsing the canonical form agrees.
		if n.Time < 0 || n.Version < 0 || n.Inner < 0 || n.Cross < 0 {
			t.Fatalf("%q parsed to negative fields %+v", s, n)
		}
		m, err := ParseName(n.String())
		if err != nil || m != n {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, n, n.String(), m, err)
		}
	})
}
