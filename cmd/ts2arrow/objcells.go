package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/arrowconv"
)

// cellFlags are the flags of OBJECT columns (data type 12), whose cells
// name files of an object folder: --object-root, --object-bytes and
// --max-object-size.
type cellFlags struct {
	root  *string
	bytes *bool
	max   byteSize
}

// addCellFlags adds the OBJECT flags to fs.
func addCellFlags(fs *pflag.FlagSet) *cellFlags {
	c := &cellFlags{max: arrowconv.DefaultMaxObjectSize}
	c.root = fs.String("object-root", "", "the object folder OBJECT cells' paths are relative to (default: the object folder of each IoTDB data directory read)")
	c.bytes = fs.Bool("object-bytes", false, "read OBJECT columns as the objects' bytes (large_binary) instead of struct<size, path>")
	fs.Var(&c.max, "max-object-size", "with --object-bytes: the largest object read, a `SIZE` such as 64MiB")
	return c
}

// cellHelp documents the flags of addCellFlags in a command's help.
const cellHelp = `An OBJECT column (IoTDB's OBJECT type) holds references to files kept
beside the data: by default it reads as struct<size int64, path utf8>, the
object's size and its file's path relative to the object folder (the
object/ folder of the IoTDB data directory, or --object-root DIR).
--object-bytes reads the objects' bytes instead (large_binary), each at
most --max-object-size (default 64MiB); a missing object file is an error
naming it.
`

// apply sets the OBJECT options of q.
func (c *cellFlags) apply(q *arrowconv.Options) error {
	if c.max <= 0 {
		return usagef("--max-object-size must be positive")
	}
	q.ObjectBytes = *c.bytes
	q.MaxObjectSize = int64(c.max)
	if *c.root != "" {
		st, err := os.Stat(*c.root)
		if err != nil {
			return fmt.Errorf("--object-root: %w", err)
		}
		if !st.IsDir() {
			return usagef("--object-root %s is not a folder", *c.root)
		}
		q.ObjectRoot = os.DirFS(*c.root)
	}
	return nil
}
