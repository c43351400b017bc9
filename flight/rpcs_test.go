package flight

import (
	"context"
	"testing"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TestBearerSchemeCaseInsensitive checks that the authentication scheme
// is matched without regard to case (RFC 7235, section 2.1), as some
// clients spell it "bearer", while the token itself is matched exactly.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root, Tokens: []string{"s3cret-one"}})
	c := dial(t, srv.addr)
	for _, tc := range []struct {
		header string
		code   codes.Code
	}{
		{"Bearer s3cret-one", codes.OK},
		{"bearer s3cret-one", codes.OK},
		{"BEARER s3cret-one", codes.OK},
		{"bEaReR s3cret-one", codes.OK},
		{"Bearer  s3cret-one", codes.OK}, // RFC 7235: 1*SP
		{"Bearer S3CRET-ONE", codes.Unauthenticated},
		{"Bearers3cret-one", codes.Unauthenticated},
		{"Bearer", codes.Unauthenticated},
		{"Bearer ", codes.Unauthenticated},
		{"Basic s3cret-one", codes.Unauthenticated},
		{"s3cret-one", codes.Unauthenticated},
	} {
		t.Run(tc.header, func(t *testing.T) {
			ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", tc.header)
			_, err := c.GetFlightInfo(ctx, pathDesc("weather"))
			assert.Equal(t, tc.code, status.Code(err), "%v", err)
		})
	}
}

// TestUnimplementedRPCs checks that the RPCs this server does not offer
// answer UNIMPLEMENTED with a message saying what to use instead.
func TestUnimplementedRPCs(t *testing.T) {
	root, _ := testRoot(t)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)
	ctx := context.Background()
	check := func(t *testing.T, err error, words ...string) {
		t.Helper()
		require.Error(t, err)
		assert.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
		for _, w := range words {
			assert.Contains(t, status.Convert(err).Message(), w)
		}
	}
	t.Run("ListActions", func(t *testing.T) {
		s, err := c.ListActions(ctx, &arrowflight.Empty{})
		if err == nil {
			_, err = s.Recv()
		}
		check(t, err, "no actions", "GetFlightInfo")
	})
	t.Run("DoAction", func(t *testing.T) {
		s, err := c.DoAction(ctx, &arrowflight.Action{Type: "CancelFlightInfo"})
		if err == nil {
			_, err = s.Recv()
		}
		check(t, err, "no actions", `"CancelFlightInfo"`)
	})
	t.Run("PollFlightInfo", func(t *testing.T) {
		_, err := c.PollFlightInfo(ctx, pathDesc("weather"))
		check(t, err, "GetFlightInfo")
	})
	t.Run("DoExchange", func(t *testing.T) {
		s, err := c.DoExchange(ctx)
		if err == nil {
			_, err = s.Recv()
		}
		check(t, err, "DoGet")
	})
}
