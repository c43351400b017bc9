package icesync

import (
	"path"
	"slices"
	"strings"
)

// Crash safety (docs/dev-notes-iceberg-icedesign.md, part (c)): before it
// writes a data file a sync leaves a pending marker naming its id, and
// every data file it writes carries that id in its name (iceberg-go's
// {partition}-{task}-{write UUID}-{count}.parquet with WithWriteUUID). A
// sync killed before its commit leaves files no snapshot references; the
// next sync of the same writer removes them. Two syncs of one writer never
// run at once (a lock; the region claim keeps other hosts out), so a
// marker of the writer other than the running sync's own is not in flight.

// PendingSync is a pending marker: the writer and the id of a sync that
// began and has not yet been cleared.
type PendingSync struct {
	Writer, SyncID string
}

// Orphans returns, for a sync of writer with id current, the data files
// to remove (dataFiles, paths under the table's data location, whose name
// carries the id of one of the writer's other pending syncs and which no
// snapshot references) and the pending syncs whose markers may go once
// those files are removed. Files and markers of other writers are never
// returned: their syncs may be running.
func Orphans(writer, current string, pending []PendingSync, dataFiles []string, referenced func(path string) bool) (remove []string, cleared []PendingSync) {
	var ids []string
	for _, p := range pending {
		if p.Writer == writer && p.SyncID != current && p.SyncID != "" {
			ids = append(ids, p.SyncID)
			cleared = append(cleared, p)
		}
	}
	for _, f := range dataFiles {
		base := path.Base(f)
		for _, id := range ids {
			if strings.Contains(base, "-"+id+"-") && !referenced(f) {
				remove = append(remove, f)
				break
			}
		}
	}
	slices.Sort(remove)
	return remove, cleared
}
