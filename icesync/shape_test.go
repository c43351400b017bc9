package icesync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// renderByName renders each row as "name=value|..." with the columns in
// name order, timestamps as integers through conv, so that tables whose
// columns come in different orders compare.
func renderByName(rec arrow.RecordBatch, conv func(int64) int64, extra string) []string {
	names := make([]string, 0, rec.NumCols())
	for _, f := range rec.Schema().Fields() {
		names = append(names, f.Name)
	}
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
	out := make([]string, rec.NumRows())
	for i := range out {
		var b strings.Builder
		b.WriteString(extra)
		for _, j := range order {
			col := rec.Column(j)
			fmt.Fprintf(&b, "%s=", names[j])
			switch ts, ok := col.(*array.Timestamp); {
			case col.IsNull(i):
				b.WriteString("null")
			case ok:
				fmt.Fprint(&b, conv(int64(ts.Value(i))))
			default:
				b.WriteString(col.ValueStr(i))
			}
			b.WriteByte('|')
		}
		out[i] = b.String()
	}
	return out
}

// readerRows reads the dataset table ref as convert does, each row
// rendered by name with extra before it, times in microseconds computed
// here from the reader's milliseconds; columns of absent are rendered
// null, as a table column a database lacks reads.
func readerRows(t *testing.T, roots []string, ref, extra string, absent ...string) []string {
	t.Helper()
	ds, err := dataset.Open(roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	rd, err := ds.NewReader(ref, &arrowconv.Options{PlainTags: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var out []string
	for rd.Next() {
		rows := renderByName(rd.RecordBatch(), func(ms int64) int64 { return ms * 1000 }, "")
		for _, r := range rows {
			cells := strings.Split(strings.TrimSuffix(r, "|"), "|")
			for _, a := range absent {
				cells = append(cells, a+"=null")
			}
			if extra != "" {
				cells = append(cells, extra)
			}
			sort.Strings(cells)
			out = append(out, strings.Join(cells, "|")+"|")
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// tableRows reads the Iceberg table through iceberg-go's scan, rows
// rendered by name.
func tableRows(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	_, recs, err := tbl.Scan().ToArrowRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, renderByName(rec, func(us int64) int64 { return us }, "")...)
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// partitionOf computes, independently of iceberg-go's transforms, the
// partition value of field f for row i of rec: hours, days, months or
// years since 1970 of the time, a TAG's value or its first W characters.
// ok is unset for a bucket, whose hash it does not recompute.
func partitionOf(t *testing.T, f iceberg.PartitionField, col arrow.Array, i int) (any, bool) {
	t.Helper()
	if col.IsNull(i) {
		return nil, true
	}
	switch tr := f.Transform.(type) {
	case iceberg.HourTransform, iceberg.DayTransform, iceberg.MonthTransform, iceberg.YearTransform:
		us := int64(col.(*array.Timestamp).Value(i))
		tm := time.UnixMicro(us).UTC()
		switch tr.(type) {
		case iceberg.HourTransform:
			h := us / 3600e6
			if us < 0 && us%3600e6 != 0 {
				h--
			}
			return h, true
		case iceberg.DayTransform:
			d := time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC)
			return d.Unix() / 86400, true
		case iceberg.MonthTransform:
			return int64((tm.Year()-1970)*12 + int(tm.Month()) - 1), true
		default:
			return int64(tm.Year() - 1970), true
		}
	case iceberg.IdentityTransform:
		return col.ValueStr(i), true
	case iceberg.TruncateTransform:
		s := col.ValueStr(i)
		n := 0
		for j := range s {
			if n == tr.Width {
				return s[:j], true
			}
			n++
		}
		return s, true
	}
	return nil, false
}

// normPartition turns a partition value iceberg-go reports into what
// partitionOf computes.
func normPartition(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return x
	case int32:
		return int64(x)
	case int64:
		return x
	case iceberg.Date:
		return int64(x)
	}
	return fmt.Sprint(v)
}

// checkPartitions reads every data file of tbl and checks that each row's
// partition values, computed here, are those the manifest records for
// its file.
func checkPartitions(t *testing.T, tbl *table.Table) {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spec := tbl.Spec()
	for _, task := range tasks {
		df := task.File
		u, err := url.Parse(df.FilePath())
		if err != nil {
			t.Fatal(err)
		}
		path := u.Path
		pf, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		at, err := fr.ReadTable(context.Background())
		pf.Close()
		if err != nil {
			t.Fatal(err)
		}
		rr := array.NewTableReader(at, 1<<20)
		part := df.Partition()
		if len(part) != spec.NumFields() {
			t.Errorf("%s: partition %v for a spec of %d fields", path, part, spec.NumFields())
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for _, f := range spec.Fields() {
				src, _ := tbl.Schema().FindFieldByID(f.SourceIDs[0])
				col := rec.Column(rec.Schema().FieldIndices(src.Name)[0])
				for i := 0; i < int(rec.NumRows()); i++ {
					want, ok := partitionOf(t, f, col, i)
					if got := normPartition(part[f.FieldID]); ok && got != want {
						t.Fatalf("%s: row %d has %s %v, the file's partition %v", path, i, f.Name, want, got)
					}
				}
			}
		}
		rr.Release()
		at.Release()
	}
}

// TestSyncPartitions syncs testdata/iotdb's weather with each partition
// choice: the table has that spec and the properties, the scan gives the
// dataset reader's rows, each data file holds only rows of its partition,
// a second sync commits nothing, and one asking another spec is refused.
func TestSyncPartitions(t *testing.T) {
	ctx := context.Background()
	roots := []string{"../testdata/iotdb"}
	want := readerRows(t, roots, "weather", "")
	for _, spec := range []string{"", "day(time)", "hour(time)", "month(time)", "year(time)", "none", "region",
		"day(time),region", "bucket(3, plant)", "truncate(1, region),month(time)"} {
		// (A subtest named "" would be "#00", and a '#' in the
		// catalog's path cuts it short: a DSN fragment.)
		t.Run("spec="+spec, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{
				Table: "weather", To: "iot.weather", Partition: spec,
				Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: filepath.Join(dir, "lake"),
			}
			res, err := Sync(ctx, roots, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Created || !res.Committed {
				t.Fatalf("first sync %+v", res)
			}
			tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
			fields, _ := ParsePartition(spec)
			if got := specText(tbl.Spec(), tbl.Schema()); got != fieldsText(fields) {
				t.Errorf("spec %s, want %s", got, fieldsText(fields))
			}
			props := tbl.Properties()
			for k, v := range map[string]string{PropSourceTable: "weather", PropTimeUnit: "ms", PropPartition: fieldsText(fields), PropDatabases: "weather"} {
				if props[k] != v {
					t.Errorf("property %s = %q, want %q", k, props[k], v)
				}
			}
			if props[PropVersion] == "" {
				t.Errorf("no %s", PropVersion)
			}
			if got := tableRows(t, tbl); !slices.Equal(got, want) {
				t.Fatalf("scan gives %d rows, the reader %d:\n got %q\nwant %q", len(got), len(want), got, want)
			}
			checkPartitions(t, tbl)
			if res, err := Sync(ctx, roots, opts); err != nil || res.Committed {
				t.Fatalf("second sync: %+v, %v", res, err)
			}
			if n := len(loadTable(t, opts.Catalog, opts.Warehouse, opts.To).Metadata().Snapshots()); n != 1 {
				t.Errorf("%d snapshots after two syncs", n)
			}
			other := opts
			other.Partition = "year(time),plant"
			if _, err := Sync(ctx, roots, other); !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), "applies only when a sync creates") {
				t.Errorf("sync asking another spec: %v", err)
			}
		})
	}
}

// tcol is a FIELD column of a test file.
type tcol struct {
	name string
	vals tsfile.Values
}

// dbFile is a one-device file of table t(region TAG, FIELDs...) in a
// database of an IoTDB data directory.
type dbFile struct {
	db      string
	version int64
	region  string
	times   []int64
	cols    []tcol
}

// writeDBFiles lays the files out under root with their .resource files,
// as IoTDB does: sequence/DB/1/0/TIME-VERSION-0-0.tsfile.
func writeDBFiles(t *testing.T, root string, files ...dbFile) {
	t.Helper()
	for _, f := range files {
		dir := filepath.Join(root, "sequence", f.db, "1", "0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, dataset.Name{Time: f.times[0], Version: f.version}.String())
		dev := tsfile.NewDeviceID("t", f.region)
		cols := []tsfile.Column{{Name: "region", DataType: tsfile.String, Category: tsfile.Tag}}
		var acols []tsfile.AlignedColumn
		for _, c := range f.cols {
			cols = append(cols, tsfile.Column{Name: c.name, DataType: c.vals.Type, Category: tsfile.Field})
			acols = append(acols, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: c.name, DataType: c.vals.Type}, Values: c.vals})
		}
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: cols}); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteAligned(dev, f.times, acols); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		res := &dataset.Resource{IndexType: dataset.IndexArray, Devices: []dataset.DeviceTimes{{Device: dev, Start: f.times[0], End: f.times[len(f.times)-1]}}}
		b, err := res.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+dataset.ResourceSuffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func i32s(xs ...int32) tsfile.Values   { return tsfile.Values{Type: tsfile.Int32, Int32s: xs} }
func i64s(xs ...int64) tsfile.Values   { return tsfile.Values{Type: tsfile.Int64, Int64s: xs} }
func f32s(xs ...float32) tsfile.Values { return tsfile.Values{Type: tsfile.Float, Float32s: xs} }
func texts(xs ...string) tsfile.Values {
	v := tsfile.Values{Type: tsfile.Text}
	for _, x := range xs {
		v.Binaries = append(v.Binaries, []byte(x))
	}
	return v
}

// day0 is 2026-01-01 in milliseconds.
const day0 = int64(1767225600000)

var _ = utf8.RuneLen
