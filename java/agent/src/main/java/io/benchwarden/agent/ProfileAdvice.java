package io.benchwarden.agent;

import net.bytebuddy.asm.Advice;

/** Inlined into every profiled method: a call-tree node entered and left, timed (see {@link Profiler}). */
public final class ProfileAdvice {

    private ProfileAdvice() {
    }

    @Advice.OnMethodEnter
    public static boolean enter(@Advice.Origin("#t|#m|#s") String origin) {
        return Profiler.enter(origin);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.Enter boolean entered) {
        if (entered) {
            Profiler.exit();
        }
    }
}
