package io.benchwarden.junit;

/**
 * What the {@link BodyTimer} measured, read by {@link Main} after each execution of the test. No JUnit types here:
 * a JUnit 4 project (vintage engine) has no Jupiter API on its classpath, and Main must load without it.
 */
final class Timings {
    /** Set by Main while it runs the selected test; the timer records nothing otherwise. */
    static volatile boolean active;
    /**
     * Set by Main while it lists the invocations of test templates and factories: they run with every body and
     * every lifecycle method skipped, only to be named.
     */
    static volatile boolean listing;
    /** Body executions timed since the last {@link #reset}, and their summed wall and thread-CPU nanoseconds. */
    static long bodies;
    static long wallNanos;
    static long cpuNanos;

    private Timings() {
    }

    static synchronized void reset() {
        bodies = 0;
        wallNanos = 0;
        cpuNanos = 0;
    }

    static synchronized void add(long wall, long cpu) {
        bodies++;
        wallNanos += wall;
        cpuNanos += cpu;
    }
}
