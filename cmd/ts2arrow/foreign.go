package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tsarrow/tsarrow/tsfile"
)

// foreignKind is an input format other than TsFile that the CLI reads:
// the sources of the reverse path, which schema and head also read.
type foreignKind string

const (
	kindParquet     foreignKind = "Parquet file"
	kindArrowFile   foreignKind = "Arrow IPC file"
	kindArrowStream foreignKind = "Arrow IPC stream"
	kindCSV         foreignKind = "CSV file"
)

// article is k with its indefinite article, for messages.
func (k foreignKind) article() string {
	if strings.HasPrefix(string(k), "A") {
		return "an " + string(k)
	}
	return "a " + string(k)
}

// sniffForeign tells a local Parquet or Arrow file by its first bytes
// (Parquet's "PAR1", an IPC file's "ARROW1", an IPC stream's continuation
// marker 0xFFFFFFFF), whatever its name, and a CSV file by its .csv
// extension; "" for anything else, a TsFile, a URL, or a file it cannot
// read (whose own open then says why).
func sniffForeign(name string) foreignKind {
	if isURL(name) {
		return ""
	}
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	fh, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer fh.Close()
	var head [8]byte
	n, _ := io.ReadFull(fh, head[:])
	b := head[:n]
	switch {
	case bytes.HasPrefix(b, []byte(tsfile.Magic)):
		return ""
	case bytes.HasPrefix(b, []byte("PAR1")):
		return kindParquet
	case bytes.HasPrefix(b, []byte("ARROW1")):
		return kindArrowFile
	case bytes.HasPrefix(b, []byte{0xff, 0xff, 0xff, 0xff}):
		return kindArrowStream
	case strings.EqualFold(filepath.Ext(name), ".csv"):
		return kindCSV
	}
	return ""
}

// foreignNote is the line inspect prints for a file of another format:
// what it is and which commands take it.
func foreignNote(name string, k foreignKind) string {
	return fmt.Sprintf("%s: %s, not a TsFile: \"ts2arrow schema\" and \"ts2arrow head\" read it, and \"ts2arrow convert %s -o OUT.tsfile\" writes it as a TsFile", name, k.article(), shellWord(name))
}

// openForeign opens a file of another format as a record stream. The
// caller releases the stream, then calls the returned function.
func openForeign(ctx context.Context, name string, k foreignKind, csv csvOptions) (array.RecordReader, func(), error) {
	if k == kindCSV {
		return openCSV(name, csv)
	}
	return openArrowInput(ctx, name, k)
}

// foreignOnly refuses the flags of a command that read TsFiles only, for
// an input of another format.
func foreignOnly(name string, k foreignKind, set map[string]bool, flags ...string) error {
	for _, f := range flags {
		if set[f] {
			return usagef("--%s applies to TsFile inputs; %s is %s", f, name, k.article())
		}
	}
	return nil
}
