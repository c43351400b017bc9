package aead

import "fmt"

// Profile is an immutable algorithm suite (PAGE-AEAD §3, §8): the page
// cipher, the page body layout and its overhead, and how the data key is
// wrapped. A profile id written into a file must keep its meaning for as
// long as such files exist, so profiles are never changed, only added.
//
// Both profiles this package implements seal a page as
// nonce[12] | AES-GCM ciphertext | tag[16] with a random nonce, and wrap
// the data key with RFC 3394 AES key wrap.
type Profile struct {
	ID       string
	KeySize  int // data key (DEK) length in bytes: the AES-GCM key
	KEKSize  int // key-encryption key length in bytes for AES key wrap
	Overhead int // bytes a sealed page body adds to its plaintext
}

// Profile ids.
const (
	// ProfileAESGCM128 is the upstream test profile (SEEN in PAGE-AEAD
	// §5.3): AES-128-GCM pages, RFC 3394 wrap under a 128-bit KEK.
	ProfileAESGCM128 = "AES_GCM_128_AES_WRAP_128_V1"

	// ProfileAESGCM256 is the PROPOSED production profile of PAGE-AEAD §8:
	// AES-256-GCM pages, RFC 3394 wrap under a 256-bit KEK. Another
	// implementation may not know it.
	ProfileAESGCM256 = "AES_GCM_256_AES_WRAP_256_V1"
)

const (
	nonceSize = 12
	tagSize   = 16
	overhead  = nonceSize + tagSize
)

var profiles = [...]Profile{
	{ID: ProfileAESGCM128, KeySize: 16, KEKSize: 16, Overhead: overhead},
	{ID: ProfileAESGCM256, KeySize: 32, KEKSize: 32, Overhead: overhead},
}

// LookupProfile returns the profile with the given id. The result is a
// copy, so changing it affects nothing else. An id this package does not
// implement gives an error wrapping ErrUnknownProfile.
func LookupProfile(id string) (*Profile, error) {
	for i := range profiles {
		if profiles[i].ID == id {
			p := profiles[i]
			return &p, nil
		}
	}
	return nil, fmt.Errorf("%w: %q (known: %s, %s)", ErrUnknownProfile, id, ProfileAESGCM128, ProfileAESGCM256)
}
