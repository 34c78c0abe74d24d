package io.benchwarden.jmh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * benchwarden's {@code metric = "cpu"} for JMH: the CPU time per operation of the benchmark JVM, every thread
 * except the JIT compilers', as the secondary result {@code cpu [ns/op]} of each iteration.
 *
 * <p>JMH calls {@link #beforeIteration} and {@link #afterIteration} in the forked benchmark JVM around each
 * iteration. Each call reads, for every thread of this process, the time it spent on a CPU in nanoseconds (the
 * first field of Linux's {@code /proc/self/task/TID/schedstat}, the scheduler's {@code sum_exec_runtime}). The
 * iteration's CPU time is the sum over the threads alive after it of their growth since before it (a thread
 * started during the iteration counts from zero; one that ended during it is lost). The benchmark threads, the
 * garbage collector (the cost of what the benchmark allocates) and the VM's own threads count; the JIT compiler
 * threads ({@code C1/C2 CompilerThread}, {@code JVMCI}, the code-cache sweeper) do not: compiling is the JVM's
 * work on the benchmark, not work per operation, and it comes in bursts whose timing differs from fork to fork.
 * Dividing by JMH's measured operations of the iteration gives nanoseconds per operation. Another process on the
 * same core takes no CPU time from this one, which is why this metric stays steady on a loaded machine where the
 * wall time does not (docs/metrics.md).
 *
 * <p>Compiled by benchwarden against the suite's own benchmarks jar (which holds JMH) on first use; Java 8 API
 * only. Where {@code /proc/self/task} cannot be read (not Linux) it reports nothing, and benchwarden stops the
 * fork with the reason.
 */
public final class CpuTimeProfiler implements InternalProfiler {

    private static final Path TASKS = Paths.get("/proc/self/task");

    private Map<String, Long> before = Collections.emptyMap();

    @Override
    public String getDescription() {
        return "benchwarden: CPU time per operation of every thread of the benchmark JVM except the JIT compilers "
                + "(Linux schedstat)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = readThreads();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
                                                       IterationParams iterationParams, IterationResult result) {
        Map<String, Long> after = readThreads();
        long ops = result.getMetadata().getMeasuredOps();
        if (after.isEmpty() || ops <= 0) {
            return Collections.emptyList();
        }
        long cpu = 0;
        for (Map.Entry<String, Long> thread : after.entrySet()) {
            Long start = before.get(thread.getKey());
            cpu += Math.max(0L, thread.getValue() - (start == null ? 0L : start));
        }
        return Collections.singletonList(new ScalarResult("cpu", (double) cpu / ops, "ns/op", AggregationPolicy.AVG));
    }

    /** Nanoseconds on a CPU so far per thread id, JIT compiler threads left out; empty when unreadable. */
    static Map<String, Long> readThreads() {
        Map<String, Long> threads = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    if (isCompiler(read(task.resolve("comm")))) {
                        continue;
                    }
                    String schedstat = read(task.resolve("schedstat"));
                    int end = schedstat.indexOf(' ');
                    threads.put(task.getFileName().toString(),
                            Long.parseLong(end < 0 ? schedstat : schedstat.substring(0, end)));
                } catch (IOException | NumberFormatException threadEnded) {
                    // the thread ended while it was read: like any thread that ends during an iteration, its last
                    // share is lost (JMH's own threads live through the whole fork)
                }
            }
        } catch (IOException notLinux) {
            return Collections.emptyMap();
        }
        return threads;
    }

    static boolean isCompiler(String threadName) {
        return threadName.startsWith("C1 CompilerThre") || threadName.startsWith("C2 CompilerThre")
                || threadName.startsWith("JVMCI") || threadName.startsWith("Sweeper thread");
    }

    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
    }
}
