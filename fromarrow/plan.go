package fromarrow

import (
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// tsPlan is how the input columns map to the table.
type tsPlan struct {
	input    *arrow.Schema
	table    string
	time     int            // input column of the time
	timeFrom arrow.TimeUnit // unit of a timestamp time column
	timeTS   bool           // the time column is a timestamp
	unit     arrow.TimeUnit // stored unit
	unitSet  bool           // unit is Options.TimeUnit
	tags     []int          // input columns of the TAGs, in segment order
	fields   []fieldPlan
	schema   tsfile.TableSchema
	write    *tsfile.WriteOptions
	maxRows  int
	keepLast bool
	tree     bool // Options.Tree: tags holds the device column alone
	aligned  bool // Options.Aligned
	decimals bool // Options.DecimalAsDouble
}

// fieldPlan is one FIELD column.
type fieldPlan struct {
	col int // input column
	tsfile.SeriesSchema
}

// planTsFile checks the schema and options and plans the conversion.
func planTsFile(sc *arrow.Schema, opts *Options) (*tsPlan, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	p := &tsPlan{input: sc, write: o.Write, maxRows: o.MaxBufferedRows, keepLast: o.KeepLast,
		tree: o.Tree, aligned: o.Aligned, decimals: o.DecimalAsDouble}
	if p.maxRows <= 0 {
		p.maxRows = defaultMaxBufferedRows
	}
	if o.Tree && (o.Table != "" || o.Tags != nil || o.Attributes != nil) {
		return nil, fmt.Errorf("fromarrow: Options.Table, Tags and Attributes describe a table; the tree model (Options.Tree) has devices named by Options.DeviceColumn instead")
	}
	if !o.Tree && o.Aligned {
		return nil, fmt.Errorf("fromarrow: Options.Aligned applies to the tree model (Options.Tree); a table's devices are always aligned")
	}
	if !o.Tree {
		p.table = o.Table
		if p.table == "" {
			p.table, _ = sc.Metadata().GetValue(arrowconv.MetaTable)
		}
		if p.table == "" {
			return nil, &OptionError{Problem: "no table name", Option: "Table", Remedy: fmt.Sprintf("or the schema metadata %q", arrowconv.MetaTable)}
		}
	}
	// Table and column names are stored in lower case, as upstream writers
	// and IoTDB store them: upstream readers lower the names of the table
	// schema and would find no chunk stored under another spelling
	// (tsfile.Writer.RegisterTable). The tree model keeps a measurement's
	// case, as IoTDB's tree model does.
	p.table = strings.ToLower(p.table)
	stored := map[string]string{} // input column by stored name
	lower := func(name string) (string, error) {
		l := strings.ToLower(name)
		if o.Tree {
			l = name
		}
		if o, dup := stored[l]; dup && o != name {
			return "", fmt.Errorf("fromarrow: columns %q and %q would both be stored as %q: table and column names are stored in lower case, as IoTDB's table model has them; rename one", o, name, l)
		}
		stored[l] = name
		return l, nil
	}

	byName := map[string]int{}
	for i, f := range sc.Fields() {
		if f.Name == "" {
			return nil, fmt.Errorf("fromarrow: input column %d has an empty name", i)
		}
		if _, dup := byName[f.Name]; dup {
			return nil, fmt.Errorf("fromarrow: the input has two columns named %q", f.Name)
		}
		byName[f.Name] = i
	}
	category := func(i int) string {
		v, _ := sc.Field(i).Metadata.GetValue(arrowconv.MetaCategory)
		return v
	}
	withCategory := func(c string) []string {
		var out []string
		for i, f := range sc.Fields() {
			if category(i) == c {
				out = append(out, f.Name)
			}
		}
		return out
	}

	// The time column.
	timeName := TimeColumnOf(sc, &o)
	ti, ok := byName[timeName]
	if !ok {
		return nil, fmt.Errorf("fromarrow: no time column %q in the input", timeName)
	}
	p.time = ti
	// readAs is the name readers give the time column: "time", unless the
	// schema records it (WriteTimeColumn). No TAG, ATTRIBUTE or FIELD may
	// be stored under it.
	readAs := arrowconv.TimeColumn
	if o.WriteTimeColumn {
		if o.Tree {
			return nil, fmt.Errorf("fromarrow: Options.WriteTimeColumn records the time column in a table schema; the tree model (Options.Tree) has none")
		}
		l, err := lower(timeName)
		if err != nil {
			return nil, err
		}
		readAs = l
		// First, as the Python writer places it and as readers list the
		// time column (see Options.WriteTimeColumn); the encoding and
		// compression are the time chunks', set by resolveCodecs.
		p.schema.Columns = append(p.schema.Columns, tsfile.Column{Name: l, DataType: tsfile.Timestamp, Category: tsfile.TimeCol})
	}
	switch t := sc.Field(ti).Type.(type) {
	case *arrow.TimestampType:
		p.timeTS, p.timeFrom = true, t.Unit
	case *arrow.Int64Type:
	default:
		return nil, fmt.Errorf("fromarrow: time column %q is %s; it must be a timestamp or int64: %w", timeName, t, tsfile.ErrUnsupported)
	}
	// The stored unit: as asked, else the unit a tsarrow conversion recorded
	// for the TsFile it read, else milliseconds, IoTDB's default precision,
	// whatever the input's own unit (see Options.TimeUnit).
	p.unit = arrow.Millisecond
	switch {
	case o.TimeUnit.IsSet():
		if u := o.TimeUnit.Unit(); u < arrow.Second || u > arrow.Nanosecond {
			return nil, fmt.Errorf("fromarrow: invalid time unit %d", int(u))
		}
		p.unit, p.unitSet = o.TimeUnit.Unit(), true
	default:
		if v, ok := sc.Metadata().GetValue(arrowconv.MetaTimeUnit); ok {
			u, ok := parseTimeUnit(v)
			if !ok {
				return nil, fmt.Errorf("fromarrow: schema metadata %s = %q is not a time unit", arrowconv.MetaTimeUnit, v)
			}
			p.unit = u
		}
	}

	// TAG and ATTRIBUTE columns.
	role := map[int]string{ti: "the time column"}
	claim := func(name string, cat tsfile.ColumnCategory) (int, error) {
		what := "a " + cat.String() + " column"
		if cat == tsfile.Attribute {
			what = "an ATTRIBUTE column"
		}
		i, ok := byName[name]
		if !ok {
			return 0, fmt.Errorf("fromarrow: %s column %q is not in the input", cat, name)
		}
		if r, taken := role[i]; taken {
			return 0, fmt.Errorf("fromarrow: column %q cannot be both %s and %s", name, r, what)
		}
		if strings.ToLower(name) == readAs {
			return 0, fmt.Errorf("fromarrow: %s column %q would collide with the time column, which readers name %q", cat, name, readAs)
		}
		role[i] = what
		return i, nil
	}
	if o.Tree {
		if err := p.planDevice(o.DeviceColumn, byName, role); err != nil {
			return nil, err
		}
	}
	tags := o.Tags
	if tags == nil && !o.Tree {
		tags = withCategory(tsfile.Tag.String())
	}
	for _, name := range tags {
		i, err := claim(name, tsfile.Tag)
		if err != nil {
			return nil, err
		}
		if !tagTypeOK(sc.Field(i).Type) {
			return nil, fmt.Errorf("fromarrow: TAG column %q is %s; TAG columns must be strings, dictionary-encoded strings or integers: %w", name, sc.Field(i).Type, tsfile.ErrUnsupported)
		}
		p.tags = append(p.tags, i)
		l, err := lower(name)
		if err != nil {
			return nil, err
		}
		p.schema.Columns = append(p.schema.Columns, tsfile.Column{Name: l, DataType: tsfile.String, Category: tsfile.Tag})
	}
	attrs := o.Attributes
	if attrs == nil && !o.Tree {
		attrs = withCategory(tsfile.Attribute.String())
	}
	for _, name := range attrs {
		if _, err := claim(name, tsfile.Attribute); err != nil {
			return nil, err
		}
		l, err := lower(name)
		if err != nil {
			return nil, err
		}
		p.schema.Columns = append(p.schema.Columns, tsfile.Column{Name: l, DataType: tsfile.String, Category: tsfile.Attribute})
	}

	// FIELD columns: the rest, in input order.
	fieldNames := map[string]bool{}
	for i, f := range sc.Fields() {
		if _, taken := role[i]; taken {
			continue
		}
		if strings.ToLower(f.Name) == readAs {
			if readAs == arrowconv.TimeColumn && strings.ToLower(timeName) != readAs && !o.Tree {
				// A file read by this module whose TIME column is named
				// otherwise, beside a FIELD named "time".
				return nil, &OptionError{Problem: fmt.Sprintf("FIELD column %q would collide with the time column %q, which readers name %q unless the table schema records its name", f.Name, timeName, readAs),
					Option: "WriteTimeColumn", Remedy: fmt.Sprintf("to record the time column as %q (upstream Java TsFile and IoTDB cannot read such a file), or set Options.TimeColumn to make %q the time column", strings.ToLower(timeName), f.Name)}
			}
			return nil, &OptionError{Problem: fmt.Sprintf("FIELD column %q would collide with the time column, which readers name %q", f.Name, readAs),
				Option: "TimeColumn", Remedy: "to make it the time column"}
		}
		if o.Tree && strings.ContainsAny(f.Name, ".`") {
			return nil, fmt.Errorf("fromarrow: column %q cannot be a measurement: a tree-model measurement name holds no dot or backquote; rename the column", f.Name)
		}
		dt, err := fieldType(f, o.DecimalAsDouble)
		if err != nil {
			return nil, err
		}
		l, err := lower(f.Name)
		if err != nil {
			return nil, err
		}
		fp := fieldPlan{col: i, SeriesSchema: tsfile.SeriesSchema{Name: l, DataType: dt, Encoding: o.Encodings[f.Name], Compression: o.Compression.Compression()}}
		if c, ok := o.Compressions[f.Name]; ok {
			fp.Compression = c
		}
		p.fields = append(p.fields, fp)
		fieldNames[f.Name] = true
		p.schema.Columns = append(p.schema.Columns, tsfile.Column{Name: l, DataType: dt, Encoding: fp.Encoding, Compression: fp.Compression, Category: tsfile.Field})
	}
	for name := range o.Encodings {
		if !fieldNames[name] {
			return nil, fmt.Errorf("fromarrow: Options.Encodings names %q, which is not a FIELD column", name)
		}
	}
	for name := range o.Compressions {
		if !fieldNames[name] {
			return nil, fmt.Errorf("fromarrow: Options.Compressions names %q, which is not a FIELD column", name)
		}
	}
	p.schema.Name = p.table
	return p, nil
}

// planDevice claims the device column of the tree model, which the sink
// reads as the one TAG of a table.
func (p *tsPlan) planDevice(name string, byName map[string]int, role map[int]string) error {
	if name == "" {
		name = arrowconv.DeviceColumn
	}
	i, ok := byName[name]
	if !ok {
		return &OptionError{Problem: fmt.Sprintf("no device column %q in the input", name), Option: "DeviceColumn", Remedy: "to the column of device paths"}
	}
	if r, taken := role[i]; taken {
		return fmt.Errorf("fromarrow: column %q cannot be both %s and the device column", name, r)
	}
	t := p.input.Field(i).Type
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.ValueType
	}
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
	default:
		return fmt.Errorf("fromarrow: device column %q is %s; it must hold device paths as strings: %w", name, p.input.Field(i).Type, tsfile.ErrUnsupported)
	}
	role[i] = "the device column"
	p.tags = []int{i}
	return nil
}

