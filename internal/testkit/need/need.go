// Package need lets a test skip when something it needs from outside the
// repository is absent (the upstream files of ../shared/interop, tmux),
// except in CI, where that must fail instead: .ci/run has shared/ beside
// the clone and installs tmux, so a test that skips there has silently
// stopped checking. It imports nothing of tsarrow, so that every package's
// tests can use it (testkit imports tsfile).
package need

import (
	"os"
	"testing"
)

// InCI reports whether the environment says the tests run in CI (CI=true,
// as .ci/run and the common CI services set it).
func InCI() bool { return os.Getenv("CI") == "true" }

// Skipf skips t with the message, or under CI=true fails it with the
// message, saying that CI must have what is missing.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf(format+" (CI=true: CI must provide it, see .ci/run)", args...)
		return
	}
	t.Skipf(format, args...)
}
