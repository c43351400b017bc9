// Package pgtest starts a throwaway PostgreSQL server for a test: a new
// cluster made by initdb in a temporary directory, served by the postgres
// program on 127.0.0.1 (a free port) and on a unix socket in that
// directory, with trust authentication, and stopped and removed when the
// test ends. It is what the Iceberg SQL catalog's tests on PostgreSQL
// connect to (issue 41: several sync processes committing into one table
// through one catalog).
//
// The programs are Debian's (apt-get install postgresql puts them in
// /usr/lib/postgresql/VERSION/bin, off PATH): $TSARROW_PG_BIN names their
// directory, else the directory of initdb on PATH (symbolic links
// followed), else the newest /usr/lib/postgresql/*/bin. When none is
// found Start skips the test, or fails it under CI=true (see
// internal/testkit/need): .ci/run installs PostgreSQL.
//
// initdb and postgres refuse to run as root. A test process running as
// root (as CI does) runs them as the postgres user, which Debian's
// package creates, and gives that user the temporary directory.
//
// Lifetime: the server stops (fast shutdown) in the test's Cleanup. On
// Linux it also gets SIGKILL when the test process ends however it ends
// (a parent-death signal, set from an OS thread that never exits, since
// the kernel sends it when the starting thread ends); the next Start then
// removes the directories of test processes that are gone. Dynamic shared
// memory lives in files of the data directory (dynamic_shared_memory_type
// = mmap), so a killed server leaves nothing in /dev/shm.
package pgtest

import "github.com/tsarrow/tsarrow/internal/childproc"

// Server is a running PostgreSQL server.
type Server struct {
	// DSN is a libpq connection URI for the superuser on the database
	// postgres over TCP: postgres://tsarrow@127.0.0.1:PORT/postgres?sslmode=disable.
	DSN       string
	Host      string // 127.0.0.1
	Port      int
	User      string // the superuser initdb made: tsarrow, no password (trust)
	Database  string // postgres, which initdb makes
	SocketDir string // the directory of the unix socket .s.PGSQL.PORT
	BinDir    string // the directory of the PostgreSQL programs used
	Version   string // what postgres --version says

	dir  string // the temporary directory: data/, sock/, log
	proc *proc
}

// Log returns the last lines the server wrote, for a failing test's
// message.
func (s *Server) Log() string { return s.proc.Out.String() }

// proc is a started server process.
type proc = childproc.Proc
