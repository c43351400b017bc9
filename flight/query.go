package flight

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/tsarrow/tsarrow/arrowconv"
)

// Query is the JSON a command descriptor carries to select data:
//
//	{"table": "weather", "files": ["2026/a.tsfile"], "columns": ["temp"],
//	 "start": "2026-01-01T00:00:00Z", "end": 1767225600000,
//	 "where": {"region": "north"}, "limit": 1000, "compression": "zstd"}
//
// Only Table is required. Files are relative to the root (default: every
// file holding the table); an IoTDB data directory is named alone, and is
// the default when the root is one (see the package documentation). Columns selects the columns and their order:
// the streams have the time column first, then exactly the named columns
// in the order given (TAG and ATTRIBUTE columns too, only when named); nil
// keeps every column in schema order, and an empty list keeps time alone.
// A name given twice or not in the table is an error, and the time column
// may only be named first. The time column is "time", or, in a table whose
// schema records a column of category TIME (the C++ and Python writers of
// TsFile 2.5), that column's name (arrowconv.TimeFieldName): a query names
// it so, and a FIELD named "time" beside it is a column like any other. Start and End are inclusive bounds, each an
// integer in the stored time unit or a string arrowconv.ParseTime reads
// (a date, or a date and time, UTC unless it has a zone); a date as End
// includes its whole day. Where keeps the
// devices whose TAG (or, for tree-model tables, "device") columns equal the
// values. Limit caps the rows of the whole flight, which then has a single
// endpoint so that the cap is exact. Compression chooses the IPC body
// compression of the streams: "zstd", "lz4" or "none" (default: the
// server's setting).
//
// Database names the database of a table in an IoTDB data directory, as
// path descriptors [database, table] and [dir, database, table] do: IoTDB
// never reads a table name of several databases as one table, so such a
// name alone is refused.
type Query struct {
	Table       string            `json:"table"`
	Database    string            `json:"database,omitempty"`
	Files       []string          `json:"files,omitempty"`
	Columns     []string          `json:"columns"` // no omitempty: [] (time only) is not nil (every column)
	Start       *TimeBound        `json:"start,omitempty"`
	End         *TimeBound        `json:"end,omitempty"`
	Where       map[string]string `json:"where,omitempty"`
	Limit       int64             `json:"limit,omitempty"`
	Compression string            `json:"compression,omitempty"`
}

// TimeBound is a query time bound: a JSON integer in the stored unit or a
// time string (see arrowconv.ParseTime).
type TimeBound struct {
	raw string
	num bool
}

// UnmarshalJSON accepts a number or a string.
func (b *TimeBound) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*b = TimeBound{raw: s}
		return nil
	}
	if _, err := strconv.ParseInt(string(data), 10, 64); err != nil {
		return fmt.Errorf("time bound %s is neither an int64 nor a string", data)
	}
	*b = TimeBound{raw: string(data), num: true}
	return nil
}

// MarshalJSON writes the bound as it was given.
func (b TimeBound) MarshalJSON() ([]byte, error) {
	if b.num {
		return []byte(b.raw), nil
	}
	return json.Marshal(b.raw)
}

// Int returns a bound given as an integer in the stored unit.
func Int(v int64) *TimeBound { return &TimeBound{raw: strconv.FormatInt(v, 10), num: true} }

// Time returns a bound given as a time string (see arrowconv.ParseTime).
func Time(s string) *TimeBound { return &TimeBound{raw: s} }

// resolve reads the bound in unit with the CLI's parser: as a start, a
// date is its first instant; as an (inclusive) end, its last.
func (b *TimeBound) resolve(unit arrow.TimeUnit, end bool) (int64, error) {
	if end {
		return arrowconv.ParseEndTime(b.raw, unit)
	}
	return arrowconv.ParseTime(b.raw, unit)
}

// errBadQuery marks a malformed or unsatisfiable query
// (codes.InvalidArgument).
var errBadQuery = errors.New("flight: bad query")

// maxQuerySize bounds a command descriptor, which a client controls.
const maxQuerySize = 1 << 20

// decodeCommand decodes a command descriptor's JSON strictly: bounded in
// size, unknown fields and trailing data refused, so that a misspelt
// filter is not silently ignored. what names the expected type in errors.
func decodeCommand(cmd []byte, v any, what string) error {
	if len(cmd) > maxQuerySize {
		return fmt.Errorf("%w: command of %d bytes exceeds %d", errBadQuery, len(cmd), maxQuerySize)
	}
	dec := json.NewDecoder(bytes.NewReader(cmd))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: command is not a JSON %s: %v", errBadQuery, what, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the JSON %s", errBadQuery, what)
	}
	return nil
}

// parseQuery decodes and checks a command descriptor's query.
func parseQuery(cmd []byte) (*Query, error) {
	var q Query
	if err := decodeCommand(cmd, &q, "query"); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	return &q, nil
}

