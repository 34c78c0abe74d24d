package edge

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCheapBodyExpensiveCleanup sleeps 5 ms in its cleanup: were the cleanup timed, no run could take less.
func TestCheapBodyExpensiveCleanup(t *testing.T) {
	t.Cleanup(func() { time.Sleep(5 * time.Millisecond) })
	data := make([]int, 1000)
	for i := range data {
		data[i] = i % 7
	}
	if Sum(data) != 2997 {
		t.Fatal("sum")
	}
}

// manyInts is built once, so that Sum is all TestSumsManyInts spends its time on.
var manyInts = func() []int {
	data := make([]int, 100000)
	for i := range data {
		data[i] = i % 3
	}
	return data
}()

// TestSumsManyInts is what EDGE_SLOW=1 slows down (about 4x).
func TestSumsManyInts(t *testing.T) {
	if Sum(manyInts) != 99999 {
		t.Fatal("sum")
	}
}

// TestRepeatsText does not call Sum: EDGE_SLOW does not touch it.
func TestRepeatsText(t *testing.T) {
	if len(strings.Repeat("ab", 5000)) != 10000 {
		t.Fatal("repeat")
	}
}

// TestPrints prints, without a line break and then a line that looks like the protocol.
func TestPrints(t *testing.T) {
	fmt.Print("no line break, then ")
	fmt.Println(`{"v":1,"error":"a test's print that looks like the protocol"}`)
	if Sum([]int{1, 2}) != 3 {
		t.Fatal("sum")
	}
}

// TestSubtests has three subtests with constant names, each a benchmark of its own (TestSubtests/cheap, ...):
// run alone, cheap does not pay for its sleeping sibling; conditional runs only when EDGE_CONDITIONAL is set.
func TestSubtests(t *testing.T) {
	data := make([]int, 1000)
	for i := range data {
		data[i] = i % 7
	}
	t.Run("cheap", func(t *testing.T) {
		if Sum(data) != 2997 {
			t.Fatal("sum")
		}
	})
	t.Run("sleeps 2ms", func(t *testing.T) { time.Sleep(2 * time.Millisecond) })
	if os.Getenv("EDGE_CONDITIONAL") != "" {
		t.Run("conditional", func(t *testing.T) {})
	}
}

// TestTable's subtests come from a table literal, Go's usual idiom: each row a benchmark of its own
// (TestTable/cheap_row, TestTable/sleepy_row), listed from the source.
func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sleep time.Duration
	}{{name: "cheap row"}, {name: "sleepy row", sleep: 2 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) { time.Sleep(tc.sleep) })
	}
}

func TestFailsDeliberately(t *testing.T) {
	t.Fatal("deliberately broken")
}

func TestSkipsItself(t *testing.T) {
	t.Skip("not today")
}
