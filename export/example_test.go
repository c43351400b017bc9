package export_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/tsfile"
)

// ExampleWriteParquet converts a table to a ZSTD Parquet file.
func ExampleWriteParquet() {
	dir, err := os.MkdirTemp("", "tsarrow-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	f, err := tsfile.OpenFile("../testdata/sample.tsfile", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	rdr, err := arrowconv.NewTableReader(f, "weather", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer rdr.Release()
	out, err := os.Create(filepath.Join(dir, "sample.parquet"))
	if err != nil {
		log.Fatal(err)
	}
	// WriteIPC(out, rdr, &export.IPCOptions{}) writes an Arrow IPC file instead.
	rows, err := export.WriteParquet(out, rdr, &export.ParquetOptions{Compression: "zstd"})
	if cerr := out.Close(); err == nil {
		err = cerr // a failed Close can lose the end of the file
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", rows, "rows")
	// Output:
	// wrote 1500 rows
}
