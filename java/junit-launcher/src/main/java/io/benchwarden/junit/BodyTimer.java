package io.benchwarden.junit;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.DynamicTestInvocationContext;
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

    /**
     * Each dynamic test of a {@code @TestFactory}: its executable only. The factory method itself is not timed: like
     * a parameterized test's argument source it makes the tests, and JUnit runs the lifecycle around it (dynamic
     * tests have none). Jupiter 5.8+ calls this hook; on an older Jupiter it is never called and the dynamic tests are
     * timed by their executions, as before (Main falls back when the bodies seen do not match the tests run).
     */
    @Override
    public void interceptDynamicTest(Invocation<Void> invocation, DynamicTestInvocationContext invocationContext,
                                     ExtensionContext extensionContext) throws Throwable {
        time(invocation);
    }

    @Override
    public void interceptBeforeAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> context,
                                         ExtensionContext extensionContext) throws Throwable {
        lifecycle(invocation);
    }

    @Override
    public void interceptBeforeEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> context,
                                          ExtensionContext extensionContext) throws Throwable {
        lifecycle(invocation);
    }

    @Override
    public void interceptAfterEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> context,
                                         ExtensionContext extensionContext) throws Throwable {
        lifecycle(invocation);
    }

    @Override
    public void interceptAfterAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> context,
                                        ExtensionContext extensionContext) throws Throwable {
        lifecycle(invocation);
    }

    /** While invocations are listed, the lifecycle does not run: only the argument sources and factories do. */
    private static void lifecycle(Invocation<Void> invocation) throws Throwable {
        if (Timings.listing) {
            invocation.skip();
        } else {
            invocation.proceed();
        }
    }

    private static void time(Invocation<Void> invocation) throws Throwable {
        if (Timings.listing) {
            invocation.skip();  // listing: the invocation is named, its body does not run
            return;
        }
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
