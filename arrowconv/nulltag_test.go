package arrowconv

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// nullTagDevices are devices of table t (TAGs region, station) with null
// TAGs in every position, and one whose region is the literal string `\N`:
// a stored value, not a null (the format stores a null as a null
// segment; `\N` is upstream's null marker in logical paths only).
var nullTagDevices = []struct {
	label string
	id    tsfile.DeviceID
}{
	{"a.x", tsfile.NewDeviceID("t", "a", "x")},
	{"null.y", tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t"}, {Null: true}, {Value: "y"}})},
	{"b.null", tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t"}, {Value: "b"}, {Null: true}})},
	{"null.null", tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t"}, {Null: true}, {Null: true}})},
	{`\N.z`, tsfile.NewDeviceID("t", `\N`, "z")},
	{"null-string.w", tsfile.NewDeviceID("t", "null", "w")},
}

// nullTagFile writes each device of nullTagDevices with two rows whose
// value v is the device's index.
func nullTagFile(t *testing.T) *tsfile.File {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "station", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
	}}))
	for i, d := range nullTagDevices {
		require.NoError(t, w.WriteAligned(d.id, []int64{1, 2}, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: []int64{int64(i), int64(i)}}},
		}))
	}
	require.NoError(t, w.Close())
	return openBytes(t, buf.Bytes())
}

// TestWhereNullTag: a Where value NullTag selects the devices whose TAG is
// null (stored as a null segment, in the middle or dropped at the end),
// as upstream's IS NULL tag filter does (apache/tsfile PR #848), and
// escaping its backslash asks for the literal value. A null TAG reads as
// an Arrow null in both the dictionary and the plain representation, and
// never equals a value, not even "null".
func TestWhereNullTag(t *testing.T) {
	f := nullTagFile(t)
	// rows renders the (region, station, v) of a read; a row's v names its
	// device, so the rows say which devices matched.
	rows := func(t *testing.T, o *Options) []string {
		got := drainQuiet(t, f, "t", o)
		require.Equal(t, []string{"time", "region", "station", "v"}, got.header)
		var out []string
		for _, r := range got.rows {
			i, err := strconv.Atoi(r[3])
			require.NoError(t, err)
			out = append(out, nullTagDevices[i].label+"="+r[1]+"|"+r[2])
		}
		return out
	}
	row := func(label, region, station string) []string {
		r := label + "=" + region + "|" + station
		return []string{r, r}
	}
	var (
		ax   = row("a.x", "a", "x")
		ny   = row("null.y", nullCell, "y")
		bn   = row("b.null", "b", nullCell)
		nn   = row("null.null", nullCell, nullCell)
		lit  = row(`\N.z`, `\N`, "z")
		strn = row("null-string.w", "null", "w")
	)
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}

	cases := []struct {
		name  string
		where map[string]string
		want  []string // in index order: a null sorts before any value
	}{
		{"all", nil, cat(nn, ny, lit, ax, bn, strn)},
		{"region is null", map[string]string{"region": NullTag}, cat(nn, ny)},
		{"trailing station is null", map[string]string{"station": `\N`}, cat(nn, bn)},
		{"both null", map[string]string{"region": `\N`, "station": `\N`}, nn},
		{"null and value", map[string]string{"region": `\N`, "station": "y"}, ny},
		{"value and null", map[string]string{"region": "b", "station": `\N`}, bn},
		{"escaped: the literal value", map[string]string{"region": `\\N`}, lit},
		{"escaped twice: absent", map[string]string{"region": `\\\N`}, nil},
		{"the string null is a value", map[string]string{"region": "null"}, strn},
		{"a value never matches a null", map[string]string{"station": "x"}, ax},
		{"backslashes without N stay literal", map[string]string{"region": `\\`}, nil},
	}
	for _, tc := range cases {
		for _, plain := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{false: "/dict", true: "/plain"}[plain], func(t *testing.T) {
				require.Equal(t, tc.want, rows(t, &Options{Where: tc.where, PlainTags: plain}))
			})
		}
	}

	// The device column of a tree model is never null.
	t.Run("tree device", func(t *testing.T) {
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, nil)
		require.NoError(t, err)
		require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath("root.sg.d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Int64}, Times: []int64{1}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: []int64{7}}},
		}))
		require.NoError(t, w.Close())
		tf := openBytes(t, buf.Bytes())
		for _, where := range []string{NullTag, "root.sg.d1"} {
			r, err := NewTreeReader(tf, "", &Options{Where: map[string]string{"device": where}})
			require.NoError(t, err)
			require.Len(t, drain(t, r).rows, map[string]int{NullTag: 0, "root.sg.d1": 1}[where], where)
		}
	})
}

func TestParseWhereValue(t *testing.T) {
	for _, tc := range []struct {
		in    string
		value string
		null  bool
	}{
		{`\N`, "", true},
		{`\\N`, `\N`, false},
		{`\\\N`, `\\N`, false},
		{`N`, `N`, false},
		{`\n`, `\n`, false},
		{`a\N`, `a\N`, false},
		{`\N\N`, `\N\N`, false},
		{`\\`, `\\`, false},
		{"", "", false},
		{"null", "null", false},
	} {
		v, null := ParseWhereValue(tc.in)
		require.Equal(t, tc.value, v, "%q", tc.in)
		require.Equal(t, tc.null, null, "%q", tc.in)
	}
}
