//go:build !race

package arrowconv

// raceEnabled: see race_on_test.go.
const raceEnabled = false
