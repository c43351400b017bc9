package flight

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func bearer(tok string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok)
}

func TestBearerAuth(t *testing.T) {
	root, files := testRoot(t)
	srv := startServer(t, Options{Root: root, Tokens: []string{"s3cret-one", "s3cret-two"}})
	c := dial(t, srv.addr)

	for _, tc := range []struct {
		name string
		ctx  context.Context
		code codes.Code
	}{
		{"no header", context.Background(), codes.Unauthenticated},
		{"wrong token", bearer("s3cret-three"), codes.Unauthenticated},
		{"prefix of a token", bearer("s3cret"), codes.Unauthenticated},
		{"basic scheme", metadata.AppendToOutgoingContext(context.Background(), "authorization", "Basic czNjcmV0LW9uZQ=="), codes.Unauthenticated},
		{"first token", bearer("s3cret-one"), codes.OK},
		{"second token", bearer("s3cret-two"), codes.OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.GetFlightInfo(tc.ctx, pathDesc("weather"))
			assert.Equal(t, tc.code, status.Code(err), "%v", err)
			ls, err := c.ListFlights(tc.ctx, &arrowflight.Criteria{})
			require.NoError(t, err)
			_, err = ls.Recv()
			assert.Equal(t, tc.code, status.Code(err), "%v", err)
		})
	}
	// A ticket obtained with a token is useless without one.
	fi, err := c.GetFlightInfo(bearer("s3cret-one"), pathDesc("a.tsfile", "weather"))
	require.NoError(t, err)
	s, err := c.DoGet(context.Background(), fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s.Recv()
	assert.Equal(t, codes.Unauthenticated, status.Code(err))
	rows := readFlight(t, bearer("s3cret-two"), c, fi)
	assert.Equal(t, localRows(t, nil, "weather", files[0]), rows)

	// Health checks need no token, so probes work.
	conn, err := grpc.NewClient(srv.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	h, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{Service: flightServiceName})
	require.NoError(t, err)
	assert.Equal(t, healthpb.HealthCheckResponse_SERVING, h.Status)
	// Tokens never reach the log.
	assert.NotContains(t, srv.log.String(), "s3cret")
}

func TestForgedTickets(t *testing.T) {
	root, _ := testRoot(t)
	outside := t.TempDir()
	writeTestFile(t, outside, "secret.tsfile", 1, 10, 7)
	srv := startServer(t, Options{Root: root, TicketKey: []byte("0123456789abcdef0123456789abcdef")})
	c := dial(t, srv.addr)
	fi := getInfo(t, c, cmdDesc(t, Query{Table: "weather", Files: []string{"a.tsfile"}, Where: map[string]string{"region": "north"}}))
	good := fi.Endpoint[0].Ticket.Ticket

	redeem := func(tk []byte) error {
		s, err := c.DoGet(context.Background(), &arrowflight.Ticket{Ticket: tk})
		require.NoError(t, err)
		for {
			if _, err := s.Recv(); err != nil {
				if err.Error() == "EOF" {
					return nil
				}
				return err
			}
		}
	}
	require.NoError(t, redeem(good))

	// Widening the filters or pointing the part elsewhere breaks the
	// signature.
	payload := good[1 : len(good)-32]
	var g grant
	require.NoError(t, json.Unmarshal(payload, &g))
	resign := func(key []byte, mutate func(*grant)) []byte {
		h := g
		h.Parts = append([]part(nil), g.Parts...)
		mutate(&h)
		tk, err := (&signer{key: key, now: time.Now}).sign(&h)
		require.NoError(t, err)
		return tk
	}
	otherKey := []byte("another key of thirty-two bytes!")
	keep := func(*grant) {}
	cases := []struct {
		name string
		tk   []byte
		code codes.Code
	}{
		{"empty", nil, codes.PermissionDenied},
		{"garbage", []byte("give me everything"), codes.PermissionDenied},
		{"other key", resign(otherKey, keep), codes.PermissionDenied},
		{"other key, widened", resign(otherKey, func(h *grant) { h.Where = nil }), codes.PermissionDenied},
		{"other key, escaping", resign(otherKey, func(h *grant) { h.Parts[0].File = "../" + filepath.Base(outside) + "/secret.tsfile" }), codes.PermissionDenied},
		{"truncated", good[:len(good)-1], codes.PermissionDenied},
		{"expired", resign(srv.opts.TicketKey, func(h *grant) { h.Expires = time.Now().Add(-time.Minute).Unix() }), codes.FailedPrecondition},
		// With the server's key (a leaked key), paths are still confined.
		{"server key, escaping", resign(srv.opts.TicketKey, func(h *grant) { h.Parts[0].File = "../" + filepath.Base(outside) + "/secret.tsfile" }), codes.PermissionDenied},
		{"server key, absolute", resign(srv.opts.TicketKey, func(h *grant) { h.Parts[0].File = filepath.Join(outside, "secret.tsfile") }), codes.PermissionDenied},
		{"server key, bad range", resign(srv.opts.TicketKey, func(h *grant) { h.Parts[0].Hi = 1000 }), codes.FailedPrecondition},
	}
	for i := 0; i < len(good); i += max(1, len(good)/40) {
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x20
		cases = append(cases, struct {
			name string
			tk   []byte
			code codes.Code
		}{"flipped byte", bad, codes.PermissionDenied})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := redeem(tc.tk)
			assert.Equal(t, tc.code, status.Code(err), "%v", err)
		})
	}
}

