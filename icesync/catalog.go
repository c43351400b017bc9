package icesync

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	iceio "github.com/apache/iceberg-go/io"

	// iceberg-go's FileIO for s3:// (and s3a, s3n, oss), gs:// and
	// abfs[s]:// / wasb[s]:// warehouses, on gocloud.dev like objstore:
	// the AWS, Google and Azure SDKs these link are in the binary already
	// through objstore.
	_ "github.com/apache/iceberg-go/io/gocloud/azure"
	_ "github.com/apache/iceberg-go/io/gocloud/gcs"
	_ "github.com/apache/iceberg-go/io/gocloud/s3"

	// pgx is the PostgreSQL driver of database/sql ("pgx") for a
	// postgres:// catalog: pure Go (CGO_ENABLED=0 builds keep working),
	// the driver the Go PostgreSQL world settled on, and the one
	// iceberg-go's own SQL catalog tests on PostgreSQL use.
	_ "github.com/jackc/pgx/v5/stdlib"

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

// ErrWarehouse is returned for a warehouse location icesync cannot write to.
var ErrWarehouse = errors.New("icesync: unsupported warehouse")

// catalogForms lists the catalog URIs OpenCatalog takes, for errors.
const catalogForms = "sqlite:PATH, postgres://USER@HOST:PORT/DB (or postgresql://), rest+http://HOST/PATH or rest+https://HOST/PATH, hive+thrift://HOST:PORT, glue:// or glue://CATALOG_ID"

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

// Catalog is an open Iceberg catalog: iceberg-go's catalog.Catalog and a
// Close that releases its connections.
type Catalog interface {
	catalog.Catalog
	// Close releases the catalog's database connections (if any).
	Close() error
}

// OpenCatalog opens the Iceberg catalog a URI names, with warehouse as the
// root of the tables it creates. Close the catalog when done.
//
// The URIs:
//
//   - "sqlite:PATH": iceberg-go's SQL catalog on a SQLite database at
//     PATH (pure-Go modernc.org/sqlite), created with its tables when
//     missing.
//   - "postgres://..." or "postgresql://...": the same SQL catalog on
//     PostgreSQL, a libpq connection URI as psql takes it
//     (postgres://user:password@host:port/db?sslmode=disable; PGPASSWORD
//     and ~/.pgpass apply as in libpq). The catalog's tables
//     (iceberg_tables, iceberg_namespace_properties) are created when
//     missing, the schema Java's JdbcCatalog uses.
//   - "rest+http://HOST/PATH" or "rest+https://HOST/PATH": iceberg-go's
//     REST catalog at http(s)://HOST/PATH. The query parameters are the
//     catalog properties iceberg-go's REST catalog takes: credential
//     (client_id:secret for OAuth2), token (a bearer token), warehouse,
//     prefix, scope, oauth2-server-uri, rest.sigv4-enabled, ...; the
//     environment variables ICEBERG_REST_CREDENTIAL and ICEBERG_REST_TOKEN
//     give credential and token out of the URI (and out of ps).
//
// The warehouse is a local directory (made absolute), or a bucket:
// s3://BUCKET/PREFIX with the endpoint, region and credentials objstore
// takes (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION, the SDK's
// credential chain), gs://BUCKET/PREFIX (application default
// credentials), abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PREFIX
// (AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY). For a REST catalog the
// warehouse is the catalog's warehouse property and may be "": the server
// places the tables. warehouse may be "" when tables are only read.
func OpenCatalog(ctx context.Context, uri, warehouse string) (Catalog, error) {
	if err := CheckCatalogURI(uri); err != nil {
		return nil, err
	}
	scheme, _, _ := strings.Cut(uri, ":")
	switch strings.ToLower(scheme) {
	case "sqlite":
		path := strings.TrimPrefix(uri, scheme+":")
		// modernc.org/sqlite applies each _pragma to every connection it
		// opens, as NewCatalog asks of callers with concurrent writers.
		// The path goes into a SQLite URI filename, where "#" would start
		// a fragment and "?" the parameters: escape them (and "%").
		esc := strings.NewReplacer("%", "%25", "#", "%23", "?", "%3F").Replace(path)
		dsn := "file:" + esc + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)", sqliteBusyMs)
		return openSQL(ctx, "sqlite", dsn, sqlcat.SQLite, path, warehouse)
	case "postgres", "postgresql":
		return openSQL(ctx, "pgx", uri, sqlcat.Postgres, redact(uri), warehouse)
	case "hive+thrift", "thrift":
		return openHive(ctx, uri, warehouse)
	case "glue":
		return openGlue(ctx, uri, warehouse)
	}
	return openREST(ctx, uri, warehouse)
}

