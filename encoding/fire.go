package encoding

// Fire (Fast Integer REgression) is the predictor SPRINTZ uses; the Java reference hard-wires
// it (TSFileConfig.getSprintzPredictScheme returns "fire"). A predictor starts afresh for every
// SPRINTZ block and sees the block's values in order. It guesses the next value as the
// previous one plus a learned fraction of the previous step:
//
//	predict(prev)       = prev + ((acc >> learnShift) * delta) >> fracBits
//	train(prev, v, err) : acc += delta if err > 0, acc -= delta otherwise; delta = v - prev
//
// All arithmetic wraps at the width of the values. The 32-bit predictor (INT32, DATE, FLOAT)
// uses learnShift 2 and fracBits 8. The 64-bit one (INT64, TIMESTAMP, DOUBLE) uses learnShift 3
// and fracBits 16, and its accumulator is an int32 even though delta is 64-bit: Java declares
// the accumulator as int in the shared base class, so every update is truncated to 32 bits
// before the next shift.

// fire32 is the Fire predictor for 32-bit values.
type fire32 struct {
	acc   int32
	delta int32
}

func (f *fire32) predict(prev int32) int32 {
	return prev + ((f.acc>>2)*f.delta)>>8
}

func (f *fire32) train(prev, v, err int32) {
	if err > 0 {
		f.acc += f.delta
	} else {
		f.acc -= f.delta
	}
	f.delta = v - prev
}

// fire64 is the Fire predictor for 64-bit values, with Java's 32-bit accumulator.
type fire64 struct {
	acc   int32
	delta int64
}

func (f *fire64) predict(prev int64) int64 {
	return prev + (int64(f.acc>>3)*f.delta)>>16
}

func (f *fire64) train(prev, v, err int64) {
	if err > 0 {
		f.acc = int32(int64(f.acc) + f.delta)
	} else {
		f.acc = int32(int64(f.acc) - f.delta)
	}
	f.delta = v - prev
}
