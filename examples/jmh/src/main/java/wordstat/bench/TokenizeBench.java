package wordstat.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
import io.benchwarden.spl.Documents;
import io.benchwarden.spl.SPL;
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

/** tokenize over 100, 1000 and 10000 words: the parameterised benchmark, and the one the slowdown affects. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TokenizeBench {

    @Param({"100", "1000", "10000"})
    public int size;

    private String text;

    @Setup
    public void setUp() {
        text = Corpus.text(size);
    }

    /** Linear scaling, checked by {@code benchwarden check}: 1000 words cost at most 12 times 100 words. */
    @Benchmark
    @SPL("SELF(1000) <= 15 * SELF(100)")
    @Documents("wordstat.WordStat#tokenize(String)")
    public List<String> tokenize() {
        return WordStat.tokenize(text);
    }
}
