package probe;

import java.util.Arrays;

/**
 * A tiny program for the agent's tests (tests/unit/assess/test_java_agent.py).
 *
 * <p>{@code time}: prints the ns per call of {@link #work} (the injection target) and of
 * {@link #workTwin} (the same body, never instrumented), measured interleaved in this JVM, so the ratio of the
 * two is the injected slowdown with JVM-to-JVM variation cancelled out. Each is the 10th percentile of the
 * rounds: a round that shared its core with another process is slower, and a slowed one by (1 + v) times the
 * disturbance, so the low percentile (as timeit's minimum) is what the code itself costs.
 * {@code recursive}: the same for {@link #recurse} against {@link #recurseTwin}. Both take {@code n rounds [cpu]}:
 * with {@code cpu} the rounds are timed in this thread's CPU time.
 * {@code trace}: makes a known number of calls to public and non-public methods.
 * {@code nap}: the fastest of 15 alternated calls of {@link #nap} and {@link #napTwin} (2-ms sleeps).
 */
public final class Probe {

    static volatile long sink;

    private Probe() {
    }

    /** About 2 µs of arithmetic for n = 2000 on a current x86 core. */
    public static long work(int n) {
        long acc = 17;
        for (int i = 0; i < n; i++) {
            acc = acc * 31 + (acc >>> 7) + i;
        }
        return acc;
    }

    public static long workTwin(int n) {
        long acc = 17;
        for (int i = 0; i < n; i++) {
            acc = acc * 31 + (acc >>> 7) + i;
        }
        return acc;
    }

    public static long recurse(int depth, int n) {
        return depth == 0 ? workTwin(n) : recurse(depth - 1, n) + 1;
    }

    public static long recurseTwin(int depth, int n) {
        return depth == 0 ? workTwin(n) : recurseTwin(depth - 1, n) + 1;
    }

    /** Sleeps 2 ms: wall time without CPU time (the clock test). */
    public static void nap() {
        sleep2ms();
    }

    public static void napTwin() {
        sleep2ms();
    }

    private static void sleep2ms() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static int add(int a, int b) {
        return a + b;
    }

    public static int add(int a, int b, int c) {
        return a + b + c;
    }

    static int hidden(int a) {
        return a * 2;
    }

    public static void main(String[] args) {
        String mode = args[0];
        if (mode.equals("trace")) {
            long s = 0;
            for (int i = 0; i < 1234; i++) {
                s += add(i, 1);
            }
            for (int i = 0; i < 56; i++) {
                s += add(i, 1, 2) + hidden(i);
            }
            s += work(10);
            sink = s;
            return;
        }
        if (mode.equals("nap")) {
            long slowed = Long.MAX_VALUE;
            long twin = Long.MAX_VALUE;
            for (int i = 0; i < 15; i++) {
                long start = System.nanoTime();
                nap();
                slowed = Math.min(slowed, System.nanoTime() - start);
                start = System.nanoTime();
                napTwin();
                twin = Math.min(twin, System.nanoTime() - start);
            }
            System.out.println("{\"v\":1,\"slowed_ns\":" + slowed + ",\"twin_ns\":" + twin + "}");
            return;
        }
        boolean recursive = mode.equals("recursive");
        int n = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        cpuTime = args.length > 3 && args[3].equals("cpu");
        int calls = 200;
        long[] slowed = new long[rounds];
        long[] twin = new long[rounds];
        for (int warm = 0; warm < 3; warm++) {
            measure(recursive, true, n, 2000);
            measure(recursive, false, n, 2000);
        }
        for (int r = 0; r < rounds; r++) {
            slowed[r] = measure(recursive, true, n, calls);
            twin[r] = measure(recursive, false, n, calls);
        }
        System.out.println("{\"v\":1,\"slowed_ns\":" + low(slowed) / calls + ",\"twin_ns\":" + low(twin) / calls + "}");
    }

    /** Rounds timed in this thread's CPU time (a 4th argument "cpu"), not wall time. */
    private static boolean cpuTime;

    private static long now() {
        return cpuTime ? java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()
                : System.nanoTime();
    }

    private static long measure(boolean recursive, boolean target, int n, int calls) {
        long start = now();
        long s = 0;
        for (int i = 0; i < calls; i++) {
            if (recursive) {
                s += target ? recurse(5, n) : recurseTwin(5, n);
            } else {
                s += target ? work(n) : workTwin(n);
            }
        }
        sink = s;
        return now() - start;
    }

    private static double low(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 10];
    }
}
