package icesync

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
)

// testSchema is a table's Iceberg schema as icebergSchema makes it.
func testSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "time", Type: iceberg.TimestampTzType{}, Required: true, Doc: "TsFile TIME"},
		iceberg.NestedField{ID: 2, Name: "database", Type: iceberg.StringType{}, Doc: docDatabase},
		iceberg.NestedField{ID: 3, Name: "region", Type: iceberg.StringType{}, Doc: "TsFile TAG STRING"},
		iceberg.NestedField{ID: 4, Name: "temperature", Type: iceberg.Float64Type{}, Doc: "TsFile FIELD DOUBLE"},
	)
}

func TestPartitionSpecColumns(t *testing.T) {
	isc := testSchema()
	for _, tc := range []struct{ in, err string }{
		{"day(time),region", ""},
		{"database,bucket(8, region)", ""},
		{"truncate(3, region)", ""},
		{"none", ""},
		{"day(region)", "applies to the time column"},
		{"time", "partition the time column by hour"},
		{"temperature", `"temperature" is a FIELD column`},
		{"bucket(4, temperature)", "FIELD column"},
		{"day(ts)", `no column "ts"`},
	} {
		fields, err := ParsePartition(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		spec, err := partitionSpec(fields, isc)
		if tc.err == "" {
			if err != nil || specText(spec, isc) != fieldsText(fields) {
				t.Errorf("%q: spec %s, %v", tc.in, specText(spec, isc), err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestTimeBucket(t *testing.T) {
	isc := testSchema()
	at := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMicro()
	}
	for _, tc := range []struct {
		spec string
		at   string
		want int64
		ok   bool
	}{
		{"day(time)", "1970-01-01T00:00:00Z", 0, true},
		{"day(time)", "1970-01-02T00:00:00Z", 1, true},
		{"day(time)", "1969-12-31T23:59:59.999999Z", -1, true},
		{"hour(time),region", "1970-01-01T05:59:59Z", 5, true},
		{"hour(time)", "1969-12-31T23:00:00Z", -1, true},
		{"region,month(time)", "2026-03-15T00:00:00Z", (2026-1970)*12 + 2, true},
		{"month(time)", "1969-12-31T23:59:59Z", -1, true},
		{"year(time)", "2026-12-31T23:59:59Z", 56, true},
		{"year(time)", "1969-06-01T00:00:00Z", -1, true},
		{"none", "2026-01-01T00:00:00Z", 0, false},
		{"region", "2026-01-01T00:00:00Z", 0, false},
	} {
		fields, err := ParsePartition(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := partitionSpec(fields, isc)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := TimeBucket(spec, isc)
		if ok != tc.ok {
			t.Errorf("%s: ok %v", tc.spec, ok)
			continue
		}
		if ok {
			if got := b(at(tc.at)); got != tc.want {
				t.Errorf("%s at %s: %d, want %d", tc.spec, tc.at, got, tc.want)
			}
		}
	}
}
