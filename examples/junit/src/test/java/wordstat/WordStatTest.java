package wordstat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * wordstat's unit tests, as a project would have them. benchwarden measures each test method as a workload
 * (kind = "junit"): the body of the method is timed; {@code setUp} runs before every execution, untimed.
 */
class WordStatTest {

    private String text;

    @BeforeEach
    void setUp() {
        text = Corpus.text(10_000);  // the corpus of the benchmarks' largest size
    }

    @Test
    void tokenizeFindsEveryWord() {
        List<String> words = WordStat.tokenize(text);
        assertEquals(10_000, words.size());
        assertTrue(words.stream().allMatch(w -> w.equals(w.toLowerCase())), "words are lower case");
    }

    @Test
    void countsAddUpToTheWords() {
        Map<String, Integer> counts = WordStat.countWordsHash(WordStat.tokenize(text));
        assertEquals(10_000, counts.values().stream().mapToInt(Integer::intValue).sum());
        assertEquals(counts, WordStat.countWordsSorted(WordStat.tokenize(text)));
    }

    @Test
    void topThreeAreTheMostFrequent() {
        Map<String, Integer> counts = WordStat.countWordsHash(WordStat.tokenize(text));
        List<String> top = WordStat.topK(counts, 3);
        assertEquals(3, top.size());
        for (String word : counts.keySet()) {
            if (!top.contains(word)) {
                assertTrue(counts.get(word) <= counts.get(top.get(2)), word + " is more frequent than " + top);
            }
        }
    }

    @Test
    void capitalizeLeavesSeparators() {
        assertEquals("The Quick, Brown-Fox", WordStat.capitalizeWords("the quick, brown-fox"));
    }
}
