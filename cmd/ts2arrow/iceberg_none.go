//go:build !iceberg

package main

// ts2arrow without -tags iceberg: sync and iceberg: inputs run in
// ts2arrow-iceberg (see icebergprog.go), before any of these is reached.

import (
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
)

// icebergBuilt is unset: this program links no iceberg-go.
const icebergBuilt = false

// errIcebergNotBuilt is what the Iceberg paths return in this build; run
// hands such command lines to ts2arrow-iceberg first.
var errIcebergNotBuilt = errors.New("this ts2arrow is built without Iceberg (-tags iceberg); run " + icebergProgram)

func syncIceberg(syncFlags, []string, io.Writer, io.Writer) error { return errIcebergNotBuilt }

func (j *convertJob) runIceberg([]string, bool, *datasetFlags, io.Writer, io.Writer) error {
	return errIcebergNotBuilt
}

func headIceberg(string, *arrowconv.Options, int, bool, int, io.Writer) error {
	return errIcebergNotBuilt
}

func schemaIceberg(string, *arrowconv.Options) (*arrow.Schema, error) {
	return nil, errIcebergNotBuilt
}
