package arrowconv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// readAllRows reads the weather table of a file as text rows, or the
// first error.
func readAllRows(b []byte, lenient bool) ([]string, error) {
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: lenient})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tables := f.Tables()
	if len(tables) != 1 {
		return nil, errors.New("tables changed")
	}
	var rd *Reader
	if _, ok := f.SchemaOf(tables[0]); ok {
		rd, err = NewTableReader(f, tables[0], nil)
	} else {
		rd, err = NewTreeReader(f, "", nil)
	}
	if err != nil {
		return nil, err
	}
	defer rd.Release()
	var out []string
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var s string
			for k, c := range rec.Columns() {
				s += rec.Schema().Field(k).Name + "=" + c.ValueStr(i) + ","
			}
			out = append(out, s)
		}
	}
	return out, rd.Err()
}

// TestNameDamageIsNoSilentChange: a NUL written into any occurrence of a
// column name in the file (the table schema, the series' metadata, the
// index) either leaves the rows as they were or fails the read; it never
// empties a column with no error (issue 29: the index and the schema must
// agree).
func TestNameDamageIsNoSilentChange(t *testing.T) {
	orig, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	want, err := readAllRows(orig, false)
	require.NoError(t, err)
	for _, name := range []string{"humidity", "temperature", "pressure", "label", "region", "station", "weather"} {
		for at, n := 0, 0; ; n++ {
			i := bytes.Index(orig[at:], []byte(name))
			if i < 0 {
				require.Greater(t, n, 0, "%s occurs in the file", name)
				break
			}
			pos := at + i + 2
			at = pos
			b := bytes.Clone(orig)
			b[pos] = 0
			got, err := readAllRows(b, false)
			if err == nil {
				require.Equal(t, want, got, "%s: a NUL at %d changed the rows without an error", name, pos)
				continue
			}
			require.True(t, errors.Is(err, tsfile.ErrCorrupt), "%s at %d: %v", name, pos, err)
		}
	}
}

// schemaCategoryAt finds the last byte of the column_category int32 of
// column name in the table schema of b: the name, its three type bytes and a
// zero property_count, then a category of FIELD.
func schemaCategoryAt(t *testing.T, b []byte, name string) int {
	t.Helper()
	for at := 0; ; {
		i := bytes.Index(b[at:], []byte(name))
		require.GreaterOrEqual(t, i, 0, "column %q in the table schema", name)
		end := at + i + len(name)
		at = end
		if end+11 <= len(b) && bytes.Equal(b[end+3:end+11], []byte{0, 0, 0, 0, 0, 0, 0, byte(tsfile.Field)}) {
			return end + 10
		}
	}
}

// columnValues reads one column of every row as text, in row order.
func columnValues(rows []string, col string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		for _, cell := range strings.Split(r, ",") {
			if v, ok := strings.CutPrefix(cell, col+"="); ok {
				out[i] = v
			}
		}
	}
	return out
}

