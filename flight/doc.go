// Package flight is reserved for the Arrow Flight server that serves a
// directory of TsFiles as record batch streams. It has no API yet; the
// conversion it will serve is arrowconv.NewTableReader.
package flight
