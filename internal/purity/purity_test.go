// Package purity holds the test that keeps the pure-Go packages pure
// (issue 38 point 7): only package query and the CLI link DuckDB.
package purity

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// pure are the packages a Go program imports without cgo: none of them
// may depend on DuckDB (duckdb-go and its bindings, which are cgo and a
// static C++ library of some 130 MB), whatever the build tags.
var pure = []string{"tsfile", "arrowconv", "dataset", "export", "flight", "fromarrow", "httpfile", "objstore", "aead", "encoding", "iceref", "icesync", "icescan"}

// deps lists the packages pkgs depend on, as go list -deps builds them
// with env added to the environment and the build tags.
func deps(t *testing.T, env []string, tags string, pkgs ...string) []string {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	args := []string{"list", "-deps", "-f", "{{.ImportPath}}"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command(gocmd, append(args, pkgs...)...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", pkgs, err, out)
	}
	return strings.Fields(string(out))
}

func duckdbIn(list []string) []string {
	var out []string
	for _, p := range list {
		if strings.Contains(strings.ToLower(p), "duckdb") {
			out = append(out, p)
		}
	}
	return out
}

// TestPureGoHasNoDuckDB: the pure packages need no DuckDB, with cgo or
// without, with the duckdb_arrow tag or without; the CLI built without
// cgo needs none either (its sql command is a stub), and the CLI built
// as the README builds it does link it, which shows the check sees
// DuckDB where it is.
func TestPureGoHasNoDuckDB(t *testing.T) {
	var pkgs []string
	for _, p := range pure {
		pkgs = append(pkgs, "./"+p)
	}
	for _, tc := range []struct {
		env  []string
		tags string
	}{{nil, ""}, {nil, "duckdb_arrow"}, {[]string{"CGO_ENABLED=0"}, "duckdb_arrow"}} {
		if bad := duckdbIn(deps(t, tc.env, tc.tags, pkgs...)); len(bad) > 0 {
			t.Errorf("%v -tags %q: the pure packages depend on %v", tc.env, tc.tags, bad)
		}
	}
	if bad := duckdbIn(deps(t, []string{"CGO_ENABLED=0"}, "duckdb_arrow", "./cmd/ts2arrow")); len(bad) > 0 {
		t.Errorf("CGO_ENABLED=0: cmd/ts2arrow depends on %v", bad)
	}
	if len(duckdbIn(deps(t, []string{"CGO_ENABLED=1"}, "duckdb_arrow", "./cmd/ts2arrow"))) == 0 {
		t.Errorf("cmd/ts2arrow built with cgo and -tags duckdb_arrow does not depend on DuckDB: is the check blind?")
	}
}

// TestIcebergStaysInIcesync: iceberg-go and its SQLite driver are linked
// only by packages icesync and icescan (and what imports them), never by
// the packages below them; and icesync's SQLite is the pure-Go modernc.org/sqlite even
// with cgo on, never the cgo mattn/go-sqlite3 bun's sqliteshim would pick.
func TestIcebergStaysInIcesync(t *testing.T) {
	var core []string
	for _, p := range pure {
		if p != "icesync" && p != "icescan" {
			core = append(core, "./"+p)
		}
	}
	for _, p := range deps(t, nil, "", core...) {
		if strings.Contains(p, "iceberg-go") || strings.Contains(p, "sqlite") {
			t.Errorf("a core package depends on %s", p)
		}
	}
	ice := deps(t, []string{"CGO_ENABLED=1"}, "duckdb_arrow", "./icesync", "./icescan")
	modernc := false
	for _, p := range ice {
		modernc = modernc || p == "modernc.org/sqlite"
		if strings.Contains(p, "mattn/go-sqlite3") {
			t.Errorf("icesync built with cgo links the cgo SQLite %s", p)
		}
	}
	if !modernc {
		t.Errorf("icesync does not link modernc.org/sqlite: is the check blind?")
	}
}

// TestTs2arrowLinksNoIceberg: ts2arrow, built as the README builds it,
// links no iceberg-go, whose table package sets up Substrait's function
// catalogue (some 32 MB) before main whatever the command; sync and
// iceberg: inputs run in ts2arrow-iceberg, built with -tags iceberg,
// which does link it (so the check is not blind). Package query follows
// the same tag.
func TestTs2arrowLinksNoIceberg(t *testing.T) {
	iceIn := func(list []string) (out []string) {
		for _, p := range list {
			if strings.Contains(p, "apache/iceberg-go") || strings.Contains(p, "substrait") || p == "github.com/tsarrow/tsarrow/icesync" || p == "github.com/tsarrow/tsarrow/icescan" {
				out = append(out, p)
			}
		}
		return out
	}
	for _, tags := range []string{"", "duckdb_arrow"} {
		if bad := iceIn(deps(t, []string{"CGO_ENABLED=1"}, tags, "./cmd/ts2arrow", "./query", "./flight")); len(bad) > 0 {
			t.Errorf("-tags %q: ts2arrow, query or flight links %v", tags, bad)
		}
	}
	if len(iceIn(deps(t, []string{"CGO_ENABLED=1"}, "duckdb_arrow,iceberg", "./cmd/ts2arrow"))) == 0 {
		t.Errorf("ts2arrow built with -tags iceberg (ts2arrow-iceberg) links no iceberg-go: is the check blind?")
	}
}
