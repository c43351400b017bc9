//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// scanTable is one table tsfile_scan can read (sqlcore builds these;
// sqlfill's fill path scans them).
type scanTable struct {
	ID string
	// Schema is the full schema, as schema --arrow gives it.
	Schema *arrow.Schema
	// Units returns independent pieces of the scan for the projected
	// columns (indexes into Schema, ascending) with the pushdown applied;
	// DuckDB threads take them in any order. Each unit's reader has the
	// time column first, then the projected columns in Schema order (a
	// tree table's reader may hold more columns than cols: find columns
	// by name).
	Units func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error)
	// Epoch marks, per Schema field, a TIMESTAMP field DuckDB sees as
	// BIGINT (Table.Epoch); nil: none.
	Epoch []bool
}

// scanUnit opens one piece of a scan.
type scanUnit func(ctx context.Context) (array.RecordReader, error)

// registry maps the IDs of tsfile_scan('<id>') to their tables, for every
// DB of the process (a DuckDB database registers tsfile_scan once; the IDs
// are unique in the process).
var registry = struct {
	sync.RWMutex
	m    map[string]*scanTable
	next atomic.Int64
}{m: map[string]*scanTable{}}

// newScanID returns an ID no other table of the process has.
func newScanID() string { return fmt.Sprintf("t%d", registry.next.Add(1)) }

func registerTable(t *scanTable) {
	registry.Lock()
	registry.m[t.ID] = t
	registry.Unlock()
}

func unregisterTables(ids []string) {
	registry.Lock()
	for _, id := range ids {
		delete(registry.m, id)
	}
	registry.Unlock()
}

// lookupTable returns the table of id.
func lookupTable(id string) (*scanTable, error) {
	registry.RLock()
	t := registry.m[id]
	registry.RUnlock()
	if t == nil {
		return nil, fmt.Errorf("tsfile_scan: no table %q (its query.DB was closed)", id)
	}
	return t, nil
}

// pushdownKey carries a statement's map[string]pushdown in the context
// of the query, which duckdb-go hands to the table function's bind
// (BindArgumentsContext: the ctx of the QueryContext call on that
// connection).
type pushdownKey struct{}

func withPushdown(ctx context.Context, pd map[string]pushdown) context.Context {
	if len(pd) == 0 {
		return ctx
	}
	return context.WithValue(ctx, pushdownKey{}, pd)
}

// pushdownFor returns what the scan of table id in the statement of ctx
// may skip.
func pushdownFor(ctx context.Context, id string) pushdown {
	m, _ := ctx.Value(pushdownKey{}).(map[string]pushdown)
	return m[id]
}

// maxTagCombos bounds the readers a TAG IN list splits a scan into; more
// combinations read without the TAG pushdown (DuckDB filters anyway).
const maxTagCombos = 256

// readOptions turns a projection and a pushdown into arrowconv options
// for table t: the projected columns (all of a tree table's, see below),
// the time range, the limit; and one Where per combination of the pushed
// TAG values (nil: no TAG condition).
//
// A tree table is read whole whatever the projection: arrowconv keeps,
// for a non-aligned device, only the times where a projected series has
// a point, and package dataset drops tree rows whose projected cells are
// all null (IoTDB's rule for SELECT s1), where SQL over the table must
// keep every row of the table.
func readOptions(t Table, tree bool, cols []int, pd pushdown) (arrowconv.Options, []map[string]string) {
	o := arrowconv.Options{TimeUnit: arrowconv.TimeUnitOf(t.Unit)}
	if !tree {
		o.Columns = []string{t.Time}
		for _, c := range cols {
			o.Columns = append(o.Columns, t.Arrow.Field(c).Name)
		}
	}
	if pd.HasStart || pd.HasEnd {
		r := arrowconv.TimeRange{Start: minInt64, End: maxInt64}
		if pd.HasStart {
			r.Start = pd.Start
		}
		if pd.HasEnd {
			r.End = pd.End
		}
		o.Time = &r
	}
	o.Limit = pd.Limit
	wheres := []map[string]string{nil}
	if len(pd.Tags) > 0 {
		keys := make([]string, 0, len(pd.Tags))
		n := 1
		for k, vs := range pd.Tags {
			keys = append(keys, k)
			n *= max(len(vs), 1)
		}
		sort.Strings(keys)
		if n <= maxTagCombos {
			wheres = []map[string]string{{}}
			for _, k := range keys {
				var next []map[string]string
				for _, w := range wheres {
					for _, v := range pd.Tags[k] {
						m := make(map[string]string, len(w)+1)
						for a, b := range w {
							m[a] = b
						}
						m[k] = whereLiteral(v)
						next = append(next, m)
					}
				}
				wheres = next
			}
		}
	}
	return o, wheres
}

