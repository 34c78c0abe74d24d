package lib

import "testing"

func TestMain(m *testing.M) { m.Run() }

func Test(t *testing.T) {}

func TestSum(t *testing.T) {
	if Sum(1, 2) != 3 {
		t.Fatal("sum")
	}
}

func Testlower(t *testing.T) {}

func TestHelper(t *testing.T, x int) {}

func TestReturns(t *testing.T) error { return nil }

func TestGeneric[T any](t *testing.T) {}

type suite struct{}

func (suite) TestMethod(t *testing.T) {}

func BenchmarkSum(b *testing.B) {}

func TestÜber(t *testing.T) {}
