package icesync

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"

	// modernc.org/sqlite is SQLite translated to Go: the "sqlite" driver
	// of database/sql without cgo, so a binary built with CGO_ENABLED=0
	// still opens a sqlite: catalog. (iceberg-go's own tests use bun's
	// sqliteshim, which picks mattn/go-sqlite3, a cgo driver, whenever cgo
	// is on; the CLI is built with cgo for DuckDB, so the shim would put a
	// second C SQLite into it.)
	_ "modernc.org/sqlite"
)

// ErrCatalogURI is returned for a catalog URI of a kind icesync does not open.
var ErrCatalogURI = errors.New("icesync: unsupported catalog URI")

// CatalogName is the name the SQL catalog's rows carry (the catalog_name
// column of iceberg_tables). Another engine sharing the catalog database
// must use the same name: Spark's spark.sql.catalog.<name>, PyIceberg's
// SqlCatalog(name).
const CatalogName = "tsarrow"

// sqliteBusyMs is how long a connection waits for another process's write
// lock on the catalog database before failing with "database is locked".
// Commits hold the lock for one UPDATE, so a few seconds cover many
// writers; WAL lets readers go on during a write.
const sqliteBusyMs = 10000

// OpenCatalog opens the Iceberg catalog a URI names, with warehouse as the
// root of the tables it creates (a local directory; made absolute).
// "sqlite:PATH" is iceberg-go's SQL catalog on a SQLite database at PATH,
// created with its tables when missing. Close the catalog when done.
func OpenCatalog(ctx context.Context, uri, warehouse string) (*sqlcat.Catalog, error) {
	path, ok := strings.CutPrefix(uri, "sqlite:")
	if !ok || path == "" {
		return nil, fmt.Errorf("%w %q: want sqlite:PATH", ErrCatalogURI, uri)
	}
	wh, err := warehouseURL(warehouse)
	if err != nil {
		return nil, err
	}
	// modernc.org/sqlite applies each _pragma to every connection it
	// opens, as NewCatalog asks of callers with concurrent writers.
	dsn := "file:" + path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)", sqliteBusyMs)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("icesync: catalog %s: %w", path, err)
	}
	props := iceberg.Properties{"init_catalog_tables": "true"}
	if wh != "" {
		props["warehouse"] = wh
	}
	cat, err := sqlcat.NewCatalog(CatalogName, db, sqlcat.SQLite, props)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("icesync: catalog %s: %w", path, err)
	}
	return cat, nil
}

// warehouseURL turns a local directory into the file: URL iceberg-go's
// local file IO takes as a table location.
func warehouseURL(dir string) (string, error) {
	if dir == "" {
		// A catalog opened only to read tables needs no warehouse.
		return "", nil
	}
	if strings.Contains(dir, "://") {
		return "", fmt.Errorf("icesync: warehouse %q: only a local directory is supported yet", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("icesync: warehouse %q: %w", dir, err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// ensureNamespace creates the namespace of ident when missing; another
// writer creating it first is not an error.
func ensureNamespace(ctx context.Context, cat catalog.Catalog, ns []string) error {
	ok, err := cat.CheckNamespaceExists(ctx, ns)
	if err != nil {
		return fmt.Errorf("icesync: namespace %s: %w", strings.Join(ns, "."), err)
	}
	if ok {
		return nil
	}
	err = cat.CreateNamespace(ctx, ns, nil)
	if err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("icesync: namespace %s: %w", strings.Join(ns, "."), err)
	}
	return nil
}