// CheckCatalogURI tells, without connecting, whether uri has a form
// OpenCatalog takes: nil, or an ErrCatalogURI error listing the forms
// (a usage error for a command line).
func CheckCatalogURI(uri string) error {
	scheme, rest, _ := strings.Cut(uri, ":")
	switch strings.ToLower(scheme) {
	case "sqlite":
		if rest != "" {
			return nil
		}
	case "postgres", "postgresql":
		if strings.HasPrefix(rest, "//") {
			return nil
		}
	case "rest+http", "rest+https":
		if u, err := url.Parse(strings.TrimPrefix(uri, "rest+")); err == nil && u.Host != "" {
			return nil
		}
	case "hive+thrift", "thrift":
		if u, err := url.Parse(strings.TrimPrefix(uri, "hive+")); err == nil && u.Hostname() != "" {
			return nil
		}
	case "glue":
		if strings.HasPrefix(rest, "//") {
			return nil
		}
	}
	return fmt.Errorf("%w %q: want %s", ErrCatalogURI, redact(uri), catalogForms)
}

// CheckWarehouse tells, without connecting, whether a warehouse location
// has a form OpenCatalog takes: nil, or an ErrWarehouse error.
func CheckWarehouse(wh string) error {
	_, _, err := warehouseProps(wh)
	return err
}

// IsRESTCatalog tells whether uri names a REST catalog, where the
// server, not the warehouse argument, may place the tables.
func IsRESTCatalog(uri string) bool {
	scheme, _, _ := strings.Cut(uri, ":")
	return strings.HasPrefix(strings.ToLower(scheme), "rest+")
}

// sqlCatalog is iceberg-go's SQL catalog with the database it runs on:
// NewCatalog leaves a database handle it was given open on Close.
type sqlCatalog struct {
	*sqlcat.Catalog
	db *sql.DB
}

func (c sqlCatalog) Close() error {
	return errors.Join(c.Catalog.Close(), c.db.Close())
}

// sqlInitAttempts bounds the tries at creating the SQL catalog's tables:
// several processes starting on an empty PostgreSQL database at once race
// in CREATE TABLE IF NOT EXISTS, which then fails for all but one with a
// duplicate key in pg_type; the next try finds the tables.
const sqlInitAttempts = 5

// openSQL opens iceberg-go's SQL catalog on the database driver and dsn
// name; shown names the database in errors (without a password).
func openSQL(ctx context.Context, driver, dsn string, dialect sqlcat.SupportedDialect, shown, warehouse string) (Catalog, error) {
	loc, props, err := warehouseProps(warehouse)
	if err != nil {
		return nil, err
	}
	props["init_catalog_tables"] = "true"
	if loc != "" {
		props["warehouse"] = loc
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("icesync: catalog %s: %w", shown, scrub(err, dsn))
	}
	for attempt := 1; ; attempt++ {
		cat, err := sqlcat.NewCatalog(CatalogName, db, dialect, props)
		if err == nil {
			return sqlCatalog{cat, db}, nil
		}
		// Creating the catalog's tables races with other writers doing the
		// same: PostgreSQL may answer a duplicate, SQLite "busy".
		if attempt >= sqlInitAttempts || ctx.Err() != nil || !(dialect == sqlcat.Postgres && raceOnCreate(err) || transient(err)) {
			db.Close()
			return nil, fmt.Errorf("icesync: catalog %s: %w", shown, scrub(err, dsn))
		}
		if err := sleepCtx(ctx, time.Duration(attempt)*50*time.Millisecond); err != nil {
			db.Close()
			return nil, err
		}
	}
}

// raceOnCreate tells whether err is PostgreSQL's answer to two CREATE
// TABLE IF NOT EXISTS of one table at once: a unique violation (SQLSTATE
// 23505) on the system catalogs, the table's row type existing already
// (42710, duplicate_object: what TestOpenCatalogPostgres's openers get),
// or the relation existing after all (42P07).
func raceOnCreate(err error) bool {
	var se interface{ SQLState() string }
	if errors.As(err, &se) {
		switch se.SQLState() {
		case "23505", "42710", "42P07":
			return true
		}
	}
	return false
}

// restCatalog is iceberg-go's REST catalog, which holds no connection to
// close.
type restCatalog struct{ *rest.Catalog }

func (restCatalog) Close() error { return nil }

