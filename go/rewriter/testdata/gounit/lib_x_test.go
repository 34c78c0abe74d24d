package lib_test

import (
	tt "testing"

	"example.com/gounit"
)

func TestExternal(t *tt.T) {
	if lib.Sum() != 0 {
		t.Fatal("empty sum")
	}
}
