package iceref

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePartition(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: fieldsText of the result, or the error's part
		err      bool
	}{
		{"", "day(time)", false},
		{"day(time)", "day(time)", false},
		{" HOUR( time ) ", "hour(time)", false},
		{"month(time)", "month(time)", false},
		{"year(time)", "year(time)", false},
		{"none", "none", false},
		{"NONE", "none", false},
		{"region", "region", false},
		{"identity(region)", "region", false},
		{"day(time),region", "day(time),region", false},
		{"day(time), bucket(16, region), truncate(2,plant)", "day(time),bucket(16,region),truncate(2,plant)", false},
		{"bucket(0, region)", "want a number from 1", true},
		{"bucket(x, region)", "want a number from 1", true},
		{"bucket(99999999999, region)", "want a number from 1", true},
		{"bucket(region)", "wants a number and a column", true},
		{"truncate(4)", "wants a number and a column", true},
		{"day(time", "missing )", true},
		{"day()", "wants one column", true},
		{"day(a,b)", "wants one column", true},
		{"week(time)", `unknown transform "week"`, true},
		{"day(time),,region", "empty field", true},
		{"day(time),", "empty field", true},
		{"region,region", "given twice", true},
		{"none,region", "none stands alone", true},
		{"a b", "not a column name", true},
		{"day(time))", "wants one column", true},
	} {
		got, err := ParsePartition(tc.in)
		if tc.err {
			if err == nil || !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("ParsePartition(%q) = %v, %v; want one-line ErrPartition with %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if err != nil || FormatPartition(got) != tc.want {
			t.Errorf("ParsePartition(%q) = %q, %v; want %q", tc.in, FormatPartition(got), err, tc.want)
		}
	}
}

// FuzzParsePartition: no input panics; what parses renders to a spec that
// parses to the same fields.
func FuzzParsePartition(f *testing.F) {
	for _, s := range []string{"day(time)", "none", "day(time),region", "bucket(16, region)", "truncate(2,plant),year(t)", "((,", "bucket(1,)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields, err := ParsePartition(s)
		if err != nil {
			if !errors.Is(err, ErrPartition) {
				t.Fatalf("%q: error %v is not ErrPartition", s, err)
			}
			return
		}
		text := FormatPartition(fields)
		again, err := ParsePartition(text)
		if err != nil || FormatPartition(again) != text {
			t.Fatalf("%q renders as %q, which parses to %q, %v", s, text, FormatPartition(again), err)
		}
	})
}
