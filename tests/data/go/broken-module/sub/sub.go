// Package sub is a second package with benchmarks (qualified names in a multi-package suite).
package sub

func Double(n int) int { return 2 * n }