func (q *Query) check() error {
	if q.Table == "" {
		return fmt.Errorf("%w: no table", errBadQuery)
	}
	if q.Limit < 0 {
		return fmt.Errorf("%w: negative limit %d", errBadQuery, q.Limit)
	}
	switch q.Compression {
	case "", "none", "zstd", "lz4":
	default:
		return fmt.Errorf("%w: unknown compression %q (want zstd, lz4 or none)", errBadQuery, q.Compression)
	}
	for _, f := range q.Files {
		if err := checkRel(f); err != nil {
			return err
		}
	}
	seen := make(map[string]bool, len(q.Columns))
	for _, c := range q.Columns {
		if seen[c] {
			return fmt.Errorf("%w: column %q is named twice in columns", errBadQuery, c)
		}
		seen[c] = true
	}
	// Where the time column may be named is checked against the table's
	// schema (checkColumns), which names it.
	return nil
}

// maxListedColumns bounds the column names an error lists, for tables of
// thousands of measurements.
const maxListedColumns = 50

// checkColumns reports the first of cols that full, the unprojected schema
// of a table, does not have, naming the columns it has, and the time
// column (arrowconv.TimeField) named other than first.
func checkColumns(full *arrow.Schema, cols []string) error {
	timeName := arrowconv.TimeFieldNameOf(full)
	for i, c := range cols {
		if c == timeName && i > 0 {
			return fmt.Errorf("the time column %q named at position %d; it is always the first column: name it first or not at all", c, i+1)
		}
		if full.HasField(c) {
			continue
		}
		names := make([]string, 0, min(full.NumFields(), maxListedColumns))
		for i, f := range full.Fields() {
			if i == maxListedColumns {
				names = append(names, fmt.Sprintf("and %d more", full.NumFields()-i))
				break
			}
			names = append(names, strconv.Quote(f.Name))
		}
		return fmt.Errorf("no column %q; the columns are %s", c, strings.Join(names, ", "))
	}
	return nil
}

// projection checks that a stream's schema s is the one the query asked
// for: time, then cols in the order given (arrowconv and dataset order the
// columns so, Options.Columns), and returns it. A stream that holds other
// columns, or these in another order, is an error.
func projection(s *arrow.Schema, cols []string) (*arrow.Schema, error) {
	if cols == nil {
		return s, nil
	}
	want := 0
	timeName := arrowconv.TimeFieldNameOf(s)
	for i, name := range append([]string{timeName}, cols...) {
		if i > 0 && name == timeName {
			continue // named first, already placed
		}
		idx := s.FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("stream has %d columns named %q, want 1", len(idx), name)
		}
		if idx[0] != want {
			return nil, fmt.Errorf("stream has column %q at %d, the query names it at %d", name, idx[0], want)
		}
		want++
	}
	if want != s.NumFields() {
		return nil, fmt.Errorf("stream has %d columns, the query names %d", s.NumFields(), want)
	}
	return s, nil
}

// queryFromDescriptor maps a descriptor to a query: path [table] is the
// table across the root, [file, table] the table in one file (or, when the
// root is an IoTDB data directory, [database, table] its table of that
// database), [dir, database, table] a table of a data directory under the
// root, and a command is a JSON Query.
func queryFromDescriptor(d *arrowflight.FlightDescriptor) (*Query, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: no descriptor", errBadQuery)
	}
	switch d.Type {
	case arrowflight.DescriptorCMD:
		return parseQuery(d.Cmd)
	case arrowflight.DescriptorPATH:
		switch len(d.Path) {
		case 1:
			q := &Query{Table: d.Path[0]}
			return q, q.check()
		case 2:
			q := &Query{Table: d.Path[1], Files: []string{d.Path[0]}}
			return q, q.check()
		case 3:
			q := &Query{Table: d.Path[2], Database: d.Path[1], Files: []string{d.Path[0]}}
			return q, q.check()
		}
		return nil, fmt.Errorf("%w: path descriptor has %d elements; want [table], [file, table], [database, table] or [dir, database, table]", errBadQuery, len(d.Path))
	}
	return nil, fmt.Errorf("%w: unknown descriptor type %v", errBadQuery, d.Type)
}

// options turns the query into reader options in the server's time unit.
func (q *Query) options(unit arrow.TimeUnit) (*arrowconv.Options, error) {
	o := &arrowconv.Options{TimeUnit: arrowconv.TimeUnitOf(unit), Columns: q.Columns, Where: q.Where, Limit: q.Limit}
	if q.Start != nil || q.End != nil {
		r := &arrowconv.TimeRange{Start: math.MinInt64, End: math.MaxInt64}
		var err error
		if q.Start != nil {
			if r.Start, err = q.Start.resolve(unit, false); err != nil {
				return nil, fmt.Errorf("%w: start: %v", errBadQuery, err)
			}
		}
		if q.End != nil {
			if r.End, err = q.End.resolve(unit, true); err != nil {
				return nil, fmt.Errorf("%w: end: %v", errBadQuery, err)
			}
		}
		if r.Start > r.End {
			return nil, fmt.Errorf("%w: start %d is after end %d", errBadQuery, r.Start, r.End)
		}
		o.Time = r
	}
	return o, nil
}

// filtered reports whether the query narrows the rows or columns, so that
// the catalog's unfiltered plans do not apply.
func (q *Query) filtered() bool {
	return q.Columns != nil || q.Start != nil || q.End != nil || len(q.Where) > 0
}