// whereLiteral spells a TAG value for arrowconv.Options.Where, which takes
// `\N` as null: a value of backslashes and an N gets one more backslash
// (arrowconv.ParseWhereValue).
func whereLiteral(v string) string {
	if k := len(v) - 1; k >= 1 && v[k] == 'N' && strings.Count(v[:k], `\`) == k {
		return `\` + v
	}
	return v
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

// unitsPerScan is about how many units a scan is cut into, so that
// DuckDB's threads share the work: a few per thread, not one per device
// of a thousand (each unit opens a reader).
func unitsPerScan() int { return 4 * runtime.GOMAXPROCS(0) }

// deviceGroups cuts devs into at most n runs of neighbours (nil: one unit
// reading every device).
func deviceGroups(devs []tsfile.DeviceID, n int) [][]tsfile.DeviceID {
	if n <= 1 || len(devs) <= 1 {
		return [][]tsfile.DeviceID{nil}
	}
	n = min(n, len(devs))
	out := make([][]tsfile.DeviceID, 0, n)
	for i := range n {
		out = append(out, devs[i*len(devs)/n:(i+1)*len(devs)/n])
	}
	return out
}

// filesScan reads a table of plain TsFiles: a unit per file, or per group
// of its devices when the files are fewer than the units wanted (and per
// TAG combination of the pushdown). For a table-model table, the devices
// of each file are listed once per DB (tableDevices) and each query cuts
// units only from those its TAG values and time range leave: a query that
// selects one device of a thousand, or a window no device reaches, opens
// no reader over the others (each would look its device up in the index).
func filesScan(t Table, tree bool, files []*openedFile, stats *counters) *scanTable {
	st := &scanTable{ID: newScanID(), Schema: t.Arrow}
	listed := make([]tableDevices, len(files))
	st.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		if pd.Empty {
			return nil, nil
		}
		o, wheres := readOptions(t, tree, cols, pd)
		o.PagesDecoded = &stats.pages
		per := unitsPerScan() / (len(files) * len(wheres))
		var units []scanUnit
		for i, of := range files {
			for _, w := range wheres {
				groups, err := fileUnits(of, t.Name, tree, &listed[i], w, o.Time, per)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", of.name, err)
				}
				for _, g := range groups {
					uo := o
					uo.Where = w
					uo.Devices = g
					units = append(units, func(ctx context.Context) (array.RecordReader, error) {
						stats.units.Add(1)
						var rd *arrowconv.Reader
						var err error
						if tree {
							rd, err = arrowconv.NewTreeReader(of.f, t.Name, &uo)
						} else {
							rd, err = arrowconv.NewTableReader(of.f, t.Name, &uo)
						}
						if err != nil {
							return nil, fmt.Errorf("%s: %w", of.name, err)
						}
						return rd, nil
					})
				}
			}
		}
		return units, nil
	}
	return st
}

// fileUnits returns the device groups (Options.Devices; nil: every device)
// of the units reading one file with TAG condition w and time range tr,
// about per of them: runs of neighbours in index order, of the devices
// that can match. None: the file has nothing for the query.
func fileUnits(of *openedFile, table string, tree bool, td *tableDevices, w map[string]string, tr *arrowconv.TimeRange, per int) ([][]tsfile.DeviceID, error) {
	if !tree {
		td.once.Do(func() { td.load(of.f, table) })
	}
	if tree || td.err != nil {
		// No list (a tree table, or an index the list could not be
		// read from): the readers apply the pushdown themselves.
		var devs []tsfile.DeviceID
		if per > 1 {
			var err error
			if devs, err = of.f.Devices(table); err != nil {
				return nil, err
			}
		}
		return deviceGroups(devs, per), nil
	}
	match, err := arrowconv.TableDeviceFilter(of.f, table, w)
	if err != nil {
		return nil, err
	}
	var devs []tsfile.DeviceID
	for _, d := range td.devs {
		// A reader skips an aligned device whose time column's
		// statistics miss the range (arrowconv's startDevice) and one
		// Where does not match: the same tests, before any reader.
		if d.timed && tr != nil && (d.end < tr.Start || d.start > tr.End) || !match(d.id) {
			continue
		}
		devs = append(devs, d.id)
	}
	switch {
	case len(devs) == 0:
		return nil, nil
	case per <= 1 && len(devs) == len(td.devs):
		return [][]tsfile.DeviceID{nil}, nil
	}
	n := min(max(per, 1), len(devs))
	out := make([][]tsfile.DeviceID, 0, n)
	for i := range n {
		out = append(out, devs[i*len(devs)/n:(i+1)*len(devs)/n])
	}
	return out, nil
}

// tableDevices lists the devices of a table-model table in one file, in
// index order, with the time range of each aligned device: read once per
// DB, on the first query of the table.
type tableDevices struct {
	once sync.Once
	devs []deviceSpan
	err  error
}

type deviceSpan struct {
	id         tsfile.DeviceID
	start, end int64
	timed      bool // start and end are the time column's statistics
}

func (td *tableDevices) load(f *tsfile.File, table string) {
	if !f.Options().Lenient {
		// The whole table checked once (tsfile caches the outcome)
		// spares each unit's reader the check of its devices. A
		// failure is not this list's: a reader of the damaged
		// devices reports it, as convert's would.
		_ = f.CheckTable(table, nil)
	}
	td.err = f.TableSeries(table, func(dev tsfile.DeviceID, series []tsfile.TimeseriesMetadata) error {
		d := deviceSpan{id: dev}
		for i := range series {
			if series[i].IsTimeColumn() {
				st := &series[i].Statistics
				d.start, d.end, d.timed = st.StartTime, st.EndTime, true
				break
			}
		}
		td.devs = append(td.devs, d)
		return nil
	})
	if td.err != nil {
		td.devs = nil
	}
}

// datasetScan reads a table of IoTDB data through package dataset: a unit
// per group of its devices (the rules resolve each device alone) and TAG
// combination of the pushdown; the dataset's own reader prunes files and
// devices.
func datasetScan(t Table, ref string, tree bool, ds *dataset.Dataset, stats *counters) *scanTable {
	st := &scanTable{ID: newScanID(), Schema: t.Arrow}
	st.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		if pd.Empty {
			return nil, nil
		}
		o, wheres := readOptions(t, tree, cols, pd)
		o.PagesDecoded = &stats.pages
		var devs []tsfile.DeviceID
		per := unitsPerScan() / len(wheres)
		if per > 1 {
			var err error
			if devs, err = ds.Devices(ref); err != nil {
				return nil, err
			}
		}
		var units []scanUnit
		for _, w := range wheres {
			for _, g := range deviceGroups(devs, per) {
				uo := o
				uo.Where = w
				uo.Devices = g
				units = append(units, func(ctx context.Context) (array.RecordReader, error) {
					stats.units.Add(1)
					rd, err := ds.NewReader(ref, &uo)
					if err != nil {
						return nil, err
					}
					return &datasetReader{Reader: rd, stats: stats}, nil
				})
			}
		}
		return units, nil
	}
	return st
}

// datasetReader adds a dataset reader's pruning counts to the DB's when
// it is released.
type datasetReader struct {
	*dataset.Reader
	stats *counters
	done  bool
}

func (d *datasetReader) Release() {
	if !d.done {
		d.done = true
		d.stats.pruned.Add(int64(d.Stats().FilesPruned))
	}
	d.Reader.Release()
}
