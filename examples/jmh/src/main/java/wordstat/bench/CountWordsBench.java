package wordstat.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.benchwarden.spl.SPL;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import wordstat.Corpus;
import wordstat.WordStat;

/** The two count_words implementations on the same 1000 words: hash-based should beat tree-based. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CountWordsBench {

    private List<String> words;

    @Setup
    public void setUp() {
        words = WordStat.tokenize(Corpus.text(1000));
    }

    /** The hash-based count is the faster implementation, checked by {@code benchwarden check}. */
    @Benchmark
    @SPL("SELF <= CountWordsBench.countSorted")
    public Map<String, Integer> countHash() {
        return WordStat.countWordsHash(words);
    }

    @Benchmark
    public Map<String, Integer> countSorted() {
        return WordStat.countWordsSorted(words);
    }
}
