package io.benchwarden.jmh;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Test probe (tests/e2e/test_jmh_adapter.py): does {@link CpuTimeProfiler#readThreads} leave out this JVM's real
 * JIT compiler threads, and only them? Reads every thread's name and schedstat CPU time directly, and the
 * profiler's view, before and after about half a second of varied work that keeps the compilers busy, and
 * prints one line per thread: {@code tid<TAB>name<TAB>cpu ns grown<TAB>seen by the profiler (0/1)<TAB>profiler's
 * growth}. The test decides; this program only reports.
 */
public final class JitProbe {

    private static final Path TASKS = Paths.get("/proc/self/task");

    public static void main(String[] args) throws IOException {
        Map<String, Long> allBefore = allThreads();
        Map<String, Long> profiledBefore = CpuTimeProfiler.readThreads();
        long sink = work(500_000_000L);
        Map<String, Long> allAfter = allThreads();
        Map<String, Long> profiledAfter = CpuTimeProfiler.readThreads();
        Map<String, String> names = names();
        for (Map.Entry<String, Long> thread : allAfter.entrySet()) {
            String tid = thread.getKey();
            long grown = thread.getValue() - allBefore.getOrDefault(tid, 0L);
            boolean seen = profiledAfter.containsKey(tid);
            long profiled = seen ? profiledAfter.get(tid) - profiledBefore.getOrDefault(tid, 0L) : 0L;
            System.out.println(tid + "\t" + names.getOrDefault(tid, "?") + "\t" + grown + "\t" + (seen ? 1 : 0)
                    + "\t" + profiled);
        }
        System.err.println("sink " + sink);
    }

    /** Varied code (regular expressions, big integers, string building) for about {@code nanos}: new methods get
     *  hot all along, so C1 and C2 have work throughout. */
    private static long work(long nanos) {
        long sink = 0;
        long end = System.nanoTime() + nanos;
        Pattern pattern = Pattern.compile("([a-z]+)(\\d+)");
        BigInteger big = BigInteger.ONE;
        for (int i = 0; System.nanoTime() < end; i++) {
            StringBuilder text = new StringBuilder();
            for (int j = 0; j < 20; j++) {
                text.append((char) ('a' + (i + j) % 26)).append(j * i % 97);
            }
            sink += pattern.matcher(text).results().count();
            big = big.multiply(BigInteger.valueOf(i + 3)).mod(BigInteger.valueOf(1_000_000_007L));
            sink += big.intValue() + Integer.toHexString(i).hashCode() + String.valueOf(i * 0.5).length();
        }
        return sink;
    }

    private static Map<String, Long> allThreads() throws IOException {
        Map<String, Long> threads = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                String schedstat = read(task.resolve("schedstat"));
                threads.put(task.getFileName().toString(), Long.parseLong(schedstat.split(" ")[0]));
            }
        }
        return threads;
    }

    private static Map<String, String> names() throws IOException {
        Map<String, String> names = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                names.put(task.getFileName().toString(), read(task.resolve("comm")));
            }
        }
        return names;
    }

    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
    }
}
