// Package edge has tests that exercise the gounit adapter's edges (tests/e2e/test_gounit_adapter.py).
package edge

import "os"

// slow is the switchable slowdown of Sum (EDGE_SLOW=1: every element added four times over, then divided).
var slow = os.Getenv("EDGE_SLOW") == "1"

// Sum adds its arguments.
func Sum(xs []int) int {
	rounds := 1
	if slow {
		rounds = 4
	}
	total := 0
	for r := 0; r < rounds; r++ {
		for _, x := range xs {
			total += x
		}
	}
	return total / rounds
}
