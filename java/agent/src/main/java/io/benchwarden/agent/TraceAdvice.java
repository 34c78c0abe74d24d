package io.benchwarden.agent;

import net.bytebuddy.asm.Advice;

/** Inlined into every traced method: count the call under the method's constant name. */
public final class TraceAdvice {

    private TraceAdvice() {
    }

    @Advice.OnMethodEnter
    public static void enter(@Advice.Origin("#t|#m|#s") String origin) {
        Tracer.hit(origin);
    }
}
