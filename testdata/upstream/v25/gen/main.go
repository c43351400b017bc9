// Command gen writes the files of testdata/upstream/v25: TsFiles laid out
// as the TsFile 2.5 writers lay them out, built here from the byte layouts
// read in upstream source because no 2.5 writer could be built in this
// project's environment (see ../README.md). The files are NOT written by
// an upstream writer: the chunks, index and footer come from this module's
// tsfile.Writer, and what is new in 2.5 is laid out by hand after the
// upstream classes cited below:
//
//   - a table-schema column of category TIME (3): C++ TableSchema::serialize_to
//     writes each column's MeasurementSchema and then its category as an i32
//     (apache/tsfile cpp/src/common/schema.h); the TIME column has no chunk,
//     its values are the time chunk's. tsfile.Writer.RegisterTable stores the
//     category as given and writes chunks for FIELD columns only.
//   - OBJECT (type 12) cells: i64 size, big-endian, then the object's path
//     (apache/iotdb ObjectTypeUtils.generateObjectBinary); the path is
//     Base32ObjectPath.serialize (uvarint segment count, then each segment as
//     a zigzag-varint length and UTF-8 bytes: the region id, each DeviceID
//     segment in RFC 4648 base32 without padding, NUL for null, EPT for "",
//     the measurement in base32, "<time>.bin"), or, in the older
//     PlainObjectPath form, the relative path's UTF-8 bytes with no length.
//   - footer properties: values are raw bytes, null distinct from empty
//     (TsFileMetadata.propertiesMap, apache/tsfile 2.x), and
//     "tablePointCount.<table>" holds the table's count of non-null FIELD
//     points as an 8-byte big-endian long (TsFileIOWriter
//     TABLE_POINT_COUNT_PROPERTY_PREFIX, BytesUtils.longToBytes; apache/tsfile
//     TablePointCountPerformanceTest).
//
// Each file comes with its rows (BASE[.TABLE].expected.csv.gz, in the CSV
// convention of ../java: the time column under its TIME column's name, TAG
// columns, FIELD columns in schema order; an OBJECT cell is the 0x hex of
// the raw cell, as an upstream TsFile reader returns it as a Binary) and an
// entry in files.json. Objects of the base32 file are written under
// o01_object_base32.object/ with the sizes the cells declare.
//
// Run from the module root: go run ./testdata/upstream/v25/gen -out testdata/upstream/v25
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base32"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/tsfile"
)

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// cell is one value of a FIELD column; nil is null.
type cell any

// device is one device of a table: its TAG values (nil = null) and rows.
type device struct {
	tags  []*string
	times []int64
	// cols maps a FIELD name to its values, one per time.
	cols map[string][]cell
}

type tableSpec struct {
	schema  tsfile.TableSchema
	devices []device
}

type objectForm int

const (
	noObjects objectForm = iota
	base32Path
	plainPath
)

type fileSpec struct {
	base    string
	what    string
	needs   []string // read-side parts the file needs (contract of issue 40)
	tables  []tableSpec
	region  int
	objects objectForm
	// props are extra footer properties; tablePointCount adds one per table.
	props           []tsfile.Property
	tablePointCount bool
	// decimalPointCount writes tablePointCount as decimal text, as the
	// earlier TsFileTablePointCountTool did (Long.toString, when property
	// values were Strings), instead of 8 big-endian bytes.
	decimalPointCount bool
	pageRows          int
}

// manifest entries.
type manifestTable struct {
	Name          string   `json:"name"`
	ExpectedCSV   string   `json:"expected_csv"`
	TimeColumn    string   `json:"time_column"`
	ObjectColumns []string `json:"object_columns,omitempty"`
	Rows          int      `json:"rows"`
	FieldPoints   int64    `json:"field_points"`
}

type manifestProp struct {
	Key string `json:"key"`
	// Hex is the value's bytes in hex; absent when Null.
	Hex  string `json:"hex,omitempty"`
	Null bool   `json:"null,omitempty"`
}

