package need

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records whether Skipf or Fatalf was called
// instead of ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                          {}
func (r *recorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestSkipf(t *testing.T) {
	for _, tt := range []struct {
		ci         string
		skip, fail bool
	}{{"", true, false}, {"false", true, false}, {"1", true, false}, {"true", false, true}} {
		t.Setenv("CI", tt.ci)
		r := &recorder{TB: t}
		Skipf(r, "tmux is %s", "missing")
		if (r.skipped != "") != tt.skip || (r.failed != "") != tt.fail {
			t.Errorf("CI=%q: skipped %q, failed %q; want skip %v, fail %v", tt.ci, r.skipped, r.failed, tt.skip, tt.fail)
		}
		if tt.fail && r.failed != "tmux is missing (CI=true: CI must provide it, see .ci/run)" {
			t.Errorf("CI=%q: message %q", tt.ci, r.failed)
		}
	}
}
