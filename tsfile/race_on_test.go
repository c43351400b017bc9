//go:build race

package tsfile

// raceEnabled is set under the race detector, whose instrumentation
// allocates where the code under test does not (and whose sync.Pool drops
// what is put in it at random): allocation bounds are not checked then.
const raceEnabled = true
