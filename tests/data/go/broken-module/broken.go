// Package broken holds deliberately misbehaving and oddly named benchmarks for
// benchwarden's Go adapter tests. It is test data, not an example.
package broken

// Work does a little deterministic arithmetic so benchmarks have a cost.
func Work(n int) int {
	acc := 0
	for i := 0; i < n; i++ {
		acc = acc*31 + i
	}
	return acc
}
