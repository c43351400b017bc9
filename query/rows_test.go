//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// cellOf renders row i of a in a canonical form both sides share: a
// timestamp as the integer instant in unit (failing when it is not a whole
// number of them), a float by its bits (-0.0 and NaN payloads count), a
// dictionary by its value.
func cellOf(t testing.TB, a arrow.Array, i int, unit arrow.TimeUnit) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Timestamp:
		v := int64(a.Value(i))
		from := a.DataType().(*arrow.TimestampType).Unit
		// Scale v from its unit to unit exactly.
		scale := map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}
		f, to := scale[from], scale[unit]
		if f >= to {
			v *= f / to
		} else {
			require.Zero(t, v%(to/f), "timestamp %d%s is no whole %s", v, from, unit)
			v /= to / f
		}
		return "ts:" + strconv.FormatInt(v, 10)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return fmt.Sprintf("f32:%08x", math.Float32bits(a.Value(i)))
	case *array.Float64:
		return fmt.Sprintf("f64:%016x", math.Float64bits(a.Value(i)))
	case *array.String:
		return "s:" + a.Value(i)
	case *array.Binary:
		return "b:" + hex.EncodeToString(a.Value(i))
	case *array.Date32:
		return "d:" + strconv.Itoa(int(a.Value(i)))
	case *array.Dictionary:
		return "s:" + a.Dictionary().(*array.String).Value(a.GetValueIndex(i))
	}
	t.Fatalf("no canonical form for %s", a.DataType())
	return ""
}

// rowsOf drains rd into canonical rows, sorted.
func rowsOf(t testing.TB, rd array.RecordReader, unit arrow.TimeUnit) [][]string {
	t.Helper()
	return rowsOfAs(t, rd, unit, nil)
}

// rowsOfAs is rowsOf rendering the timestamps of the columns marked in
// asInt as plain integers, the int64 cells DuckDB gives for Table.Epoch.
func rowsOfAs(t testing.TB, rd array.RecordReader, unit arrow.TimeUnit, asInt []bool) [][]string {
	t.Helper()
	var rows [][]string
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := range int(rec.NumRows()) {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = cellOf(t, rec.Column(c), i, unit)
				if c < len(asInt) && asInt[c] {
					row[c] = strings.TrimPrefix(row[c], "ts:")
				}
			}
			rows = append(rows, row)
		}
	}
	require.NoError(t, rd.Err())
	slices.SortFunc(rows, func(a, b []string) int { return slices.Compare(a, b) })
	return rows
}

// duckArrowType is the Arrow type DuckDB's result gives a column f, by the
// mapping of duckColumn, written out again here: timestamps an instant in
// µs (ns naive), a TIMESTAMP field of Table.Epoch int64.
func duckArrowType(f arrow.Field, epoch []string) arrow.DataType {
	switch t := f.Type.(type) {
	case *arrow.TimestampType:
		if slices.Contains(epoch, f.Name) {
			return arrow.PrimitiveTypes.Int64
		}
		if t.Unit == arrow.Nanosecond {
			return &arrow.TimestampType{Unit: arrow.Nanosecond}
		}
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case *arrow.DictionaryType:
		return arrow.BinaryTypes.String
	}
	return f.Type
}

// convertRows opens what convert reads for a table.
type convertRows func(t testing.TB) array.RecordReader

// checkTable compares DuckDB's SELECT * of a table with convert's rows,
// cell for cell, and the result's types with the mapping.
func checkTable(t *testing.T, db *DB, tb Table, want convertRows) {
	t.Helper()
	var order []string
	for _, c := range append([]string{tb.Time}, tb.Tags...) {
		order = append(order, quoteIdent(c))
	}
	q := fmt.Sprintf("SELECT * FROM %s.%s ORDER BY %s", quoteIdent(tb.Schema), quoteIdent(tb.Name), strings.Join(order, ", "))
	rd, err := db.QueryArrow(context.Background(), q)
	require.NoError(t, err, q)
	defer rd.Release()
	crd := want(t)
	defer crd.Release()
	require.Equal(t, crd.Schema().NumFields(), rd.Schema().NumFields())
	for i, f := range crd.Schema().Fields() {
		g := rd.Schema().Field(i)
		require.Equal(t, f.Name, g.Name)
		require.Truef(t, arrow.TypeEqual(duckArrowType(f, tb.Epoch), g.Type), "column %s: DuckDB gives %s for %s", f.Name, g.Type, f.Type)
	}
	require.True(t, tb.Arrow.Equal(crd.Schema()), "Table.Arrow is convert's schema")
	got := rowsOf(t, rd, tb.Unit)
	asInt := make([]bool, crd.Schema().NumFields())
	for i, f := range crd.Schema().Fields() {
		asInt[i] = slices.Contains(tb.Epoch, f.Name)
	}
	exp := rowsOfAs(t, crd, tb.Unit, asInt)
	require.NotEmpty(t, exp)
	require.Equal(t, len(exp), len(got), "rows")
	for i := range exp {
		require.Equal(t, exp[i], got[i], "row %d of %s.%s", i, tb.Schema, tb.Name)
	}
}