type manifestFile struct {
	Path       string          `json:"path"`
	Model      string          `json:"model"`
	Writer     string          `json:"writer"`
	Covers     string          `json:"covers"`
	Needs      []string        `json:"needs,omitempty"`
	Tables     []manifestTable `json:"tables"`
	TotalRows  int             `json:"total_rows"`
	Properties []manifestProp  `json:"properties"`
	// TablePointCount is the form of the tablePointCount.<table> values:
	// "long" (8 bytes, big-endian) or "decimal" (ASCII digits).
	TablePointCount string `json:"table_point_count,omitempty"`
	ObjectRoot      string `json:"object_root,omitempty"`
	ObjectForm      string `json:"object_form,omitempty"`
}

func str(s string) *string { return &s }

func main() {
	out := flag.String("out", "testdata/upstream/v25", "output directory")
	flag.Parse()
	var files []manifestFile
	for _, fs := range specs() {
		mf, err := write(*out, fs)
		if err != nil {
			log.Fatalf("%s: %v", fs.base, err)
		}
		files = append(files, mf)
	}
	b, err := json.MarshalIndent(struct {
		Note  string         `json:"note"`
		Files []manifestFile `json:"files"`
	}{"Not written by an upstream writer: built by gen/main.go from the byte layouts of the TsFile 2.5 writers (README.md).", files}, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "files.json"), append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

func col(name string, dt tsfile.DataType, enc tsfile.Encoding, comp tsfile.Compression, cat tsfile.ColumnCategory) tsfile.Column {
	return tsfile.Column{Name: name, DataType: dt, Encoding: enc, Compression: comp, Category: cat}
}

func tag(name string) tsfile.Column {
	return col(name, tsfile.String, encoding.Plain, encoding.Uncompressed, tsfile.Tag)
}

// timeCol is a TIME column as the C++ writer records it: TIMESTAMP (the
// type upstream's Python tests give it), the default encoding of its type
// (TS_2DIFF) and UNCOMPRESSED, as MeasurementSchema(name, type) sets them.
func timeCol(name string) tsfile.Column {
	return col(name, tsfile.Timestamp, encoding.TS2Diff, encoding.Uncompressed, tsfile.TimeCol)
}

func field(name string, dt tsfile.DataType, enc tsfile.Encoding, comp tsfile.Compression) tsfile.Column {
	return col(name, dt, enc, comp, tsfile.Field)
}

// rows builds n rows starting at t0, step dt, with the values gen gives
// for row i of each FIELD (nil = null).
func rows(n int, t0, dt int64, fields []string, gen func(f string, i int) cell) device {
	d := device{cols: map[string][]cell{}}
	for i := 0; i < n; i++ {
		d.times = append(d.times, t0+int64(i)*dt)
		for _, f := range fields {
			d.cols[f] = append(d.cols[f], gen(f, i))
		}
	}
	return d
}

func withTags(d device, tags ...*string) device { d.tags = tags; return d }

func specs() []fileSpec {
	var out []fileSpec

	// t01: a TIME column named "id" first, as the C++/Python writer puts it.
	meter := tsfile.TableSchema{Name: "meter", Columns: []tsfile.Column{
		timeCol("id"), tag("region"), tag("plant"),
		field("temp", tsfile.Double, encoding.Gorilla, encoding.LZ4),
		field("cnt", tsfile.Int64, encoding.TS2Diff, encoding.LZ4),
		field("note", tsfile.String, encoding.Plain, encoding.Snappy),
	}}
	mf := []string{"temp", "cnt", "note"}
	out = append(out, fileSpec{
		base: "t01_table_time_column_first", what: "TIME column `id` (TIMESTAMP) first in the schema; 3 devices (300 rows in pages of 100, 7 rows with nulls, 1 row), a null TAG",
		needs: []string{"timeread"}, pageRows: 100,
		tables: []tableSpec{{schema: meter, devices: []device{
			withTags(rows(300, 1_700_000_000_000, 1000, mf, func(f string, i int) cell {
				switch f {
				case "temp":
					return float64(i)*0.25 - 10
				case "cnt":
					return int64(i * i)
				}
				return "n" + strconv.Itoa(i%7)
			}), str("north"), str("p1")),
			withTags(rows(7, 1_700_000_000_500, 333, mf, func(f string, i int) cell {
				if (i+len(f))%3 == 0 {
					return nil
				}
				switch f {
				case "temp":
					return -1.5 * float64(i)
				case "cnt":
					return int64(-i)
				}
				return "südwest " + strconv.Itoa(i)
			}), str("south"), str("p2")),
			withTags(rows(1, 1_699_999_999_000, 1, mf, func(f string, i int) cell {
				switch f {
				case "temp":
					return math.Inf(1)
				case "cnt":
					return int64(math.MaxInt64)
				}
				// Not "": the CSV spells null as an empty cell.
				return "\u00e9t\u00e9 \"q\", x"
			}), nil, str("p3")),
		}}},
	})

	// t02: the TIME column between two TAGs, and a FIELD named "time".
	ev := tsfile.TableSchema{Name: "ev", Columns: []tsfile.Column{
		tag("site"), timeCol("ts"), tag("unit"),
		field("time", tsfile.Int64, encoding.Plain, encoding.Uncompressed),
		field("v", tsfile.Float, encoding.Gorilla, encoding.Uncompressed),
		field("ok", tsfile.Boolean, encoding.RLE, encoding.Uncompressed),
	}}
	ef := []string{"time", "v", "ok"}
	out = append(out, fileSpec{
		base: "t02_table_time_column_between_tags", what: "TIME column `ts` between TAGs `site` and `unit` (DeviceID segments are the TAGs' positions among TAGs only), a FIELD named `time`",
		needs: []string{"timeread"},
		tables: []tableSpec{{schema: ev, devices: []device{
			withTags(rows(12, 10, 10, ef, func(f string, i int) cell {
				switch f {
				case "time":
					return int64(1000 - i)
				case "v":
					return float32(i) / 4
				}
				return i%2 == 0
			}), str("s1"), str("u1")),
			withTags(rows(5, 15, 10, ef, func(f string, i int) cell {
				if f == "v" && i == 2 {
					return nil
				}
				switch f {
				case "time":
					return int64(-i)
				case "v":
					return float32(-i)
				}
				return i == 4
			}), str("s2"), str("u1")),
		}}},
	})

	// t03: two tables, one with its TIME column last, one without any.
	a := tsfile.TableSchema{Name: "a", Columns: []tsfile.Column{
		tag("k"), field("x", tsfile.Int32, encoding.TS2Diff, encoding.Gzip), timeCol("stamp"),
	}}
	b := tsfile.TableSchema{Name: "b", Columns: []tsfile.Column{
		tag("k"), field("y", tsfile.Double, encoding.Plain, encoding.Gzip),
	}}
	out = append(out, fileSpec{
		base: "t03_two_tables_time_column_last", what: "table `a` with its TIME column `stamp` last, table `b` with no TIME column (its time stays `time`)",
		needs: []string{"timeread"},
		tables: []tableSpec{
			{schema: a, devices: []device{withTags(rows(20, 100, 1, []string{"x"}, func(_ string, i int) cell { return int32(i * 3) }), str("a1"))}},
			{schema: b, devices: []device{withTags(rows(4, 100, 5, []string{"y"}, func(_ string, i int) cell { return float64(i) + 0.5 }), str("b1"))}},
		},
	})

	// o01/o02: OBJECT columns.
	cam := tsfile.TableSchema{Name: "cam", Columns: []tsfile.Column{
		tag("line"), tag("cam"),
		field("img", tsfile.Object, encoding.Plain, encoding.LZ4),
		field("doc", tsfile.Object, encoding.Plain, encoding.Uncompressed),
		field("temp", tsfile.Int32, encoding.TS2Diff, encoding.LZ4),
	}}
	cf := []string{"img", "doc", "temp"}
	objRows := func(nullTag bool) []device {
		d1 := withTags(rows(6, 1000, 100, cf, func(f string, i int) cell {
			switch f {
			case "img":
				return objSize(int64(i * 7))
			case "doc":
				if i%2 == 1 {
					return nil
				}
				return objSize(int64(i))
			}
			return int32(20 + i)
		}), str("l1"), str("Cam-A"))
		d2 := withTags(rows(3, 1050, 100, cf, func(f string, i int) cell {
			switch f {
			case "img":
				if i == 1 {
					return nil
				}
				return objSize(int64(3 + i))
			case "doc":
				return objSize(int64(1))
			}
			return nil
		}), str("l2"), str("c/2"))
		if nullTag {
			d2.tags[0] = nil
		}
		return []device{d1, d2}
	}
	out = append(out, fileSpec{
		base: "o01_object_base32", what: "OBJECT columns `img`, `doc` (cells: i64 size + Base32ObjectPath of region 4), nulls, a null TAG (NUL segment), a TAG with upper case and `/`; objects in o01_object_base32.object/",
		needs: []string{"objcell"}, region: 4, objects: base32Path,
		tables: []tableSpec{{schema: cam, devices: objRows(true)}},
	})
	out = append(out, fileSpec{
		base: "o02_object_plain_path", what: "OBJECT columns as o01 with the older PlainObjectPath cells (i64 size + the relative path's bytes, segments lower-cased), region 2",
		needs: []string{"objcell"}, region: 2, objects: plainPath,
		tables: []tableSpec{{schema: cam, devices: objRows(false)}},
	})

	// p01: 2.5 footer properties.
	pt := tsfile.TableSchema{Name: "pt", Columns: []tsfile.Column{
		tag("dev"), field("s1", tsfile.Int32, encoding.Plain, encoding.LZ4), field("s2", tsfile.Int32, encoding.Plain, encoding.LZ4),
	}}
	out = append(out, fileSpec{
		base: "p01_footer_properties", what: "footer properties of 2.5: `tablePointCount.pt` (8-byte big-endian non-null FIELD points), a non-UTF-8 binary value, a null value, an empty value",
		tablePointCount: true,
		props: []tsfile.Property{
			{Key: "bin", Value: []byte{0xff, 0x00, 0xfe, 0x80}},
			{Key: "nullv", Null: true},
			{Key: "empty", Value: []byte{}},
		},
		tables: []tableSpec{{schema: pt, devices: []device{
			withTags(rows(30, 0, 1, []string{"s1", "s2"}, func(f string, i int) cell {
				if f == "s2" && i%3 == 0 {
					return nil
				}
				return int32(i)
			}), str("d1")),
		}}},
	})

	// p02: tablePointCount as decimal text, two tables.
	out = append(out, fileSpec{
		base: "p02_footer_table_point_count_decimal", what: "`tablePointCount.<table>` as decimal text (the earlier TsFileTablePointCountTool form) for two tables, one with a TIME column",
		needs: []string{"timeread"}, decimalPointCount: true,
		tables: []tableSpec{
			{schema: pt, devices: []device{withTags(rows(9, 0, 1, []string{"s1", "s2"}, func(f string, i int) cell {
				if f == "s1" && i%4 == 0 {
					return nil
				}
				return int32(-i)
			}), str("d1"))}},
			{schema: a, devices: []device{withTags(rows(3, 7, 7, []string{"x"}, func(_ string, i int) cell { return int32(i) }), str("a2"))}},
		},
	})

	// x01: all of it in one file.
	x := tsfile.TableSchema{Name: "x", Columns: []tsfile.Column{
		tag("dev"), timeCol("id"), field("obj", tsfile.Object, encoding.Plain, encoding.Uncompressed), field("n", tsfile.Int64, encoding.Plain, encoding.Uncompressed),
	}}
	out = append(out, fileSpec{
		base: "x01_time_object_properties", what: "TIME column `id` after a TAG, an OBJECT column (base32 paths, region 1), `tablePointCount.x` and a null property",
		needs: []string{"timeread", "objcell"}, region: 1, objects: base32Path, tablePointCount: true,
		props: []tsfile.Property{{Key: "nullv", Null: true}},
		tables: []tableSpec{{schema: x, devices: []device{
			withTags(rows(4, 5, 5, []string{"obj", "n"}, func(f string, i int) cell {
				if f == "obj" {
					if i == 3 {
						return nil
					}
					return objSize(int64(10 * i))
				}
				return int64(i)
			}), str("d")),
		}}},
	})
	return out
}

// objSize marks an OBJECT cell of that size; write turns it into the cell
// bytes, whose path depends on the device, column and time.
type objSize int64

func objectPath(region int, dev tsfile.DeviceID, measurement string, t int64) []string {
	segs := []string{strconv.Itoa(region)}
	for _, s := range dev.Segments() {
		switch {
		case s.Null:
			segs = append(segs, "NUL")
		case s.Value == "":
			segs = append(segs, "EPT")
		default:
			segs = append(segs, b32.EncodeToString([]byte(s.Value)))
		}
	}
	return append(segs, b32.EncodeToString([]byte(measurement)), strconv.FormatInt(t, 10)+".bin")
}

func plainObjectPath(region int, dev tsfile.DeviceID, measurement string, t int64) string {
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(region))
	for _, s := range dev.Segments() {
		sb.WriteByte('/')
		if s.Null {
			sb.WriteString("null")
		} else {
			sb.WriteString(strings.ToLower(s.Value))
		}
	}
	fmt.Fprintf(&sb, "/%s/%d.bin", measurement, t)
	return sb.String()
}

