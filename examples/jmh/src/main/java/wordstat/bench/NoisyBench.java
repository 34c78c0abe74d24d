package wordstat.bench;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import wordstat.Corpus;
import wordstat.WordStat;

/**
 * Deliberately noisy: every iteration counts a different number of words, drawn log-uniformly from 50 to 2000
 * with a per-fork random seed, so iteration-to-iteration and fork-to-fork variation is large (CV well above 10%).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class NoisyBench {

    private static final int MIN_WORDS = 50;
    private static final int MAX_WORDS = 2000;

    private final SplittableRandom random = new SplittableRandom();
    private List<String> allWords;
    private List<String> words;

    @Setup(Level.Trial)
    public void loadWords() {
        allWords = WordStat.tokenize(Corpus.text(MAX_WORDS));
    }

    @Setup(Level.Iteration)
    public void drawWorkSize() {
        double logSize = Math.log(MIN_WORDS) + random.nextDouble() * (Math.log(MAX_WORDS) - Math.log(MIN_WORDS));
        words = allWords.subList(0, (int) Math.round(Math.exp(logSize)));
    }

    @Benchmark
    public Map<String, Integer> noisy() {
        return WordStat.countWordsHash(words);
    }
}
