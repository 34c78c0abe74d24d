package wordstat

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	got := Tokenize("Hello, World!  go-test 42x\tTHE end.")
	want := []string{"hello", "world", "go", "test", "42x", "the", "end"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Tokenize = %q, want %q", got, want)
	}
	if n := len(Tokenize("  ,. ")); n != 0 {
		t.Fatalf("Tokenize of separators gave %d words", n)
	}
}

func TestEveryTokenizerAgrees(t *testing.T) {
	text := GenerateText(2000, 5)
	want := tokenizeFast(text)
	for _, slow := range []string{"1", "large", "small", "medium", "alloc"} {
		if got := chooseTokenizer(slow)(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("WORDSTAT_SLOW=%s gives other words", slow)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an unknown WORDSTAT_SLOW value must not silently pick a tokenizer")
		}
	}()
	chooseTokenizer("tiny")
}

func TestSlowTokenizeAgrees(t *testing.T) {
	text := GenerateText(1000, 7)
	if !reflect.DeepEqual(tokenizeSlow(text), tokenizeFast(text)) {
		t.Fatal("tokenizeSlow and tokenizeFast disagree")
	}
}

func TestGenerateTextDeterministic(t *testing.T) {
	a, b := GenerateText(100, 1), GenerateText(100, 1)
	if a != b {
		t.Fatal("same seed gave different texts")
	}
	if GenerateText(100, 2) == a {
		t.Fatal("different seeds gave the same text")
	}
	if n := len(Tokenize(a)); n != 100 {
		t.Fatalf("GenerateText(100) has %d words", n)
	}
}

func TestCountImplementationsAgree(t *testing.T) {
	words := Tokenize(GenerateText(1000, 3))
	h, s := CountWordsHash(words), CountWordsSorted(words)
	if !reflect.DeepEqual(h, s) {
		t.Fatal("CountWordsHash and CountWordsSorted disagree")
	}
	total := 0
	for _, c := range h {
		total += c
	}
	if total != 1000 {
		t.Fatalf("counts sum to %d, want 1000", total)
	}
}

func TestTopK(t *testing.T) {
	counts := map[string]int{"b": 2, "a": 2, "c": 5, "d": 1}
	got := TopK(counts, 3)
	want := []WordCount{{"c", 5}, {"a", 2}, {"b", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("TopK = %v, want %v", got, want)
	}
	if len(TopK(counts, 10)) != 4 || len(TopK(counts, -1)) != 0 {
		t.Fatal("TopK bounds wrong")
	}
}

func TestCapitalizeWords(t *testing.T) {
	if got := CapitalizeWords("hello, big world-wide 3d"); got != "Hello, Big World-Wide 3d" {
		t.Fatalf("CapitalizeWords = %q", got)
	}
}
