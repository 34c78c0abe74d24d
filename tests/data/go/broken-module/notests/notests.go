// Package notests has no test files at all: the adapter must skip it.
package notests

func Nothing() {}
