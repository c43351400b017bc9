package export

import (
	"bytes"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// writeConverted writes rec, first converted by conv when it is not nil
// (the converted batch is released after writing).
func writeConverted(rec arrow.RecordBatch, conv func(arrow.RecordBatch) (arrow.RecordBatch, error), write func(arrow.RecordBatch) error) error {
	if conv != nil {
		c, err := conv(rec)
		if err != nil {
			return err
		}
		defer c.Release()
		rec = c
	}
	return write(rec)
}

// cutWriter passes writes to w until cut, then drops them, so that
// closing a writer after a failure completes nothing.
type cutWriter struct {
	w   io.Writer
	cut bool
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.cut {
		return len(p), nil
	}
	return c.w.Write(p)
}

// listNames spells names as `"a", "b" or "c"`.
func listNames(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
}
