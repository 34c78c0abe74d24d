package io.benchwarden.junit;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Times the test method's body only: not the instance's creation, not {@code @BeforeEach}/{@code @AfterEach}, not
 * other extensions' callbacks (KoPeMe's rule: the lifecycle runs around each repetition as JUnit runs it, untimed).
 * Registered by {@code META-INF/services} and switched on by Main's request
 * ({@code junit.jupiter.extensions.autodetection.enabled}): the project's tests are not modified.
 */
public final class BodyTimer implements InvocationInterceptor {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
                                    ExtensionContext extensionContext) throws Throwable {
        time(invocation);
    }

    /** Each invocation of a test template ({@code @ParameterizedTest}, {@code @RepeatedTest}): its body only. */
    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation,
                                            ReflectiveInvocationContext<Method> invocationContext,
                                            ExtensionContext extensionContext) throws Throwable {
        time(invocation);
    }

    private static void time(Invocation<Void> invocation) throws Throwable {
        if (!Timings.active) {
            invocation.proceed();
            return;
        }
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        try {
            invocation.proceed();
        } finally {
            long wall = System.nanoTime() - wall0;
            long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
            Timings.add(wall, cpu);
        }
    }
}
