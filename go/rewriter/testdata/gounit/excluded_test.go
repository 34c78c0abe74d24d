//go:build never

package lib

import "testing"

func TestExcludedByConstraint(t *testing.T) {}