// TestLenientKeepsOrphanData: where the table schema and the index disagree,
// a strict read fails and a lenient one warns and still returns the values
// of the series the schema does not list (issue 29), rather than a column of
// nulls.
func TestLenientKeepsOrphanData(t *testing.T) {
	orig, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	clean, err := readAllRows(orig, false)
	require.NoError(t, err)
	humidity := columnValues(clean, "humidity")
	nulls := slices.Repeat([]string{"(null)"}, len(clean))
	valid := len(slices.DeleteFunc(slices.Clone(humidity), func(v string) bool { return v == "(null)" }))
	require.True(t, valid > len(humidity)/2 && valid < len(humidity), "the sample's humidity has values and nulls")
	cases := []struct {
		name   string
		damage func(b []byte)
		col    string // where the humidity values must be in a lenient read
		gone   []string
	}{
		{"field becomes TAG", func(b []byte) { b[schemaCategoryAt(t, b, "humidity")] = byte(tsfile.Tag) }, "humidity", nil},
		{"field becomes ATTRIBUTE", func(b []byte) { b[schemaCategoryAt(t, b, "humidity")] = byte(tsfile.Attribute) }, "humidity", nil},
		{"name damaged in the index", func(b []byte) {
			f, err := tsfile.Open(bytes.NewReader(orig), int64(len(orig)), nil)
			require.NoError(t, err)
			defer f.Close()
			devs, err := f.Devices("weather")
			require.NoError(t, err)
			for _, d := range devs {
				s, err := f.SeriesByName(d, "humidity")
				require.NoError(t, err)
				// timeseries_meta_type, a one-byte length, the name.
				at := int(s.Offset) + 2
				require.Equal(t, "humidity", string(b[at:at+8]))
				b[at+4] = 0
			}
		}, "humi\x00ity", []string{"humidity"}},
		{"name damaged in the schema", func(b []byte) { b[schemaCategoryAt(t, b, "humidity")-11] = 'X' }, "humidity", []string{"humiditX"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			tc.damage(b)
			_, err := readAllRows(b, false)
			require.ErrorIs(t, err, tsfile.ErrCorrupt)

			f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: true})
			require.NoError(t, err)
			defer f.Close()
			got, err := readAllRows(b, true)
			require.NoError(t, err)
			require.Len(t, got, len(clean))
			require.Equal(t, humidity, columnValues(got, tc.col), "the humidity values are returned")
			for _, c := range []string{"region", "station", "temperature", "label"} {
				require.Equal(t, columnValues(clean, c), columnValues(got, c), "column %s", c)
			}
			for _, c := range tc.gone {
				require.True(t, slices.Equal(nulls, columnValues(got, c)), "the damaged schema column %s is all null", c)
			}
			rd, err := NewTableReader(f, "weather", nil)
			require.NoError(t, err)
			defer rd.Release()
			var found bool
			for _, w := range f.Warnings() {
				found = found || strings.Contains(w.Msg, fmt.Sprintf("series %q", tc.col)) && strings.Contains(w.Msg, "not a FIELD column")
			}
			require.True(t, found, "a warning names the series: %v", f.Warnings())
			fld, ok := rd.Schema().FieldsByName(tc.col)
			require.True(t, ok)
			cat, _ := fld[0].Metadata.GetValue(MetaCategory)
			require.Equal(t, "FIELD", cat)
			if tc.gone == nil {
				require.Equal(t, []int{4}, rd.Schema().FieldIndices(tc.col), "a repaired column keeps its schema position")
			}
		})
	}
}

// TestDropConstRenumbersTags: a TAG the index proves a FIELD gives its
// DeviceID segment to the TAGs after it.
func TestDropConstRenumbersTags(t *testing.T) {
	l := &layout{tags: 3, consts: []constColumn{
		{name: "a", category: "TAG", tag: 1},
		{name: "b", category: "TAG", tag: 2},
		{name: "attr", category: "ATTRIBUTE", tag: constAttribute},
		{name: "c", category: "TAG", tag: 3},
	}}
	l.dropConst(1)
	require.Equal(t, 2, l.tags)
	require.Equal(t, []constColumn{
		{name: "a", category: "TAG", tag: 1},
		{name: "attr", category: "ATTRIBUTE", tag: constAttribute},
		{name: "c", category: "TAG", tag: 2},
	}, l.consts)
	l.dropConst(1)
	require.Equal(t, 2, l.tags, "an ATTRIBUTE holds no segment")
	require.Len(t, l.consts, 2)
}

// TestDamageInLastDeviceBeforeAnyRow: a series of the last device that is
// no FIELD of the schema fails the reader before it returns the rows of
// the devices before it; a read of other devices alone is not refused.
func TestDamageInLastDeviceBeforeAnyRow(t *testing.T) {
	orig, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	f := openBytes(t, orig)
	devs, err := f.Devices("weather")
	require.NoError(t, err)
	s, err := f.SeriesByName(devs[len(devs)-1], "humidity")
	require.NoError(t, err)
	b := bytes.Clone(orig)
	at := int(s.Offset) + 2 // timeseries_meta_type, a one-byte length, the name
	require.Equal(t, "humidity", string(b[at:at+8]))
	b[at+7] = 'z' // "humiditz": still sorted, still a valid name
	bad := openBytes(t, b)
	_, err = NewTableReader(bad, "weather", nil)
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.Contains(t, err.Error(), `series "humiditz"`)
	for _, workers := range []int{1, 4} {
		_, err = NewTableReader(bad, "weather", &Options{Workers: workers, Devices: devs[len(devs)-1:]})
		require.ErrorIs(t, err, tsfile.ErrCorrupt, "a read of the damaged device alone")
		// A read of the other devices checks those, and reads.
		r, err := NewTableReader(bad, "weather", &Options{Workers: workers, Devices: devs[:1]})
		require.NoError(t, err)
		n := 0
		for r.Next() {
			n += int(r.RecordBatch().NumRows())
		}
		require.NoError(t, r.Err())
		require.Positive(t, n)
		r.Release()
	}
}
