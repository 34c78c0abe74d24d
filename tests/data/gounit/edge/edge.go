// Package edge has tests that exercise the gounit adapter's edges (tests/e2e/test_gounit_adapter.py).
package edge

// Sum adds its arguments.
func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
