package dataset

import (
	"testing"

	"github.com/tsarrow/tsarrow/tsfile"
)

func TestTagPredicate(t *testing.T) {
	// Devices of table t1 with tags (a, b); segment 0 is the table name.
	ab := tsfile.NewDeviceID("t1", "x", "y")
	aNull := tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t1"}, {Null: true}, {Value: "y"}})
	bNull := tsfile.DeviceIDFromSegments([]tsfile.Segment{{Value: "t1"}, {Value: "x"}, {Null: true}}) // stored as (t1, x)
	for _, tc := range []struct {
		name string
		p    TagPredicate
		dev  tsfile.DeviceID
		want bool
	}{
		{"NOP", TagPredicate{Kind: PredNOP}, ab, true},
		{"full equal", TagPredicate{Kind: PredFullExactMatch, Device: tsfile.NewDeviceID("t1", "x", "y")}, ab, true},
		{"full prefix", TagPredicate{Kind: PredFullExactMatch, Device: tsfile.NewDeviceID("t1", "x")}, ab, false},
		{"full trailing null", TagPredicate{Kind: PredFullExactMatch, Device: tsfile.NewDeviceID("t1", "x")}, bNull, true},
		{"full null vs empty", TagPredicate{Kind: PredFullExactMatch, Device: tsfile.NewDeviceID("t1", "", "y")}, aNull, false},
		{"segment 1", TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, Value: "x"}, ab, true},
		{"segment 2", TagPredicate{Kind: PredSegmentExactMatch, Segment: 2, Value: "x"}, ab, false},
		{"segment 0 is the table", TagPredicate{Kind: PredSegmentExactMatch, Segment: 0, Value: "t1"}, ab, true},
		{"segment is null", TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, ValueNull: true}, aNull, true},
		{"segment not null", TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, ValueNull: true}, ab, false},
		{"null is not empty", TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, Value: ""}, aNull, false},
		{"trailing null segment", TagPredicate{Kind: PredSegmentExactMatch, Segment: 2, ValueNull: true}, bNull, true},
		{"past the tags", TagPredicate{Kind: PredSegmentExactMatch, Segment: 9, Value: "x"}, ab, false},
		{"not null", TagPredicate{Kind: PredSegmentNotNull, Segment: 2}, ab, true},
		{"not null of null", TagPredicate{Kind: PredSegmentNotNull, Segment: 1}, aNull, false},
		{"not null past the end", TagPredicate{Kind: PredSegmentNotNull, Segment: 2}, bNull, false},
		{"and", TagPredicate{Kind: PredAnd, And: []TagPredicate{
			{Kind: PredSegmentExactMatch, Segment: 1, Value: "x"},
			{Kind: PredSegmentExactMatch, Segment: 2, Value: "y"}}}, ab, true},
		{"and one fails", TagPredicate{Kind: PredAnd, And: []TagPredicate{
			{Kind: PredSegmentExactMatch, Segment: 1, Value: "x"},
			{Kind: PredSegmentExactMatch, Segment: 2, Value: "z"}}}, ab, false},
		{"empty and", TagPredicate{Kind: PredAnd}, ab, true},
		{"device in", TagPredicate{Kind: PredDeviceIn, Devices: []tsfile.DeviceID{aNull, ab}}, ab, true},
		{"device not in", TagPredicate{Kind: PredDeviceIn, Devices: []tsfile.DeviceID{aNull}}, ab, false},
		{"empty device in", TagPredicate{Kind: PredDeviceIn}, ab, false},
		{"unknown kind", TagPredicate{Kind: 42}, ab, false},
	} {
		if got := tc.p.Match(tc.dev); got != tc.want {
			t.Errorf("%s: %s.Match(%s) = %v, want %v", tc.name, tc.p.String(), tc.dev, got, tc.want)
		}
	}
}
