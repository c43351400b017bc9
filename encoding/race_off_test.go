//go:build !race

package encoding_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
