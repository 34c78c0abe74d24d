package io.benchwarden.agent;

/**
 * Runtime of the slowdown mode, called by {@link SlowdownAdvice} inlined into the target method.
 *
 * <p>Contract: every <em>outermost</em> activation of the target method on a thread busy-waits for
 * {@code factor × elapsed} after it returns (or throws), where {@code elapsed} is that activation's own
 * wall-clock time including nested and recursive activations. Nested activations (recursion, or the target
 * reached again through a callee on the same thread) add nothing themselves, so the method's total time becomes
 * {@code (1 + factor) ×} its time without injection exactly once, however deep the recursion.
 *
 * <p>Busy-waiting, not {@code Thread.sleep}: sleep cannot resolve microseconds (Laaber &amp; Leitner, MSR 2018,
 * §6, note that their sleep-based injection over-delays short methods). The fixed cost of the bookkeeping itself
 * ({@link #overheadNs}, calibrated once at start-up) is subtracted from each wait, so a method of about a
 * microsecond is still slowed by close to {@code factor}.
 */
public final class Slowdown {

    /** The relative slowdown v: 0.5 makes each outermost activation take 1.5 times as long. */
    public static volatile double factor;
    /** Measured cost of one enter/exit pair (ns), subtracted from each wait. */
    public static volatile long overheadNs;
    /** Nanos returned by {@link #enter()} for a nested activation (no wait at its exit). */
    public static final long NESTED = Long.MIN_VALUE;

    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private Slowdown() {
    }

    /** Called on method entry: the start time for an outermost activation, else {@link #NESTED}. */
    public static long enter() {
        int[] depth = DEPTH.get();
        return depth[0]++ == 0 ? System.nanoTime() : NESTED;
    }

    /** Called on method exit (normal or exceptional) with what {@link #enter()} returned. */
    public static void exit(long startNs) {
        DEPTH.get()[0]--;
        if (startNs == NESTED) {
            return;
        }
        long elapsedNs = System.nanoTime() - startNs;
        long waitNs = (long) (factor * elapsedNs) - overheadNs;
        if (waitNs > 0) {
            spin(waitNs);
        }
    }

    /** Busy-wait for {@code ns} nanoseconds. */
    static void spin(long ns) {
        long end = System.nanoTime() + ns;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /**
     * Measures the cost of an enter/exit pair with no wait (median of 9 rounds of 20,000 pairs, after a warmup
     * that lets the JIT compile both) and stores it in {@link #overheadNs}; the factor is restored afterwards.
     */
    static void calibrate() {
        double saved = factor;
        factor = 0.0;
        overheadNs = 0;
        long[] rounds = new long[9];
        for (int warm = 0; warm < 5; warm++) {
            timePairs(20_000);
        }
        for (int r = 0; r < rounds.length; r++) {
            rounds[r] = timePairs(20_000);
        }
        java.util.Arrays.sort(rounds);
        overheadNs = rounds[rounds.length / 2] / 20_000;
        factor = saved;
    }

    private static long timePairs(int n) {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            exit(enter());
        }
        return System.nanoTime() - start;
    }
}
