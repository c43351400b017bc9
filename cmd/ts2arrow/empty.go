package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// reportEmpty says that a conversion wrote no rows and, as far as the index
// can tell, why. It is printed whatever --quiet says (which only turns off
// the progress bar): an exit status of 0 and an empty output would
// otherwise look like a conversion that found the data, and a misspelt
// device or tag value is the usual cause. A valid query that matches
// nothing is not an error, so the exit status stays 0.
func (j *convertJob) reportEmpty(ctx context.Context, stderr io.Writer) {
	dest := j.out
	if dest == "-" {
		dest = "standard output"
	}
	why := "the inputs hold no rows"
	if j.table != "" {
		why = fmt.Sprintf("table %s holds no rows in the inputs", j.table)
	}
	if len(j.filters) > 0 {
		why = "no row matched " + strings.Join(j.filters, " ")
	}
	fmt.Fprintf(stderr, "ts2arrow: wrote 0 rows to %s (%s)\n", dest, why)
	if len(j.filters) > 0 {
		for _, h := range j.emptyHints(ctx) {
			fmt.Fprintf(stderr, "ts2arrow: %s\n", h)
		}
	}
}

// moreShown is how many names a hint lists before "(and N more)".
const moreShown = 5

// emptyHints names the --device names and --where values that no input
// holds at all, with a few that they do, and otherwise, for a time range,
// the span of the inputs' times. It reads the inputs' indexes again, which
// only a conversion that found nothing pays for.
func (j *convertJob) emptyHints(ctx context.Context) []string {
	want := map[string]bool{}
	for _, d := range j.devices {
		want[d] = true
	}
	devices := map[string]bool{}           // every device, as inspect prints it
	found := map[string]bool{}             // the --device names some input holds
	values := map[string]map[string]bool{} // --where column -> the values it takes
	for k := range j.query.Where {
		values[k] = map[string]bool{}
	}
	var first, last int64 = maxInt64, minInt64
	for _, name := range j.inputs {
		// As the conversion opened it: with --recover, through the scan
		// it ran (not reported again). --partition-by runs none: it
		// opens inputs plainly.
		var in *input
		var err error
		if j.recover && j.recovered == nil {
			in, err = openInput(ctx, name, j.ropts, j.http)
		} else {
			in, err = j.openFile(ctx, name, nil, io.Discard)
		}
		if err != nil {
			continue // the conversion read it; a hint is not worth a second error
		}
		f := in.file
		tables := f.Tables()
		if j.table != "" {
			tables = []string{j.table}
		}
		for _, t := range tables {
			devs, err := f.Devices(t)
			if err != nil {
				continue
			}
			for _, d := range devs {
				devices[d.String()] = true
				for _, n := range []string{d.String(), d.TreePath()} {
					if want[n] {
						found[n] = true
					}
				}
				if j.query.Time == nil {
					continue
				}
				series, err := f.Series(d)
				if err != nil {
					continue
				}
				for i := range series {
					if st := &series[i].Statistics; st.Count > 0 {
						first, last = min(first, st.StartTime), max(last, st.EndTime)
					}
				}
			}
			if len(values) > 0 {
				addColumnValues(f, t, values)
			}
		}
		in.close()
	}
	var hints []string
	for _, d := range j.devices {
		if !found[d] {
			hints = append(hints, fmt.Sprintf("no device %q in the inputs; %s", d, some("devices include", devices)))
			found[d] = true // named once
		}
	}
	keys := make([]string, 0, len(j.query.Where))
	for k := range j.query.Where {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// A null is no value a column lists: IS NULL (tag=\N) gets no
		// hint, and an escaped \\N names the value it stands for.
		if v, null := arrowconv.ParseWhereValue(j.query.Where[k]); !null && !values[k][v] {
			hints = append(hints, fmt.Sprintf("%s has no value %q in the inputs; %s", k, v, some("values include", values[k])))
		}
	}
	if len(hints) == 0 && j.query.Time != nil && first <= last {
		unit := j.query.TimeUnit.Unit()
		hints = append(hints, fmt.Sprintf("the inputs' times span %s .. %s (%d .. %d in %s)",
			formatTimestamp(first, unit), formatTimestamp(last, unit), first, last, unit))
	}
	return hints
}

// addColumnValues adds the values the --where columns take over the
// devices of table t.
func addColumnValues(f *tsfile.File, t string, values map[string]map[string]bool) {
	opts := &arrowconv.Options{Columns: []string{}} // the index only
	var r *arrowconv.Reader
	var err error
	if _, model := f.SchemaOf(t); model {
		r, err = arrowconv.NewTableReader(f, t, opts)
	} else {
		r, err = arrowconv.NewTreeReader(f, t, opts)
	}
	if err != nil {
		return
	}
	defer r.Release()
	for k, set := range values {
		vs, err := r.ColumnValues(k)
		if err != nil {
			continue // a table without the column
		}
		for _, v := range vs {
			set[v] = true
		}
	}
}

// some lists a few of the names in set, sorted, with how many more there
// are.
func some(what string, set map[string]bool) string {
	if len(set) == 0 {
		return "there are none"
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	s := what + ": " + strings.Join(names[:min(len(names), moreShown)], ", ")
	if len(names) > moreShown {
		s += fmt.Sprintf(" (and %d more)", len(names)-moreShown)
	}
	return s
}