func TestPathEscape(t *testing.T) {
	root, _ := testRoot(t)
	outside := t.TempDir()
	writeTestFile(t, outside, "secret.tsfile", 1, 10, 7)
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.tsfile"), filepath.Join(root, "link.tsfile")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "linkdir")))
	// A symlink that stays inside the root is served.
	require.NoError(t, os.Symlink("a.tsfile", filepath.Join(root, "alias.tsfile")))
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)

	assert.Contains(t, srv.Problems(), "link.tsfile")
	getInfo(t, c, pathDesc("alias.tsfile", "weather"))
	for _, p := range []string{
		"../" + filepath.Base(outside) + "/secret.tsfile",
		filepath.Join(outside, "secret.tsfile"),
		"link.tsfile",
		"linkdir/secret.tsfile",
		"sub/../../x.tsfile",
	} {
		_, err := c.GetFlightInfo(context.Background(), pathDesc(p, "weather"))
		code := status.Code(err)
		assert.True(t, code == codes.PermissionDenied || code == codes.FailedPrecondition || code == codes.NotFound, "%s: %v", p, err)
		assert.NotEqual(t, codes.OK, code)
		_, err = c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "weather", Files: []string{p}}))
		assert.NotEqual(t, codes.OK, status.Code(err), p)
	}
	_, err := c.GetFlightInfo(context.Background(), pathDesc("../x.tsfile", "weather"))
	assert.Equal(t, codes.PermissionDenied, status.Code(err))
	// The dataset does not include what the links point at.
	fi := getInfo(t, c, pathDesc("weather"))
	var meta flightMeta
	require.NoError(t, json.Unmarshal(fi.AppMetadata, &meta))
	assert.Equal(t, 4, meta.Files, "a, alias, b, sub/c")
	assert.NotContains(t, srv.log.String(), outside+"/secret", "the server's own paths stay out of errors sent to clients")
}

// testPKI makes a CA and certificates it signs.
type testPKI struct {
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caPool *x509.CertPool
}

func newPKI(t testing.TB) *testPKI {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tsarrow test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &testPKI{ca: ca, caKey: key, caPool: pool}
}

func (p *testPKI) issue(t testing.TB, cn string, serial int64, usage x509.ExtKeyUsage) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestTLS(t *testing.T) {
	root, files := testRoot(t)
	pki := newPKI(t)
	serverCert := pki.issue(t, "server", 2, x509.ExtKeyUsageServerAuth)
	clientCert := pki.issue(t, "analyst", 3, x509.ExtKeyUsageClientAuth)
	want := localRows(t, nil, "weather", files...)

	tlsDial := func(t *testing.T, addr string, cfg *tls.Config) arrowflight.Client {
		return dial(t, addr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	}
	t.Run("server TLS", func(t *testing.T) {
		srv := startServer(t, Options{Root: root, TLS: &tls.Config{Certificates: []tls.Certificate{serverCert}, MinVersion: tls.VersionTLS12}})
		c := tlsDial(t, srv.addr, &tls.Config{RootCAs: pki.caPool, ServerName: "localhost"})
		fi := getInfo(t, c, pathDesc("weather"))
		assert.Equal(t, want, readFlight(t, context.Background(), c, fi))
		// A plaintext client cannot talk to it.
		plain := dial(t, srv.addr)
		_, err := plain.GetFlightInfo(context.Background(), pathDesc("weather"))
		assert.Equal(t, codes.Unavailable, status.Code(err))
		// Nor one that does not trust its CA.
		untrusting := tlsDial(t, srv.addr, &tls.Config{ServerName: "localhost", RootCAs: x509.NewCertPool()})
		_, err = untrusting.GetFlightInfo(context.Background(), pathDesc("weather"))
		assert.Equal(t, codes.Unavailable, status.Code(err))
	})
	t.Run("mutual TLS", func(t *testing.T) {
		srv := startServer(t, Options{Root: root, TLS: &tls.Config{
			Certificates: []tls.Certificate{serverCert}, ClientCAs: pki.caPool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
		}})
		c := tlsDial(t, srv.addr, &tls.Config{RootCAs: pki.caPool, ServerName: "localhost", Certificates: []tls.Certificate{clientCert}})
		fi := getInfo(t, c, pathDesc("weather"))
		assert.Equal(t, want, readFlight(t, context.Background(), c, fi))
		assert.Contains(t, srv.log.String(), "cn=analyst", "streams are logged with the client's certificate")

		anonymous := tlsDial(t, srv.addr, &tls.Config{RootCAs: pki.caPool, ServerName: "localhost"})
		_, err := anonymous.GetFlightInfo(context.Background(), pathDesc("weather"))
		assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)

		rogue := newPKI(t).issue(t, "mallory", 4, x509.ExtKeyUsageClientAuth)
		forged := tlsDial(t, srv.addr, &tls.Config{RootCAs: pki.caPool, ServerName: "localhost", Certificates: []tls.Certificate{rogue}})
		_, err = forged.GetFlightInfo(context.Background(), pathDesc("weather"))
		assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
	})
}
