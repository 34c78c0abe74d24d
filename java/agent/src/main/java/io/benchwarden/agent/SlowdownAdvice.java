package io.benchwarden.agent;

import net.bytebuddy.asm.Advice;

/**
 * Inlined into a target method that does not call itself: a clock read at entry, a busy wait of
 * {@code factor ×} the elapsed time at exit (normal or exceptional); no per-thread state (see {@link Slowdown}).
 */
public final class SlowdownAdvice {

    private SlowdownAdvice() {
    }

    @Advice.OnMethodEnter
    public static long enter() {
        return System.nanoTime();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter long startNs) {
        Slowdown.exitPlain(startNs);
    }
}
