package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// partitionSpec is a parsed --partition-by: a table=T level always, then
// a device=D level, then time levels.
//
// The time keys are chosen for what DuckDB's read_parquet(...,
// hive_partitioning = true), Spark and pyarrow's "hive" partitioning infer
// from them, so that the key is a column worth filtering on:
//
//	day    date=2024-01-01          a DATE column (Spark DateType, pyarrow
//	                                date32 with a schema, a string without)
//	hour   date=2024-01-01/hour=13  the same DATE, and hour a BIGINT 0-23
//	month  year=2024/month=1        two BIGINT columns, the layout Spark
//	                                users write and filter on
//
// "month=2024-01" was passed over: no reader infers a type for it, so it
// comes back a string, and a range filter on it is a string comparison.
// "hour=2024-01-01T13" likewise reads back as a string; with date=/hour=
// a day's hours sit in its date directory, so a day partitioning and an
// hour partitioning of the same data give the same date column. The
// numbers are not zero-padded: DuckDB (1.5) types hour=01 and month=01 as
// VARCHAR, since "01" does not cast back to the same text, while hour=1
// is a BIGINT (.ci/js/check_timeparts.mjs checks the types).
type partitionSpec struct {
	device bool
	period string // "", "day", "hour" or "month"
}

// partitionByHelp is what --partition-by accepts, for errors.
const partitionByHelp = "table, device, day, month or hour, or table or device then a time, such as device,day"

// parsePartitionBy reads --partition-by: "table" or "device", a time
// period (day, month, hour; under table=T as every dataset is), or either
// of table and device then a period ("table,day", "device,hour").
func parsePartitionBy(s string) (partitionSpec, error) {
	var p partitionSpec
	var level bool
	for _, w := range strings.Split(s, ",") {
		switch w = strings.TrimSpace(w); w {
		case "table", "device":
			if level || p.period != "" {
				return p, usagef("--partition-by %q: table or device comes once, before the time (want %s)", s, partitionByHelp)
			}
			level, p.device = true, w == "device"
		case "day", "month", "hour":
			if p.period != "" {
				return p, usagef("--partition-by %q: one time period only (want %s)", s, partitionByHelp)
			}
			p.period = w
		default:
			return p, usagef("unknown --partition-by %q (want %s)", s, partitionByHelp)
		}
	}
	return p, nil
}

// unitsPerSecond is the scale of a stored time unit.
func unitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Microsecond:
		return 1e6
	case arrow.Nanosecond:
		return 1e9
	}
	return 1e3
}

// The seconds of years 0000 to 9999, the times a time partition key can
// name as a four-digit year.
const (
	minPartSec = -62167219200 // 0000-01-01T00:00:00Z
	maxPartSec = 253402300799 // 9999-12-31T23:59:59Z
)

// errPartitionTime is returned for a time whose partition key has no
// four-digit year.
var errPartitionTime = errors.New("time outside the years 0000 to 9999")

// timeWindow is one time partition: the stored times lo..hi (inclusive)
// and its path below the table or device directory.
type timeWindow struct {
	lo, hi int64
	dir    string
}

// windowOf returns the time partition holding t, a time in the stored
// unit u, in UTC.
func (p partitionSpec) windowOf(t int64, u arrow.TimeUnit) (timeWindow, error) {
	scale := unitsPerSecond(u)
	sec := t / scale
	if t%scale < 0 {
		sec-- // floor, for times before 1970
	}
	if sec < minPartSec || sec > maxPartSec {
		return timeWindow{}, fmt.Errorf("%w: %d (%s)", errPartitionTime, t, u)
	}
	tt := time.Unix(sec, 0).UTC()
	var start, next time.Time
	var dir string
	switch p.period {
	case "day":
		start = time.Date(tt.Year(), tt.Month(), tt.Day(), 0, 0, 0, 0, time.UTC)
		next = start.AddDate(0, 0, 1)
		dir = "date=" + start.Format("2006-01-02")
	case "hour":
		start = tt.Truncate(time.Hour)
		next = start.Add(time.Hour)
		dir = fmt.Sprintf("date=%s/hour=%d", start.Format("2006-01-02"), start.Hour())
	case "month":
		start = time.Date(tt.Year(), tt.Month(), 1, 0, 0, 0, 0, time.UTC)
		next = start.AddDate(0, 1, 0)
		dir = fmt.Sprintf("year=%d/month=%d", start.Year(), int(start.Month()))
	default:
		return timeWindow{}, fmt.Errorf("no time period in --partition-by")
	}
	// The bounds in the stored unit, clamped where they pass the range
	// of int64 (only the first and the last partition of nanoseconds).
	w := timeWindow{lo: minInt64, hi: maxInt64, dir: dir}
	if s := start.Unix(); s >= minInt64/scale {
		w.lo = s * scale
	}
	if s := next.Unix(); s <= maxInt64/scale {
		w.hi = s*scale - 1
	}
	return w, nil
}

// maxTimePartitions bounds the time partitions of one table (or device):
// more is a mistake (hours over decades, or a damaged time statistic), and
// listing them would take memory without bound.
const maxTimePartitions = 100000

// windowSet collects the time partitions of the stored time ranges added
// to it.
type windowSet struct {
	spec partitionSpec
	unit arrow.TimeUnit
	keep *arrowconv.TimeRange // the query's --start/--end, or nil
	los  map[int64]timeWindow
}

func newWindowSet(spec partitionSpec, unit arrow.TimeUnit, keep *arrowconv.TimeRange) *windowSet {
	return &windowSet{spec: spec, unit: unit, keep: keep, los: map[int64]timeWindow{}}
}