// probe writes one row of zero values with the planned encodings and
// compressions to a discarded file, so that options the writer refuses are
// reported before any output is written.
func (p *tsPlan) probe() error {
	w, err := tsfile.NewWriter(io.Discard, p.write)
	if err != nil {
		return fmt.Errorf("fromarrow: %w", err)
	}
	defer w.Close() // zeroes the probe's data key, if it made one
	if p.tree {
		dev := tsfile.ParseTreePath("root.probe.d")
		if p.aligned {
			cols := make([]tsfile.AlignedColumn, len(p.fields))
			for i, f := range p.fields {
				cols[i] = tsfile.AlignedColumn{SeriesSchema: f.SeriesSchema, Values: tsfile.NewValues(f.DataType, 1)}
			}
			err = w.WriteAligned(dev, []int64{0}, cols)
		} else {
			series := make([]tsfile.NonAlignedSeries, len(p.fields))
			for i, f := range p.fields {
				series[i] = tsfile.NonAlignedSeries{SeriesSchema: f.SeriesSchema, Times: []int64{0}, Values: tsfile.NewValues(f.DataType, 1)}
			}
			err = w.WriteNonAligned(dev, series)
		}
		if err != nil {
			return fmt.Errorf("fromarrow: checking the measurement encodings and compressions: %w", err)
		}
		return nil
	}
	if err := w.RegisterTable(p.schema); err != nil {
		return fmt.Errorf("fromarrow: %w", err)
	}
	cols := make([]tsfile.AlignedColumn, len(p.fields))
	for i, f := range p.fields {
		cols[i] = tsfile.AlignedColumn{SeriesSchema: f.SeriesSchema, Values: tsfile.NewValues(f.DataType, 1)}
	}
	if err := w.WriteAligned(tsfile.NewDeviceID(p.table), []int64{0}, cols); err != nil {
		return fmt.Errorf("fromarrow: checking the FIELD encodings and compressions: %w", err)
	}
	return nil
}

