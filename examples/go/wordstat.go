// Package wordstat is benchwarden's example library: tiny text statistics
// (tokenize, count words two ways, top-k), implemented identically in the
// JMH, Go and Python example suites so that results read the same across
// languages.
//
// Two things exist only to give benchwarden something real to find:
//   - switchable slowdowns of Tokenize, chosen by WORDSTAT_SLOW in the environment
//     (every variant returns the same words):
//     WORDSTAT_SLOW=1 (or "large"): a "tidy-up" that regresses, 2-3x;
//     WORDSTAT_SLOW=small: the letter test through unicode.IsLetter, about +4 %;
//     WORDSTAT_SLOW=medium: the upper-case check through unicode.IsUpper, about +10 %
//     (sizes measured in docs/performance.md, "The examples' switchable changes");
//     WORDSTAT_SLOW=alloc: a defensive copy of the word list, one more allocation
//     of 16 B per word (+81 % B/op), for the allocation metrics to find; its time
//     cost is mostly the collector's (+28 % CPU time measured under load);
//   - CapitalizeWords is exported but deliberately reached by no benchmark.
package wordstat

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenizer is chosen once per process from WORDSTAT_SLOW: every benchmark fork
// is a fresh process, so the environment of the fork decides.
var tokenizer = chooseTokenizer(os.Getenv("WORDSTAT_SLOW"))

func chooseTokenizer(slow string) func(string) []string {
	switch slow {
	case "", "0":
		return tokenizeFast
	case "1", "large":
		return tokenizeSlow
	case "small":
		return tokenizeUnicodeLetters
	case "medium":
		return tokenizeUnicodeUpper
	case "alloc":
		return tokenizeCopied
	}
	panic(fmt.Sprintf("WORDSTAT_SLOW=%q: expected 1, large, small, medium or alloc", slow))
}

// vocabulary is the fixed word list the generated text draws from. Mixed case
// and the punctuation added by GenerateText exercise Tokenize's lowercasing
// and splitting.
var vocabulary = []string{
	"the", "Benchmark", "of", "fork", "and", "iteration", "to", "warmup",
	"a", "JVM", "in", "result", "is", "measure", "that", "noise",
	"for", "steady", "it", "state", "with", "compiler", "as", "cache",
	"on", "branch", "be", "memory", "at", "garbage", "by", "collector",
	"this", "thread", "from", "kernel", "or", "scheduler", "have", "frequency",
	"not", "turbo", "but", "boost", "what", "variance", "all", "median",
	"were", "percentile", "we", "interval", "when", "confidence", "your", "sample",
	"can", "regression", "said", "commit", "there", "suite", "use", "coverage",
}

// GenerateText returns a deterministic pseudo-random text of exactly `words`
// words for the given seed. Word frequencies are skewed (low vocabulary
// indices are more frequent), sentences start with a capital letter and some
// words are followed by punctuation.
func GenerateText(words int, seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	var sb strings.Builder
	for i := 0; i < words; i++ {
		w := vocabulary[rng.Intn(rng.Intn(len(vocabulary))+1)]
		if i%12 == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		sb.WriteString(w)
		switch {
		case i == words-1:
			sb.WriteString(".")
		case i%12 == 11:
			sb.WriteString(". ")
		case i%5 == 4:
			sb.WriteString(", ")
		default:
			sb.WriteString(" ")
		}
	}
	return sb.String()
}

// Tokenize splits text into lowercase words. A word is a maximal run of ASCII
// letters and digits; everything else separates words.
func Tokenize(text string) []string {
	return tokenizer(text)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// tokenizeFast scans the bytes once and lowercases each word in place of a
// fresh buffer only when it contains an upper-case letter.
func tokenizeFast(text string) []string {
	words := make([]string, 0, len(text)/5)
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isWordByte(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, lowerASCII(text[start:i]))
			start = -1
		}
	}
	return words
}

// tokenizeUnicodeLetters is the small switchable change (WORDSTAT_SLOW=small):
// tokenizeFast with a well-meant "Unicode-correct" letter test, unicode.IsLetter
// on every byte instead of the ASCII range check. The same words on this text
// (every byte is ASCII); about 4 % slower.
func tokenizeUnicodeLetters(text string) []string {
	words := make([]string, 0, len(text)/5)
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && (unicode.IsLetter(rune(text[i])) || text[i] >= '0' && text[i] <= '9') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, lowerASCII(text[start:i]))
			start = -1
		}
	}
	return words
}

// tokenizeUnicodeUpper is the medium switchable change (WORDSTAT_SLOW=medium):
// tokenizeFast whose check "does this word need lowercasing?" decodes runes and
// asks unicode.IsUpper. The same words; about 10 % slower.
func tokenizeUnicodeUpper(text string) []string {
	words := make([]string, 0, len(text)/5)
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isWordByte(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, lowerUnicode(text[start:i]))
			start = -1
		}
	}
	return words
}

// tokenizeCopied is the allocating switchable change (WORDSTAT_SLOW=alloc):
// tokenizeFast whose result is handed out as a copy ("callers must not share
// our slice"). The same words; one more allocation per call, as large as the
// word list (16 B per word). Few extra instructions (+1.9 %), but more work for
// the collector.
func tokenizeCopied(text string) []string {
	return slices.Clone(tokenizeFast(text))
}

func lowerUnicode(w string) string {
	for _, r := range w {
		if unicode.IsUpper(r) {
			return strings.ToLower(w)
		}
	}
	return w
}

func lowerASCII(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// tokenizeSlow is the switchable slowdown, the kind of "tidy-up" that
// regresses: strings.FieldsFunc splits at every rune that is not an ASCII
// letter or digit, then every word is lowercased through strings.ToLower (no
// upper-case shortcut). Same result as tokenizeFast.
func tokenizeSlow(text string) []string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return r >= utf8.RuneSelf || !(unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return words
}

// CountWordsHash counts occurrences with a hash map.
func CountWordsHash(words []string) map[string]int {
	counts := make(map[string]int)
	for _, w := range words {
		counts[w]++
	}
	return counts
}

// CountWordsSorted counts occurrences by sorting a copy of the words and
// counting runs of equal words: O(n log n), the tree/sort-based alternative
// to CountWordsHash (same result).
func CountWordsSorted(words []string) map[string]int {
	sorted := slices.Clone(words)
	slices.Sort(sorted)
	counts := make(map[string]int)
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		counts[sorted[i]] = j - i
		i = j
	}
	return counts
}

// WordCount is one entry of TopK's result.
type WordCount struct {
	Word  string
	Count int
}

// TopK returns the k most frequent words, most frequent first; ties are
// broken alphabetically. k larger than the number of distinct words returns
// all of them; k <= 0 returns an empty slice.
func TopK(counts map[string]int, k int) []WordCount {
	all := make([]WordCount, 0, len(counts))
	for w, c := range counts {
		all = append(all, WordCount{w, c})
	}
	slices.SortFunc(all, func(a, b WordCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Word, b.Word)
	})
	if k < 0 {
		k = 0
	}
	return all[:min(k, len(all))]
}

// CapitalizeWords upper-cases the first letter of every word and keeps the
// separators. It is deliberately reached by no benchmark (and called by no
// other function), so that benchmark-coverage assessment has a gap to find.
func CapitalizeWords(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); i++ {
		if isWordByte(b[i]) && (i == 0 || !isWordByte(b[i-1])) && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}
