package iceref

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseInput(t *testing.T) {
	for _, tc := range []struct {
		in      string
		cat, ns string
		table   string
	}{
		{"iceberg:sqlite:cat.db#iot.weather", "sqlite:cat.db", "iot", "weather"},
		{"iceberg:sqlite:/srv/lake/cat.db#a.b.c", "sqlite:/srv/lake/cat.db", "a.b", "c"},
		{"iceberg:postgres://u@host:5432/db?sslmode=disable#iot.weather", "postgres://u@host:5432/db?sslmode=disable", "iot", "weather"},
	} {
		r, err := ParseInput(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if r.Catalog != tc.cat || strings.Join(r.Namespace, ".") != tc.ns || r.Table != tc.table || r.String() != tc.in {
			t.Errorf("%s: %+v", tc.in, r)
		}
	}
	for _, in := range []string{
		"sqlite:cat.db#iot.weather",         // no prefix
		"iceberg:sqlite:cat.db",             // no '#'
		"iceberg:#iot.weather",              // no catalog
		"iceberg:sqlite:cat.db#",            // no name
		"iceberg:sqlite:cat.db#weather",     // no namespace
		"iceberg:sqlite:a#b.db#iot.weather", // two '#'
		"iceberg:sqlite:cat.db#iot.",        // empty table
		"iceberg:sqlite:cat.db#.weather",    // empty namespace
		"iceberg:sqlite:cat.db#a..weather",  // empty level
		"iceberg:iceberg:sqlite:cat.db#iot.weather",
		"iceberg:sqlite:cat.db#iot.wea\nther",
	} {
		_, err := ParseInput(in)
		if !errors.Is(err, ErrInput) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "iceberg:CATALOG#NAMESPACE.TABLE") {
			t.Errorf("%q: %v, want a one-line ErrInput naming the form", in, err)
		}
	}
}

// FuzzParseInput: a parse never panics, an error is one line naming the
// form, and an accepted input spells back to itself with every part
// non-empty.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{"iceberg:sqlite:cat.db#iot.weather", "iceberg:postgres://h/db#a.b.c", "iceberg:#", "iceberg:a#b", "iceberg:a##b.c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseInput(s)
		if err != nil {
			if !errors.Is(err, ErrInput) || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if r.String() != s || r.Catalog == "" || r.Table == "" || len(r.Namespace) == 0 || slices.Contains(r.Namespace, "") {
			t.Fatalf("%q: parsed as %+v", s, r)
		}
	})
}
