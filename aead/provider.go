package aead

import (
	"context"
	"fmt"
	"sync"
)

// KeyProvider holds key-encryption keys (KEKs), for example in a KMS, and
// wraps and unwraps the per-file data keys with them. Files name a provider
// by its ID, so the id must be stable. The wrapped form is opaque to this
// package: a provider may use RFC 3394 (as KEKProvider does) or return a
// KMS ciphertext blob.
//
// Implementations must be safe for concurrent use. They should wrap
// ErrKeyNotFound when they hold no KEK for (keyID, keyVersion) and
// ErrWrongKey when the KEK does not unwrap the given bytes, and must never
// put key bytes in an error.
type KeyProvider interface {
	// ID returns the provider id written into file headers.
	ID() string
	// UnwrapDataKey returns the data key wrapped in wrapped. The caller
	// owns the result and zeroes it after use.
	UnwrapDataKey(ctx context.Context, keyID, keyVersion string, wrapped []byte) ([]byte, error)
	// WrapDataKey returns dataKey wrapped under the named KEK.
	WrapDataKey(ctx context.Context, keyID, keyVersion string, dataKey []byte) ([]byte, error)
}

// Registry maps provider ids to providers, so that a reader can find the
// provider a file header names. It is safe for concurrent use. A nil
// *Registry is valid and empty.
type Registry struct {
	mu sync.RWMutex
	m  map[string]KeyProvider
}

// NewRegistry returns a registry holding ps. Like Register, it refuses a
// nil provider, a blank id and a duplicate id.
func NewRegistry(ps ...KeyProvider) (*Registry, error) {
	r := &Registry{m: make(map[string]KeyProvider, len(ps))}
	for _, p := range ps {
		if err := r.Register(p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds p under p.ID(). A nil provider, a blank id or an id that
// is already registered is an error wrapping ErrInvalidProvider: two
// providers under one id would make the file format ambiguous.
func (r *Registry) Register(p KeyProvider) error {
	if p == nil {
		return fmt.Errorf("%w: nil provider", ErrInvalidProvider)
	}
	id := p.ID()
	if isBlank(id) {
		return fmt.Errorf("%w: blank provider id %q", ErrInvalidProvider, id)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[id]; dup {
		return fmt.Errorf("%w: provider id %q is already registered", ErrInvalidProvider, id)
	}
	if r.m == nil {
		r.m = make(map[string]KeyProvider)
	}
	r.m[id] = p
	return nil
}

// Lookup returns the provider registered under id, or an error wrapping
// ErrUnknownProvider that names id.
func (r *Registry) Lookup(id string) (KeyProvider, error) {
	if r != nil {
		r.mu.RLock()
		p, ok := r.m[id]
		r.mu.RUnlock()
		if ok {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w: no provider registered under id %q", ErrUnknownProvider, id)
}
