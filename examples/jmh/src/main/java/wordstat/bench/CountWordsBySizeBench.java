package wordstat.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.benchwarden.spl.Documents;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import wordstat.Corpus;
import wordstat.WordStat;

/**
 * The hash-based count over 100 to 10000 words: how {@code countWordsHash} grows with its input, the axis of its
 * performance documentation ({@code benchwarden site build}, {@code benchwarden docs --javadoc}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CountWordsBySizeBench {

    @Param({"100", "1000", "10000"})
    public int size;

    private List<String> words;

    @Setup
    public void setUp() {
        words = WordStat.tokenize(Corpus.text(size));
    }

    @Benchmark
    @Documents("wordstat.WordStat#countWordsHash(List)")
    public Map<String, Integer> count() {
        return WordStat.countWordsHash(words);
    }
}
