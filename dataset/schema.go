package dataset

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// schemaKey is what a table's unified schema depends on besides the files.
type schemaKey struct {
	table      tableID
	unit       arrowconv.TimeUnit
	plainTags  bool
	stringView bool
}

// outColumn is one column of a table's unified schema.
type outColumn struct {
	field    arrow.Field
	tsType   tsfile.DataType
	category string
	konst    bool // TAG, ATTRIBUTE or device: one value per device
	from     *dataFile
}

// tableSchema is a table's unified schema and the files holding it.
type tableSchema struct {
	name  string
	db    string // the database of a table-model table
	tree  bool
	cols  []outColumn // time first, then constant columns, then fields
	byNam map[string]int
	meta  arrow.Metadata
	// files hold the table, in ascending priority.
	files []*dataFile
	// fileCols are the columns (and their TsFile types) of each file.
	fileCols map[*dataFile]map[string]tsfile.DataType
	// fileTime is the name of each file's time column: "time", or the
	// name its table schema gives its column of category TIME
	// (arrowconv.TimeFieldName); the unified schema's is the newest
	// file's, cols[0].
	fileTime map[*dataFile]string
	out      *arrow.Schema // projected onto the options' Columns
	keep     []int         // indexes into cols of out's fields
}

// filesOf returns the files holding a table, in ascending priority (ties
// in discovery order). A file with a resource holds it when the resource
// lists one of its devices; a loose file is opened. A table-model table is
// held only by the files of its database (id.tree takes every database).
func (d *Dataset) filesOf(id tableID) []*dataFile {
	var out []*dataFile
	for _, df := range d.files {
		if !id.tree && df.Database != id.db {
			continue
		}
		names, err := d.tablesOf(df)
		// A file that does not open is listed, so that reading it
		// reports the error.
		if _, found := slices.BinarySearch(names, id.name); found || err != nil {
			out = append(out, df)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lessPriority(out[i], out[j]) })
	return out
}

// lessPriority orders files by the priority of their points (offset aside).
func lessPriority(a, b *dataFile) bool {
	if c := a.Priority(0).Compare(b.Priority(0)); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}

// tableSchema builds (once per options) the unified schema of a table from
// the footers of every file holding it, whatever the query's time range, so
// that a table has one schema however it is read.
func (d *Dataset) tableSchema(table string, o *arrowconv.Options) (*tableSchema, error) {
	var opts arrowconv.Options
	if o != nil {
		opts = *o
	}
	id, err := d.resolve(table)
	if err != nil {
		return nil, err
	}
	key := schemaKey{table: id, unit: opts.TimeUnit, plainTags: opts.PlainTags, stringView: opts.StringView}
	d.mu.Lock()
	base, ok := d.schemas[key]
	d.mu.Unlock()
	if !ok {
		var err error
		base, err = d.buildSchema(key)
		if err != nil {
			return nil, err
		}
		d.mu.Lock()
		d.schemas[key] = base
		d.mu.Unlock()
	}
	return base.project(opts.Columns)
}

