// Package probe is the rewriter's test subject: Work and Recurse are slowed in the tests, their twins
// (same bodies) never are, so the ratio of the two measured in one process is the injected slowdown.
package probe

// Work is about 2 µs of arithmetic for n = 2000.
func Work(n int) uint64 {
	acc := uint64(17)
	for i := 0; i < n; i++ {
		acc = acc*31 + acc>>7 + uint64(i)
	}
	return acc
}

// WorkTwin is Work under another name.
func WorkTwin(n int) uint64 {
	acc := uint64(17)
	for i := 0; i < n; i++ {
		acc = acc*31 + acc>>7 + uint64(i)
	}
	return acc
}

// Recurse calls itself depth times, then does WorkTwin(n) once.
func Recurse(depth, n int) uint64 {
	if depth == 0 {
		return WorkTwin(n)
	}
	return Recurse(depth-1, n) + 1
}

// RecurseTwin is Recurse under another name.
func RecurseTwin(depth, n int) uint64 {
	if depth == 0 {
		return WorkTwin(n)
	}
	return RecurseTwin(depth-1, n) + 1
}

// Add is exported: traced.
func Add(a, b int) int { return a + b }

// Counter is an exported type: its exported methods are traced.
type Counter struct{ n int }

// Inc has a pointer receiver.
func (c *Counter) Inc() { c.n++ }

// Value has a value receiver.
func (c Counter) Value() int { return c.n }

type hidden struct{}

// Visible is exported but its type is not: not part of the public API, not traced.
func (hidden) Visible() int { return 1 }

func double(a int) int { return 2 * a }

// Panics panics after its work; the deferred slowdown still runs (checked by TestPanicStillSlowed).
func Panics(n int) {
	WorkTwin(n)
	panic("probe")
}
