// Package aead is reserved for Page AEAD: the FileEncryptionHeader at
// offset 7, key providers, and chunk and page authentication
// (shared/spec/PAGE-AEAD.md). It has no API yet. Until it does, tsfile.Open
// refuses files with an encryption header with ErrUnsupported, and the
// page path offers tsfile.PayloadDecoder.Decrypt as the hook this package
// will fill.
package aead
