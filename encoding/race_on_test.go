//go:build race

package encoding_test

// raceEnabled is set under the race detector, whose instrumentation
// allocates where the code under test does not: allocation counts are
// not measured then.
const raceEnabled = true