func (d *Dataset) buildSchema(key schemaKey) (*tableSchema, error) {
	files := d.filesOf(key.table)
	if len(files) == 0 {
		return nil, fmt.Errorf("%w %q in the data files", ErrNoTable, key.table.name)
	}
	ts := &tableSchema{name: key.table.name, db: key.table.db, files: files, byNam: map[string]int{}, fileCols: map[*dataFile]map[string]tsfile.DataType{}, fileTime: map[*dataFile]string{}}
	so := &arrowconv.Options{TimeUnit: key.unit, PlainTags: key.plainTags, StringView: key.stringView}
	var consts, fields []outColumn
	var timeCol *outColumn
	// The newest file (by the version in its name, which IoTDB counts up
	// as it creates files) stands in for the server's schema: its types
	// win and the others are cast (docs/iotdb-rules.md 4c). Not merge
	// priority: an unsequence file flushed before an ALTER outranks the
	// sequence files written after it, but holds the old type.
	byAge := append([]*dataFile(nil), files...)
	sort.SliceStable(byAge, func(a, b int) bool {
		pa, pb := byAge[a].Priority(0), byAge[b].Priority(0)
		if pa.Version != pb.Version {
			return pa.Version < pb.Version
		}
		if pa.Time != pb.Time {
			return pa.Time < pb.Time
		}
		return byAge[a].idx < byAge[b].idx
	})
	files = byAge
	for i := len(files) - 1; i >= 0; i-- { // newest first: its types win
		df := files[i]
		tf, err := d.open(df)
		if err != nil {
			return nil, err
		}
		var s *arrow.Schema
		_, isTable := tf.SchemaOf(key.table.name)
		if i == len(files)-1 {
			ts.tree = !isTable
		} else if ts.tree == isTable {
			return nil, fmt.Errorf("dataset: %q is a table-model table in %s but tree-model devices in %s; read the files apart with --raw: %w", key.table.name, pick(isTable, df.Path, files[len(files)-1].Path), pick(isTable, files[len(files)-1].Path, df.Path), tsfile.ErrUnsupported)
		}
		if isTable {
			s, err = arrowconv.TableArrowSchema(tf, key.table.name, so)
		} else {
			s, err = arrowconv.TreeArrowSchema(tf, key.table.name, so)
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", df.Path, err)
		}
		if i == len(files)-1 {
			ts.meta = s.Metadata()
		}
		fc := map[string]tsfile.DataType{}
		ts.fileCols[df] = fc
		for _, f := range s.Fields() {
			cat, _ := f.Metadata.GetValue(arrowconv.MetaCategory)
			typName, _ := f.Metadata.GetValue(arrowconv.MetaType)
			tt, ok := parseDataType(typName)
			if !ok {
				return nil, fmt.Errorf("dataset: %s: column %q has no TsFile type", df.Path, f.Name)
			}
			c := outColumn{field: f, tsType: tt, category: cat, konst: cat == "TAG" || cat == "ATTRIBUTE" || cat == "DEVICE", from: df}
			if cat == tsfile.TimeCol.String() {
				// The time column, whatever its name: files that name it
				// apart (one written by the C++ writer with a TIME column
				// "id", another without) still have one time column,
				// named as the newest file names it.
				ts.fileTime[df] = f.Name
				if timeCol == nil {
					timeCol = &c
				}
				continue
			}
			fc[f.Name] = tt // the time column is not among them
			if j, ok := ts.byNam[f.Name]; ok {
				prev := pickCol(j, consts, fields)
				if prev.konst != c.konst {
					return nil, fmt.Errorf("dataset: column %q is a %s column in %s but a %s column in %s; read the files apart with --raw: %w", f.Name, prev.category, prev.from.Path, c.category, df.Path, tsfile.ErrUnsupported)
				}
				if !c.konst && prev.tsType != c.tsType && !castAllowed(c.tsType, prev.tsType) {
					return nil, fmt.Errorf("dataset: column %q is %s in %s but %s in the newer %s, and IoTDB cannot cast %s to %s: %w", f.Name, c.tsType, df.Path, prev.tsType, prev.from.Path, c.tsType, prev.tsType, tsfile.ErrUnsupported)
				}
				continue
			}
			if c.konst {
				ts.byNam[f.Name] = -1 - len(consts)
				consts = append(consts, c)
			} else {
				ts.byNam[f.Name] = len(fields)
				fields = append(fields, c)
			}
		}
	}
	if timeCol == nil {
		return nil, fmt.Errorf("dataset: table %q has no time column", key.table.name)
	}
	if j, ok := ts.byNam[timeCol.field.Name]; ok {
		c := pickCol(j, consts, fields)
		return nil, fmt.Errorf("dataset: column %q is the time column of %s but a %s column in %s; read the files apart with --raw: %w", timeCol.field.Name, timeCol.from.Path, c.category, c.from.Path, tsfile.ErrUnsupported)
	}
	ts.cols = append(append([]outColumn{*timeCol}, consts...), fields...)
	for i, c := range ts.cols {
		ts.byNam[c.field.Name] = i
	}
	return ts, nil
}

func pick(b bool, x, y string) string {
	if b {
		return x
	}
	return y
}

// pickCol finds a column while consts and fields are being collected:
// j < 0 names consts[-1-j].
func pickCol(j int, consts, fields []outColumn) outColumn {
	if j < 0 {
		return consts[-1-j]
	}
	return fields[j]
}

// project returns a copy of the schema projected onto columns (nil keeps
// all; the time column is always kept; schema order, as arrowconv).
func (ts *tableSchema) project(columns []string) (*tableSchema, error) {
	p := *ts
	p.keep = nil
	if columns == nil {
		for i := range ts.cols {
			p.keep = append(p.keep, i)
		}
	} else {
		// Time first, then the columns in the order asked for, as
		// arrowconv.Options.Columns orders a file's.
		p.keep = append(p.keep, 0)
		placed := map[string]bool{ts.cols[0].field.Name: true}
		for _, c := range columns {
			i, ok := ts.byNam[c]
			if !ok {
				names := make([]string, len(ts.cols))
				for i, c := range ts.cols {
					names[i] = c.field.Name
				}
				return nil, fmt.Errorf("dataset: table %q has no column %q (columns: %s)", ts.name, c, strings.Join(names, ", "))
			}
			if !placed[c] {
				placed[c] = true
				p.keep = append(p.keep, i)
			}
		}
	}
	fields := make([]arrow.Field, len(p.keep))
	for i, k := range p.keep {
		fields[i] = ts.cols[k].field
	}
	md := ts.meta
	p.out = arrow.NewSchema(fields, &md)
	return &p, nil
}

// parseDataType reads the name arrowconv writes in MetaType.
func parseDataType(s string) (tsfile.DataType, bool) {
	for t := tsfile.DataType(0); t.Valid(); t++ {
		if t.String() == s {
			return t, true
		}
	}
	return 0, false
}
