package icesync

import (
	"slices"
	"testing"
)

func TestOrphans(t *testing.T) {
	const (
		crashed   = "0b1e6c1a-9a57-4c49-9d1f-8d3b4f1c2e01" // w1, killed before its commit
		committed = "5f0c2d7e-1111-4a3b-8c2d-000000000002" // w1, committed, marker left by a crash after the commit
		running   = "77777777-2222-4a3b-8c2d-000000000003" // w1, the sync asking
		other     = "99999999-3333-4a3b-8c2d-000000000004" // w2, may be running now
	)
	files := []string{
		"wh/iot.db/t/data/time_day=2026-01-01/00000-0-" + crashed + "-00001.parquet",
		"wh/iot.db/t/data/time_day=2026-01-02/00001-0-" + crashed + "-00001.parquet",
		"wh/iot.db/t/data/time_day=2026-01-01/00000-0-" + committed + "-00001.parquet",
		"wh/iot.db/t/data/time_day=2026-01-01/00000-0-" + running + "-00001.parquet",
		"wh/iot.db/t/data/time_day=2026-01-01/00000-0-" + other + "-00001.parquet",
		"wh/iot.db/t/data/time_day=2026-01-01/00000-0-aaaaaaaa-0000-0000-0000-000000000000-00001.parquet",
		// A path that mentions an id only in a folder is not the sync's.
		"wh/iot.db/t/data/x-" + crashed + "-y/00000-0-bbbbbbbb-0000-0000-0000-000000000000-00001.parquet",
	}
	referenced := func(p string) bool { return p == files[2] || p == files[5] }
	pending := []PendingSync{{"w1", crashed}, {"w1", committed}, {"w1", running}, {"w2", other}}
	remove, cleared := Orphans("w1", running, pending, files, referenced)
	if want := []string{files[0], files[1]}; !slices.Equal(remove, want) {
		t.Errorf("remove %v, want %v", remove, want)
	}
	if want := []PendingSync{{"w1", crashed}, {"w1", committed}}; !slices.Equal(cleared, want) {
		t.Errorf("cleared %v, want %v", cleared, want)
	}
	if remove, cleared := Orphans("w3", "x", pending, files, referenced); remove != nil || cleared != nil {
		t.Errorf("a writer without markers removes %v, clears %v", remove, cleared)
	}
}
