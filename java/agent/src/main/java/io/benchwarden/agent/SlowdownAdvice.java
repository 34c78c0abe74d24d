package io.benchwarden.agent;

import net.bytebuddy.asm.Advice;

/** Inlined into the target method: time the activation, busy-wait at exit (see {@link Slowdown}). */
public final class SlowdownAdvice {

    private SlowdownAdvice() {
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
