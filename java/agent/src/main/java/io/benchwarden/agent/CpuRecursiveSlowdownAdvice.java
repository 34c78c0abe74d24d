package io.benchwarden.agent;

import net.bytebuddy.asm.Advice;

/** {@link RecursiveSlowdownAdvice} on the thread's CPU clock ({@code clock=cpu}, see {@link Slowdown}). */
public final class CpuRecursiveSlowdownAdvice {

    private CpuRecursiveSlowdownAdvice() {
    }

    @Advice.OnMethodEnter
    public static long enter() {
        return Slowdown.enterCpu();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter long startNs) {
        Slowdown.exitCpu(startNs);
    }
}
