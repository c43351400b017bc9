//go:build cgo && duckdb_arrow && iceberg

package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/iceref"
	"github.com/tsarrow/tsarrow/icescan"
)

// resolveIceberg opens an Iceberg table as a table of the DB: the view
// NAMESPACE.TABLE (the namespace a DuckDB schema, as an IoTDB database
// is), its timestamps in microseconds, the table's own unit, so that no
// value is cut.
func (r *resolver) resolveIceberg(ctx context.Context, in string) (*resolved, error) {
	ref, err := iceref.ParseInput(in)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	tbl, err := icescan.Open(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	r.closers = append(r.closers, tbl.Close)
	sc, err := tbl.Schema(&icescan.Query{Unit: arrowconv.TimeUnitOf(arrow.Microsecond)})
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	rt := &resolved{Table: tableOf(strings.Join(ref.Namespace, "."), ref.Table, sc, []string{in})}
	rt.scan = icebergScan(rt.Table, tbl, r.stats)
	return rt, nil
}

// icebergScan reads an Iceberg table for tsfile_scan: the projection,
// the time range, the TAG values and the limit of the statement's
// pushdown go into iceberg-go's scan (icescan.Query), whose planned files
// are cut into units of neighbouring files for DuckDB's threads.
func icebergScan(t Table, tbl *icescan.Table, stats *counters) *scanTable {
	st := &scanTable{ID: newScanID(), Schema: t.Arrow}
	st.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		if pd.Empty {
			return nil, nil
		}
		q := icebergQuery(t, cols, pd)
		plan, err := tbl.Plan(ctx, q)
		if err != nil {
			return nil, err
		}
		var units []scanUnit
		for _, p := range plan.Split(unitsPerScan()) {
			units = append(units, func(ctx context.Context) (array.RecordReader, error) {
				stats.units.Add(1)
				return p.NewReader(ctx)
			})
		}
		return units, nil
	}
	return st
}

// icebergQuery is the icescan.Query of a projection and a pushdown: the
// columns after time (an empty projection reads time alone), the
// inclusive time range in the table's unit (µs), each TAG's values.
func icebergQuery(t Table, cols []int, pd pushdown) *icescan.Query {
	q := &icescan.Query{Unit: arrowconv.TimeUnitOf(t.Unit), Columns: make([]string, 0, len(cols)), Limit: pd.Limit}
	for _, c := range cols {
		if name := t.Arrow.Field(c).Name; name != t.Time {
			q.Columns = append(q.Columns, name)
		}
	}
	if pd.HasStart || pd.HasEnd {
		tr := arrowconv.TimeRange{Start: minInt64, End: maxInt64}
		if pd.HasStart {
			tr.Start = pd.Start
		}
		if pd.HasEnd {
			tr.End = pd.End
		}
		q.Time = &tr
	}
	if len(pd.Tags) > 0 {
		q.Tags = map[string]icescan.TagValues{}
		for k, vs := range pd.Tags {
			q.Tags[k] = icescan.TagValues{Values: slices.Clone(vs)}
		}
	}
	return q
}
