package main

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/export"
)

// writeParquet converts the stream to Parquet on w with arrowconv's
// defaults and returns the bytes written.
func writeParquet(w io.Writer, rr array.RecordReader) (int64, error) {
	cw := &countingWriter{w: w}
	_, err := export.WriteParquet(cw, rr, nil)
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
