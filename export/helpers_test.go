package export

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
)

// TestTimeColumnName keeps this package's name of the time column that
// of the readers it is tuned for.
func TestTimeColumnName(t *testing.T) {
	require.Equal(t, arrowconv.TimeColumn, timeColumn)
}
