package objtest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

// AzServer is a running Azurite blob service with its well-known
// development account.
type AzServer struct {
	Account  string // devstoreaccount1
	Key      string // the account's published development key
	Endpoint string // http://127.0.0.1:PORT/devstoreaccount1, the blob service URL

	client *azblob.Client
}

// Azurite's development account, published in its documentation
// (https://github.com/Azure/Azurite#default-storage-account): every
// Azurite accepts it, so it is no secret.
const (
	azAccount = "devstoreaccount1"
	azKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// azuriteFallback is where this project's machines install Azurite when
// $TSARROW_AZURITE is unset and azurite-blob is not on PATH.
const azuriteFallback = "/work/tools/azurite/node_modules/.bin/azurite-blob"

var azServer once[*AzServer]

// Azurite returns the shared Azurite blob service of this test binary,
// starting it on first use (see the package comment): 127.0.0.1 on a
// free port, its data in memory. The program is $TSARROW_AZURITE (the
// azurite-blob script of npm package azurite, which needs node on PATH),
// else azurite-blob on PATH, else
// /work/tools/azurite/node_modules/.bin/azurite-blob; when none exists
// Azurite skips t, or fails it under CI=true.
func Azurite(t testing.TB) *AzServer {
	t.Helper()
	return azServer.get(t, startAzurite)
}

func startAzurite() (*AzServer, string, error) {
	bin, tried, err := findProgram("TSARROW_AZURITE", "azurite-blob", azuriteFallback)
	if err != nil || bin == "" {
		return nil, "azurite-blob not found (" + tried + "); install it with npm install --prefix DIR azurite@3.37.0", err
	}
	// Azurite writes nothing with --inMemoryPersistence, but it may
	// still put files in its working directory.
	dir, err := dataDir("azurite")
	if err != nil {
		return nil, "", err
	}
	args := func(port int) []string {
		return []string{
			"--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
			"--inMemoryPersistence", "--extentMemoryLimit", "1024",
			"--silent", "--skipApiVersionCheck", "--disableTelemetry",
		}
	}
	endpoint := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d/%s", port, azAccount) }
	_, port, err := startServer("azurite-blob", dir, bin, nil, args, func(port int) string { return endpoint(port) + "?comp=list" })
	if err != nil {
		return nil, "", err
	}
	s := &AzServer{Account: azAccount, Key: azKey, Endpoint: endpoint(port)}
	s.client, err = azblob.NewClientFromConnectionString(s.ConnectionString(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("azblob client for Azurite: %w", err)
	}
	return s, "", nil
}

// ConnectionString returns the connection string of the server's account,
// as AZURE_STORAGE_CONNECTION_STRING takes it.
func (s *AzServer) ConnectionString() string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;", s.Account, s.Key, s.Endpoint)
}

// Env returns the environment a child process (ts2arrow) needs to reach
// the server by gocloud.dev/blob/azureblob's rules:
// AZURE_STORAGE_CONNECTION_STRING; AZURE_STORAGE_IS_LOCAL_EMULATOR=true
// and AZURE_STORAGE_DOMAIN=127.0.0.1:PORT, without which azureblob's URL
// opener refuses the connection string's http endpoint; and
// AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY and AZURE_STORAGE_SAS_TOKEN
// emptied, since they would take precedence over the connection string.
func (s *AzServer) Env() []string {
	return []string{
		"AZURE_STORAGE_CONNECTION_STRING=" + s.ConnectionString(),
		"AZURE_STORAGE_IS_LOCAL_EMULATOR=true",
		"AZURE_STORAGE_DOMAIN=" + strings.TrimPrefix(strings.TrimSuffix(s.Endpoint, "/"+s.Account), "http://"),
		"AZURE_STORAGE_ACCOUNT=",
		"AZURE_STORAGE_KEY=",
		"AZURE_STORAGE_SAS_TOKEN=",
	}
}

// Setenv sets Env's variables for the rest of t (t.Setenv: not with
// t.Parallel).
func (s *AzServer) Setenv(t testing.TB) {
	t.Helper()
	setenv(t, s.Env())
}

// Container creates a new empty container named after t, unique in this
// test binary, and deletes it when t ends.
func (s *AzServer) Container(t testing.TB) string {
	t.Helper()
	name := uniqueName(t)
	if _, err := s.client.CreateContainer(context.Background(), name, nil); err != nil {
		t.Fatalf("objtest: create container %s: %v", name, err)
	}
	t.Cleanup(func() { s.client.DeleteContainer(context.Background(), name, nil) })
	return name
}

// Put stores data as blob key in container.
func (s *AzServer) Put(t testing.TB, container, key string, data []byte) {
	t.Helper()
	if _, err := s.client.UploadBuffer(context.Background(), container, key, data, nil); err != nil {
		t.Fatalf("objtest: put az://%s/%s: %v", container, key, err)
	}
}

// Get returns blob key of container.
func (s *AzServer) Get(t testing.TB, container, key string) []byte {
	t.Helper()
	resp, err := s.client.DownloadStream(context.Background(), container, key, nil)
	if err != nil {
		t.Fatalf("objtest: get az://%s/%s: %v", container, key, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("objtest: get az://%s/%s: %v", container, key, err)
	}
	return data
}

// Keys lists the blobs under prefix in container, every page, in the
// order the service lists them (by name).
func (s *AzServer) Keys(t testing.TB, container, prefix string) []string {
	t.Helper()
	keys := []string{}
	pages := s.client.NewListBlobsFlatPager(container, &azblob.ListBlobsFlatOptions{Prefix: &prefix})
	for pages.More() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("objtest: list az://%s/%s: %v", container, prefix, err)
		}
		for _, b := range page.Segment.BlobItems {
			keys = append(keys, *b.Name)
		}
	}
	return keys
}
