package encoding

// SetMaxBinaryData lowers the AppendBinary data limit for a test and returns a restore func.
func SetMaxBinaryData(n int) (restore func()) {
	old := maxBinaryData
	maxBinaryData = n
	return func() { maxBinaryData = old }
}
