//go:build cgo && duckdb_arrow && !iceberg

package query

// Without -tags iceberg, package query links no iceberg-go (whose table
// package does costly work when a program starts; see cmd/ts2arrow's
// icebergprog.go): an Iceberg input is refused, naming the build that
// reads it.

import (
	"context"
	"fmt"
)

func (r *resolver) resolveIceberg(_ context.Context, in string) (*resolved, error) {
	return nil, fmt.Errorf("query: %s: an Iceberg input needs a build with -tags iceberg (ts2arrow sql runs ts2arrow-iceberg for it)", in)
}
