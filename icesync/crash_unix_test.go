//go:build unix

package icesync

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/tsarrow/tsarrow/internal/testkit"
)

// TestCrashHelper is the process TestSyncKilled kills: a sync that stops
// between writing its data files and committing them, after saying so.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv("ICESYNC_CRASH_DIR")
	if dir == "" {
		t.Skip("run by TestSyncKilled")
	}
	testBeforeCommit = func(int) {
		if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
			panic(err)
		}
		select {} // wait for kill -9
	}
	_, err := Sync(context.Background(), []string{filepath.Join(dir, "iotdb")}, weatherOptions(dir))
	t.Fatalf("the sync went on: %v", err)
}

// TestSyncKilled kills a sync (SIGKILL, in another process) after it
// wrote its data files and before it committed them: the table keeps its
// snapshot and rows, and the next sync removes the dead sync's data files
// (and only those) before committing its own.
func TestSyncKilled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "iotdb")
	testkit.CopyDir(t, "../testdata/iotdb", root)
	opts := weatherOptions(dir)
	first, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	un := filepath.Join(root, "unsequence/weather/1/0/1767236400000-3-0-0.tsfile")
	for _, p := range []string{un, un + ".resource"} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	before := parquetFiles(t, dir)

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
	cmd.Env = append(os.Environ(), "ICESYNC_CRASH_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ready := filepath.Join(dir, "ready")
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the helper exited before writing: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited

	written := parquetFiles(t, dir)
	if len(written) <= len(before) {
		t.Fatalf("the killed sync wrote no data file (%d before, %d after)", len(before), len(written))
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	if s := tbl.CurrentSnapshot(); s == nil || s.SnapshotID != first.SnapshotID || len(tbl.Metadata().Snapshots()) != 1 {
		t.Fatalf("the killed sync changed the table")
	}

	res, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reaped != len(written)-len(before) || !res.Committed {
		t.Fatalf("next sync: %+v; want %d data files of the dead sync removed", res, len(written)-len(before))
	}
	tbl = loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	want := wantRows(t, []string{root}, "weather")
	if got := scanRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("rows after the next sync: %d, want %d", len(got), len(want))
	}
	// Every Parquet file left is one a snapshot holds: the first sync's
	// (still in its snapshot) and the next sync's.
	live := map[string]bool{}
	for _, s := range tbl.Metadata().Snapshots() {
		for _, task := range mustPlan(t, tbl, s.SnapshotID) {
			live[strings.TrimPrefix(task, "file://")] = true
		}
	}
	for p := range parquetFiles(t, dir) {
		if !live[p] {
			t.Errorf("orphan data file %s", p)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "lake", "*", "*", inflightDir, "*")); len(m) != 0 {
		t.Errorf("markers left: %v", m)
	}
	// Only the day the removed file covered was rewritten, and the only
	// state file left is the one the table names.
	if !slices.Equal(bucketList(res.Rewritten), []int64{day0}) || len(res.Appended) != 0 {
		t.Errorf("next sync rewrote %v, appended %v; want day %d only", res.Rewritten, res.Appended, day0)
	}
	cur := strings.TrimPrefix(tbl.Properties()[stateProp(res.Writer)], "file://")
	if states, _ := filepath.Glob(filepath.Join(filepath.Dir(cur), "*")); len(states) != 1 || states[0] != cur {
		t.Errorf("state files %v, want only %s", states, cur)
	}
}

// mustPlan lists the data files of a snapshot.
func mustPlan(t *testing.T, tbl *table.Table, id int64) []string {
	t.Helper()
	tasks, err := tbl.Scan(table.WithSnapshotID(id)).PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		out = append(out, task.File.FilePath())
	}
	return out
}

