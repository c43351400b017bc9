//go:build race

package arrowconv

// raceEnabled is set under the race detector, which slows the reads of
// the page-body sweep tenfold: it then draws a dozen corruptions only.
const raceEnabled = true
