package icesync

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Table properties a sync records (besides PropSourceTable), set when it
// creates the table and kept current by each later sync.
const (
	// PropTimeUnit is the unit of the source's times ("ms" or "us");
	// the table holds them as microseconds.
	PropTimeUnit = "tsarrow.time-unit"
	// PropVersion is the tsarrow version of the last sync.
	PropVersion = "tsarrow.version"
	// PropPartition is the table's partition spec as --partition reads it.
	PropPartition = "tsarrow.partition"
	// PropDatabases lists, comma-separated, the IoTDB databases of the
	// last sync's inputs ("" for plain TsFiles).
	PropDatabases = "tsarrow.databases"
)

// evolveAttempts bounds the schema and property commits that lose a race
// to another writer.
const evolveAttempts = 5

// newShape is the partition spec and properties of a table created from
// the Iceberg schema isc (built from the Arrow schema sc) for opts.
func newShape(isc *iceberg.Schema, sc *arrow.Schema, opts Options) (iceberg.PartitionSpec, iceberg.Properties, error) {
	fields, err := ParsePartition(opts.Partition)
	if err != nil {
		return iceberg.PartitionSpec{}, nil, err
	}
	spec, err := partitionSpec(fields, isc)
	if err != nil {
		return iceberg.PartitionSpec{}, nil, err
	}
	props := syncProps(sc, opts, specText(spec, isc))
	props[table.PropertyFormatVersion] = "2"
	return spec, props, nil
}

// syncProps are the properties that record what a sync synced.
func syncProps(sc *arrow.Schema, opts Options, spec string) iceberg.Properties {
	unit := ""
	if ts, ok := sc.Field(0).Type.(*arrow.TimestampType); ok {
		unit = ts.Unit.String()
	}
	dbs, _ := sc.Metadata().GetValue(metaDatabases)
	return iceberg.Properties{
		PropSourceTable: opts.Table,
		PropTimeUnit:    unit,
		PropVersion:     version(),
		PropPartition:   spec,
		PropDatabases:   dbs,
	}
}

// version is the tsarrow module's version in the running binary, with
// the VCS revision when built from a checkout.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := ""
	if bi.Main.Path == "github.com/tsarrow/tsarrow" {
		v = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/tsarrow/tsarrow" {
			v = d.Version
		}
	}
	if v == "" || v == "(devel)" {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return "devel+" + s.Value
			}
		}
		return "devel"
	}
	return v
}

// evolve brings the existing table tbl to the inputs' schema isc (built
// from sc) and records the sync's properties, in one metadata commit made
// before the data is written, or none when nothing changed:
//
//   - a column the inputs have and the table lacks (a FIELD added in
//     IoTDB) is added, optional, so that the table's older rows read null;
//   - a column IoTDB changed from INT32 to INT64 or from FLOAT to DOUBLE
//     is promoted, as Iceberg allows (and an input column narrower than the
//     table's is widened as it is written, see conformer.widen); any other
//     type change (IoTDB also allows INT32 to FLOAT, numbers to DOUBLE or
//     TIMESTAMP, and anything to TEXT: apache/tsfile TSDataType.isCompatible)
//     is refused, naming the column and both types, since an Iceberg
//     column cannot change to it;
//   - a column gone from the inputs stays, and reads null in new rows.
//
// A partition spec asked for (opts.Partition) that differs from the
// table's is refused: it applies only when a sync creates the table. So
// is a time unit other than the one the table was synced from: its
// times would be off by a factor of 1000.
func evolve(ctx context.Context, cat catalog.Catalog, ident table.Identifier, tbl *table.Table, isc *iceberg.Schema, sc *arrow.Schema, opts Options) (*table.Table, error) {
	name := strings.Join(ident, ".")
	if opts.Partition != "" {
		fields, err := ParsePartition(opts.Partition)
		if err != nil {
			return nil, err
		}
		if want, have := fieldsText(fields), specText(tbl.Spec(), tbl.Schema()); want != have {
			return nil, fmt.Errorf("%w: table %s is partitioned by %s, not %s; --partition applies only when a sync creates the table (leave it out, or sync to a new table)", ErrPartition, name, have, want)
		}
	}
	if have, want := tbl.Properties()[PropTimeUnit], syncProps(sc, opts, "")[PropTimeUnit]; have != "" && have != want {
		return nil, fmt.Errorf("%w: table %s was synced from times in %s, these inputs are read in %s; give the unit it was synced with (--time-unit %s)", ErrSchemaChanged, name, have, want, have)
	}
	for attempt := 0; ; attempt++ {
		adds, promote, err := schemaDiff(tbl.Schema(), isc)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		props := syncProps(sc, opts, specText(tbl.Spec(), tbl.Schema()))
		maps.DeleteFunc(props, func(k, v string) bool { return tbl.Properties()[k] == v })
		if len(adds) == 0 && len(promote) == 0 && len(props) == 0 {
			return tbl, nil
		}
		tx := tbl.NewTransaction()
		if len(adds) > 0 || len(promote) > 0 {
			us := tx.UpdateSchema(true, false)
			for _, f := range promote {
				us.UpdateColumn([]string{f.Name}, table.ColumnUpdate{FieldType: iceberg.Optional[iceberg.Type]{Valid: true, Val: f.Type}})
			}
			for _, f := range adds {
				us.AddColumn([]string{f.Name}, f.Type, f.Doc, false, nil)
			}
			if err := us.Commit(); err != nil {
				return nil, fmt.Errorf("icesync: evolving the schema of %s: %w", name, err)
			}
		}
		if len(props) > 0 {
			if err := tx.SetProperties(props); err != nil {
				return nil, fmt.Errorf("icesync: table %s properties: %w", name, err)
			}
		}
		ntbl, err := tx.Commit(ctx)
		if err == nil {
			return ntbl, nil
		}
		// Another writer changed the table first (maybe the same way):
		// reload it and diff again.
		if attempt+1 >= evolveAttempts || ctx.Err() != nil {
			return nil, fmt.Errorf("icesync: evolving %s (attempt %d): %w", name, attempt+1, err)
		}
		if tbl, err = cat.LoadTable(ctx, ident); err != nil {
			return nil, fmt.Errorf("icesync: loading %s: %w", name, err)
		}
		if p := opts.Retry.withDefaults(); p.Sleep(ctx, p.wait(attempt)) != nil {
			return nil, context.Cause(ctx)
		}
	}
}

