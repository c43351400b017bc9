package icesync

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
)

// AllDatabases is the database part of Options.Table ("*.weather") that
// syncs the table of that name from every database of the inputs holding
// one into one Iceberg table, with a column DatabaseColumn naming each
// row's database. The CLI spells it --database '*' (or --table '*.weather'),
// as --database NAME makes "NAME.weather".
const AllDatabases = "*"

// metaDatabases is the Arrow schema metadata key under which tableSchema
// records the databases (comma-separated) the table is read from.
const metaDatabases = "tsarrow.databases"

// allDatabases returns the table name of a "*.NAME" table, and whether it
// is one.
func allDatabases(name string) (string, bool) {
	db, t, ok := strings.Cut(name, ".")
	return t, ok && db == AllDatabases
}

// dbTables returns the tables named name in the databases of ds, sorted by
// database: what a "*.name" sync reads.
func dbTables(ds *dataset.Dataset, name string) ([]dataset.Table, error) {
	tables, err := ds.Tables()
	if err != nil {
		return nil, err
	}
	var out []dataset.Table
	for _, t := range tables {
		if t.Name == name && t.Database != "" && !t.Tree {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		// ErrNoTable: a dataset over a few new files may hold none.
		return nil, fmt.Errorf("icesync: table %s.%s: %w: no database of the inputs holds a table-model table %q", AllDatabases, name, dataset.ErrNoTable, name)
	}
	slices.SortFunc(out, func(a, b dataset.Table) int { return strings.Compare(a.Database, b.Database) })
	return out, nil
}

// tableSchema is the Arrow schema of the dataset table name as the sync
// reads it, with the databases it comes from in its metadata. For a
// "*.name" table it is the union of each database's table: the time
// column, then DatabaseColumn, then the other columns by name in the order
// they first appear, an INT32 or FLOAT column that another database holds
// as INT64 or DOUBLE widened (as evolve widens a table's column).
func tableSchema(ds *dataset.Dataset, name string, ro *arrowconv.Options) (*arrow.Schema, error) {
	tname, all := allDatabases(name)
	if !all {
		sc, err := ds.Schema(name, ro)
		if err != nil {
			return nil, err
		}
		tables, err := ds.Tables()
		if err != nil {
			return nil, err
		}
		for _, t := range tables {
			if t.Database != "" && (t.Ref == name || t.Database+"."+t.Name == name) {
				md := arrow.NewMetadata([]string{metaDatabases}, []string{t.Database})
				return arrow.NewSchema(sc.Fields(), &md), nil
			}
		}
		return sc, nil
	}
	tables, err := dbTables(ds, tname)
	if err != nil {
		return nil, err
	}
	var (
		fields []arrow.Field
		from   []string // database of each field
		dbs    []string
	)
	for _, t := range tables {
		dbs = append(dbs, t.Database)
		sc, err := ds.Schema(t.Ref, ro)
		if err != nil {
			return nil, err
		}
		for i, f := range sc.Fields() {
			if f.Name == DatabaseColumn {
				return nil, fmt.Errorf("icesync: table %s.%s has a column %q, the name a sync of several databases gives the database column; sync each database to its own table", t.Database, t.Name, DatabaseColumn)
			}
			if len(fields) == 0 {
				md := arrow.NewMetadata([]string{arrowconv.MetaCategory}, []string{categoryDatabase})
				fields = append(fields, f, arrow.Field{Name: DatabaseColumn, Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md})
				from = append(from, t.Database, t.Database)
				continue
			}
			if i == 0 {
				if !arrow.TypeEqual(f.Type, fields[0].Type) || f.Name != fields[0].Name {
					return nil, fmt.Errorf("icesync: table %s: time column %s %s in database %s, %s %s in %s; sync them to separate tables", tname, fields[0].Name, fields[0].Type, from[0], f.Name, f.Type, t.Database)
				}
				continue
			}
			j := slices.IndexFunc(fields, func(g arrow.Field) bool { return g.Name == f.Name })
			switch {
			case j < 0:
				fields = append(fields, f)
				from = append(from, t.Database)
			case arrow.TypeEqual(fields[j].Type, f.Type):
			case arrowWidens(fields[j].Type, f.Type):
				fields[j] = f
				from[j] = t.Database
			case arrowWidens(f.Type, fields[j].Type):
			default:
				return nil, fmt.Errorf("icesync: table %s: column %q is %s in database %s and %s in %s, which one Iceberg column cannot hold; sync the databases to separate tables", tname, f.Name, fields[j].Type, from[j], f.Type, t.Database)
			}
		}
	}
	md := arrow.NewMetadata([]string{metaDatabases}, []string{strings.Join(dbs, ",")})
	return arrow.NewSchema(fields, &md), nil
}

// arrowWidens reports whether a column of type from can be widened to to
// as Iceberg promotes types: int to long, float to double.
func arrowWidens(from, to arrow.DataType) bool {
	return from.ID() == arrow.INT32 && to.ID() == arrow.INT64 ||
		from.ID() == arrow.FLOAT32 && to.ID() == arrow.FLOAT64
}

// recordReader is what batches reads a table through: a dataset.Reader,
// or for a "*.name" table a dbReader.
type recordReader interface {
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

// newReader opens the table name of ds as Options.Table names it.
func newReader(ds *dataset.Dataset, name string, o *arrowconv.Options) (recordReader, error) {
	tname, all := allDatabases(name)
	if !all {
		return ds.NewReader(name, o)
	}
	tables, err := dbTables(ds, tname)
	if err != nil {
		return nil, err
	}
	return &dbReader{ds: ds, tables: tables, o: o}, nil
}

// dbReader reads the same-named table of several databases one after the
// other, adding to each batch the column DatabaseColumn (the conformer
// puts it in its place by name).
type dbReader struct {
	ds     *dataset.Dataset
	tables []dataset.Table
	o      *arrowconv.Options
	next   int
	cur    *dataset.Reader
	rec    arrow.RecordBatch
	err    error
}

// Next advances to the next batch of the current database's table, or of
// the next database's.
func (r *dbReader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	for r.err == nil {
		if r.cur == nil {
			if r.next == len(r.tables) {
				return false
			}
			r.cur, r.err = r.ds.NewReader(r.tables[r.next].Ref, r.o)
			if r.err != nil {
				r.cur = nil
				return false
			}
			r.next++
		}
		if r.cur.Next() {
			r.rec = withDatabase(r.cur.RecordBatch(), r.tables[r.next-1].Database, r.o)
			return true
		}
		r.err = r.cur.Err()
		r.cur.Release()
		r.cur = nil
	}
	return false
}

// withDatabase returns rec with a last column DatabaseColumn holding db.
func withDatabase(rec arrow.RecordBatch, db string, o *arrowconv.Options) arrow.RecordBatch {
	mem := o.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	n := int(rec.NumRows())
	b.Reserve(n)
	b.ReserveData(n * len(db))
	for range n {
		b.Append(db)
	}
	col := b.NewArray()
	defer col.Release()
	fields := append(slices.Clone(rec.Schema().Fields()), arrow.Field{Name: DatabaseColumn, Type: arrow.BinaryTypes.String, Nullable: true})
	cols := append(slices.Clone(rec.Columns()), col)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// RecordBatch is the current batch, owned by the reader.
func (r *dbReader) RecordBatch() arrow.RecordBatch { return r.rec }

// Err is the error that stopped Next.
func (r *dbReader) Err() error { return r.err }

// Release releases the current batch and reader.
func (r *dbReader) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
