//go:build race

package flight

// raceEnabled tells tests that the race detector slows everything about
// twentyfold, so that they read less.
const raceEnabled = true