func parseTimeUnit(s string) (arrow.TimeUnit, bool) {
	for u := arrow.Second; u <= arrow.Nanosecond; u++ {
		if u.String() == s {
			return u, true
		}
	}
	return 0, false
}

// fieldTypes returns the TsFile types values of Arrow type t can be stored
// as, the default first; nil when there is none.
func fieldTypes(t arrow.DataType) []tsfile.DataType {
	switch t.ID() {
	case arrow.BOOL:
		return []tsfile.DataType{tsfile.Boolean}
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.UINT8, arrow.UINT16:
		return []tsfile.DataType{tsfile.Int32, tsfile.Int64}
	case arrow.INT64, arrow.UINT32:
		return []tsfile.DataType{tsfile.Int64, tsfile.Timestamp}
	case arrow.FLOAT32:
		return []tsfile.DataType{tsfile.Float, tsfile.Double}
	case arrow.FLOAT64:
		return []tsfile.DataType{tsfile.Double}
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return []tsfile.DataType{tsfile.String, tsfile.Text}
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return []tsfile.DataType{tsfile.Blob, tsfile.Object}
	case arrow.DATE32, arrow.DATE64:
		return []tsfile.DataType{tsfile.Date}
	case arrow.TIMESTAMP:
		return []tsfile.DataType{tsfile.Timestamp, tsfile.Int64}
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		// Only with Options.DecimalAsDouble (fieldType); TsFile has no
		// decimal type.
		return []tsfile.DataType{tsfile.Double}
	case arrow.STRUCT:
		// An OBJECT column read as references (arrowconv.ObjectType)
		// goes back as OBJECT cells.
		if arrow.TypeEqual(t, arrowconv.ObjectType) {
			return []tsfile.DataType{tsfile.Object}
		}
		return nil
	case arrow.DICTIONARY:
		d := t.(*arrow.DictionaryType)
		if d.ValueType.ID() == arrow.DICTIONARY {
			return nil
		}
		return fieldTypes(d.ValueType)
	}
	return nil
}

