//go:build cgo && duckdb_arrow

package query

import "github.com/tsarrow/tsarrow/iceref"

// splitIceberg separates the Iceberg inputs (iceberg:CATALOG#NS.TABLE)
// from the others.
func splitIceberg(args []string) (ice, rest []string) {
	for _, a := range args {
		if iceref.IsInput(a) {
			ice = append(ice, a)
		} else {
			rest = append(rest, a)
		}
	}
	return ice, rest
}
