package icesync

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"

	// iceberg-go's Glue and Hive Metastore catalogs, registered by their
	// packages as the catalog types "glue" and "hive" (issue 41: "Glue and
	// Hive where the library offers them"). Both are pure Go; together
	// they add about 24 MB to the ts2arrow binary (the AWS SDK's Glue
	// client, the Thrift client of the metastore).
	_ "github.com/apache/iceberg-go/catalog/glue"
	_ "github.com/apache/iceberg-go/catalog/hive"
)

// closingCatalog is a catalog whose Close, if any, releases it.
type closingCatalog struct{ catalog.Catalog }

func (c closingCatalog) Close() error {
	if cl, ok := c.Catalog.(interface{ Close() error }); ok {
		return cl.Close()
	}
	return nil
}

// openHive opens the Hive Metastore a hive+thrift://HOST[:PORT] (or
// thrift://HOST[:PORT]) URI names (port 9083 when left out), through
// iceberg-go's Thrift client, as Spark's and Trino's hive catalogs reach
// it. The warehouse places the tables the sync creates (hive.metastore's
// own warehouse when "").
func openHive(ctx context.Context, uri, warehouse string) (Catalog, error) {
	u, err := url.Parse(strings.TrimPrefix(uri, "hive+"))
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("%w %q: want %s", ErrCatalogURI, redact(uri), catalogForms)
	}
	return loadCatalog(ctx, uri, iceberg.Properties{"type": "hive", "uri": "thrift://" + u.Host}, warehouse)
}

// openGlue opens AWS Glue's Data Catalog: glue:// for the account's own,
// glue://CATALOG_ID for another account's; the query parameters region=,
// endpoint= (a Glue-compatible endpoint) and max-retries= become
// iceberg-go's glue.* properties, and the credentials are the AWS SDK's
// usual chain (AWS_ACCESS_KEY_ID ..., AWS_PROFILE, an instance role).
// A table the sync creates needs a warehouse: Glue does not place tables.
func openGlue(ctx context.Context, uri, warehouse string) (Catalog, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("%w %q: want %s", ErrCatalogURI, redact(uri), catalogForms)
	}
	props := iceberg.Properties{"type": "glue"}
	if u.Host != "" {
		props["glue.id"] = u.Host
	}
	for k, vs := range u.Query() {
		switch k {
		case "region", "endpoint", "max-retries", "retry-mode", "skip-archive":
			props["glue."+k] = vs[len(vs)-1]
		default:
			return nil, fmt.Errorf("%w %q: unknown parameter %q (want region, endpoint, max-retries, retry-mode or skip-archive)", ErrCatalogURI, redact(uri), k)
		}
	}
	return loadCatalog(ctx, uri, props, warehouse)
}

// loadCatalog adds the warehouse to a catalog's properties and loads the
// catalog through iceberg-go's registry (the Hive and Glue catalogs).
func loadCatalog(ctx context.Context, uri string, props iceberg.Properties, warehouse string) (Catalog, error) {
	if err := addWarehouse(props, warehouse); err != nil {
		return nil, err
	}
	cat, err := catalog.Load(ctx, CatalogName, props)
	if err != nil {
		return nil, fmt.Errorf("icesync: catalog %s: %w", redact(uri), err)
	}
	return closingCatalog{cat}, nil
}

// addWarehouse puts the warehouse and its file IO's properties into a
// catalog's properties.
func addWarehouse(props iceberg.Properties, warehouse string) error {
	loc, fileProps, err := warehouseProps(warehouse)
	if err != nil {
		return err
	}
	if loc != "" {
		props["warehouse"] = loc
	}
	for k, v := range fileProps {
		if _, ok := props[k]; !ok {
			props[k] = v
		}
	}
	return nil
}
