package dataset

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestDatasetWithoutResource: a complete data file without its .resource
// is read by its own index, as IoTDB rebuilds the resource
// (AbstractTsFileRecoverPerformer); one cut short (no tail magic) is left
// out, and the warning says why.
func TestDatasetWithoutResource(t *testing.T) {
	dir := buildLayout(t,
		specFile{Space: Sequence, Time: 1, Version: 1, Groups: []specGroup{treeSeries("root.db.d", []int64{1, 2}, 10, 20)}},
		specFile{Space: Unsequence, Time: 2, Version: 2, NoResource: true, Groups: []specGroup{treeSeries("root.db.d", []int64{2, 3}, 21, 30)}},
		specFile{Space: Unsequence, Time: 3, Version: 3, Truncate: true, Groups: []specGroup{treeSeries("root.db.d", []int64{3}, 99)}},
	)
	want := refRows{"root.db.d": {"t=1 s=10", "t=2 s=21", "t=3 s=30"}}
	require.Equal(t, want, reference(t, dir))
	require.Equal(t, want, readDataset(t, dir, nil))
	require.Equal(t, refRows{"root.db.d": want["root.db.d"][1:]}, readDataset(t, dir, &arrowconv.Options{Time: &arrowconv.TimeRange{Start: 2, End: 3}}))

	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	ws := ds.Warnings()
	require.Len(t, ws, 1)
	require.Contains(t, ws[0], "3-3-0-0.tsfile: no .resource beside it and it does not end with the TsFile magic")
	require.Contains(t, strings.Join(ds.Rules(), "\n"), "2 data files (1 sequence, 1 unsequence)")
	require.Contains(t, strings.Join(ds.Rules(), "\n"), "1 data file without a .resource is read by its own index")
}

// TestDatasetNothingLeft: when every file is cut short, the error of a
// read names no table and the warnings say why each file was left out.
func TestDatasetNothingLeft(t *testing.T) {
	dir := buildLayout(t, specFile{Space: Sequence, Time: 1, Version: 1, Truncate: true, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{tableRow(tsfile.NewDeviceID("t", "a"), 1, v(1), nil, nil)}})
	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	_, err = ds.NewReader("t", nil)
	require.ErrorIs(t, err, ErrNoTable)
	require.Len(t, ds.Warnings(), 1)
	require.Contains(t, ds.Warnings()[0], "does not end with the TsFile magic")
}

// TestModsV1Rule: a .mods deletion applies to the chunks below its offset
// in a directory of IoTDB 1.x (TsFile v3, no .mods2), and to the whole file
// where the files show IoTDB 2.x wrote the directory (a TsFile v4 or a
// .mods2 file), as 2.x converts .mods (TsFileResource.upgradeModFile).
// Options.ModsV1 overrides.
func TestModsV1Rule(t *testing.T) {
	v1file := specFile{Space: Sequence, Time: 1, Version: 1, V3: true, Groups: []specGroup{
		treeSeries("root.db.d", []int64{10, 50}, 1, 5),
		treeSeries("root.db.d", []int64{60, 90}, 6, 9),
	}}
	probe := buildLayout(t, v1file)
	second := probe.Files[0].Points[2].Chunk
	// Below the second chunk, and (open) from the smallest time: under the
	// 2.x rule the range is closed and the offset gone.
	v1file.ModsV1 = []Deletion{{Kind: TreeDeletion, Version: ModsV1, Pattern: mustPattern(t, "root.db.d.s"), FileOffset: second, Start: math.MinInt64, End: 100}}
	offset := []string{"t=60 s=6", "t=90 s=9"}
	other := treeSeries("root.db.e", []int64{1}, 7)
	for _, tc := range []struct {
		name  string
		files []specFile
		rule  ModsV1Rule
		want  []string // rows of root.db.d
	}{
		{"1.x directory", []specFile{v1file}, ModsV1Auto, offset},
		{"1.x directory, whole asked", []specFile{v1file}, ModsV1Whole, nil},
		{"v4 file beside it", []specFile{v1file, {Space: Sequence, Time: 2, Version: 2, Groups: []specGroup{other}}}, ModsV1Auto, nil},
		{"v4 file beside it, offset asked", []specFile{v1file, {Space: Sequence, Time: 2, Version: 2, Groups: []specGroup{other}}}, ModsV1Offset, offset},
		{".mods2 beside another file", []specFile{v1file, {Space: Sequence, Time: 2, Version: 2, V3: true, WriteEmptyV2: true, Groups: []specGroup{other}}}, ModsV1Auto, nil},
		{"v3 files only", []specFile{v1file, {Space: Unsequence, Time: 2, Version: 2, V3: true, Groups: []specGroup{other}}}, ModsV1Auto, offset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := buildLayout(t, tc.files...)
			require.Equal(t, second, dir.Files[0].Points[2].Chunk)
			want := referenceRule(t, dir, tc.rule)
			if tc.want == nil {
				require.NotContains(t, want, "root.db.d")
			} else {
				require.Equal(t, tc.want, want["root.db.d"])
			}
			require.Equal(t, want, readDatasetWith(t, dir, nil, false, &Options{ModsV1: tc.rule}))

			ds, err := Open([]string{dir.Root}, &Options{ModsV1: tc.rule})
			require.NoError(t, err)
			defer ds.Close()
			rules := strings.Join(ds.Rules(), "\n")
			if tc.want == nil {
				require.Contains(t, rules, "applied to the whole data file, as IoTDB 2.x does")
			} else {
				require.Contains(t, rules, "applied only to chunks written before them")
			}
		})
	}
	_, err := Open([]string{probe.Root}, &Options{ModsV1: 9})
	require.NoError(t, err, "no .mods: the rule is not asked")
}
