package tsfile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeviceIDKey(t *testing.T) {
	ids := []DeviceID{
		NewDeviceID("t", "null"),
		DeviceIDFromSegments([]Segment{{Value: "t"}, {Null: true}}),
		NewDeviceID("t.a"),
		NewDeviceID("t", "a"),
		NewDeviceID("t", "a", ""),
		NewDeviceID("t", "a:"),
		NewDeviceID("t", "a", ":"),
	}
	for i, a := range ids {
		for j, b := range ids {
			require.Equal(t, i == j, a.Key() == b.Key(), "%q vs %q", a, b)
		}
	}
	require.Equal(t, NewDeviceID("t", "a").Key(), NewDeviceID("t", "a").Key())
}
