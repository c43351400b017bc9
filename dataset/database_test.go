package dataset

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// twoDatabases lays out table t (device t.d1) in databases dbA and dbB,
// both with a row at time 5: IoTDB keeps them apart, so neither copy may
// overwrite the other.
func twoDatabases(t *testing.T) *builtDir {
	dev := tsfile.NewDeviceID("t", "d1")
	return buildLayout(t,
		specFile{Space: Sequence, DB: "dbA", Time: 1, Version: 1, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
			{Kind: tableGroup, Device: dev, Times: []int64{4, 5}, Cols: []specCol{{Name: "s1", Vals: []*int64{v(40), v(50)}}, {Name: "s2", Vals: []*int64{nil, nil}}, {Name: "s3", Vals: []*int64{nil, nil}}}},
		}},
		specFile{Space: Sequence, DB: "dbB", Time: 2, Version: 2, Tables: []tsfile.TableSchema{tableT}, Groups: []specGroup{
			{Kind: tableGroup, Device: dev, Times: []int64{5, 6}, Cols: []specCol{{Name: "s1", Vals: []*int64{v(-5), v(-6)}}, {Name: "s2", Vals: []*int64{nil, nil}}, {Name: "s3", Vals: []*int64{nil, nil}}}},
		}},
	)
}

// TestDatabasesNeverMerged: a table name in two databases is two tables;
// the bare name is refused with ErrAmbiguousTable (it used to return one
// table in which dbB's row at time 5 replaced dbA's), Database.Name picks
// one.
func TestDatabasesNeverMerged(t *testing.T) {
	dir := twoDatabases(t)
	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	defer ds.Close()

	tables, err := ds.Tables()
	require.NoError(t, err)
	require.Equal(t, []Table{
		{Name: "t", Database: "dbA", Ref: "dbA.t", Files: 1},
		{Name: "t", Database: "dbB", Ref: "dbB.t", Files: 1},
	}, tables)

	_, err = ds.NewReader("t", nil)
	require.ErrorIs(t, err, ErrAmbiguousTable)
	require.ErrorContains(t, err, "dbA, dbB")
	_, err = ds.Schema("t", nil)
	require.ErrorIs(t, err, ErrAmbiguousTable)
	_, err = ds.Devices("t")
	require.ErrorIs(t, err, ErrAmbiguousTable)
	_, err = ds.NewReader("dbC.t", nil)
	require.ErrorIs(t, err, ErrNoTable)
	require.ErrorContains(t, err, "dbA.t, dbB.t")

	want := map[string][]string{
		"dbA.t": {"t=4 s1=40 s2=- s3=-", "t=5 s1=50 s2=- s3=-"},
		"dbB.t": {"t=5 s1=-5 s2=- s3=-", "t=6 s1=-6 s2=- s3=-"},
	}
	for ref, rows := range want {
		devs, err := ds.Devices(ref)
		require.NoError(t, err)
		require.Len(t, devs, 1)
		rd, err := ds.NewReader(ref, nil)
		require.NoError(t, err)
		var got []string
		for rd.Next() {
			rec := rd.RecordBatch()
			for i, tm := range timesOf(rec) {
				cells := map[string]*int64{}
				for _, c := range []string{"s1", "s2", "s3"} {
					a := rec.Column(rec.Schema().FieldIndices(c)[0])
					if a.IsValid(i) {
						x := a.(interface{ Value(int) int64 }).Value(i)
						cells[c] = &x
					}
				}
				got = append(got, formatRow(tm, []string{"s1", "s2", "s3"}, cells))
			}
		}
		require.NoError(t, rd.Err())
		rd.Release()
		require.Equal(t, rows, got, ref)
	}
	require.Equal(t, refRows{"dbA:t.d1": want["dbA.t"], "dbB:t.d1": want["dbB.t"]}, reference(t, dir))
	require.Equal(t, reference(t, dir), readDataset(t, dir, nil))
}
