package main

import (
	"github.com/tsarrow/tsarrow/export"
)

// timeFormatFlag reads a --time-format value, of head and convert alike.
func timeFormatFlag(s string) (export.TimeFormat, error) {
	tf, err := export.ParseTimeFormat(s)
	if err != nil {
		return 0, usagef("unknown --time-format %q (want iso or epoch; rfc3339 and raw are accepted for them)", s)
	}
	return tf, nil
}
