package icesync

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/tsarrow/tsarrow/iceref"
)

// DefaultPartition is the partition spec a table is created with when
// Options.Partition is empty.
const DefaultPartition = iceref.DefaultPartition

// ErrPartition is returned for a partition spec that does not parse, names
// a column the table lacks or a transform that does not fit the column, or
// differs from the spec of the existing table.
var ErrPartition = iceref.ErrPartition

// PartitionField is one field of a parsed partition spec (see
// iceref.PartitionField).
type PartitionField = iceref.PartitionField

// ParsePartition parses a partition spec as --partition takes it (see
// iceref.ParsePartition, which checks the syntax without iceberg-go).
func ParsePartition(spec string) ([]PartitionField, error) { return iceref.ParsePartition(spec) }

// fieldsText renders fields as ParsePartition reads them.
func fieldsText(fields []PartitionField) string { return iceref.FormatPartition(fields) }

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
