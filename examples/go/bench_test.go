package wordstat

import (
	"math"
	mrand "math/rand/v2"
	"strconv"
	"testing"
)

// sinkWords and friends keep results alive so the compiler cannot drop the work.
var (
	sinkWords  []string
	sinkCounts map[string]int
	sinkTop    []WordCount
)

// BenchmarkTokenize is the parameterised benchmark: one sub-benchmark per
// input size, reported as BenchmarkTokenize/size=100 and /size=1000.
func BenchmarkTokenize(b *testing.B) {
	for _, size := range []int{100, 1000} {
		text := GenerateText(size, 42)
		b.Run("size="+strconv.Itoa(size), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				sinkWords = Tokenize(text)
			}
		})
	}
}

func BenchmarkCountWordsHash(b *testing.B) {
	words := Tokenize(GenerateText(1000, 42))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkCounts = CountWordsHash(words)
	}
}

func BenchmarkCountWordsSorted(b *testing.B) {
	words := Tokenize(GenerateText(1000, 42))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkCounts = CountWordsSorted(words)
	}
}

func BenchmarkTopK(b *testing.B) {
	counts := CountWordsHash(Tokenize(GenerateText(1000, 42)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkTop = TopK(counts, 10)
	}
}

// noisyWords is the input of BenchmarkNoisy; noisyFactor its current work size.
var (
	noisyWords  = Tokenize(GenerateText(4000, 42))
	noisyFactor = 1
)

// BenchmarkNoisy is deliberately noisy: each repetition (-count) counts a
// random prefix of 100..3,900 words, the length drawn log-uniformly, so its
// ns/op varies widely between iterations and between processes (math/rand/v2
// is randomly seeded per process).
//
// The testing package calls a benchmark function with b.N == 1 at the start of
// every repetition, then with growing b.N until the benchtime is reached. The
// size is drawn only at b.N == 1, so one repetition keeps one size and Go's
// b.N prediction stays accurate (iterations stay close to -benchtime).
func BenchmarkNoisy(b *testing.B) {
	if b.N == 1 {
		noisyFactor = int(math.Round(math.Exp2(5.3 * mrand.Float64())))
	}
	words := noisyWords[:100*noisyFactor]
	for i := 0; i < b.N; i++ {
		sinkCounts = CountWordsHash(words)
	}
}
