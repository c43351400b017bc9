package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProjectionKeepsDevices: projecting a non-aligned tree-model file onto
// its device column keeps every row, as the table model does for its TAGs;
// it used to drop every non-aligned device.
func TestProjectionKeepsDevices(t *testing.T) {
	needInterop(t)
	tree := interop + "j10_tree_nonaligned.tsfile"
	all := convertCSV(t, tree)
	got := convertCSV(t, tree, "--columns", "device")
	require.Len(t, got, len(all))
	for i := range all {
		require.Equal(t, firstCells(all[i], 2), got[i])
	}
	table := convertCSV(t, sample, "--columns", "region")
	require.Len(t, table, len(sampleRows(t)))
}

// firstCells returns the first n comma-separated cells of a CSV line.
func firstCells(line string, n int) string {
	k := 0
	for i := range len(line) {
		if line[i] == ',' {
			if k++; k == n {
				return line[:i]
			}
		}
	}
	return line
}
