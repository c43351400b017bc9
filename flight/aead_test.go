package flight

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/tsfile"
)

// TestEncryptedFiles serves a Page AEAD file: with the key registry in
// ReadOptions its flight equals the plaintext twin read in-process; a
// server without the key lists the file but refuses its data with an
// error naming the key id.
func TestEncryptedFiles(t *testing.T) {
	plainDir, root := t.TempDir(), t.TempDir()
	plain := writeTestFile(t, plainDir, "plain.tsfile", 4, 300, 1)

	kp := aead.NewKEKProvider(aead.KeyFileProviderID)
	require.NoError(t, kp.Add("serve", "1", bytes.Repeat([]byte{7}, 32)))
	reg, err := aead.NewRegistry(kp)
	require.NoError(t, err)
	f, err := tsfile.OpenFile(plain, nil)
	require.NoError(t, err)
	rdr, err := arrowconv.NewTableReader(f, "weather", nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = fromarrow.WriteTsFile(&buf, rdr, &fromarrow.Options{Write: &tsfile.WriteOptions{Keys: reg,
		Encryption: &aead.WriterConfig{ProviderID: aead.KeyFileProviderID, ProfileID: aead.ProfileAESGCM256, KeyID: "serve", KeyVersion: "1"}}})
	require.NoError(t, err)
	rdr.Release()
	f.Close()
	require.NoError(t, os.WriteFile(filepath.Join(root, "enc.tsfile"), buf.Bytes(), 0o644))

	srv := startServer(t, Options{Root: root, ReadOptions: &tsfile.ReadOptions{Keys: reg}})
	c := dial(t, srv.addr)
	got := readFlight(t, context.Background(), c, getInfo(t, c, pathDesc("weather")))
	require.Equal(t, localRows(t, nil, "weather", plain), got)

	locked := startServer(t, Options{Root: root})
	lc := dial(t, locked.addr)
	fi := getInfo(t, lc, pathDesc("weather"))
	require.NotEmpty(t, fi.Endpoint)
	_, err = tryGet(context.Background(), lc, fi.Endpoint[0])
	require.Error(t, err)
	require.NotEqual(t, codes.OK, status.Code(err))
	require.Contains(t, err.Error(), `"serve"`)
}