// TestRowsEqualConvertFiles: for every table of the interop files, the
// sample, and upstream Java files whose TIMESTAMP fields hold random longs
// (beyond DuckDB's µs range once scaled; they were refused), DuckDB's rows
// are those convert --table T gives.
func TestRowsEqualConvertFiles(t *testing.T) {
	files, _ := filepath.Glob("../../shared/interop/*.tsfile")
	files = append(files, "../testdata/sample.tsfile",
		"../testdata/upstream/java/v4_table_TIMESTAMP_PLAIN.tsfile",
		"../testdata/upstream/java/v4_tree_TIMESTAMP_RLBE_wide.tsfile",
		"../testdata/upstream/java/v3_tree_TIMESTAMP_GORILLA.tsfile")
	require.Greater(t, len(files), 1)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			db, err := Open(context.Background(), []string{path}, nil)
			require.NoError(t, err)
			defer db.Close()
			f, err := tsfile.OpenFile(path, nil)
			require.NoError(t, err)
			defer f.Close()
			require.Len(t, db.Tables(), len(f.Tables()))
			for _, tb := range db.Tables() {
				t.Run(tb.Name, func(t *testing.T) {
					checkTable(t, db, tb, func(t testing.TB) array.RecordReader {
						// convert's openReader: a table-model table, or a tree table.
						var rd *arrowconv.Reader
						var err error
						if _, ok := f.SchemaOf(tb.Name); ok {
							rd, err = arrowconv.NewTableReader(f, tb.Name, &arrowconv.Options{})
						} else {
							rd, err = arrowconv.NewTreeReader(f, tb.Name, &arrowconv.Options{})
						}
						require.NoError(t, err)
						return rd
					})
				})
			}
		})
	}
}

// TestRowsEqualConvertIoTDB: for every table of testdata/iotdb, DuckDB's
// rows are the dataset's resolved rows convert writes (deletions,
// overwrites applied).
func TestRowsEqualConvertIoTDB(t *testing.T) {
	dir := "../testdata/iotdb"
	db, err := Open(context.Background(), []string{dir}, nil)
	require.NoError(t, err)
	defer db.Close()
	ds, err := dataset.Open([]string{dir}, nil)
	require.NoError(t, err)
	defer ds.Close()
	tables, err := ds.Tables()
	require.NoError(t, err)
	require.Len(t, db.Tables(), len(tables))
	for i, tb := range db.Tables() {
		ref := tables[i].Ref
		t.Run(ref, func(t *testing.T) {
			checkTable(t, db, tb, func(t testing.TB) array.RecordReader {
				rd, err := ds.NewReader(ref, &arrowconv.Options{})
				require.NoError(t, err)
				return rd
			})
		})
	}
}

// TestEpochColumns: TIMESTAMP fields whose statistics pass DuckDB's range
// are BIGINT (Table.Epoch, a warning), those within it stay TIMESTAMP WITH
// TIME ZONE, and a query that casts the BIGINT leaves the database usable
// (a TIMESTAMP_MS column would have invalidated it).
func TestEpochColumns(t *testing.T) {
	for _, c := range []struct {
		path  string
		epoch []string
	}{
		{"../testdata/upstream/java/v4_table_TIMESTAMP_PLAIN.tsfile", []string{"c6_wide", "c7_edge", "c9_near63"}},
		{"../testdata/upstream/java/v4_tree_TIMESTAMP_RLBE_wide.tsfile", []string{"c0_wide"}},
		{"../testdata/sample.tsfile", nil},
		{"../testdata/iotdb", nil},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			var warned []string
			db, err := Open(context.Background(), []string{c.path}, &Options{Warn: func(s string) { warned = append(warned, s) }})
			require.NoError(t, err)
			defer db.Close()
			var got []string
			for _, tb := range db.Tables() {
				got = append(got, tb.Epoch...)
			}
			require.Equal(t, c.epoch, got)
			if c.epoch == nil {
				return
			}
			require.NotEmpty(t, warned)
			require.Contains(t, warned[len(warned)-1], strings.Join(c.epoch, ", "))
			tb := db.Tables()[0]
			var typ string
			require.NoError(t, db.SQL().QueryRow(fmt.Sprintf("SELECT data_type FROM information_schema.columns WHERE table_name = '%s' AND column_name = '%s'", tb.Name, c.epoch[0])).Scan(&typ))
			require.Equal(t, "BIGINT", typ)
			var s string
			require.NoError(t, db.SQL().QueryRow(fmt.Sprintf("SELECT max(%s)::VARCHAR FROM %s", c.epoch[0], quoteIdent(tb.Name))).Scan(&s))
			var n int64
			require.NoError(t, db.SQL().QueryRow("SELECT count(*) FROM "+quoteIdent(tb.Name)).Scan(&n))
			require.Positive(t, n)
		})
	}
}
