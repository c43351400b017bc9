//go:build unix

package flight

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/internal/durable"
)

// TestDoPutIsDurable (issue 36 point 5): a file DoPut acknowledged
// survives a power loss. The temporary is synced before it is linked to
// its name, the directory is synced after the link, and every directory
// the put created has its parent synced before the file is published in
// it. An fsync cannot be observed from outside, so the test watches the
// steps of internal/durable in the order they completed. (Unix only:
// Windows does not sync directories.)
func TestDoPutIsDurable(t *testing.T) {
	var mu sync.Mutex
	var steps []durable.Step
	defer durable.Watch(func(s durable.Step) {
		mu.Lock()
		steps = append(steps, s)
		mu.Unlock()
	})()

	root := t.TempDir()
	putOne(t, root)

	mu.Lock()
	got := slices.Clone(steps)
	mu.Unlock()
	find := func(op, path string) int {
		return slices.IndexFunc(got, func(s durable.Step) bool { return s.Op == op && s.Path == path })
	}
	link := slices.IndexFunc(got, func(s durable.Step) bool {
		return s.Op == "link" && strings.HasSuffix(s.Path, filepath.Join("new", "deep", "put.tsfile"))
	})
	require.GreaterOrEqual(t, link, 0, "the file was not published by a durable link: %v", got)
	target, tmp := got[link].Path, got[link].From
	deep := filepath.Dir(target)
	newDir := filepath.Dir(deep)
	top := filepath.Dir(newDir)

	sync := find("sync", tmp)
	require.True(t, sync >= 0 && sync < link, "the temporary is not synced before the link: %v", got)
	after := find("syncdir", deep)
	require.Greater(t, after, link, "the directory is not synced after the link: %v", got)
	// new/ and new/deep/ were made by the put: the entries naming them
	// are synced before the file is published in them.
	for _, d := range []string{top, newDir} {
		i := find("syncdir", d)
		require.True(t, i >= 0 && i < link, "%s is not synced before the link (it holds a directory the put made): %v", d, got)
	}
}
