package broken

import (
	"fmt"
	"os"
	"testing"
	"time"
)

var sink int

// repetitions counts how often each benchmark started a repetition: the
// testing package calls a benchmark function with b.N == 1 at the start of
// every -count repetition.
var repetitions = map[string]int{}

func startRepetition(b *testing.B) int {
	if b.N == 1 {
		repetitions[b.Name()]++
	}
	return repetitions[b.Name()]
}

func BenchmarkOK(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = Work(100)
	}
}

// BenchmarkPanic reports two repetitions, then panics in the third.
func BenchmarkPanic(b *testing.B) {
	if startRepetition(b) == 3 {
		panic("deliberate panic in BenchmarkPanic")
	}
	for i := 0; i < b.N; i++ {
		sink = Work(100)
	}
}

// BenchmarkHang reports one repetition, then sleeps for an hour in the second.
func BenchmarkHang(b *testing.B) {
	if startRepetition(b) == 2 {
		time.Sleep(time.Hour)
	}
	for i := 0; i < b.N; i++ {
		sink = Work(100)
	}
}

// BenchmarkFatal fails through the testing API (b.Fatal) in its first repetition.
func BenchmarkFatal(b *testing.B) {
	b.Fatal("deliberate failure in BenchmarkFatal")
}

// BenchmarkExit ends the whole test binary with status 3 as soon as it starts.
func BenchmarkExit(b *testing.B) {
	os.Exit(3)
}

// BenchmarkPrints writes to stdout and stderr while it runs, which splits
// go test's result line (the name is printed before the benchmark runs).
func BenchmarkPrints(b *testing.B) {
	if b.N == 1 {
		fmt.Println("hello from BenchmarkPrints on stdout")
		fmt.Fprintln(os.Stderr, "hello from BenchmarkPrints on stderr")
	}
	for i := 0; i < b.N; i++ {
		sink = Work(100)
	}
}

// trickyNames are sub-benchmark names full of regular-expression
// metacharacters; each reports its index as the custom metric "id" so a test
// can check that exactly the requested one ran.
var trickyNames = []string{
	"a.b(c)[1]+x|y",
	"k=v*2",
	"with space",
	"procs-4",
	"dup",
	"dup",
	`back\slash^$`,
	"{1,2}?",
}

func BenchmarkTricky(b *testing.B) {
	for id, name := range trickyNames {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = Work(50)
			}
			b.ReportMetric(float64(id), "id")
		})
	}
	b.Run("outer=1", func(b *testing.B) {
		b.Run("inner", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = Work(50)
			}
			b.ReportMetric(100, "id")
		})
	})
}
