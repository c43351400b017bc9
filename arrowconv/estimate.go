package arrowconv

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Plan is what the index says about a query before any page is read: the
// schema the stream will have and, for each device it reads in stream
// order, the rows and Arrow bytes the statistics predict. Servers use it to
// cut a query into partitions and to report sizes without decoding.
type Plan struct {
	Schema  *arrow.Schema
	Devices []DeviceEstimate
}

// DeviceEstimate is the statistics' prediction for one device of a query.
type DeviceEstimate struct {
	Device tsfile.DeviceID
	// Index is the device's position in File.Devices of its table, so a
	// partition can name a device range compactly.
	Index int
	// Rows is the device's row count in the query's time range: the time
	// column's count for aligned devices, the largest series count for
	// non-aligned ones (an outer join has at least that many rows), scaled
	// by the fraction of the device's time span the range covers.
	Rows int64
	// Bytes estimates the Arrow buffer bytes of those rows over the
	// projected columns.
	Bytes int64
	// Start and End are the device's first and last timestamps.
	Start, End int64
}

// Totals sums the estimates, capped by the query's row limit when it has
// one.
func (p *Plan) Totals(limit int64) (rows, bytes int64) {
	for _, d := range p.Devices {
		rows += d.Rows
		bytes += d.Bytes
	}
	if limit > 0 && rows > limit {
		bytes = int64(float64(bytes) * float64(limit) / float64(rows))
		rows = limit
	}
	return rows, bytes
}

// PlanTable plans a query of a table-model table, validating the options
// exactly as NewTableReader does.
func PlanTable(f *tsfile.File, table string, opts *Options) (*Plan, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	l, err := tableLayout(f, table)
	if err != nil {
		return nil, err
	}
	return plan(f, l, []string{table}, opts)
}

// PlanTree plans a query of a tree-model table (every one when table is
// ""), validating the options exactly as NewTreeReader does.
func PlanTree(f *tsfile.File, table string, opts *Options) (*Plan, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	l, tables, err := treeLayout(f, table)
	if err != nil {
		return nil, err
	}
	return plan(f, l, tables, opts)
}

func plan(f *tsfile.File, l *layout, tables []string, opts *Options) (*Plan, error) {
	o := opts.withDefaults()
	pl, conds, err := l.plan(&o)
	if err != nil {
		return nil, err
	}
	p := &Plan{Schema: pl.arrowSchema(o.TimeUnit.Unit())}
	var want map[string]bool
	if o.Devices != nil {
		want = map[string]bool{}
		for _, d := range o.Devices {
			want[d.String()] = true
		}
	}
	// Bytes per row of the columns whose width does not depend on the
	// data: the time column, the constant columns (dictionary indices
	// unless plain) and fixed-width fields.
	fixed := 8.0
	for range pl.consts {
		if pl.plainTags {
			fixed += 4 + 12 // an offset and a typical short string
		} else {
			fixed += 4
		}
	}
	for _, t := range tables {
		devs, err := f.Devices(t)
		if err != nil {
			return nil, err
		}
		for i, d := range devs {
			if want != nil && !want[d.String()] || !matches(conds, d) {
				continue
			}
			series, err := f.Series(d)
			if err != nil {
				return nil, err
			}
			e, ok := estimateDevice(series, pl, o.Time, fixed)
			if !ok {
				continue
			}
			e.Device, e.Index = d, i
			p.Devices = append(p.Devices, e)
		}
	}
	return p, nil
}

// estimateDevice predicts one device's share of a query; ok is false when
// the statistics rule the device out.
func estimateDevice(series []tsfile.TimeseriesMetadata, l *layout, tr *TimeRange, fixed float64) (DeviceEstimate, bool) {
	var e DeviceEstimate
	var rows int64
	started := false
	aligned := slices.ContainsFunc(series, isTime)
	for i := range series {
		s := &series[i]
		st := &s.Statistics
		switch {
		case s.IsTimeColumn():
			rows, e.Start, e.End, started = st.Count, st.StartTime, st.EndTime, true
		case aligned:
			// The time column alone gives the rows of an aligned device.
		default:
			if _, projected := l.byName[s.Measurement]; !projected {
				continue
			}
			if !started {
				e.Start, e.End, started = st.StartTime, st.EndTime, true
			}
			rows = max(rows, st.Count)
			e.Start, e.End = min(e.Start, st.StartTime), max(e.End, st.EndTime)
		}
	}
	if !started || rows == 0 || !tr.overlaps(e.Start, e.End) {
		return e, false
	}
	if tr != nil && !tr.covers(e.Start, e.End) {
		lo, hi := max(tr.Start, e.Start), min(tr.End, e.End)
		span := float64(e.End) - float64(e.Start) + 1
		rows = max(1, int64(math.Ceil(float64(rows)*(float64(hi)-float64(lo)+1)/span)))
	}
	e.Rows = rows
	width := fixed
	for _, c := range l.fields {
		width += fieldWidth(c.dataType, series, c.name)
	}
	e.Bytes = int64(math.Ceil(width * float64(rows)))
	return e, true
}

func isTime(s tsfile.TimeseriesMetadata) bool { return s.IsTimeColumn() }

// fieldWidth is the Arrow bytes per row of a field: its value width plus a
// validity bit, and for variable-width types an offset plus the mean of the
// lengths the statistics record.
func fieldWidth(t tsfile.DataType, series []tsfile.TimeseriesMetadata, name string) float64 {
	switch t {
	case tsfile.Boolean:
		return 0.25
	case tsfile.Int32, tsfile.Float, tsfile.Date:
		return 4.125
	case tsfile.Int64, tsfile.Double, tsfile.Timestamp:
		return 8.125
	}
	mean := 16.0
	for i := range series {
		if series[i].Measurement != name {
			continue
		}
		st := &series[i].Statistics
		var n, sum int
		for _, b := range [][]byte{st.First, st.Last, st.Min, st.Max} {
			if b != nil {
				n, sum = n+1, sum+len(b)
			}
		}
		if n > 0 {
			mean = float64(sum) / float64(n)
		}
	}
	return 4.125 + mean
}
