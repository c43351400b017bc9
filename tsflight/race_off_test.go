//go:build !race

package tsflight

const raceEnabled = false
