package wordstat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * wordstat: a tiny text-statistics library, the subject of benchwarden's example suites.
 *
 * <p>The same library exists in Go and Python (examples/go, examples/python) so that results read the same
 * across languages. {@link #tokenize} has <em>switchable slowdowns</em>, chosen by the system property
 * {@code wordstat.slow} or else the environment variable {@code WORDSTAT_SLOW} (every variant returns the
 * same words): {@code true}/{@code 1}/{@code large} selects a "tidy-up" that regresses ~1.7x; {@code small}
 * returns an unmodifiable copy of the word list (about +7 %); {@code medium} strips every word (about +15 %)
 * (sizes measured in docs/performance.md, "The examples' switchable changes"); {@code alloc} scans a
 * {@code char[]} copy of the text, a change that allocates more (the text's length in chars, ~13 kB per
 * 1000 words) and no slower, for the allocation metrics ({@code -prof gc}) to find. They give
 * comparisons and assessments real regressions to find. {@link #capitalizeWords} is public but deliberately reached by no
 * benchmark.
 */
public final class WordStat {

    /** The switchable slowdown selected ("" = none); decided once per JVM. */
    public static final String SLOW = slowSelected(System.getProperty("wordstat.slow"), System.getenv("WORDSTAT_SLOW"));

    private WordStat() {
    }

    /** The variant named by the property (first) or the environment variable; an unknown name is an error. */
    static String slowSelected(String property, String environment) {
        String value = property != null ? property : environment == null ? "" : environment;
        switch (value) {
            case "":
            case "0":
            case "false":
                return "";
            case "1":
            case "true":
            case "large":
                return "large";
            case "small":
            case "medium":
            case "alloc":
                return value;
            default:
                throw new IllegalArgumentException("wordstat.slow / WORDSTAT_SLOW = '" + value
                        + "': expected true, 1, large, small, medium or alloc");
        }
    }

    /** Splits {@code text} into lowercase words: maximal runs of letters; everything else separates. */
    public static List<String> tokenize(String text) {
        switch (SLOW) {
            case "large":
                return tokenizeNaive(text);
            case "small":
                return tokenizeUnmodifiable(text);
            case "medium":
                return tokenizeStripped(text);
            case "alloc":
                return tokenizeCharArray(text);
            default:
                return tokenizeOnePass(text);
        }
    }

    /** The small switchable change: hand out an unmodifiable copy of the words ("don't leak internals"). */
    static List<String> tokenizeUnmodifiable(String text) {
        return List.copyOf(tokenizeOnePass(text));
    }

    /** The medium switchable change: {@link #tokenizeOnePass} with every word stripped, "just in case". */
    static List<String> tokenizeStripped(String text) {
        List<String> words = new ArrayList<>();
        char[] word = new char[32];
        int len = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (isLetter(c)) {
                if (len == word.length) {
                    word = Arrays.copyOf(word, len * 2);
                }
                word[len++] = Character.toLowerCase(c);
            } else if (len > 0) {
                words.add(new String(word, 0, len).strip());
                len = 0;
            }
        }
        if (len > 0) {
            words.add(new String(word, 0, len).strip());
        }
        return words;
    }

    /**
     * The allocating switchable change: {@link #tokenizeOnePass} over a {@code char[]} copy of the text
     * ("array access is faster than charAt"). The same words; one extra array of the text's length per call,
     * which escape analysis cannot remove (its size is not a small constant).
     */
    static List<String> tokenizeCharArray(String text) {
        char[] chars = text.toCharArray();
        List<String> words = new ArrayList<>();
        char[] word = new char[32];
        int len = 0;
        for (char c : chars) {
            if (isLetter(c)) {
                if (len == word.length) {
                    word = Arrays.copyOf(word, len * 2);
                }
                word[len++] = Character.toLowerCase(c);
            } else if (len > 0) {
                words.add(new String(word, 0, len));
                len = 0;
            }
        }
        if (len > 0) {
            words.add(new String(word, 0, len));
        }
        return words;
    }

    /** One scan over the text, ASCII fast path for the letter test. */
    static List<String> tokenizeOnePass(String text) {
        List<String> words = new ArrayList<>();
        char[] word = new char[32];
        int len = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (isLetter(c)) {
                if (len == word.length) {
                    word = Arrays.copyOf(word, len * 2);
                }
                word[len++] = Character.toLowerCase(c);
            } else if (len > 0) {
                words.add(new String(word, 0, len));
                len = 0;
            }
        }
        if (len > 0) {
            words.add(new String(word, 0, len));
        }
        return words;
    }

    /** Separators: maximal runs of non-letters ({@code \p{L}} is {@link Character#isLetter}, the test {@link #isLetter} makes). */
    private static final Pattern SEPARATORS = Pattern.compile("[^\\p{L}]+");

    /**
     * The slow variant, the kind of "tidy-up" that regresses: split at a regular expression, then filter and
     * lower-case each word in a stream. Same result as {@link #tokenizeOnePass} on the example's text (the two
     * can differ only for the few letters whose lower case depends on context, such as the Greek final sigma).
     * Measured 1.7x the time of {@link #tokenizeOnePass} under JMH (2.5x in a plain loop) on 1000 words,
     * JDK 17: a regression that stands out of this machine's noise even in short runs.
     */
    static List<String> tokenizeNaive(String text) {
        return Arrays.stream(SEPARATORS.split(text))
                .filter(w -> !w.isEmpty())
                .map(w -> w.toLowerCase(Locale.ROOT))
                .collect(Collectors.toList());
    }

    private static boolean isLetter(char c) {
        if (c < 128) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }
        return Character.isLetter(c);
    }

    /** Word counts with a hash map (expected O(n)). */
    public static Map<String, Integer> countWordsHash(List<String> words) {
        Map<String, Integer> counts = new HashMap<>();
        for (String w : words) {
            counts.merge(w, 1, Integer::sum);
        }
        return counts;
    }

    /** Word counts with a sorted tree map (O(n log m)); same counts as {@link #countWordsHash}, keys sorted. */
    public static Map<String, Integer> countWordsSorted(List<String> words) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String w : words) {
            counts.merge(w, 1, Integer::sum);
        }
        return counts;
    }

    /** The {@code k} most frequent words, most frequent first; ties go to the alphabetically smaller word. */
    public static List<String> topK(Map<String, Integer> counts, int k) {
        if (k <= 0) {
            return new ArrayList<>();
        }
        Comparator<Map.Entry<String, Integer>> better = Map.Entry.<String, Integer>comparingByValue()
                .thenComparing(Map.Entry.<String, Integer>comparingByKey().reversed());
        PriorityQueue<Map.Entry<String, Integer>> heap = new PriorityQueue<>(k + 1, better);
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            heap.add(e);
            if (heap.size() > k) {
                heap.poll();
            }
        }
        List<String> top = new ArrayList<>(heap.size());
        while (!heap.isEmpty()) {
            top.add(heap.poll().getKey());
        }
        java.util.Collections.reverse(top);
        return top;
    }

    /** Upper-cases the first letter of every word; other characters unchanged. Reached by no benchmark. */
    public static String capitalizeWords(String text) {
        StringBuilder out = new StringBuilder(text.length());
        boolean atWordStart = true;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            boolean letter = isLetter(c);
            out.append(letter && atWordStart ? Character.toUpperCase(c) : c);
            atWordStart = !letter;
        }
        return out.toString();
    }
}
