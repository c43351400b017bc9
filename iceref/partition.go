package iceref

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DefaultPartition is the partition spec a table is created with when
// Options.Partition is empty.
const DefaultPartition = "day(time)"

// ErrPartition is returned for a partition spec that does not parse, names
// a column the table lacks or a transform that does not fit the column, or
// differs from the spec of the existing table.
var ErrPartition = errors.New("iceberg partition spec")

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
// syntax is checked here; icesync checks the columns against the table. An empty spec
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

// FormatPartition renders parsed fields as ParsePartition reads them (and
// as icesync renders a table's spec): "none" for no fields.
func FormatPartition(fields []PartitionField) string {
	if len(fields) == 0 {
		return "none"
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.String()
	}
	return strings.Join(parts, ",")
}