// addTimes adds the partitions of the timestamps of a time column. The
// times of a device come sorted, so a partition's window is computed once
// per run of times in it, not per time.
func (s *windowSet) addTimes(ts []arrow.Timestamp) error {
	var cur timeWindow
	have := false
	for _, v := range ts {
		t := int64(v)
		if have && t >= cur.lo && t <= cur.hi {
			continue
		}
		if s.keep != nil && (t < s.keep.Start || t > s.keep.End) {
			continue
		}
		w, err := s.spec.windowOf(t, s.unit)
		if err != nil {
			return err
		}
		if _, ok := s.los[w.lo]; !ok {
			if len(s.los) >= maxTimePartitions {
				return fmt.Errorf("--partition-by %s gives more than %d partitions; choose a longer period, or narrow the times with --start and --end", s.spec.period, maxTimePartitions)
			}
			s.los[w.lo] = w
		}
		cur, have = w, true
	}
	return nil
}

// scan adds the partitions of the times a query returns: a first read of
// the time column alone (no value chunk is read), so that the partitions
// are those of the rows the query matches, after deletions and merges,
// and a time a statistic spans but no row holds makes no partition.
func (s *windowSet) scan(ctx context.Context, rdr array.RecordReader) error {
	defer rdr.Release()
	for rdr.Next() {
		if err := ctx.Err(); err != nil {
			return errInterrupted
		}
		rec := rdr.RecordBatch()
		// The time column by its TIME category: a table may name it
		// after its schema's TIME column, and hold a FIELD "time".
		ti, ok := arrowconv.TimeField(rec.Schema())
		if !ok || rec.NumCols() != 1 {
			return fmt.Errorf("the time-only read has columns %v, want its time column alone", rec.Schema())
		}
		name := rec.Schema().Field(ti).Name
		col, ok := rec.Column(ti).(*array.Timestamp)
		if !ok {
			return fmt.Errorf("the time-only read's %s column is %s", name, rec.Column(ti).DataType())
		}
		if col.NullN() > 0 {
			return fmt.Errorf("the time-only read's %s column has nulls", name)
		}
		if err := s.addTimes(col.TimestampValues()); err != nil {
			return err
		}
	}
	return rdr.Err()
}

// timeOnly is q reading the time column alone, for windowSet.scan.
func timeOnly(q *arrowconv.Options) *arrowconv.Options {
	tq := *q
	// An empty projection keeps the time column alone, whatever its
	// name (the literal "time" would be a FIELD of a table whose TIME
	// column is named otherwise).
	tq.Columns = []string{}
	return &tq
}

// windows returns the partitions in time order.
func (s *windowSet) windows() []timeWindow {
	out := make([]timeWindow, 0, len(s.los))
	for _, w := range s.los {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b timeWindow) int { return compareInt64(a.lo, b.lo) })
	return out
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// windowQuery narrows q to the times of w.
func windowQuery(q *arrowconv.Options, w timeWindow) *arrowconv.Options {
	wq := *q
	r := arrowconv.TimeRange{Start: w.lo, End: w.hi}
	if q.Time != nil {
		r.Start, r.End = max(r.Start, q.Time.Start), min(r.End, q.Time.End)
	}
	wq.Time = &r
	return &wq
}

// manyDevicePartitions is the number of device partitions above which
// --partition-by device warns: each is at least one file per input, and a
// reader opens (and a file system holds) every one. DuckDB and Spark read
// thousands of small files far slower than a few large ones. A variable
// for the tests only.
var manyDevicePartitions = 1000

// devicePartitionWarner says once, on stderr, that --partition-by device
// is about to write more than manyDevicePartitions partitions: before the
// first part when the count is known up front (IoTDB data, or one input
// file), else before the input that crosses the threshold.
type devicePartitionWarner struct {
	seen   map[string]bool
	warned bool
}

// note counts the device partitions of table t about to be written and
// warns when they pass the threshold.
func (w *devicePartitionWarner) note(stderr io.Writer, by, t string, devs []tsfile.DeviceID) {
	if w.warned {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	for _, d := range devs {
		w.seen[t+"\x00"+d.String()] = true
	}
	if n := len(w.seen); n > manyDevicePartitions {
		w.warned = true
		fmt.Fprintf(stderr, "ts2arrow: warning: --partition-by %s writes %d device partitions (more than %d), each at least a file per input; --partition-by table or a time partition (--partition-by day) writes fewer, larger files\n", by, n, manyDevicePartitions)
	}
}

// timeKeyColumns are the columns a time partition adds to a Hive reader's
// view of the dataset.
func (p partitionSpec) timeKeyColumns() []string {
	switch p.period {
	case "day":
		return []string{"date"}
	case "hour":
		return []string{"date", "hour"}
	case "month":
		return []string{"year", "month"}
	}
	return nil
}

// warnKeyClash says when a column of the data has the name of a time
// partition key: a Hive reader's view of the dataset then has two columns
// of that name, and DuckDB, Spark and pyarrow each resolve that their own
// way.
func (j *convertJob) warnKeyClash(stderr io.Writer, sc *arrow.Schema, table string) {
	if j.clashWarned {
		return
	}
	for _, k := range j.part.timeKeyColumns() {
		if len(sc.FieldIndices(k)) > 0 {
			j.clashWarned = true
			fmt.Fprintf(stderr, "ts2arrow: warning: table %s has a column %q, the name of a --partition-by %s key; readers of the dataset may show the key in its place (leave it out with --columns, or partition otherwise)\n", oneLine(table), k, j.part.period)
			return
		}
	}
}
