package icesync

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
)

// DefaultPartition is the partition spec a table is created with when
// Options.Partition is empty.
const DefaultPartition = "day(time)"

// ErrPartition is returned for a partition spec that does not parse, names
// a column the table lacks or a transform that does not fit the column, or
// differs from the spec of the existing table.
var ErrPartition = errors.New("icesync: partition spec")

// PartitionField is one field of a parsed partition spec: a transform
// ("identity", "hour", "day", "month", "year", "bucket", "truncate") of a
// column, with the bucket count or truncation width in N.
type PartitionField struct {
	Transform string
	Column    string
	N         int
}

// String renders the field as ParsePartition reads it.
func (f PartitionField) String() string {
	switch f.Transform {
	case "identity":
		return f.Column
	case "bucket", "truncate":
		return fmt.Sprintf("%s(%d,%s)", f.Transform, f.N, f.Column)
	}
	return f.Transform + "(" + f.Column + ")"
}

// maxPartitionN bounds bucket counts and truncation widths: Iceberg's are
// 32-bit integers, and a spec wanting more is a typo.
const maxPartitionN = 1 << 20

// ParsePartition parses a partition spec as --partition takes it: "none"
// (no partitioning), or a comma-separated list of hour(C), day(C),
// month(C), year(C), bucket(N, C), truncate(W, C) and bare column names
// (identity). Names and transforms are case-insensitive in the transform
// and case-sensitive in the column, as Iceberg matches them. Only the
// syntax is checked here; partitionSpec checks the columns. An empty spec
// is DefaultPartition.
func ParsePartition(spec string) ([]PartitionField, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		s = DefaultPartition
	}
	if strings.EqualFold(s, "none") {
		return nil, nil
	}
	var out []PartitionField
	seen := map[string]bool{}
	for _, item := range splitTop(s) {
		f, err := parseField(strings.TrimSpace(item))
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrPartition, spec, err)
		}
		if seen[f.String()] {
			return nil, fmt.Errorf("%w %q: %s given twice", ErrPartition, spec, f)
		}
		seen[f.String()] = true
		out = append(out, f)
	}
	return out, nil
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// parseField parses one item of a partition spec.
func parseField(item string) (PartitionField, error) {
	if item == "" {
		return PartitionField{}, errors.New("empty field (want e.g. day(time) or region)")
	}
	open := strings.IndexByte(item, '(')
	if open < 0 {
		if !isColumnName(item) {
			return PartitionField{}, fmt.Errorf("%q is not a column name nor transform(column)", item)
		}
		if strings.EqualFold(item, "none") {
			return PartitionField{}, errors.New("none stands alone")
		}
		return PartitionField{Transform: "identity", Column: item}, nil
	}
	if !strings.HasSuffix(item, ")") {
		return PartitionField{}, fmt.Errorf("%q: missing )", item)
	}
	name := strings.ToLower(strings.TrimSpace(item[:open]))
	args := strings.Split(item[open+1:len(item)-1], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	switch name {
	case "identity", "hour", "day", "month", "year":
		if len(args) != 1 || !isColumnName(args[0]) {
			return PartitionField{}, fmt.Errorf("%s wants one column: %s(time)", name, name)
		}
		return PartitionField{Transform: name, Column: args[0]}, nil
	case "bucket", "truncate":
		if len(args) != 2 || !isColumnName(args[1]) {
			return PartitionField{}, fmt.Errorf("%s wants a number and a column: %s(16, region)", name, name)
		}
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 || n > maxPartitionN {
			return PartitionField{}, fmt.Errorf("%s(%s, ...): want a number from 1 to %d", name, args[0], maxPartitionN)
		}
		return PartitionField{Transform: name, Column: args[1], N: n}, nil
	}
	return PartitionField{}, fmt.Errorf("unknown transform %q (want hour, day, month, year, bucket, truncate or identity)", name)
}

// isColumnName reports whether s can name a column in a spec: not empty,
// without the spec's own punctuation or spaces.
func isColumnName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "(), \t\r\n")
}