// fieldType chooses the TsFile type of a FIELD column; decimals are
// stored as DOUBLE only when asDouble says so.
func fieldType(f arrow.Field, asDouble bool) (tsfile.DataType, error) {
	if isDecimal(f.Type) && !asDouble {
		return 0, &OptionError{Problem: fmt.Sprintf("column %q is %s, and TsFile has no decimal type", f.Name, f.Type),
			Option: "DecimalAsDouble", Remedy: "to store it as DOUBLE, rounded to the nearest double beyond 15 significant digits"}
	}
	allowed := fieldTypes(f.Type)
	if allowed == nil {
		return 0, fmt.Errorf("fromarrow: column %q has Arrow type %s, which has no TsFile counterpart: %w", f.Name, f.Type, tsfile.ErrUnsupported)
	}
	name, ok := f.Metadata.GetValue(arrowconv.MetaType)
	if !ok {
		return allowed[0], nil
	}
	for _, t := range allowed {
		if t.String() == name {
			return t, nil
		}
	}
	return 0, fmt.Errorf("fromarrow: column %q has metadata %s = %q, which Arrow type %s cannot be stored as: %w", f.Name, arrowconv.MetaType, name, f.Type, tsfile.ErrUnsupported)
}

// isDecimal reports whether t is a decimal type, or a dictionary of one.
func isDecimal(t arrow.DataType) bool {
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.ValueType
	}
	switch t.ID() {
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

// tagTypeOK reports whether a TAG column can have Arrow type t.
func tagTypeOK(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW,
		arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	case arrow.DICTIONARY:
		v := t.(*arrow.DictionaryType).ValueType
		return v.ID() != arrow.DICTIONARY && tagTypeOK(v)
	}
	return false
}

// TimeColumnOf names the input column WriteTsFile takes the time from, for
// an input of schema sc: Options.TimeColumn, else the one column the schema
// marks as a TsFile TIME column (arrowconv.MetaCategory), else "time".
func TimeColumnOf(sc *arrow.Schema, o *Options) string {
	if o != nil && o.TimeColumn != "" {
		return o.TimeColumn
	}
	name, marked := arrowconv.TimeColumn, 0
	for _, f := range sc.Fields() {
		if c, _ := f.Metadata.GetValue(arrowconv.MetaCategory); c == tsfile.TimeCol.String() {
			name, marked = f.Name, marked+1
		}
	}
	if marked != 1 {
		return arrowconv.TimeColumn
	}
	return name
}
