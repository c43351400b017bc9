// Package scan holds the machinery the readers of package arrowconv share
// to decode in parallel without waiting on the runtime: a [Team] that runs
// a window's column jobs on lingering helper goroutines, [DefaultPool],
// which keeps released record buffers for the next batches, and [Meter],
// which counts what an allocator has handed out so a server can hold a
// stream to a memory budget.
package scan
