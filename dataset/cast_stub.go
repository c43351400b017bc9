package dataset

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tsarrow/tsarrow/tsfile"
)

// castAllowed and castColumn stand in for the type casts of
// docs/iotdb-rules.md 4 until they land: only equal types are accepted.
func castAllowed(from, to tsfile.DataType) bool { return from == to }

func castColumn(mem memory.Allocator, arr arrow.Array, from, to tsfile.DataType, toType arrow.DataType) (arrow.Array, error) {
	return nil, fmt.Errorf("cannot cast %s to %s yet: %w", from, to, tsfile.ErrUnsupported)
}