// openREST opens iceberg-go's REST catalog a rest+http(s):// URI names.
func openREST(ctx context.Context, uri, warehouse string) (Catalog, error) {
	u, err := url.Parse(strings.TrimPrefix(uri, "rest+"))
	if err != nil {
		return nil, fmt.Errorf("%w %q: want %s", ErrCatalogURI, redact(uri), catalogForms)
	}
	props := iceberg.Properties{}
	for k, vs := range u.Query() {
		props[k] = vs[len(vs)-1]
	}
	u.RawQuery = ""
	props["type"] = string(catalog.REST)
	props["uri"] = u.String()
	if v := os.Getenv("ICEBERG_REST_CREDENTIAL"); v != "" && props["credential"] == "" {
		props["credential"] = v
	}
	if v := os.Getenv("ICEBERG_REST_TOKEN"); v != "" && props["token"] == "" {
		props["token"] = v
	}
	if warehouse != "" && props["warehouse"] == "" {
		if err := addWarehouse(props, warehouse); err != nil {
			return nil, err
		}
	}
	cat, err := catalog.Load(ctx, CatalogName, props)
	if err != nil {
		return nil, fmt.Errorf("icesync: catalog %s: %w", redact(uri), scrub(err, props["credential"], props["token"]))
	}
	rc, ok := cat.(*rest.Catalog)
	if !ok {
		return nil, fmt.Errorf("icesync: catalog %s: iceberg-go returned a %T", redact(uri), cat)
	}
	return restCatalog{rc}, nil
}

// warehouseProps turns a warehouse into the location iceberg-go takes as
// the root of new tables, and the FileIO properties that location needs:
// a local directory becomes a file: URL, an s3:// bucket gets the
// endpoint and region objstore would use (see objstore.Options).
func warehouseProps(wh string) (string, iceberg.Properties, error) {
	props := iceberg.Properties{}
	if wh == "" {
		return "", props, nil
	}
	scheme, rest, isURL := strings.Cut(wh, "://")
	if !isURL {
		abs, err := filepath.Abs(wh)
		if err != nil {
			return "", nil, fmt.Errorf("icesync: warehouse %q: %w", wh, err)
		}
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), props, nil
	}
	bucket, _, _ := strings.Cut(rest, "/")
	switch strings.ToLower(scheme) {
	case "file":
		return wh, props, nil
	case "s3", "s3a", "s3n":
		if bucket == "" {
			break
		}
		endpoint := cmp.Or(os.Getenv("AWS_ENDPOINT_URL_S3"), os.Getenv("AWS_ENDPOINT_URL"))
		region := cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
		if endpoint != "" {
			props[iceio.S3EndpointURL] = endpoint
			if region == "" {
				region = "us-east-1" // what objstore assumes for an endpoint with no region
			}
		}
		if region != "" {
			props[iceio.S3Region] = region
		}
		return wh, props, nil
	case "gs":
		if bucket == "" {
			break
		}
		return wh, props, nil
	case "abfs", "abfss", "wasb", "wasbs":
		if bucket == "" {
			break
		}
		if a := os.Getenv("AZURE_STORAGE_ACCOUNT"); a != "" {
			props[iceio.ADLSSharedKeyAccountName] = a
		}
		if k := os.Getenv("AZURE_STORAGE_KEY"); k != "" {
			props[iceio.ADLSSharedKeyAccountKey] = k
		}
		return wh, props, nil
	case "az":
		return "", nil, fmt.Errorf("%w %q: write it abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PREFIX, the form Iceberg's Azure FileIO takes", ErrWarehouse, wh)
	}
	return "", nil, fmt.Errorf("%w %q: want a directory, s3://BUCKET/PREFIX, gs://BUCKET/PREFIX or abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PREFIX", ErrWarehouse, wh)
}

// redact returns a URI with its password (and its query, which may hold
// a token or credential) replaced, for messages.
func redact(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Opaque != "" {
		// Not a URL with an authority: cut anything after '@' or '?'
		// that could be secret.
		if i := strings.IndexAny(uri, "@?"); i >= 0 && !strings.HasPrefix(strings.ToLower(uri), "sqlite:") {
			return uri[:i] + "@…"
		}
		return uri
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range maps.Keys(q) {
			if k != "sslmode" && k != "warehouse" && k != "prefix" {
				q[k] = []string{"xxxxx"}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// scrub replaces in err's text any of secrets (and the password of a
// URI among them) by xxxxx: drivers quote what they were given.
func scrub(err error, secrets ...string) error {
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if u, perr := url.Parse(s); perr == nil && u.User != nil {
			if p, ok := u.User.Password(); ok && p != "" {
				secrets = append(secrets, p, url.QueryEscape(p))
			}
			if p := u.Query().Get("password"); p != "" {
				secrets = append(secrets, p)
			}
		}
	}
	for _, s := range secrets {
		if len(s) >= 3 && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return scrubbed{msg, err}
}

// scrubbed is an error whose text had secrets taken out; it still
// unwraps to the original for errors.Is.
type scrubbed struct {
	msg string
	err error
}

func (e scrubbed) Error() string { return e.msg }
func (e scrubbed) Unwrap() error { return e.err }

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
