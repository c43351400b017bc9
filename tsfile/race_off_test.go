//go:build !race

package tsfile

// raceEnabled: see race_on_test.go.
const raceEnabled = false
