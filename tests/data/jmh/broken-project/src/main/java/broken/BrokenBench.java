package broken;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Benchmarks that misbehave on purpose, for benchwarden's tests: each one runs two good iterations and then
 * crashes, hangs, prints garbage into the middle of JMH's iteration line, or kills its JVM.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BrokenBench {

    /** Iterations that behave before the misbehaviour starts. */
    static final int GOOD_ITERATIONS = 2;

    private int iteration;
    private boolean printedThisIteration;
    private long x = 1;

    @Setup(Level.Iteration)
    public void countIteration() {
        iteration++;
        printedThisIteration = false;
    }

    private boolean misbehaving() {
        return iteration > GOOD_ITERATIONS;
    }

    private long work() {
        x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    @Benchmark
    public long crash() {
        if (misbehaving()) {
            throw new IllegalStateException("deliberate crash in iteration " + iteration);
        }
        return work();
    }

    @Benchmark
    public long hang() throws InterruptedException {
        if (misbehaving()) {
            Thread.sleep(Long.MAX_VALUE);
        }
        return work();
    }

    @Benchmark
    public long garbage() {
        if (misbehaving() && !printedThisIteration) {
            printedThisIteration = true;
            System.out.print("garbage!");
        }
        return work();
    }

    @Benchmark
    public long exitVm() {
        if (misbehaving()) {
            Runtime.getRuntime().halt(3);
        }
        return work();
    }

    /** Well-behaved, in two modes at once: listed as two benchmarks, run with {@code -bm}. */
    @Benchmark
    @BenchmarkMode({Mode.Throughput, Mode.AverageTime})
    public long fine() {
        return work();
    }
}
