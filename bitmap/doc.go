// Package bitmap converts between the two validity-bitmap bit orders that meet
// when TsFile pages are turned into Apache Arrow arrays, and spreads compacted
// (null-free) values out to their logical positions.
//
// # Bit orders
//
// A TsFile aligned value page carries a present bitmap in MSB-first order:
// position i is bit 7-(i mod 8) of byte i/8, so the first position of each
// byte is its most significant bit. A set bit means the position has a value.
// For example, the bytes 10110000 01000000 with a position count of 10 mark
// positions 0, 2, 3 and 9 as present; the six unused low-order bits of the
// last byte are not positions and are ignored.
//
// An Arrow validity bitmap is LSB-first: position i is bit i mod 8 of byte
// i/8. The same four positions are therefore the bytes 0x0d, 0x02 in Arrow.
// Arrow arrays also often start at a bit offset that is not a multiple of
// eight, because pages are appended one after another into a single builder
// buffer, so the conversions here take a bit offset on the Arrow side.
//
// Converting one order to the other reverses the bits within each byte; the
// byte order is unchanged. The hot loops do this eight bytes at a time on a
// uint64; only the partial bytes at either edge are handled with masks.
//
// # Compacted values
//
// A value page stores only the present values, in position order. Scatter,
// ScatterInPlace and ScatterOffsets place k compacted values (k being the
// popcount of the bitmap over the page's positions) at the present positions
// of an n-position output, leaving null positions zero (or, for offsets,
// empty).
//
// # Errors
//
// Functions in this package do not validate data: a page whose value count
// disagrees with its bitmap is corrupt, and the caller must detect that (for
// instance by comparing CountMSB with the decoded value count) before calling
// Scatter. Slices that are too short, and negative counts or offsets, are
// programming errors and cause a panic, as documented on each function.
package bitmap
