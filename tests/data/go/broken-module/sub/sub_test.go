package sub

import "testing"

var sink int

func BenchmarkDouble(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = Double(i)
	}
}
