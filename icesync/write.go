package icesync

import (
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// parquetDictLimit is the dictionary page size past which a column chunk
// falls back to plain encoding: the limit ts2arrow convert's Parquet
// export uses (export.parquetDictLimit), where iceberg-go's default is
// 2 MiB. A float column of sensor readings rarely repeats enough for a
// larger dictionary to pay for the hashing of every value.
const parquetDictLimit = 256 << 10

// propDictColumn prefixes iceberg-go's table property that turns the
// dictionary of one column on or off (the suffix is the Parquet column
// path); table/internal does not export its name.
const propDictColumn = "write.parquet.dict-encoding-enabled.column."

// withWriteProps adds to the properties of a table a sync creates the
// Parquet writer settings of its data files (iceberg-go reads them from
// the table's properties at every write), chosen as ts2arrow convert's
// Parquet export chooses them, so that a sync writes the same kind of
// file as convert at the same cost:
//
//   - no dictionary for the time column: a device's timestamps do not
//     repeat, so the writer would only grow a hash table of every value of
//     a page before falling back to plain encoding;
//   - the dictionary limit of convert (parquetDictLimit);
//   - version 1 data pages, what convert and Iceberg's Java writer
//     (parquet-mr's default) write, which every engine reads; iceberg-go
//     defaults to version 2;
//   - ZSTD at its default level, as convert and iceberg-go's default.
//
// Keys already in p are kept. sc is the table's schema, its time column
// first.
func withWriteProps(p iceberg.Properties, sc *iceberg.Schema) iceberg.Properties {
	set := func(k, v string) {
		if _, ok := p[k]; !ok {
			p[k] = v
		}
	}
	set(propDictColumn+sc.Field(0).Name, "false")
	set(table.ParquetDictSizeBytesKey, strconv.Itoa(parquetDictLimit))
	set(table.ParquetPageVersionKey, "1")
	set(table.ParquetCompressionKey, "zstd")
	return p
}
