package dataset

import (
	"fmt"

	"github.com/tsarrow/tsarrow/tsfile"
)

// Table and column renames of IoTDB's table model (docs/iotdb-rules.md 8,
// docs/upstream-2.5.md 4). apache/iotdb pull request #17079 ("Support
// altering column/table names of table model") lets ALTER TABLE ...
// RENAME TO and ALTER TABLE ... RENAME COLUMN rename a base table without
// rewriting its files: the files keep the old names, and a schema-evolution
// log filesets/{endVersion}/{validLength}.sevo (SchemaEvolutionFile,
// TsFileSet in iotdb-core/datanode/.../dataregion/tsfile/{evolution,
// fileset}/ of that pull request) says which names the partition's files
// of version <= endVersion are read under. The pull request is open and in
// no IoTDB release; apache/iotdb master still answers such a statement on a
// base table with "The renaming for base table is currently unsupported"
// (only tree-to-table views, whose renames never reach a data file, can be
// renamed there). Until the format settles, a directory holding a .sevo
// with anything in it is refused rather than read under the old names,
// where a renamed table would come out as two tables and a renamed column
// as two columns, silently.

// SevoSuffix ends the name of an IoTDB schema-evolution file
// (SchemaEvolutionFile.FILE_SUFFIX in apache/iotdb #17079).
const SevoSuffix = ".sevo"

// RenamesUnsettled names the upstream feature a .sevo file comes from and
// its status, for the messages that refuse or report one.
const RenamesUnsettled = "IoTDB's ALTER TABLE ... RENAME of a base table (apache/iotdb pull request #17079: open, in no IoTDB release, its .sevo format not settled)"

// ErrRenames reports a data directory whose schema-evolution files record
// table or column renames, which the reader does not apply. It wraps
// tsfile.ErrUnsupported.
var ErrRenames = fmt.Errorf("renames not applied: %w", tsfile.ErrUnsupported)

// sevoReason is why Discover does not take a .sevo file as data.
const sevoReason = "schema-evolution log of table and column renames, from " + RenamesUnsettled + "; not applied"

// renames refuses the schema-evolution file p, a file OpenLayout found in
// the layout's skipped files, unless it is empty: an empty log (the one
// TsFileSet starts with, 0.sevo) records no rename, so the files read
// under their stored names are read as IoTDB shows them, and refusing the
// directory would be a false alarm. It is said in a warning all the same.
func (d *Dataset) renames(p string) error {
	if st, err := d.fsys.Stat(p); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		d.warnings = append(d.warnings, fmt.Sprintf("%s: an empty schema-evolution log of %s: it records no rename, so the files are read under their stored names", p, RenamesUnsettled))
		return nil
	}
	return fmt.Errorf("dataset: %s records table or column renames, made by %s; this reader does not apply them (a renamed table would read as two tables and a renamed column as two columns); read with --raw to see every file under its stored names: %w", p, RenamesUnsettled, ErrRenames)
}
