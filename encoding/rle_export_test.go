package encoding

// Internal entry points of the RLE family for the external tests.
var (
	DecodeRLEInt32 = decodeRLEInt32
	CountRLEInt32  = countRLEInt32
	AppendRLEInt32 = appendRLEInt32
	ScaledRound    = scaledRound
)

// CountRLEBool counts the values of a BOOLEAN RLE stream, which has the INT32 framing.
func CountRLEBool(src []byte) (int, error) { return countRLE(src, 0, 4, typeBool) }
