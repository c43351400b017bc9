//go:build iceberg

package main

// An Iceberg table as an input, in the program built with -tags iceberg
// (ts2arrow-iceberg; see icebergprog.go): convert, head, schema and sql read
// iceberg:CATALOG#NAMESPACE.TABLE through package icescan, with the query
// flags that apply to a table (--columns, --where on TAGs, --start/--end,
// --time-unit) pushed into iceberg-go's scan, and write through the same
// writers as every other input.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/iceref"
	"github.com/tsarrow/tsarrow/icescan"
)

// openIceberg parses and opens the one Iceberg input of args; a bad
// spelling or a second input is a usage error.
func openIceberg(ctx context.Context, args []string) (*icescan.Table, error) {
	if len(args) != 1 {
		return nil, usagef("an Iceberg input is read alone, not with other inputs (%s)", strings.Join(args, " "))
	}
	ref, err := iceref.ParseInput(args[0])
	if err != nil {
		return nil, usagef("%s", strings.TrimPrefix(err.Error(), "iceref: "))
	}
	tbl, err := icescan.Open(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", args[0], err)
	}
	return tbl, nil
}

// icebergQuery turns convert's (or head's) query options into an
// icescan.Query, checking the columns and --where against the table as
// the TsFile paths do.
func icebergQuery(tbl *icescan.Table, o *arrowconv.Options) (*icescan.Query, error) {
	full, err := tbl.Schema(&icescan.Query{Unit: o.TimeUnit})
	if err != nil {
		return nil, err
	}
	if err := checkColumns(full, o.Columns, o.Where); err != nil {
		return nil, err
	}
	q := &icescan.Query{Columns: o.Columns, Time: o.Time, Unit: o.TimeUnit, BatchSize: o.BatchSize, Limit: o.Limit, Allocator: o.Allocator}
	if len(o.Where) > 0 {
		q.Tags = map[string]icescan.TagValues{}
		for k, v := range o.Where {
			val, null := arrowconv.ParseWhereValue(v)
			if null {
				q.Tags[k] = icescan.TagValues{Null: true}
			} else {
				q.Tags[k] = icescan.TagValues{Values: []string{val}}
			}
		}
	}
	return q, nil
}

// runIceberg converts an Iceberg table: one output file (or standard
// output) through the writers every input uses.
func (j *convertJob) runIceberg(pos []string, raw bool, dsFlags *datasetFlags, stdout, stderr io.Writer) (err error) {
	switch {
	case len(j.devices) > 0:
		return usagef("--device picks devices of TsFiles; filter an Iceberg table by its TAG columns with --where TAG=VALUE")
	case raw:
		return usagef("--raw applies to TsFiles and IoTDB data, not to an Iceberg table")
	case j.recover:
		return usagef("--recover applies to a TsFile, not to an Iceberg table")
	case j.partitionBy != "":
		return usagef("--partition-by is not supported for an Iceberg input yet; convert to one file")
	case j.table != "" && j.format != "tsfile":
		return usagef("--table picks a table of TsFiles; an Iceberg input names its table: iceberg:CATALOG#NAMESPACE.TABLE")
	}
	if err := checkDatasetFlags(dsFlags, nil); err != nil {
		return err
	}
	ctx, stop := notifyInterrupt()
	defer stop()
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = interruptedBy(ctx)
		}
	}()
	tbl, err := openIceberg(ctx, pos)
	if err != nil {
		return err
	}
	defer tbl.Close()
	j.inputs = nil // no file to size for the progress bar
	if j.out != "-" {
		var read []string
		if p, ok := strings.CutPrefix(tbl.Ref().Catalog, "sqlite:"); ok {
			read = append(read, p) // -o is never the catalog database
		}
		if j.dst, err = checkOutput(j.out, outFile, j.force, read, j.objects, stderr); err != nil {
			return err
		}
		defer j.dst.close()
	}
	if j.format == "tsfile" && j.table == "" {
		// The TsFile table is named after the Iceberg table unless
		// --table names it; its TAGs are the columns marked TAG.
		j.table = tbl.Ref().Table
	}
	q, err := icebergQuery(tbl, &j.query)
	if err != nil {
		return err
	}
	rdr, err := tbl.NewReader(ctx, q)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if j.verbose {
		fmt.Fprintf(stderr, "ts2arrow: %s: %d data files to read after pruning\n", pos[0], rdr.Files())
	}
	prog := newProgress(stderr, !j.quiet && j.out != "-" && isTerminal(stderr), 0, 0)
	chain := singleChain(ctx, rdr, prog)
	defer chain.Release()
	err = j.writeChain(chain, stdout)
	prog.finish(err == nil)
	if err != nil {
		return chain.wrap(err)
	}
	switch {
	case chain.rows == 0:
		dest, why := j.out, "the table holds no rows"
		if dest == "-" {
			dest = "standard output"
		}
		if len(j.filters) > 0 {
			why = "no row matched " + strings.Join(j.filters, " ")
		}
		fmt.Fprintf(stderr, "ts2arrow: wrote 0 rows to %s (%s)\n", dest, why)
	case j.verbose:
		fmt.Fprintf(stderr, "ts2arrow: wrote %d rows to %s\n", chain.rows, j.out)
	}
	return nil
}

// headIceberg prints the first n rows of an Iceberg table.
func headIceberg(name string, opts *arrowconv.Options, n int, raw bool, width int, stdout io.Writer) error {
	ctx := context.Background()
	tbl, err := openIceberg(ctx, []string{name})
	if err != nil {
		return err
	}
	defer tbl.Close()
	q, err := icebergQuery(tbl, opts)
	if err != nil {
		return err
	}
	rdr, err := tbl.NewReader(ctx, q)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rdr.Release()
	return printHead(rdr, n, raw, width, stdout, func(err error) error { return fmt.Errorf("%s: %w", name, err) })
}

// schemaIceberg is the schema of an Iceberg table's rows for the query.
func schemaIceberg(name string, opts *arrowconv.Options) (*arrow.Schema, error) {
	tbl, err := openIceberg(context.Background(), []string{name})
	if err != nil {
		return nil, err
	}
	defer tbl.Close()
	q, err := icebergQuery(tbl, opts)
	if err != nil {
		return nil, err
	}
	return tbl.Schema(q)
}

// icebergBuilt is set in the program built with -tags iceberg, which runs
// sync and iceberg: inputs itself.
const icebergBuilt = true
