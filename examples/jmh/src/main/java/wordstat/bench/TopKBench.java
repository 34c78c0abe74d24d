package wordstat.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import wordstat.Corpus;
import wordstat.WordStat;

/**
 * top_k in throughput mode (ops/ms). {@code k} comes from the system property {@code wordstat.k}, which only
 * {@code @Fork(jvmArgsAppend)} sets: if a runner drops the annotation's JVM arguments, setup fails loudly.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(jvmArgsAppend = {"-Dwordstat.k=10"})
public class TopKBench {

    private Map<String, Integer> counts;
    private int k;

    @Setup
    public void setUp() {
        String kProperty = System.getProperty("wordstat.k");
        if (kProperty == null) {
            throw new IllegalStateException("system property wordstat.k is not set: @Fork(jvmArgsAppend) was not applied");
        }
        k = Integer.parseInt(kProperty);
        counts = WordStat.countWordsHash(WordStat.tokenize(Corpus.text(1000)));
    }

    @Benchmark
    public List<String> topK() {
        return WordStat.topK(counts, k);
    }
}