// zigzagVarint appends v as ReadWriteForEncodingUtils.writeVarInt does.
func zigzagVarint(dst []byte, v int32) []byte {
	u := uint32(v) << 1
	if v < 0 {
		u = ^u
	}
	return binary.AppendUvarint(dst, uint64(u))
}

func objectCell(fs *fileSpec, dev tsfile.DeviceID, measurement string, t int64, size int64) (cellBytes []byte, rel string) {
	cellBytes = binary.BigEndian.AppendUint64(nil, uint64(size))
	if fs.objects == plainPath {
		p := plainObjectPath(fs.region, dev, measurement, t)
		return append(cellBytes, p...), p
	}
	segs := objectPath(fs.region, dev, measurement, t)
	cellBytes = binary.AppendUvarint(cellBytes, uint64(len(segs)))
	for _, s := range segs {
		cellBytes = zigzagVarint(cellBytes, int32(len(s)))
		cellBytes = append(cellBytes, s...)
	}
	return cellBytes, strings.Join(segs, "/")
}

// objectContent is the deterministic content of an object of size n.
func objectContent(rel string, n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = rel[i%len(rel)] ^ byte(i)
	}
	return b
}

func write(dir string, fs fileSpec) (manifestFile, error) {
	mf := manifestFile{Path: fs.base + ".tsfile", Model: "table", Covers: fs.what, Needs: fs.needs,
		Writer: "tsarrow gen (testdata/upstream/v25/gen), byte layouts of TsFile 2.5; not an upstream writer"}
	switch fs.objects {
	case base32Path:
		mf.ObjectForm = "base32"
		mf.ObjectRoot = fs.base + ".object"
	case plainPath:
		mf.ObjectForm = "plain"
	}
	var buf bytes.Buffer
	opts := &tsfile.WriteOptions{MaxPointsPerPage: fs.pageRows}
	props := append([]tsfile.Property(nil), fs.props...)
	type done struct {
		t      manifestTable
		header []string
		rows   [][]string
	}
	var tables []done
	for _, ts := range fs.tables {
		d := done{t: manifestTable{Name: ts.schema.Name, ExpectedCSV: fs.base + "." + ts.schema.Name + ".expected.csv.gz", TimeColumn: "time"}}
		if len(fs.tables) == 1 {
			d.t.ExpectedCSV = fs.base + ".expected.csv.gz"
		}
		var tags, fields []tsfile.Column
		for _, c := range ts.schema.Columns {
			switch c.Category {
			case tsfile.TimeCol:
				d.t.TimeColumn = c.Name
			case tsfile.Tag:
				tags = append(tags, c)
			case tsfile.Field:
				fields = append(fields, c)
				if c.DataType == tsfile.Object {
					d.t.ObjectColumns = append(d.t.ObjectColumns, c.Name)
				}
			}
		}
		d.header = append(d.header, d.t.TimeColumn)
		for _, c := range tags {
			d.header = append(d.header, c.Name)
		}
		for _, c := range fields {
			d.header = append(d.header, c.Name)
		}
		tables = append(tables, d)
	}
	// Points per table for tablePointCount, counted before writing.
	for i, ts := range fs.tables {
		for _, dv := range ts.devices {
			for _, vals := range dv.cols {
				for _, v := range vals {
					if v != nil {
						tables[i].t.FieldPoints++
					}
				}
			}
		}
		switch {
		case fs.decimalPointCount:
			mf.TablePointCount = "decimal"
			props = append(props, tsfile.Property{Key: "tablePointCount." + ts.schema.Name,
				Value: strconv.AppendInt(nil, tables[i].t.FieldPoints, 10)})
		case fs.tablePointCount:
			mf.TablePointCount = "long"
			props = append(props, tsfile.Property{Key: "tablePointCount." + ts.schema.Name,
				Value: binary.BigEndian.AppendUint64(nil, uint64(tables[i].t.FieldPoints))})
		}
	}
	opts.Properties = props
	w, err := tsfile.NewWriter(&buf, opts)
	if err != nil {
		return mf, err
	}
	for _, ts := range fs.tables {
		if err := w.RegisterTable(ts.schema); err != nil {
			return mf, err
		}
	}
	for ti, ts := range fs.tables {
		for _, dv := range ts.devices {
			segs := []tsfile.Segment{{Value: ts.schema.Name}}
			for _, tg := range dv.tags {
				if tg == nil {
					segs = append(segs, tsfile.Segment{Null: true})
				} else {
					segs = append(segs, tsfile.Segment{Value: *tg})
				}
			}
			id := tsfile.DeviceIDFromSegments(segs)
			var cols []tsfile.AlignedColumn
			cells := make([][]string, len(dv.times))
			for _, c := range ts.schema.Columns {
				if c.Category != tsfile.Field {
					continue
				}
				v := tsfile.NewValues(c.DataType, len(dv.times))
				v.Null = make([]bool, len(dv.times))
				for i, x := range dv.cols[c.Name] {
					s, err := setValue(&v, i, x)
					if err != nil {
						return mf, fmt.Errorf("column %s: %w", c.Name, err)
					}
					if size, ok := x.(objSize); ok {
						cb, rel := objectCell(&fs, id, c.Name, dv.times[i], int64(size))
						v.Binaries[i] = cb
						s = "0x" + hex.EncodeToString(cb)
						if fs.objects == base32Path {
							p := filepath.Join(dir, mf.ObjectRoot, filepath.FromSlash(rel))
							if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
								return mf, err
							}
							if err := os.WriteFile(p, objectContent(rel, int64(size)), 0o644); err != nil {
								return mf, err
							}
						}
					}
					cells[i] = append(cells[i], s)
				}
				cols = append(cols, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: c.Name, DataType: c.DataType, Encoding: c.Encoding, Compression: c.Compression}, Values: v})
			}
			if err := w.WriteAligned(id, dv.times, cols); err != nil {
				return mf, err
			}
			for i, t := range dv.times {
				row := []string{strconv.FormatInt(t, 10)}
				for _, tg := range dv.tags {
					if tg == nil {
						row = append(row, "")
					} else {
						row = append(row, *tg)
					}
				}
				tables[ti].rows = append(tables[ti].rows, append(row, cells[i]...))
			}
		}
	}
	if err := w.Close(); err != nil {
		return mf, err
	}
	if err := os.WriteFile(filepath.Join(dir, mf.Path), buf.Bytes(), 0o644); err != nil {
		return mf, err
	}
	for _, d := range tables {
		d.t.Rows = len(d.rows)
		mf.TotalRows += len(d.rows)
		if err := writeCSV(filepath.Join(dir, d.t.ExpectedCSV), d.header, d.rows); err != nil {
			return mf, err
		}
		mf.Tables = append(mf.Tables, d.t)
	}
	// The properties as the writer wrote them: its three default ones first.
	f, err := tsfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		return mf, fmt.Errorf("reopen: %w", err)
	}
	for _, p := range f.Metadata.Properties {
		mp := manifestProp{Key: p.Key, Null: p.Null}
		if !p.Null {
			mp.Hex = hex.EncodeToString(p.Value)
		}
		mf.Properties = append(mf.Properties, mp)
	}
	return mf, nil
}

// setValue stores x at position i of v and returns its CSV spelling.
func setValue(v *tsfile.Values, i int, x cell) (string, error) {
	if x == nil {
		v.Null[i] = true
		return "", nil
	}
	switch x := x.(type) {
	case bool:
		v.Bools[i] = x
		return strconv.FormatBool(x), nil
	case int32:
		v.Int32s[i] = x
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		v.Int64s[i] = x
		return strconv.FormatInt(x, 10), nil
	case float32:
		v.Float32s[i] = x
		return javaFloat(float64(x), 32), nil
	case float64:
		v.Float64s[i] = x
		return javaFloat(x, 64), nil
	case string:
		v.Binaries[i] = []byte(x)
		return x, nil
	case objSize:
		return "", nil // the caller fills the cell
	}
	return "", fmt.Errorf("value %T", x)
}

func javaFloat(v float64, bits int) string {
	switch {
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

func writeCSV(path string, header []string, rows [][]string) error {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	cw := csv.NewWriter(zw)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
