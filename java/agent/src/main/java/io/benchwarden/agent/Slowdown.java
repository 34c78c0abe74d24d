package io.benchwarden.agent;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Runtime of the slowdown mode, called by {@link SlowdownAdvice} inlined into the target method.
 *
 * <p>Contract: every activation of the target method busy-waits for {@code factor × elapsed} after it returns
 * (or throws), where {@code elapsed} is that activation's own wall-clock time, so the method's total time
 * becomes {@code (1 + factor) ×} its time without injection.
 *
 * <p>Two kinds of bookkeeping, chosen per method by {@link SelfCalls}:
 * <ul>
 * <li>a method that does not call itself (the common case) gets {@link SlowdownAdvice}: two clock reads and
 * nothing else ({@link #exitPlain}). Any per-thread state inlined into the target changes how the JIT compiles
 * it: a {@code ThreadLocal} depth counter made a 1–4 µs arithmetic loop 11–15 % slower by itself on an AMD EPYC
 * VM (JDK 17, factor 0), and so every injected slowdown ~25 % too large (issue #20, docs/assess.md);
 * <li>a method that calls itself gets {@link RecursiveSlowdownAdvice}: only the <em>outermost</em> activation on
 * a thread waits, for {@code factor ×} its whole elapsed time including the nested activations, so deep
 * recursion is slowed once, not compounded ({@link #enter}, {@link #exit}).
 * </ul>
 * Indirect recursion (a → b → a) is not detected and compounds, as in the Go rewriter.
 *
 * <p>Which clock ({@link #cpuClock}, the agent's {@code clock=cpu}): the wall clock ({@code System.nanoTime()}) by
 * default, or the thread's CPU clock ({@link ThreadMXBean#getCurrentThreadCpuTime()}) for a suite measured in CPU
 * time. On a loaded machine an activation preempted part-way is charged the lost slice on the wall clock and repays
 * it as burnt CPU, which a CPU-time measurement sees as more than {@code factor}; on the CPU clock it is timed and
 * repaid in CPU time only. The CPU clock costs more per read (a system call, not the vDSO: ~1.3 µs on the 2-core
 * VM), so fewer activations are precise; {@link #clockNs} is measured on the clock in use, and the CPU-clock exits
 * also subtract the read inside {@code elapsed} slowed by {@code factor} (negligible on the wall clock, which keeps
 * its formula). Each clock has its own advice classes, so the
 * wall-clock advice inlined into a target is what it was before the CPU clock existed.
 *
 * <p>Busy-waiting, not {@code Thread.sleep}: sleep cannot resolve microseconds (Laaber &amp; Leitner, MSR 2018,
 * §6, note that their sleep-based injection over-delays short methods). The fixed cost of the bookkeeping itself
 * ({@link #overheadNs}, calibrated once at start-up) is subtracted from each wait, so a method of about a
 * microsecond is still slowed by close to {@code factor}.
 */
public final class Slowdown {

    /** Whether activations are timed and waited on the thread's CPU clock; set before {@link #calibrate()}. */
    public static volatile boolean cpuClock;

    /** Loaded on the first CPU-clock read only: a wall-clock JVM does not load java.management. */
    private static final class Cpu {
        static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    }
    /** The relative slowdown v: 0.5 makes each outermost activation take 1.5 times as long. */
    public static volatile double factor;
    /** Measured cost of one enter/exit pair of the recursion-aware bookkeeping (ns), subtracted from each wait. */
    public static volatile long overheadNs;
    /** Measured cost of one plain enter/exit pair (two clock reads, ns), subtracted from each wait. */
    public static volatile long plainOverheadNs;
    /** Measured cost of one {@code System.nanoTime()} (ns): how far past its deadline a busy wait can end. */
    public static volatile long clockNs;
    /** Outermost activations slowed so far, and their total elapsed time before waiting (racy under threads:
     * for the precision estimate only, see {@link #activationsLine}). */
    static long activations;
    static long elapsedTotalNs;
    static long shortActivations;
    /** Nanos returned by {@link #enter()} for a nested activation (no wait at its exit). */
    public static final long NESTED = Long.MIN_VALUE;

    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private Slowdown() {
    }

    /** This thread's CPU time in nanoseconds (user + system), the clock of {@code clock=cpu}. */
    public static long cpuNow() {
        return Cpu.THREADS.getCurrentThreadCpuTime();
    }

    /** The clock in use, for the calibration (the advice classes read theirs directly). */
    private static long now() {
        return cpuClock ? cpuNow() : System.nanoTime();
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
        long nowNs = System.nanoTime();
        long elapsedNs = nowNs - startNs;
        long waitNs = (long) (factor * elapsedNs) - overheadNs - clockNs / 2;
        count(elapsedNs, waitNs);
        if (waitNs > 0) {
            spinUntil(nowNs + waitNs);
        }
    }

    /** {@link #enter()} on the CPU clock. */
    public static long enterCpu() {
        int[] depth = DEPTH.get();
        return depth[0]++ == 0 ? cpuNow() : NESTED;
    }

    /** {@link #exit(long)} on the CPU clock. */
    public static void exitCpu(long startNs) {
        DEPTH.get()[0]--;
        if (startNs == NESTED) {
            return;
        }
        repayCpu(startNs, overheadNs);
    }

    /** {@link #exitPlain(long)} on the CPU clock: wait {@code factor ×} this activation's own CPU time. */
    public static void exitPlainCpu(long startNs) {
        repayCpu(startNs, plainOverheadNs);
    }

    /**
     * The CPU-clock wait of an activation that started at {@code startNs}: {@code factor ×} its CPU time less the
     * read inside it, less the bookkeeping ({@code overhead}) and the spin's last half read.
     */
    private static void repayCpu(long startNs, long overhead) {
        long nowNs = cpuNow();
        long elapsedNs = nowNs - startNs;
        long waitNs = (long) (factor * (elapsedNs - clockNs)) - overhead - clockNs / 2;
        count(elapsedNs, waitNs);
        if (waitNs > 0) {
            spinUntilCpu(nowNs + waitNs);
        }
    }

    /** Exit of a method that does not call itself: wait {@code factor ×} this activation's elapsed time. */
    public static void exitPlain(long startNs) {
        long nowNs = System.nanoTime();
        long elapsedNs = nowNs - startNs;
        long waitNs = (long) (factor * elapsedNs) - plainOverheadNs - clockNs / 2;
        count(elapsedNs, waitNs);
        if (waitNs > 0) {
            spinUntil(nowNs + waitNs);
        }
    }

    /**
     * Counts an activation; it is <em>short</em> when its wait is under 5 clock reads, so the busy wait's
     * overshoot (up to one clock read) can exceed 20 % of it.
     */
    private static void count(long elapsedNs, long waitNs) {
        activations++;
        elapsedTotalNs += elapsedNs;
        if (waitNs < 5 * clockNs) {
            shortActivations++;
        }
    }

    /** Busy-wait for {@code ns} nanoseconds. */
    static void spin(long ns) {
        spinUntil(System.nanoTime() + ns);
    }

    /**
     * Busy-wait until {@code System.nanoTime()} passes {@code endNs}, counted from the clock read the exit already
     * made (a fresh read would add one clock read to every wait). The last read ends on average about half a
     * clock read late, which the exits subtract ({@code clockNs / 2}).
     */
    static void spinUntil(long endNs) {
        while (System.nanoTime() - endNs < 0) {
            Thread.onSpinWait();
        }
    }

    /** Busy-wait until this thread's CPU time passes {@code endNs} (as {@link #spinUntil(long)}). */
    static void spinUntilCpu(long endNs) {
        while (cpuNow() - endNs < 0) {
            Thread.onSpinWait();
        }
    }

    /**
     * Measures the cost of each kind of enter/exit pair with no wait (median of 9 rounds of 20,000 pairs, 2,000 on
     * the CPU clock, after a warmup that lets the JIT compile them) and stores it in {@link #overheadNs} and {@link #plainOverheadNs};
     * the factor is restored afterwards.
     */
    static void calibrate() {
        if (cpuClock && !(Cpu.THREADS.isCurrentThreadCpuTimeSupported() && Cpu.THREADS.isThreadCpuTimeEnabled())) {
            throw new IllegalStateException("clock=cpu: this JVM cannot read a thread's CPU time");
        }
        double saved = factor;
        factor = 0.0;
        overheadNs = 0;
        plainOverheadNs = 0;
        overheadNs = medianPairNs(false);
        plainOverheadNs = medianPairNs(true);
        clockNs = medianClockNs();
        activations = 0;
        elapsedTotalNs = 0;
        shortActivations = 0;
        factor = saved;
    }

    /**
     * The report line written at JVM exit: how many activations were slowed, their mean elapsed time, and the
     * clock's cost, from which benchwarden estimates how precisely v was injected into this method.
     */
    static String activationsLine(String method) {
        long n = activations;
        return "{\"v\":1,\"event\":\"activations\",\"method\":\"" + Json.escape(method) + "\",\"activations\":" + n
                + ",\"short\":" + shortActivations + ",\"mean_elapsed_ns\":" + (n == 0 ? 0.0 : (double) elapsedTotalNs / n)
                + ",\"clock_ns\":" + clockNs
                + ",\"overhead_ns\":" + plainOverheadNs + "}";
    }

    /**
     * Calls per calibration round: 20,000 on the wall clock; 2,000 on the CPU clock, whose reads cost ~50 times as
     * much, so that the calibration adds ~0.2 s to a JVM's start-up there rather than ~2 s.
     */
    private static int calibrationCalls() {
        return cpuClock ? 2_000 : 20_000;
    }

    private static long medianClockNs() {
        int calls = calibrationCalls();
        long[] rounds = new long[9];
        long sink = 0;
        for (int r = 0; r < rounds.length + 3; r++) {
            long start = now();
            for (int i = 0; i < calls; i++) {
                sink += now();
            }
            if (r >= 3) {
                rounds[r - 3] = now() - start;
            }
        }
        java.util.Arrays.sort(rounds);
        return rounds[rounds.length / 2] / calls + (sink == 42 ? 1 : 0);
    }

    private static long medianPairNs(boolean plain) {
        int calls = calibrationCalls();
        long[] rounds = new long[9];
        for (int warm = 0; warm < 5; warm++) {
            timePairs(calls, plain);
        }
        for (int r = 0; r < rounds.length; r++) {
            rounds[r] = timePairs(calls, plain);
        }
        java.util.Arrays.sort(rounds);
        return rounds[rounds.length / 2] / calls;
    }

    private static long timePairs(int n, boolean plain) {
        boolean cpu = cpuClock;
        long start = now();
        for (int i = 0; i < n; i++) {
            if (cpu) {
                if (plain) {
                    exitPlainCpu(cpuNow());
                } else {
                    exitCpu(enterCpu());
                }
            } else if (plain) {
                exitPlain(System.nanoTime());
            } else {
                exit(enter());
            }
        }
        return now() - start;
    }
}