// schemaDiff compares the table's schema have with the inputs' want by
// column name: the columns to add, those to promote (with their new
// type), or an error wrapping ErrSchemaChanged for a change Iceberg
// cannot make.
func schemaDiff(have, want *iceberg.Schema) (adds, promote []iceberg.NestedField, err error) {
	if hf, wf := have.Field(0), want.Field(0); hf.Name != wf.Name || !hf.Type.Equals(wf.Type) {
		return nil, nil, fmt.Errorf("%w: the time column is %s %s in the table and %s %s in the inputs; sync to a new table", ErrSchemaChanged, hf.Name, hf.Type, wf.Name, wf.Type)
	}
	_, hasDB := have.FindFieldByName(DatabaseColumn)
	_, wantDB := want.FindFieldByName(DatabaseColumn)
	if hdb, ok := have.FindFieldByName(DatabaseColumn); ok && columnCategory(hdb) == categoryDatabase && !wantDB {
		return nil, nil, fmt.Errorf("%w: the table was synced from several databases (column %q); sync it with --database '*'", ErrSchemaChanged, DatabaseColumn)
	}
	if wdb, ok := want.FindFieldByName(DatabaseColumn); ok && columnCategory(wdb) == categoryDatabase && !hasDB && have.NumFields() > 0 {
		return nil, nil, fmt.Errorf("%w: the table was synced from one database, without a %q column; sync several databases to a new table", ErrSchemaChanged, DatabaseColumn)
	}
	for _, wf := range want.Fields() {
		hf, ok := have.FindFieldByName(wf.Name)
		switch {
		case !ok:
			adds = append(adds, wf)
		case hf.Type.Equals(wf.Type), promotes(wf.Type, hf.Type):
			// The same, or narrower in the inputs: widened as written.
		case promotes(hf.Type, wf.Type):
			promote = append(promote, wf)
		default:
			return nil, nil, fmt.Errorf("%w: column %q is %s in the table and %s in the inputs (a type change in IoTDB), which Iceberg cannot apply to a column; sync to a new table, or drop this one and sync again", ErrSchemaChanged, wf.Name, hf.Type, wf.Type)
		}
	}
	return adds, promote, nil
}

// promotes reports whether Iceberg promotes a column of type from to to
// (the Iceberg spec's "Schema Evolution": int to long, float to double;
// decimals are not in TsFile).
func promotes(from, to iceberg.Type) bool {
	return from.Equals(iceberg.PrimitiveTypes.Int32) && to.Equals(iceberg.PrimitiveTypes.Int64) ||
		from.Equals(iceberg.PrimitiveTypes.Float32) && to.Equals(iceberg.PrimitiveTypes.Float64)
}
