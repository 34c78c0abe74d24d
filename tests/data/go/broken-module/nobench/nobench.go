// Package nobench has unit tests but no benchmarks: the adapter must skip it.
package nobench

func Answer() int { return 42 }
