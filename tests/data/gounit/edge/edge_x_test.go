package edge_test

import (
	"testing"

	"example.com/edge"
)

func TestFromTheExternalPackage(t *testing.T) {
	if edge.Sum(nil) != 0 {
		t.Fatal("empty sum")
	}
}
