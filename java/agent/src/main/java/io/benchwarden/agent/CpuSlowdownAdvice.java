package io.benchwarden.agent;

import net.bytebuddy.asm.Advice;

/** {@link SlowdownAdvice} on the thread's CPU clock ({@code clock=cpu}, see {@link Slowdown}). */
public final class CpuSlowdownAdvice {

    private CpuSlowdownAdvice() {
    }

    @Advice.OnMethodEnter
    public static long enter() {
        return Slowdown.cpuNow();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter long startNs) {
        Slowdown.exitPlainCpu(startNs);
    }
}