// TestReapSparesLive: the data files of a sync whose process is alive,
// or of another host's sync younger than staleAfter, stay; those of
// another host's sync older than that go.
func TestReapSparesLive(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := weatherOptions(dir)
	if _, err := Sync(ctx, []string{"../testdata/iotdb"}, opts); err != nil {
		t.Fatal(err)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	loc := strings.TrimPrefix(tbl.Location(), "file://")
	host, _ := os.Hostname()
	for _, tc := range []struct {
		name string
		m    marker
		gone bool
	}{
		{"this process", marker{Host: host, PID: os.Getpid(), Start: time.Now().UnixMilli()}, false},
		{"another host, recent", marker{Host: host + "-other", PID: 1, Start: time.Now().UnixMilli()}, false},
		{"another host, old", marker{Host: host + "-other", PID: 1, Start: time.Now().Add(-staleAfter - time.Hour).UnixMilli()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.ReplaceAll(tc.name, " ", "_")
			b, _ := json.Marshal(tc.m)
			mk := filepath.Join(loc, inflightDir, id+".json")
			data := filepath.Join(loc, "data", "time_day=2026-01-01", "00000-0-"+id+"-00000.parquet")
			for p, c := range map[string][]byte{mk: b, data: []byte("x")} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, c, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fsys, err := tbl.FS(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n, err := reapDead(ctx, fsys, tbl, "w")
			if err != nil {
				t.Fatal(err)
			}
			_, derr := os.Stat(data)
			_, merr := os.Stat(mk)
			if gone := os.IsNotExist(derr); gone != tc.gone || n != map[bool]int{true: 1, false: 0}[tc.gone] || os.IsNotExist(merr) != tc.gone {
				t.Fatalf("data file gone %v (%d reaped), marker gone %v; want %v", gone, n, os.IsNotExist(merr), tc.gone)
			}
			os.Remove(mk)
			os.Remove(data)
		})
	}
}

// TestWriterProcessHelper is one writer process of TestSyncWriterProcesses.
func TestWriterProcessHelper(t *testing.T) {
	dir, root, w := os.Getenv("ICESYNC_WRITER_DIR"), os.Getenv("ICESYNC_WRITER_ROOT"), os.Getenv("ICESYNC_WRITER")
	if dir == "" {
		t.Skip("run by TestSyncWriterProcesses")
	}
	opts := weatherOptions(dir)
	opts.Writer = w
	opts.Retry = RetryPolicy{MaxAttempts: 50}
	res, err := Sync(context.Background(), []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, w+".id"), []byte(res.SyncID), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSyncWriterProcesses runs four writer processes at once, each over
// its own data directory, into one table of one SQLite catalog file: the
// table ends with exactly the union of their rows, and each process's
// sync ID is in exactly one snapshot.
func TestSyncWriterProcesses(t *testing.T) {
	dir := t.TempDir()
	const writers = 4
	var roots []string
	var cmds []*exec.Cmd
	for i := range writers {
		root := filepath.Join(dir, fmt.Sprintf("node%d", i))
		writerDir(t, root, i+1)
		roots = append(roots, root)
	}
	for i := range writers {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcessHelper$")
		cmd.Stdout = new(strings.Builder)
		cmd.Stderr = cmd.Stdout
		cmd.Env = append(os.Environ(), "ICESYNC_WRITER_DIR="+dir, "ICESYNC_WRITER_ROOT="+roots[i], fmt.Sprintf("ICESYNC_WRITER=node%d", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v\n%s", i, err, cmd.Stdout)
		}
	}
	opts := weatherOptions(dir)
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	var want []string
	for i := range writers {
		id, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("node%d.id", i)))
		if err != nil {
			t.Fatalf("writer %d left no sync ID: %v", i, err)
		}
		n := 0
		for _, s := range tbl.Metadata().Snapshots() {
			if s.Summary != nil && s.Summary.Properties[SummarySyncID] == string(id) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("sync %s of writer %d is in %d snapshots", id, i, n)
		}
		want = append(want, wantRows(t, []string{roots[i]}, "weather")...)
	}
	slices.Sort(want)
	if got := scanRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("the table has %d rows, the union of the directories %d", len(got), len(want))
	}
}
