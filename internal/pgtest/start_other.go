//go:build !linux

package pgtest

import "testing"

// Start skips t: the servers are started on Linux only (the parent-death
// signal and running as the postgres user when root are Linux's).
func Start(t testing.TB) *Server {
	t.Helper()
	t.Skip("pgtest: PostgreSQL test servers start on Linux only")
	return nil
}
