package wordstat;

import java.util.SplittableRandom;

/** Deterministic input text: words drawn with a fixed seed from a fixed vocabulary, with case and punctuation. */
public final class Corpus {

    /** The fixed vocabulary (shared with the Go and Python examples). */
    public static final String[] VOCABULARY = {
        "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "benchmark", "fork",
        "iteration", "warmup", "measure", "noise", "signal", "median", "mean", "variance", "sample", "time",
        "java", "virtual", "machine", "compiler", "inline", "loop", "cache", "branch", "memory", "thread",
        "word", "count", "token", "text", "stream", "result", "stable", "steady", "state", "run",
    };

    private static final String[] SEPARATORS = {" ", " ", " ", ", ", ". ", "; ", " - ", "\n"};

    private Corpus() {
    }

    /** {@code words} words of text; the same {@code seed} always gives the same text. */
    public static String text(int words, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder(words * 8);
        for (int i = 0; i < words; i++) {
            // Zipf-like skew: low indices are more frequent, so top-k has a clear answer.
            int idx = (int) (VOCABULARY.length * Math.pow(rnd.nextDouble(), 2.0));
            String w = VOCABULARY[idx];
            if (rnd.nextInt(8) == 0) {
                w = Character.toUpperCase(w.charAt(0)) + w.substring(1);
            }
            sb.append(w).append(SEPARATORS[rnd.nextInt(SEPARATORS.length)]);
        }
        return sb.toString();
    }

    /** The default text used by the benchmarks (seed 42). */
    public static String text(int words) {
        return text(words, 42L);
    }
}
