package io.benchwarden.agent;

import net.bytebuddy.asm.Advice;

/** Inlined into a target method that calls itself: only the outermost activation waits (see {@link Slowdown}). */
public final class RecursiveSlowdownAdvice {

    private RecursiveSlowdownAdvice() {
    }

    @Advice.OnMethodEnter
    public static long enter() {
        return Slowdown.enter();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter long startNs) {
        Slowdown.exit(startNs);
    }
}