// partitionSpec builds the Iceberg partition spec of fields over the
// table's schema isc (whose docs tell TAGs from FIELDs, see
// icebergSchema): time transforms on the time column, identity, bucket
// and truncate on a TAG or the database column, which identify a device.
func partitionSpec(fields []PartitionField, isc *iceberg.Schema) (iceberg.PartitionSpec, error) {
	var opts []iceberg.PartitionOption
	fieldID := iceberg.PartitionDataIDStart
	for _, f := range fields {
		col, ok := isc.FindFieldByName(f.Column)
		if !ok {
			return iceberg.PartitionSpec{}, fmt.Errorf("%w %s: no column %q in the table (columns: %s)", ErrPartition, f, f.Column, columnNames(isc))
		}
		isTime := col.ID == isc.Field(0).ID
		var tr iceberg.Transform
		name := f.Column
		switch f.Transform {
		case "hour", "day", "month", "year":
			if !isTime {
				return iceberg.PartitionSpec{}, fmt.Errorf("%w %s: %s applies to the time column %q only", ErrPartition, f, f.Transform, isc.Field(0).Name)
			}
			tr = map[string]iceberg.Transform{"hour": iceberg.HourTransform{}, "day": iceberg.DayTransform{},
				"month": iceberg.MonthTransform{}, "year": iceberg.YearTransform{}}[f.Transform]
			name += "_" + f.Transform
		default:
			if isTime {
				return iceberg.PartitionSpec{}, fmt.Errorf("%w %s: partition the time column by hour, day, month or year", ErrPartition, f)
			}
			if cat := columnCategory(col); cat != "TAG" && cat != categoryDatabase {
				return iceberg.PartitionSpec{}, fmt.Errorf("%w %s: %q is a %s column; partition by a TAG column (or database)", ErrPartition, f, f.Column, cat)
			}
			switch f.Transform {
			case "identity":
				tr = iceberg.IdentityTransform{}
			case "bucket":
				tr, name = iceberg.BucketTransform{NumBuckets: f.N}, name+"_bucket"
			case "truncate":
				tr, name = iceberg.TruncateTransform{Width: f.N}, name+"_trunc"
			}
		}
		opts = append(opts, iceberg.AddPartitionFieldBySourceID(col.ID, name, tr, isc, &fieldID))
	}
	spec, err := iceberg.NewPartitionSpecOpts(opts...)
	if err != nil {
		return iceberg.PartitionSpec{}, fmt.Errorf("%w: %v", ErrPartition, err)
	}
	return spec, nil
}

// columnNames lists the columns of isc for an error message.
func columnNames(isc *iceberg.Schema) string {
	names := make([]string, 0, isc.NumFields())
	for _, f := range isc.Fields() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// specText renders a table's partition spec as ParsePartition reads it,
// so that a requested spec compares with the table's.
func specText(spec iceberg.PartitionSpec, isc *iceberg.Schema) string {
	if spec.NumFields() == 0 {
		return "none"
	}
	parts := make([]string, 0, spec.NumFields())
	for _, f := range spec.Fields() {
		col := "?"
		if len(f.SourceIDs) == 1 {
			if c, ok := isc.FindFieldByID(f.SourceIDs[0]); ok {
				col = c.Name
			}
		}
		pf := PartitionField{Column: col}
		switch t := f.Transform.(type) {
		case iceberg.IdentityTransform:
			pf.Transform = "identity"
		case iceberg.BucketTransform:
			pf.Transform, pf.N = "bucket", t.NumBuckets
		case iceberg.TruncateTransform:
			pf.Transform, pf.N = "truncate", t.Width
		default:
			pf.Transform = t.String()
		}
		parts = append(parts, pf.String())
	}
	return strings.Join(parts, ",")
}

// fieldsText renders parsed fields as specText renders a spec.
func fieldsText(fields []PartitionField) string {
	if len(fields) == 0 {
		return "none"
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.String()
	}
	return strings.Join(parts, ",")
}

// TimeBucket tells the time granularity of a table's partition spec: when
// a field of spec is hour, day, month or year of the time column (the
// schema's first), bucket maps a time in the table's microseconds since
// 1970 to the partition value Iceberg gives it (hours, days, months or
// years since 1970), and ok is set. With no time field (spec none, or by
// TAG only) ok is unset. A planner that rewrites whole partitions uses it
// to find the partitions a changed time range touches.
func TimeBucket(spec iceberg.PartitionSpec, sc *iceberg.Schema) (bucket func(micros int64) int64, ok bool) {
	if sc.NumFields() == 0 {
		return nil, false
	}
	timeID := sc.Field(0).ID
	for _, f := range spec.Fields() {
		if len(f.SourceIDs) != 1 || f.SourceIDs[0] != timeID {
			continue
		}
		switch f.Transform.(type) {
		case iceberg.HourTransform:
			return func(us int64) int64 { return floorDiv(us, 3600e6) }, true
		case iceberg.DayTransform:
			return func(us int64) int64 { return floorDiv(us, 86400e6) }, true
		case iceberg.MonthTransform:
			return func(us int64) int64 {
				t := time.UnixMicro(us).UTC()
				return int64(t.Year()-1970)*12 + int64(t.Month()) - 1
			}, true
		case iceberg.YearTransform:
			return func(us int64) int64 { return int64(time.UnixMicro(us).UTC().Year() - 1970) }, true
		}
	}
	return nil, false
}
